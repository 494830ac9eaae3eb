//! `slog2 bench plan` and `slog2 bench replay`: the plan file both sides of
//! the comparison with the reference replay, and the RESULT lines they print.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

fn slog2(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_slog2"))
        .args(args)
        .output()
        .expect("run slog2");
    assert!(
        o.status.success(),
        "slog2 {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// The RESULT lines of a replay, by kind: their key=value fields.
fn results(out: &str) -> HashMap<String, HashMap<String, String>> {
    out.lines()
        .filter_map(|l| l.strip_prefix("RESULT "))
        .map(|l| {
            let f: HashMap<String, String> = l
                .split_whitespace()
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            (f["kind"].clone(), f)
        })
        .collect()
}

fn plan(file: &Path, plan: &Path, extra: &[&str]) -> Vec<char> {
    let mut args = vec![
        "bench",
        "plan",
        file.to_str().unwrap(),
        "-o",
        plan.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    slog2(&args);
    std::fs::read_to_string(plan)
        .unwrap()
        .lines()
        .map(|l| l.chars().next().unwrap())
        .collect()
}

#[test]
fn plan_then_replay_both_variants() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.slog2");
    let p = dir.path().join("plan.txt");
    slog2(&["bench", "write", "20000", "-o", f.to_str().unwrap()]);
    let kinds = plan(
        &f,
        &p,
        &[
            "--target",
            "200",
            "--jumps",
            "10",
            "--scrolls",
            "20",
            "--warmup",
            "5",
        ],
    );
    let count = |k| kinds.iter().filter(|&&c| c == k).count();
    assert_eq!((count('W'), count('J'), count('S')), (10, 10, 20));
    assert_eq!(kinds.len(), 40);
    assert!(
        kinds[..10].iter().all(|&c| c == 'W'),
        "warm-up lines come first"
    );

    let fs = f.to_str().unwrap();
    let ps = p.to_str().unwrap();
    let upd = results(&slog2(&["bench", "replay", fs, ps]));
    let pass = results(&slog2(&["bench", "replay", fs, ps, "--pass"]));
    for (kind, n) in [("jump", 10usize), ("scroll", 20)] {
        let (u, q) = (&upd[kind], &pass[kind]);
        assert_eq!(u["side"], "ours");
        assert_eq!(
            (u["variant"].as_str(), q["variant"].as_str()),
            ("update", "pass")
        );
        assert_eq!(u["n"], n.to_string());
        assert_eq!(u["touched"], "-");
        assert_eq!(
            u["rows"], q["rows"],
            "both variants move through the same windows"
        );
        let rows: f64 = q["rows"].parse().unwrap();
        let touched: f64 = q["touched"].parse().unwrap();
        assert!(rows > 50.0, "{kind}: {rows} rows per window");
        // `rows` is printed with one decimal.
        assert!(
            (touched - rows * n as f64).abs() <= 0.05 * n as f64,
            "{q:?}"
        );
        for m in ["p50", "p99", "mean", "cpu"] {
            assert!(q[m].parse::<f64>().unwrap() > 0.0, "{m}: {q:?}");
        }
        assert!(q["p50"].parse::<f64>().unwrap() <= q["p99"].parse::<f64>().unwrap());
    }
}

/// Composites and their members are rows of the pass (the sample trace holds
/// 3 composites; a window as wide as the file holds them all).
#[test]
fn the_pass_touches_composites_and_members() {
    let data = common::fixture("trace-sample/data.slog2");
    assert!(data.is_file(), "fixture missing: {}", data.display());
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("plan.txt");
    plan(
        &data,
        &p,
        &["--jumps", "4", "--scrolls", "0", "--warmup", "1"],
    );
    let out = slog2(&[
        "bench",
        "replay",
        data.to_str().unwrap(),
        p.to_str().unwrap(),
        "--pass",
    ]);
    let r = &results(&out)["jump"];
    assert_eq!(r["composites"], "12", "{out}");
    // Every record of the sample's text is one row: composites, their
    // members and the other primitives.
    let text = std::fs::read_to_string(common::fixture("trace-sample/data.txt")).unwrap();
    let records = text
        .lines()
        .filter(|l| l.starts_with("Primitive[") || l.starts_with("Composite["))
        .count();
    assert_eq!(records, 23);
    assert_eq!(r["touched"], (4 * records).to_string(), "{out}");
}
