#!/usr/bin/env python3
"""End-to-end checks of the OTF2 reader plugin (run by CTest, see CMakeLists.txt).

  check_otf2.py prepare WORK OTF2_GEN
      WORK/scenario/ (+ WORK/expected.json) written by otf2_gen, and damaged
      copies: WORK/bad-<name>/ (see DAMAGE).
  check_otf2.py convert WORK SLOG2 TIMEORDER [JAR]
      `slog2 convert WORK/scenario/traces.otf2` WITHOUT --trace-lib (the
      plugin is found by discovery), then every drawable of
      `slog2 query --format json` is compared with expected.json (as a
      multiset: the file order is the tree's), `slog2 check` must pass, the
      C client TIMEORDER (trace_check_timeorder linked to libslog2, so it reads
      the OTF2 archive through libslog2's TRACE_Open and the same discovery)
      must pass, and the unmapped record kind must be reported on stderr.
      With JAR (slog2printserial.jar, local runs only) the reference reader
      must read the file without error.
  check_otf2.py errors WORK SLOG2
      every damaged archive: the conversion fails with a message naming the
      archive (and the location where there is one), the same with
      --threads 1, and leaves no output.
  check_otf2.py spill WORK SLOG2 TIMEORDER OTF2_GEN
      the many-locations path (otf2_grouped.c: locations read in groups through
      sorted runs), forced with SLOG2_OTF2_OPEN_LOCATIONS=2: `convert` and
      `errors` above again, and the .slog2 files (and stderr reports) of the
      scenario and of a 64-rank archive are byte-identical to the direct path;
      so are those read without slog2's bulk extension (SLOG2_TRACE_NO_EXT=1:
      the standard TRACE calls, one primitive at a time), and on the
      converting thread (--threads 1), on both paths.
  check_otf2.py many WORK SLOG2 OTF2_GEN LOCATIONS MAX_MB
      an archive of LOCATIONS ranks (otf2_gen bench) converts with a peak RSS
      of at most MAX_MB (issue #27: memory bounded by what is open, not by the
      number of locations), and `slog2 check` passes.
"""
import json
import os
import shutil
import subprocess
import sys

DAMAGE = {
    # name: (what to do, expected message regex part)
    # the CLI names the missing anchor itself, before looking for the plugin
    # (issue #26: a missing .otf2 path reported a missing plugin in the build tree)
    "missing": "I/O error on .*traces.otf2: No such file",
    "anchor-truncated": "not a readable OTF2 anchor file",
    "anchor-garbage": "not a readable OTF2 anchor file",
    # an anchor declaring 352 million properties in 20 bytes: libotf2 would
    # calloc 5.6 GB for them (found by the otf2 fuzz target)
    "anchor-properties": "not a readable OTF2 anchor file: it declares 352321536 properties",
    # an anchor of over 1 MiB (real ones are a few hundred bytes) is not read whole
    "anchor-huge": "not a readable OTF2 anchor file \\(over 1048576 bytes",
    # found by the otf2 fuzz target: a definition whose member count makes
    # libotf2 malloc 32 GB before it reads a member (archives/defs-huge-count.bin);
    # the system refuses, libotf2 and the plugin report it
    "defs-huge-count": "reading the global definitions failed",
    "version": "archive written by OTF2 9",
    "defs-truncated": "reading the global definitions failed",
    "evt-missing": 'location 2 "MPI Rank" \\(rank 2, thread 0\\): cannot open its event file',
    "evt-truncated": 'location 2 "MPI Rank" \\(rank 2, thread 0\\): its event file (is damaged|ends after)',
    # a 20-byte event file: libotf2 fails either when the global reader opens it or when
    # it reads no event from it; both are reported naming the location
    "evt-head": 'location 2 "MPI Rank" \\(rank 2, thread 0\\): its event file (is damaged|ends after 0 of)',
    "evt-short": 'location 2 "MPI Rank" \\(rank 2, thread 0\\): its event file ends after 10 of the 11',
}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


SEP = b"\n--slog2-otf2-file--\n"
FILES = ["traces.otf2", "traces.def"] + ["traces/%d.%s" % (i, e) for i in range(8) for e in ("def", "evt")]


def unpack(packed, out):
    """An archive kept as one file (the otf2 fuzz target's input form: the
    files of FILES joined by SEP) into the directory out."""
    os.makedirs(os.path.join(out, "traces"))
    with open(packed, "rb") as f:
        parts = f.read().split(SEP)
    for name, data in zip(FILES, parts):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


def prepare(work, gen):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    scen = os.path.join(work, "scenario")
    r = run([gen, "scenario", scen, os.path.join(work, "expected.json")])
    if r.returncode != 0:
        fail("otf2_gen: " + r.stderr)

    def copy(name):
        d = os.path.join(work, "bad-" + name)
        shutil.copytree(scen, d)
        return d

    def cut(path, keep):
        with open(path, "rb") as f:
            b = f.read()
        with open(path, "wb") as f:
            f.write(b[: keep(len(b))])

    os.makedirs(os.path.join(work, "bad-missing"))  # no traces.otf2 inside
    cut(os.path.join(copy("anchor-truncated"), "traces.otf2"), lambda n: 20)
    with open(os.path.join(copy("anchor-garbage"), "traces.otf2"), "wb") as f:
        f.write(b"\x03\x42OTF2" + bytes(range(200)))
    p = os.path.join(copy("version"), "traces.otf2")
    with open(p, "rb") as f:
        b = bytearray(f.read())
    b[9] = 9  # the archive's major OTF2 version
    with open(p, "wb") as f:
        f.write(b)
    p = os.path.join(copy("anchor-properties"), "traces.otf2")
    with open(p, "rb") as f:
        b = bytearray(f.read())
    at = 8 + 38
    for _ in range(3):  # machine, creator, description
        at = b.index(0, at) + 1
    b[at:at + 4] = (0x15000000).to_bytes(4, "little")
    with open(p, "wb") as f:
        f.write(b)
    unpack(os.path.join(os.path.dirname(os.path.abspath(__file__)), "archives", "defs-huge-count.bin"),
           os.path.join(work, "bad-defs-huge-count"))
    with open(os.path.join(copy("anchor-huge"), "traces.otf2"), "ab") as f:
        f.write(bytes(1 << 20))
    cut(os.path.join(copy("defs-truncated"), "traces.def"), lambda n: n // 2)
    os.remove(os.path.join(copy("evt-missing"), "traces", "2.evt"))
    cut(os.path.join(copy("evt-truncated"), "traces", "2.evt"), lambda n: n // 2)
    cut(os.path.join(copy("evt-head"), "traces", "2.evt"), lambda n: 20)
    # location 2 declares one event more than its file holds (a file cut at
    # a record boundary): libotf2 reads 10 events without complaint; only
    # the declared count tells.
    r = run([gen, "scenario-short", os.path.join(work, "bad-evt-short"), os.path.join(work, "short.json")])
    if r.returncode != 0:
        fail("otf2_gen: " + r.stderr)


def key(d):
    return (d["name"], d["kind"], json.dumps([[round(t, 9), y] for t, y in d["vertices"]]), d["info"])


def convert(work, slog2, timeorder, jar=None, outdir=None):
    anchor = os.path.join(work, "scenario", "traces.otf2")
    out = os.path.join(outdir or work, "scenario.slog2")
    if os.path.exists(out):
        os.remove(out)
    r = run([slog2, "convert", "-q", anchor, "-o", out])
    if r.returncode != 0:
        fail("convert: " + r.stderr)
    if "ParameterInt 1" not in r.stderr or "1 regions still open at the end" not in r.stderr:
        fail("convert: the unmapped record / closed region report is missing from stderr:\n" + r.stderr)
    r = run([slog2, "query", out, "--format", "json"])
    if r.returncode != 0:
        fail("query: " + r.stderr)
    got = sorted(key(d) for d in json.loads(r.stdout))
    with open(os.path.join(work, "expected.json")) as f:
        want = sorted(key(d) for d in json.load(f))
    if got != want:
        missing = [w for w in want if w not in got]
        extra = [g for g in got if g not in want]
        fail("drawables differ\n  missing: %s\n  unexpected: %s" % (missing, extra))
    print("ok: %d drawables as written" % len(got))
    r = run([slog2, "info", out, "--json"])
    info = json.loads(r.stdout) if r.returncode == 0 else fail("info: " + r.stderr)
    text = json.dumps(info)
    for needle in ('"OTF2 locations"', '"rank"', '"thread"', '"node"', '"node_parent"'):
        if needle not in text:
            fail("info: y-map %s missing: %s" % (needle, text[:2000]))
    r = run([slog2, "check", out])
    if r.returncode != 0:
        fail("check: " + r.stdout + r.stderr)
    print("ok: " + r.stdout.strip())
    r = run([timeorder, anchor])
    if r.returncode != 0 or not r.stdout.startswith("Passed: %d drawables" % len(want)):
        fail("trace_check_timeorder over libslog2: rc %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    print("ok: trace_check_timeorder: " + r.stdout.strip())
    if jar:
        r = run(["java", "-jar", jar, out])
        if r.returncode != 0 or "Exception" in r.stdout + r.stderr:
            fail("slog2printserial: rc %d\n%s" % (r.returncode, (r.stdout + r.stderr)[-2000:]))
        print("ok: slog2printserial.jar read %d lines" % len(r.stdout.splitlines()))


def errors(work, slog2, outdir=None):
    import re

    outdir = outdir or work
    for name, msg in DAMAGE.items():
        d = os.path.join(work, "bad-" + name)
        target = os.path.join(d, "traces.otf2")
        out = os.path.join(outdir, "bad-%s.slog2" % name)
        if os.path.exists(out):
            os.remove(out)
        # read ahead on a thread (the default), and on the converting thread
        # (--threads 1: the plugin source's own batches of the bulk extension)
        first = None
        for threads in ([], ["--threads", "1"]):
            r = run([slog2, "convert", "-q"] + threads + [target, "-o", out])
            if r.returncode == 0:
                fail("%s %s: conversion succeeded" % (name, threads))
            if target not in r.stderr or not re.search(msg, r.stderr):
                fail("%s %s: message does not name %s / match %r:\n%s" % (name, threads, target, msg, r.stderr))
            # libotf2's own report on a cut file may vary (valgrind.supp)
            ours = re.sub(r"\(libotf2: .*", "", r.stderr)
            if first is not None and ours != first:
                fail("%s: --threads 1 reports differently:\n%s\nvs\n%s" % (name, ours, first))
            first = ours
            if os.path.exists(out):
                fail("%s %s: an output file was left behind" % (name, threads))
        left = [f for f in os.listdir(outdir) if f.startswith("bad-%s.slog2" % name) or ".tmp" in f]
        if left:
            fail("%s: temporary files left: %s" % (name, left))
        print("ok: %s: %s" % (name, r.stderr.strip().splitlines()[-1][:200]))


def convert_with(slog2, anchor, out, open_locations, no_ext=False, threads=None):
    """`slog2 convert` with SLOG2_OTF2_OPEN_LOCATIONS set (None: unset),
    and with SLOG2_TRACE_NO_EXT=1 when `no_ext`; returns the output's bytes
    and the stderr report."""
    env = dict(os.environ)
    env.pop("SLOG2_OTF2_OPEN_LOCATIONS", None)
    env.pop("SLOG2_TRACE_NO_EXT", None)
    if no_ext:
        env["SLOG2_TRACE_NO_EXT"] = "1"
    if open_locations is not None:
        env["SLOG2_OTF2_OPEN_LOCATIONS"] = str(open_locations)
    r = run([slog2, "convert", "-q"] + (["--threads", str(threads)] if threads else []) + [anchor, "-o", out], env=env)
    if r.returncode != 0:
        fail("convert %s (open locations %s): %s" % (anchor, open_locations, r.stderr))
    with open(out, "rb") as f:
        return f.read(), r.stderr


def spill(work, slog2, timeorder, gen):
    outdir = os.path.join(work, "spill")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    os.environ["SLOG2_OTF2_OPEN_LOCATIONS"] = "2"  # 5 locations: 3 groups
    convert(work, slog2, timeorder, outdir=outdir)
    errors(work, slog2, outdir=outdir)
    del os.environ["SLOG2_OTF2_OPEN_LOCATIONS"]
    wide = os.path.join(outdir, "wide")
    r = run([gen, "bench", wide, "20000", "64"])
    if r.returncode != 0:
        fail("otf2_gen: " + r.stderr)
    for name, anchor, direct, groups in (("scenario", os.path.join(work, "scenario", "traces.otf2"), None, [1, 2, 3]),
                                         ("64 ranks", os.path.join(wide, "traces.otf2"), 64, [None, 5, 1])):
        want = convert_with(slog2, anchor, os.path.join(outdir, "direct.slog2"), direct)
        for k, no_ext, threads in [(k, x, t) for k in [direct] + groups for x in (False, True) for t in (None, 1)]:
            if k == direct and not no_ext and not threads:
                continue
            how = "groups of %s locations%s%s" % (k, " without the bulk extension" if no_ext else "",
                                                  " on one thread" if threads else "")
            got = convert_with(slog2, anchor, os.path.join(outdir, "grouped.slog2"), k, no_ext, threads)
            if got[0] != want[0]:
                fail("%s: %s give a different .slog2 than the direct path" % (name, how))
            if got[1] != want[1]:
                fail("%s: %s report differently:\n%s\nvs direct:\n%s" % (name, how, got[1], want[1]))
        print("ok: %s: groups of %s locations, with and without the bulk extension, read ahead or not, give the "
              "direct path's %d bytes" % (name, groups, len(want[0])))


def many(work, slog2, gen, locations, max_mb):
    d = os.path.join(work, "many")
    shutil.rmtree(d, ignore_errors=True)
    r = run([gen, "bench", d, str(2 * int(locations)), locations])
    if r.returncode != 0:
        fail("otf2_gen: " + r.stderr)
    out = os.path.join(work, "many.slog2")
    env = dict(os.environ)
    env.pop("SLOG2_OTF2_OPEN_LOCATIONS", None)
    log = os.path.join(work, "many.stderr")
    with open(log, "w") as errf:
        # wait4: the peak RSS of this child alone
        p = subprocess.Popen([slog2, "convert", "-q", os.path.join(d, "traces.otf2"), "-o", out], env=env,
                             stdout=subprocess.DEVNULL, stderr=errf)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        with open(log) as f:
            fail("convert of %s locations failed (rc %d): %s" % (locations, p.returncode, f.read()))
    rss_mb = usage.ru_maxrss / 1024
    if rss_mb > float(max_mb):
        fail("converting %s locations took %.1f MB peak RSS (bound %s MB)" % (locations, rss_mb, max_mb))
    print("ok: %s locations converted with %.1f MB peak RSS (bound %s MB)" % (locations, rss_mb, max_mb))
    r = run([slog2, "check", out])
    if r.returncode != 0:
        fail("check: " + r.stdout + r.stderr)
    print("ok: " + r.stdout.strip())
    shutil.rmtree(d, ignore_errors=True)


def main():
    a = sys.argv[1:]
    if len(a) == 3 and a[0] == "prepare":
        prepare(a[1], a[2])
    elif len(a) in (4, 5) and a[0] == "convert":
        convert(*a[1:])
    elif len(a) == 3 and a[0] == "errors":
        errors(a[1], a[2])
    elif len(a) == 5 and a[0] == "spill":
        spill(*a[1:])
    elif len(a) == 6 and a[0] == "many":
        many(*a[1:])
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
