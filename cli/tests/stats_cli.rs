//! `slog2 stats` and `slog2 diff` end to end on a small file whose every
//! figure is known by hand (the C test's trace): the CSV columns scripts
//! rely on, the values, JSON, and the errors.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use slog2::*;

fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_slog2"))
        .args(args)
        .output()
        .expect("run slog2");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn ok(args: &[&str]) -> String {
    let (rc, out, err) = run(args);
    assert_eq!(rc, 0, "slog2 {args:?}: {err}");
    out
}

/// line 0: S1 [0, 4] with MPI_Wait [1, 2] nested; line 1: S1 [0, 1];
/// msg 0 -> 1 [0.5, 1.5] 100 bytes; msg 1 -> 0 sent 3.0 received 2.5, 50
/// bytes; a "bare" arrow (no size field) 0 -> 1 [2, 3].
fn trace(dir: &Path) -> PathBuf {
    let p = dir.join("known.slog2");
    let mut w = Slog2Writer::create(&p, WriterOptions::default()).unwrap();
    let c = |i, n: &str, t| Category::new(i, n, t, Color::rgba(1, 2, 3, 255), 1);
    w.add_category(c(1, "S1", Topology::State)).unwrap();
    w.add_category(c(2, "MPI_Wait", Topology::State)).unwrap();
    let mut msg = c(3, "msg", Topology::Arrow);
    msg.info = InfoFormat::parse("msg_tag=%d, msg_size=%d").unwrap();
    w.add_category(msg).unwrap();
    w.add_category(c(4, "bare", Topology::Arrow)).unwrap();
    let arrow = |from, to, t0, t1, size: Option<i32>| {
        let mut a = Primitive::arrow(if size.is_some() { 3 } else { 4 }, from, to, t0, t1);
        if let Some(s) = size {
            a.info = [7i32.to_be_bytes(), s.to_be_bytes()]
                .concat()
                .into_iter()
                .collect();
        }
        Drawable::Primitive(a)
    };
    for d in [
        Drawable::Primitive(Primitive::state(1, 1, 0.0, 1.0)),
        arrow(0, 1, 0.5, 1.5, Some(100)),
        Drawable::Primitive(Primitive::state(2, 0, 1.0, 2.0)),
        arrow(1, 0, 3.0, 2.5, Some(50)),
        arrow(0, 1, 2.0, 3.0, None),
        Drawable::Primitive(Primitive::state(1, 0, 0.0, 4.0)),
    ] {
        w.add_drawable(d).unwrap();
    }
    w.finish().unwrap();
    p
}

fn csv_rows(out: &str) -> Vec<Vec<String>> {
    out.lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn profile_csv_columns_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let f = trace(dir.path());
    let f = f.to_str().unwrap();
    let rows = csv_rows(&ok(&["stats", f, "profile", "--format", "csv"]));
    assert_eq!(
        rows[0],
        [
            "category",
            "name",
            "count",
            "inclusive",
            "exclusive",
            "min",
            "mean",
            "max"
        ]
    );
    assert_eq!(rows[1], ["1", "S1", "2", "5", "4", "1", "2.5", "4"]);
    assert_eq!(rows[2], ["2", "MPI_Wait", "1", "1", "1", "1", "1", "1"]);
    assert_eq!(rows[3], ["3", "msg", "2", "1.5", "1.5", "0.5", "0.75", "1"]);
    let rows = csv_rows(&ok(&[
        "stats",
        f,
        "profile",
        "--by-line",
        "--format",
        "csv",
    ]));
    assert_eq!(rows[0][0], "line");
    assert_eq!(rows[1], ["0", "1", "S1", "1", "4", "3", "4", "4", "4"]);
    // A window, clipped (default) and whole.
    let rows = csv_rows(&ok(&[
        "stats", f, "--from", "0.5", "--to", "1.5", "profile", "--format", "csv",
    ]));
    assert_eq!(&rows[1][..5], ["1", "S1", "2", "1.5", "1"]);
    let rows = csv_rows(&ok(&[
        "stats", f, "--from", "0.5", "--to", "1.5", "--whole", "profile", "--format", "csv",
    ]));
    assert_eq!(&rows[1][..5], ["1", "S1", "2", "5", "4"]);
    // Options after the subcommand work too.
    let t = ok(&["stats", f, "profile", "--from", "0.5", "--to", "1.5"]);
    assert!(t.lines().next().unwrap().contains("inclusive"));
}

#[test]
fn comm_hist_idle_imbalance_timeprofile() {
    let dir = tempfile::tempdir().unwrap();
    let f = trace(dir.path());
    let f = f.to_str().unwrap();
    let rows = csv_rows(&ok(&["stats", f, "comm", "--format", "csv"]));
    assert_eq!(
        rows[0],
        ["from_line", "to_line", "category", "name", "count", "bytes"]
    );
    assert_eq!(rows[1], ["0", "1", "3", "msg", "1", "100"]);
    // No size field: the bytes are unknown (empty), not 0.
    assert_eq!(rows[2], ["0", "1", "4", "bare", "1", ""]);
    assert_eq!(rows[3], ["1", "0", "3", "msg", "1", "50"]);

    let h: serde_json::Value = serde_json::from_str(&ok(&[
        "stats", f, "hist", "S1", "--bins", "2", "--format", "json",
    ]))
    .unwrap();
    let counts: Vec<i64> = h["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["count"].as_i64().unwrap())
        .collect();
    assert_eq!(counts, [0, 1, 1, 0]);
    assert_eq!(h["rows"][1]["lo"], 1.0);
    // Cut-offs: the 4 s state is an outlier; --bin 2 lists it.
    let out = ok(&[
        "stats", f, "hist", "S1", "--bins", "2", "--lo", "0", "--hi", "2", "--bin", "2",
        "--format", "csv",
    ]);
    let rows = csv_rows(&out);
    assert_eq!(
        rows[0],
        ["start", "end", "line0", "line1", "category", "name", "value", "text"]
    );
    assert_eq!(rows[1][..7], ["0", "4", "0", "0", "1", "S1", "4"]);
    let out = ok(&[
        "stats", f, "hist", "--sizes", "--bins", "1", "--bin", "0", "--format", "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["total"], 2);
    assert!(v["rows"][0]["text"]
        .as_str()
        .unwrap()
        .contains("msg_size=100"));

    let rows = csv_rows(&ok(&["stats", f, "idle", "--format", "csv"]));
    assert_eq!(rows[0], ["line", "idle", "fraction", "no_state", "wait"]);
    assert_eq!(rows[2], ["1", "3", "0.75", "3", "0"]);
    let rows = csv_rows(&ok(&[
        "stats", f, "idle", "--wait", "MPI_W*", "--format", "csv",
    ]));
    assert_eq!(rows[1], ["0", "1", "0.25", "0", "1"]);

    let v: serde_json::Value =
        serde_json::from_str(&ok(&["stats", f, "imbalance", "--format", "json"])).unwrap();
    let s1 = &v["rows"][0];
    assert_eq!(
        (s1["name"].as_str(), s1["ratio"].as_f64()),
        (Some("S1"), Some(1.5))
    );
    assert_eq!(s1["worst"][0]["line"], 0);

    let rows = csv_rows(&ok(&[
        "stats",
        f,
        "timeprofile",
        "--slices",
        "4",
        "--format",
        "csv",
    ]));
    assert_eq!(
        rows[0],
        ["slice", "start", "end", "category", "name", "time"]
    );
    assert_eq!(rows[1], ["0", "0", "1", "1", "S1", "2"]);
    assert_eq!(rows[4], ["1", "1", "2", "2", "MPI_Wait", "1"]);
}

#[test]
fn diff_by_name_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let f = trace(dir.path());
    let f = f.to_str().unwrap();
    let rows = csv_rows(&ok(&["diff", f, f, "--format", "csv"]));
    assert_eq!(
        rows[0],
        [
            "name",
            "count_a",
            "count_b",
            "count_diff",
            "inclusive_a",
            "inclusive_b",
            "inclusive_diff",
            "inclusive_rel",
            "exclusive_a",
            "exclusive_b",
            "exclusive_diff",
            "exclusive_rel"
        ]
    );
    let s1 = rows.iter().find(|r| r[0] == "S1").unwrap();
    assert_eq!(s1[1..8], ["2", "2", "0", "5", "5", "0", "0"]);
    let rows = csv_rows(&ok(&[
        "diff",
        f,
        f,
        "--time-profile",
        "2",
        "--format",
        "csv",
    ]));
    assert_eq!(rows[0], ["slice", "name", "a", "b", "diff"]);
    // A real pair: two fixtures with different categories.
    let a = common::fixture("clog2/big_stencil.slog2");
    let b = common::fixture("clog2/threads.slog2");
    let out = ok(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let barrier = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "MPI_Barrier")
        .unwrap();
    assert_eq!(
        (barrier["count_a"].as_i64(), barrier["count_b"].as_i64()),
        (Some(4), Some(2))
    );

    let (rc, _, err) = run(&["stats", f, "hist", "nosuch"]);
    assert_eq!(rc, 1);
    assert!(err.contains("no category named \"nosuch\""), "{err}");
    let (rc, _, err) = run(&["stats", f, "--from", "3", "--to", "1", "profile"]);
    assert_eq!(rc, 1);
    assert!(
        err.contains("known.slog2") && err.contains("empty"),
        "{err}"
    );
    let (rc, _, err) = run(&["stats", "/nonexistent.slog2", "profile"]);
    assert_eq!(rc, 1);
    assert!(err.contains("/nonexistent.slog2"), "{err}");
}
