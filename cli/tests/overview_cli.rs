//! `slog2 overview`: the JSON contract of issue #29 on the bundled example
//! (`examples/demo.txt` converted) and on a multi-level file (MPE threads:
//! a Process-Thread y-map, rank → thread), checked field by field against
//! the library's own cube and qualities.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use slog2::analysis::{Cube, CubeSpec, Metric};
use slog2::Slog2File;

fn slog2() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_slog2"));
    // Never the user's cache.
    c.env(
        "SLOG2_CACHE_DIR",
        std::env::temp_dir().join("slog2-overview-cli-test"),
    );
    c
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures")
}

fn demo(dir: &Path) -> PathBuf {
    let out = dir.join("demo.slog2");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/demo.txt");
    let st = slog2()
        .args(["convert", "-q"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    out
}

fn json(args: &[&str], file: &Path) -> Value {
    let out = slog2()
        .arg("overview")
        .arg(file)
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

/// Parts tile `slices` in time (temporal) or lines × slices (spatiotemporal).
fn check_parts(v: &Value) {
    let n = v["slices"].as_u64().unwrap() as usize;
    let parts = v["parts"].as_array().unwrap();
    assert!(!parts.is_empty());
    let lines = ints(&v["lines"]);
    let mut cover = vec![0; lines.len() * n];
    for p in parts {
        let (f, l) = (
            p["first"].as_u64().unwrap() as usize,
            p["last"].as_u64().unwrap() as usize,
        );
        assert!(f <= l && l < n);
        assert!(p["gain"].is_f64() && p["loss"].is_f64());
        let under: Vec<i64> = match p.get("node") {
            Some(id) => {
                let h = &v["hierarchy"][id.as_u64().unwrap() as usize];
                assert_eq!(&h["id"], id);
                ints(&h["lines"])
            }
            None => lines.clone(),
        };
        for line in under {
            let s = lines.iter().position(|&x| x == line).unwrap();
            for t in f..=l {
                cover[s * n + t] += 1;
            }
        }
    }
    assert!(
        cover.iter().all(|&c| c == 1),
        "parts do not tile: {cover:?}"
    );
}

#[test]
fn demo_temporal_json_contract() {
    let dir = tempfile::tempdir().unwrap();
    let file = demo(dir.path());
    let v = json(
        &[
            "--slices",
            "20",
            "--cube",
            "--bisect",
            "0.001",
            "--no-cache",
        ],
        &file,
    );
    let f = Slog2File::open(&file).unwrap();
    let tb = f.total_time();
    assert_eq!(v["t0"].as_f64().unwrap(), tb.start);
    assert_eq!(v["t1"].as_f64().unwrap(), tb.end);
    assert_eq!(v["slices"], 20);
    assert_eq!(v["metric"], "duration");
    assert_eq!(v["exact"], true);
    assert_eq!(ints(&v["lines"]), (0..8).collect::<Vec<_>>());
    // All state categories of the demo.
    assert_eq!(ints(&v["categories"]), vec![1, 2, 3, 4, 5, 9]);
    check_parts(&v);
    // The cube: [line][slice][category], equal to the library's.
    let cube = Cube::build(&f, &CubeSpec::new(20, Metric::Duration)).unwrap();
    let c = v["cube"].as_array().unwrap();
    assert_eq!(c.len(), 8);
    for (s, line) in c.iter().enumerate() {
        let line = line.as_array().unwrap();
        assert_eq!(line.len(), 20);
        for (t, cell) in line.iter().enumerate() {
            let cell = cell.as_array().unwrap();
            assert_eq!(cell.len(), 6);
            for (k, x) in cell.iter().enumerate() {
                let want = cube.get(s, t, k);
                assert!((x.as_f64().unwrap() - want).abs() <= 1e-12 * (1.0 + want.abs()));
            }
        }
    }
    // The curve: increasing p, decreasing parts, from 20 parts to 1.
    let curve = v["curve"].as_array().unwrap();
    assert_eq!(curve[0]["p"], 0.0);
    assert_eq!(curve[0]["parts"], 20);
    assert_eq!(curve.last().unwrap()["parts"], 1);
    for w in curve.windows(2) {
        assert!(w[0]["p"].as_f64() < w[1]["p"].as_f64());
        assert!(w[0]["parts"].as_u64() > w[1]["parts"].as_u64());
    }
    // auto p is a point of the curve; the parts are its partition.
    let p = v["p"].as_f64().unwrap();
    let pt = curve
        .iter()
        .find(|c| c["p"].as_f64() == Some(p))
        .expect("auto p on the curve");
    assert_eq!(
        pt["parts"].as_u64().unwrap() as usize,
        v["parts"].as_array().unwrap().len()
    );
    // p = 1: one part; p = 0: every slice (the demo's slices all differ).
    let one = json(&["--slices", "20", "--p", "1", "--no-cache"], &file);
    assert_eq!(one["parts"].as_array().unwrap().len(), 1);
    assert!(one.get("curve").is_none() && one.get("cube").is_none());
    let all = json(&["--slices", "20", "--p", "0", "--no-cache"], &file);
    assert_eq!(all["parts"].as_array().unwrap().len(), 20);
    // count: every category; a zoom; the cache gives the same cube when
    // edges align (whole range, 20 slices of 1000 cached).
    let cnt = json(
        &[
            "--slices", "20", "--metric", "count", "--cube", "--p", "0.5",
        ],
        &file,
    );
    assert_eq!(ints(&cnt["categories"]), vec![0, 1, 2, 3, 4, 5, 9]);
    assert_eq!(cnt["exact"], true);
    let exact = json(
        &[
            "--slices",
            "20",
            "--metric",
            "count",
            "--cube",
            "--p",
            "0.5",
            "--no-cache",
        ],
        &file,
    );
    let close = |a: &Value, b: &Value| {
        let (a, b) = (a.as_array().unwrap(), b.as_array().unwrap());
        a.iter()
            .flat_map(|l| l.as_array().unwrap())
            .flat_map(|s| s.as_array().unwrap())
            .zip(
                b.iter()
                    .flat_map(|l| l.as_array().unwrap())
                    .flat_map(|s| s.as_array().unwrap()),
            )
            .all(|(x, y)| (x.as_f64().unwrap() - y.as_f64().unwrap()).abs() < 1e-9)
    };
    assert!(close(&cnt["cube"], &exact["cube"]));
    let zoom = json(
        &["--slices", "7", "--from", "0.0002", "--to", "0.0009"],
        &file,
    );
    assert_eq!(zoom["t0"], 0.0002);
    assert_eq!(zoom["t1"], 0.0009);
    assert_eq!(
        zoom["exact"], false,
        "7 slices of a zoom do not fall on cached edges"
    );
    check_parts(&zoom);
}

#[test]
fn multilevel_spatiotemporal_json_contract() {
    let file = fixtures().join("clog2/threads.slog2");
    let v = json(
        &[
            "--slices",
            "12",
            "--spatiotemporal",
            "--hierarchy",
            "Process-Thread View",
            "--p",
            "0.6",
            "--no-cache",
        ],
        &file,
    );
    assert_eq!(v["aggregation"], "spatiotemporal");
    assert_eq!(v["p"], 0.6);
    let h = v["hierarchy"].as_array().unwrap();
    // Root, the ranks, and their threads (ranks with one thread are the thread).
    assert_eq!(h[0]["parent"], Value::Null);
    assert_eq!(ints(&h[0]["lines"]), ints(&v["lines"]));
    let levels: Vec<usize> = h
        .iter()
        .map(|n| {
            let mut d = 0;
            let mut at = n;
            while let Some(p) = at["parent"].as_u64() {
                d += 1;
                at = &h[p as usize];
            }
            d
        })
        .collect();
    // world_rank -> thread -> line (thread 0 of each rank holds 4 lines,
    // the other threads one each: a thread alone is its line).
    assert_eq!(*levels.iter().max().unwrap(), 3);
    assert_eq!(h[1]["label"], "world_rank=0");
    assert_eq!(h[2]["label"], "thread=0");
    assert_eq!(ints(&h[2]["lines"]), vec![0, 16, 24, 32]);
    for n in h {
        if let Some(p) = n["parent"].as_u64() {
            let parent = ints(&h[p as usize]["lines"]);
            assert!(ints(&n["lines"]).iter().all(|l| parent.contains(l)));
        }
    }
    check_parts(&v);
    for p in v["parts"].as_array().unwrap() {
        assert!(p.get("node").is_some());
    }
    // Default hierarchy: fanout:8; --hierarchy without --spatiotemporal is an error.
    let d = json(
        &[
            "--slices",
            "6",
            "--spatiotemporal",
            "--p",
            "0.9",
            "--no-cache",
        ],
        &file,
    );
    assert_eq!(d["hierarchy"][0]["label"], "group");
    check_parts(&d);
    let bad = slog2()
        .arg("overview")
        .arg(&file)
        .args(["--hierarchy", "fanout:4"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let bad = slog2()
        .arg("overview")
        .arg(&file)
        .args(["--spatiotemporal", "--hierarchy", "nope"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("Process-Thread View"));
    // Text: one line per part.
    let out = slog2()
        .arg("overview")
        .arg(&file)
        .args(["--slices", "6", "--p", "1", "--no-cache"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.lines().nth(1).unwrap().contains("slices 0-5"));
}
