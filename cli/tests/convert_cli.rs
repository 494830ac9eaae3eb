//! The converter and the CLI end to end, against the reference fixtures.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_slog2")
}

fn samples() -> PathBuf {
    common::fixture("trace-sample")
}

fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(bin()).args(args).output().expect("run slog2");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Compare two dumps line by line. Lines may differ only in the float text
/// of category ratios (Java sums them in hash-map order: last-bit
/// differences); those values must agree within 1e-6 relative.
fn same_dump(reference: &str, ours: &str, what: &str) {
    let a: Vec<&str> = reference.lines().collect();
    let b: Vec<&str> = ours.lines().collect();
    assert_eq!(a.len(), b.len(), "{what}: line counts differ");
    let ratio_re = |s: &str| -> (String, Vec<f64>) {
        let mut masked = String::new();
        let mut vals = Vec::new();
        let mut rest = s;
        while let Some(i) = rest.find("ratios=") {
            masked.push_str(&rest[..i + 7]);
            let tail = &rest[i + 7..];
            let end = tail.find(", count").unwrap_or(tail.len());
            for v in tail[..end].split(',') {
                vals.push(v.parse::<f64>().unwrap_or(f64::NAN));
            }
            masked.push('#');
            rest = &tail[end..];
        }
        masked.push_str(rest);
        (masked, vals)
    };
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        if x == y {
            continue;
        }
        let (mx, vx) = ratio_re(x);
        let (my, vy) = ratio_re(y);
        assert_eq!(mx, my, "{what}: line {} differs beyond ratio text", i + 1);
        for (p, q) in vx.iter().zip(&vy) {
            assert!(
                (p - q).abs() <= 1e-6 * p.abs().max(q.abs()),
                "{what}: line {}: ratio {p} vs {q}",
                i + 1
            );
        }
    }
}

#[test]
fn sample_traces_convert_to_the_reference_dump() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["data", "arrow", "onetimeline"] {
        let out = dir.path().join(format!("{name}.slog2"));
        let input = samples().join(format!("{name}.txt"));
        let (code, _, err) = run(&[
            "convert",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(err.contains("drawables"), "summary paragraph: {err}");
        let (code, ours, err) = run(&["print", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        let reference =
            std::fs::read_to_string(samples().join(format!("{name}.print.txt"))).unwrap();
        // The reference dump's header names the file layout (pointers): equal
        // too, since the bytes are laid out identically.
        same_dump(&reference, &ours, name);
        let (code, out_check, _) = run(&["check", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{out_check}");
    }
}

#[test]
fn out_of_order_and_malformed_files_fail_naming_the_record() {
    let dir = tempfile::tempdir().unwrap();
    // (file, expected drawable number, expected line) per the fixtures README.
    // A bad composite member is named by its own line (the composite is line
    // 17, its members lines 18-20): errtime6/8 member 1, errtime9 member 2;
    // errtime5's own box is wrong, so the composite's line.
    let bad = [
        ("errtime1", "#4", ":15)"),
        ("errtime2", "#4", ":15)"),
        ("errtime4", "#4", ":15)"),
        ("errtime5", "#6", ":17)"),
        ("errtime6", "#6", ":19)"),
        ("errtime8", "#6", ":19)"),
        ("errtime9", "#6", ":20)"),
    ];
    for (name, num, line) in bad {
        let out = dir.path().join(format!("{name}.slog2"));
        std::fs::write(&out, b"old contents").unwrap();
        let input = samples().join(format!("{name}.txt"));
        let (code, _, err) = run(&[
            "convert",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_ne!(code, 0, "{name} must be rejected");
        assert!(
            err.contains(num) && err.contains(&format!("{name}.txt{line}")),
            "{name}: {err}"
        );
        assert_eq!(
            std::fs::read(&out).unwrap(),
            b"old contents",
            "{name}: existing output untouched"
        );
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "{name}: no temporary file left");
        std::fs::remove_file(&out).unwrap();
        let (code, _, _) = run(&[
            "convert",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_ne!(code, 0);
        assert!(!out.exists(), "{name}: no output file");
    }
    for name in ["errtime3", "errtime7"] {
        let out = dir.path().join(format!("{name}.slog2"));
        let input = samples().join(format!("{name}.txt"));
        let (code, _, err) = run(&[
            "convert",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{name} is valid: {err}");
    }
    // The member's line with the parallel parser and in warn mode too.
    let input = samples().join("errtime9.txt");
    let out = dir.path().join("e9.slog2");
    for extra in [["--threads", "2"], ["--check-order", "warn"]] {
        let mut args = vec![
            "convert",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        let (_, _, err) = run(&args);
        assert!(
            err.contains("errtime9.txt:20)") && err.contains("member 2"),
            "{extra:?}: {err}"
        );
    }
    // -tcc / warn: reported, converted, order restored.
    let out = dir.path().join("e1w.slog2");
    let input = samples().join("errtime1.txt");
    let (code, _, err) = run(&[
        "convert",
        input.to_str().unwrap(),
        "-tcc",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning") && err.contains("#4"), "{err}");
    let (code, _, _) = run(&["check", out.to_str().unwrap()]);
    assert_eq!(code, 0);
}

#[test]
fn retree_an_slog2_file_and_query_it() {
    let dir = tempfile::tempdir().unwrap();
    let fp = common::fixture("slog2/fpilog.slog2");
    let out = dir.path().join("small.slog2");
    let (code, _, err) = run(&[
        "convert",
        fp.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-ls",
        "1k",
        "-nc",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    let a = slog2::Slog2File::open(&fp).unwrap();
    let b = slog2::Slog2File::open(&out).unwrap();
    assert_eq!(b.header().num_children_per_node, 3);
    assert_eq!(b.header().treeleaf_bytesize, 1024);
    assert_eq!(a.drawables().count(), b.drawables().count());
    let (code, csv, _) = run(&[
        "query",
        out.to_str().unwrap(),
        "--from",
        "0.05",
        "--to",
        "0.06",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0);
    let want = a.window_rows(0.05, 0.06).unwrap().len();
    assert_eq!(
        csv.lines().count(),
        want + 1,
        "csv header + one line per row (drawables and composite members)"
    );
    let (code, json, _) = run(&[
        "query",
        out.to_str().unwrap(),
        "--depth",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(
        v.as_array().unwrap().iter().any(|x| x["kind"] == "shadow"),
        "preview has shadows"
    );
    let (code, info, _) = run(&["info", out.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&info).unwrap();
    assert_eq!(v["children_per_node"], 3);
}

fn cc(src: &Path, out: &Path, defs: &[&str]) {
    let st = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(out)
        .arg(src)
        .args(defs)
        .status()
        .expect("a C compiler (cc) is needed for the plugin test");
    assert!(st.success());
}

#[test]
fn c_trace_plugin_converts_and_failures_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../capi-tests/plugin/tinytrace.c");
    let good = dir.path().join("libtiny.so");
    let nosym = dir.path().join("libtiny_nosym.so");
    let fail = dir.path().join("libtiny_fail.so");
    cc(&src, &good, &[]);
    cc(&src, &nosym, &["-DOMIT_SYMBOL"]);
    cc(&src, &fail, &["-DFAIL_AT=3"]);
    let trace = dir.path().join("t.tiny");
    std::fs::write(
        &trace,
        "C 1 1 255 0 0 255 1 Work\nC 2 2 255 255 255 255 3 msg v=%d\n\
         S 1 0 0.0 1.0\nA 2 0 1 0.5 1.5 42\nS 1 1 1.0 2.0\nS 1 0 1.5 3.0\n",
    )
    .unwrap();
    let out = dir.path().join("t.slog2");
    let (code, _, err) = run(&[
        "convert",
        "--trace-lib",
        good.to_str().unwrap(),
        trace.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let f = slog2::Slog2File::open(&out).unwrap();
    let ds: Vec<_> = f.drawables().map(|d| d.unwrap()).collect();
    assert_eq!(ds.len(), 4);
    let arrow = ds.iter().find(|d| d.category() == 2).unwrap();
    assert_eq!(f.popup_text(arrow), "v=42");

    // Help protocol.
    let (code, stdout, _) = run(&["convert", "--trace-lib", good.to_str().unwrap(), "--", "-h"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("usage: tinytrace"), "{stdout}");

    // Missing symbol: named.
    let (code, _, err) = run(&[
        "convert",
        "--trace-lib",
        nosym.to_str().unwrap(),
        trace.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("TRACE_Peek_next_composite"), "{err}");

    // Error mid-stream: the plugin's text, no output file.
    let out2 = dir.path().join("t2.slog2");
    let (code, _, err) = run(&[
        "convert",
        "--trace-lib",
        fail.to_str().unwrap(),
        trace.to_str().unwrap(),
        "-o",
        out2.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("injected failure"), "{err}");
    assert!(!out2.exists());
    assert_eq!(
        std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| e
                .as_ref()
                .unwrap()
                .path()
                .to_string_lossy()
                .contains("partial"))
            .count(),
        0
    );
}

/// `slog2 print` lists drawables that share a start time across tree levels
/// in the order of the reference printer's floor-by-floor merge. The expected
/// dump is `java -jar slog2printserial.jar` of this very file: the first 158
/// lines of examples/demo.txt converted with 1 KiB leaves (a 4-level tree;
/// before the fix 16 lines differed).
#[test]
fn print_ties_across_levels_match_the_reference_printer() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let demo = std::fs::read_to_string(root.join("examples/demo.txt")).unwrap();
    let head: String = demo.lines().take(158).map(|l| format!("{l}\n")).collect();
    let txt = dir.path().join("demo158.txt");
    std::fs::write(&txt, head).unwrap();
    let out = dir.path().join("demo158.slog2");
    let (code, _, err) = run(&[
        "convert",
        txt.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--ls",
        "1k",
    ]);
    assert_eq!(code, 0, "convert failed: {err}");
    let (code, ours, err) = run(&["print", out.to_str().unwrap()]);
    assert_eq!(code, 0, "print failed: {err}");
    let reference = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/demo158-ls1k.print.txt"),
    )
    .unwrap();
    same_dump(&reference, &ours, "demo158 --ls 1k");
}

/// `query --format json` streams the window in pieces of 4096 rows: every
/// drawable once, in the library's window order, composites with their
/// members (also when a piece ends near them), the same fields as the
/// library's drawables.
#[test]
fn query_json_streams_the_whole_window_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let txt = dir.path().join("q.txt");
    let mut t = String::from(
        "Category[ index=1 name=S topo=State color=(255,0,0,255,true) width=1 < a=%d > ]\n\
         Category[ index=2 name=E topo=Event color=(0,0,255,255,true) width=1 ]\n\
         Category[ index=3 name=C topo=State color=(0,255,0,255,true) width=1 ]\n",
    );
    for i in 0..12_000 {
        let (s, e) = (i as f64, i as f64 + 0.5);
        match i % 7 {
            0 => t.push_str(&format!(
                "Composite[ TimeBBox({s},{e}) Category=3 NumPrimes=3 ]\n\
                 Primitive[ TimeBBox({s},{e}) Category=1 ({s}, 0) ({e}, 0) < a=1 > ]\n\
                 Primitive[ TimeBBox({s},{e}) Category=1 ({s}, 1) ({e}, 1) < a=2 > ]\n\
                 Primitive[ TimeBBox({e},{e}) Category=2 ({e}, 2) ]\n"
            )),
            1 => t.push_str(&format!(
                "Primitive[ TimeBBox({e},{e}) Category=2 ({e}, 3) ]\n"
            )),
            _ => t.push_str(&format!(
                "Primitive[ TimeBBox({s},{e}) Category=1 ({s}, {}) ({e}, {}) < a={i} > ]\n",
                i % 5,
                i % 5
            )),
        }
    }
    std::fs::write(&txt, t).unwrap();
    let out = dir.path().join("q.slog2");
    let (code, _, err) = run(&[
        "convert",
        txt.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-ls",
        "4k",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, json, err) = run(&[
        "query",
        out.to_str().unwrap(),
        "--format",
        "json",
        "--stats",
    ]);
    assert_eq!(code, 0, "{err}");
    let items: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    let f = slog2::Slog2File::open(&out).unwrap();
    let tb = f.total_time();
    let w = f.window(tb.start, tb.end).unwrap();
    assert_eq!(items.len(), w.drawables.len());
    assert_eq!(items.len(), 12_000);
    assert!(
        err.contains("12000 drawables, 5145 composite members, 0 shadows"),
        "{err}"
    );
    let verts = |p: &slog2::Primitive| -> serde_json::Value {
        p.vertices
            .iter()
            .map(|v| serde_json::json!([v.time, v.line]))
            .collect()
    };
    for (j, d) in items.iter().zip(&w.drawables) {
        let b = d.time_box();
        assert_eq!(
            (j["start"].as_f64(), j["end"].as_f64()),
            (Some(b.start), Some(b.end))
        );
        assert_eq!(j["category"], d.category());
        assert_eq!(j["info"], f.popup_text(d).as_str());
        match d {
            slog2::Drawable::Composite(c) => {
                assert_eq!(j["kind"], "composite");
                let ms = j["members"].as_array().unwrap();
                assert_eq!(ms.len(), c.members.len());
                for (m, p) in ms.iter().zip(&c.members) {
                    assert_eq!(m["category"], p.category);
                    assert_eq!(m["vertices"], verts(p));
                }
            }
            slog2::Drawable::Primitive(p) => {
                assert_eq!(j["kind"], if p.category == 2 { "event" } else { "state" });
                assert_eq!(j["vertices"], verts(p));
            }
        }
    }
    // An empty window is an empty array.
    let (code, json, _) = run(&[
        "query",
        out.to_str().unwrap(),
        "--format",
        "json",
        "--from=-9",
        "--to=-8",
    ]);
    assert_eq!((code, json.as_str()), (0, "[]\n"));
}
