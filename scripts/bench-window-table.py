#!/usr/bin/env python3
"""Turn the output of scripts/bench-window.sh into the fair table of BENCHMARKS.md.

    scripts/bench-window.sh FILE 5 | tee run.txt
    scripts/bench-window-table.py NAME < run.txt          # summary rows, medians of rounds
    scripts/bench-window-table.py NAME --rounds < run.txt  # one row per round as well

Per (timed work, kind of line): the medians over the rounds of ours' and the
reference's p50 / p99 / mean wall time and CPU time per line, and the medians
of the per-round ratios reference / ours (bold when >= 10x). Below the table:
rows per window on each side, whether the checksums of the pass matched in
every round, the load averages seen, the reference's GC and JIT activity
during its timed lines, and the whole-process CPU (user + system) of each
side's replays.
"""
import re
import statistics
import sys

FIELD = re.compile(r"(\w+)=(\S+)")


def parse(lines):
    rounds = []
    for line in lines:
        head, _, rest = line.partition(" ")
        f = dict(FIELD.findall(rest))
        if head == "ROUND":
            rounds.append({"load": f["load"], "results": {}, "info": [], "time": {}})
        elif head == "RESULT" and rounds:
            rounds[-1]["results"][(f["variant"], f["kind"], f["side"])] = f
        elif head == "INFO" and rounds:
            rounds[-1]["info"].append(f)
        elif head == "TIME" and rounds:
            cpu = float(f["user"]) + float(f["sys"])
            rounds[-1]["time"][(f["variant"], f["side"])] = cpu
    return rounds


def ratio(x):
    s = "%.1f×" % x
    return "**%s**" % s if x >= 10 else s


def us(x):
    return "%.0f" % x if x >= 100 else "%.1f" % x


def row(name, variant, kind, rs):
    """One table row from the results of one or more rounds (medians)."""
    med = statistics.median
    ours = {m: med(float(r["ours"][m]) for r in rs) for m in ("p50", "p99", "mean", "cpu")}
    ref = {m: med(float(r["ref"][m]) for r in rs) for m in ("p50", "p99", "mean", "cpu")}
    rat = {m: med(float(r["ref"][m]) / float(r["ours"][m]) for r in rs) for m in ours}
    what = "update + pass" if variant == "pass" else "update only"
    return "| %s | %s | %s | %s / %s / %s | %s | %s / %s / %s | %s | %s / %s / %s / %s |" % (
        name, what, kind,
        us(ours["p50"]), us(ours["p99"]), us(ours["mean"]), us(ours["cpu"]),
        us(ref["p50"]), us(ref["p99"]), us(ref["mean"]), us(ref["cpu"]),
        ratio(rat["p50"]), ratio(rat["p99"]), ratio(rat["mean"]), ratio(rat["cpu"]),
    )


def main():
    args = sys.argv[1:]
    per_round = "--rounds" in args
    args = [a for a in args if a != "--rounds"]
    name = args[0] if args else "file"
    rounds = parse(sys.stdin)
    if not rounds:
        sys.exit("no ROUND lines on stdin (the output of scripts/bench-window.sh)")
    print("| file | timed | kind | ours p50 / p99 / mean µs | ours CPU µs | reference p50 / p99 / mean µs"
          " | reference CPU µs | **ratio** p50 / p99 / mean / CPU |")
    print("|---|---|---|---|---|---|---|---|")
    notes = []
    for variant in ("update", "pass"):
        for kind in ("jump", "scroll"):
            rs = []
            for r in rounds:
                got = {s: r["results"].get((variant, kind, s)) for s in ("ours", "ref")}
                if got["ours"] and got["ref"]:
                    rs.append(got)
            if not rs:
                continue
            if per_round:
                for i, one in enumerate(rs, 1):
                    print(row("%s, round %d" % (name, i), variant, kind, [one]))
            print(row(name + (", median" if per_round else ""), variant, kind, rs))
            if variant == "pass":
                same = sum(1 for r in rs if r["ours"]["sum"] == r["ref"]["sum"]
                           and r["ours"]["touched"] == r["ref"]["touched"])
                rows_o = statistics.median(float(r["ours"]["rows"]) for r in rs)
                rows_r = statistics.median(float(r["ref"]["rows"]) for r in rs)
                comps = statistics.median(int(r["ours"]["composites"]) for r in rs)
                notes.append("%s %s: rows per window ours %.1f, reference %.1f; composites touched "
                             "per run %d; rows and checksums equal in %d of %d rounds"
                             % (name, kind, rows_o, rows_r, comps, same, len(rs)))
    loads = [r["load"] for r in rounds]
    notes.append("load averages (1/5/15 min) at the rounds' starts: " + ", ".join(loads))
    infos = [i for r in rounds for i in r["info"]]
    if infos:
        notes.append("reference: depth root %s, start %s, lowest reached %s; shadows met %s; "
                     "GC during timed lines %s collections (%s ms), JIT %s ms (per run, max)"
                     % (infos[0]["depth_root"], infos[0]["depth_init"],
                        "/".join(sorted({i["lowest_depth"] for i in infos})),
                        max(int(i["shadows"]) for i in infos),
                        max(int(i["gc"]) for i in infos), max(int(i["gc_ms"]) for i in infos),
                        max(int(i["jit_ms"]) for i in infos)))
    for variant in ("update", "pass"):
        cpu = {s: [r["time"][(variant, s)] for r in rounds if (variant, s) in r["time"]]
               for s in ("ours", "ref")}
        if cpu["ours"] and cpu["ref"]:
            notes.append("whole replay process (%s), user + system CPU, median: ours %.2f s, "
                         "reference %.2f s" % (variant, statistics.median(cpu["ours"]),
                                               statistics.median(cpu["ref"])))
    print()
    for n in notes:
        print("- " + n)


if __name__ == "__main__":
    main()
