//! The same facts in every output of `slog2 query` and `slog2 info`, by the
//! core's definition (`slog2::read::counts`): one row per drawable and one
//! per composite member with `row`/`parent`, `num_real` as in the columns,
//! counts that name composites, and an empty window that says so.

mod common;

use std::process::Command;

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

/// data.slog2: 9 drawables, 3 of them composites with 3, 7 and 4 members.
fn data() -> String {
    common::fixture("trace-sample/data.slog2")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn csv_has_a_line_per_row_with_parent_and_num_real_of_the_columns() {
    let (code, csv, err) = run(&["query", &data(), "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    let f = slog2::Slog2File::open(data()).unwrap();
    let rows = f.window_rows(f64::NEG_INFINITY, f64::INFINITY).unwrap();
    let lines: Vec<Vec<String>> = csv
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    assert_eq!(
        lines[0][..12].join(","),
        "row,parent,kind,category,name,start,end,time0,line0,time1,line1,num_real"
    );
    assert_eq!(lines.len() - 1, rows.len());
    assert_eq!(rows.len() as u64, f.counts().unwrap().rows());
    for (i, l) in lines[1..].iter().enumerate() {
        assert_eq!(l[0], i.to_string());
        assert_eq!(l[1], rows.parent[i].to_string(), "row {i}");
        assert_eq!(l[3], rows.category[i].to_string(), "row {i}");
        assert_eq!(l[11], rows.num_real[i].to_string(), "row {i}");
    }
    let members = lines[1..].iter().filter(|l| l[1] != "-1").count();
    assert_eq!(members, 14);
    let composites: Vec<&Vec<String>> = lines[1..].iter().filter(|l| l[2] == "composite").collect();
    let n: Vec<&str> = composites.iter().map(|l| l[11].as_str()).collect();
    assert_eq!(n, ["3", "7", "4"]);
}

#[test]
fn text_indents_members_under_their_composite_and_json_numbers_rows() {
    let (code, text, _) = run(&["query", &data()]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 23, "{text}");
    let c = lines
        .iter()
        .position(|l| l.starts_with("composite"))
        .unwrap();
    assert!(lines[c].ends_with("(3 members)"), "{}", lines[c]);
    for l in &lines[c + 1..c + 4] {
        assert!(l.starts_with("  "), "member line {l:?}");
    }
    let (code, json, _) = run(&["query", &data(), "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let items = v.as_array().unwrap();
    assert_eq!(items.len(), 9, "one item per drawable");
    let mut next = 0;
    for it in items {
        assert_eq!(it["row"], next);
        assert_eq!(it["parent"], -1);
        next += 1;
        if it["kind"] == "composite" {
            let ms = it["members"].as_array().unwrap();
            assert_eq!(it["num_real"], ms.len());
            for m in ms {
                assert_eq!(m["row"], next);
                assert_eq!(m["parent"], it["row"]);
                next += 1;
            }
        } else {
            assert_eq!(it["num_real"], 1);
        }
    }
    assert_eq!(next, 23);
}

#[test]
fn info_counts_composites_and_says_which_number_is_stored() {
    let (code, text, _) = run(&["info", &data()]);
    assert_eq!(code, 0);
    assert!(
        text.contains("counts              9 drawables (3 composites with 14 members), 20 primitives, 23 rows"),
        "{text}"
    );
    let uc = text
        .lines()
        .find(|l| l.contains("User_Compute"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>();
    // index name topo drawables members stored ...
    assert_eq!(&uc[..6], ["183", "User_Compute", "State", "3", "0", "0"]);
    let (code, json, _) = run(&["info", &data(), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["counts"]["drawables"], 9);
    assert_eq!(v["counts"]["composites"], 3);
    assert_eq!(v["counts"]["members"], 14);
    assert_eq!(v["counts"]["rows"], 23);
    assert_eq!(v["counts"]["definition"], slog2::read::counts::DEFINITION);
    let c = v["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["index"] == 183)
        .unwrap();
    assert_eq!(
        (c["count"].clone(), c["drawables"].clone()),
        (0.into(), 3.into())
    );
    let (_, help, _) = run(&["info", "--help"]);
    assert!(help.contains(slog2::read::counts::DEFINITION));
}

#[test]
fn an_empty_window_says_so_with_the_files_range() {
    for format in ["text", "csv", "json"] {
        let (code, out, err) = run(&[
            "query",
            &data(),
            "--from",
            "0.1",
            "--to",
            "0.2",
            "--format",
            format,
        ]);
        assert_eq!(code, 0);
        assert!(
            err.contains("no drawables in the window [0.1, 0.2]; the file spans [0.0005, 0.008] s"),
            "{format}: {err}"
        );
        assert!(out.lines().count() <= 1, "{format}: {out}");
    }
    let (_, _, err) = run(&["query", &data(), "--from", "0.001", "--to", "0.002"]);
    assert!(!err.contains("no drawables"), "{err}");
}
