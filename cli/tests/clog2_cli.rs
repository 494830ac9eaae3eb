//! `slog2 convert` and `slog2 print` on CLOG2 (MPE) logs, against the fixtures.

mod common;

use std::path::PathBuf;
use std::process::Command;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_slog2")
}

fn fixture(name: &str, ext: &str) -> PathBuf {
    let d = common::fixture("clog2");
    assert!(
        d.is_dir(),
        "fixtures missing: {} (the suite cannot run)",
        d.display()
    );
    d.join(format!("{name}.{ext}"))
}

fn run(args: &[&str]) -> (i32, Vec<u8>, String) {
    let o = Command::new(bin()).args(args).output().expect("run slog2");
    (
        o.status.code().unwrap_or(-1),
        o.stdout,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The reference converter's deterministic summary lines.
fn reference_lines(name: &str) -> Vec<String> {
    std::fs::read_to_string(fixture(name, "convert.txt"))
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("Number of") || l.starts_with("Total ByteSize"))
        .map(str::to_string)
        .collect()
}

#[test]
fn convert_prints_the_reference_counts() {
    let tmp = tempfile::tempdir().unwrap();
    for name in [
        "user_states",
        "info_formats",
        "threads",
        "edge_cases",
        "big_stencil",
    ] {
        // Named .bin: detection is by content.
        let input = tmp.path().join(format!("{name}.bin"));
        std::fs::copy(fixture(name, "clog2"), &input).unwrap();
        let out = tmp.path().join(format!("{name}.slog2"));
        let (code, stdout, stderr) = run(&[
            "convert",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{name}: {stderr}");
        let stdout = String::from_utf8(stdout).unwrap();
        let ours: Vec<&str> = stdout
            .lines()
            .filter(|l| l.starts_with("Number of") || l.starts_with("Total ByteSize"))
            .collect();
        assert_eq!(ours, reference_lines(name), "{name}");
        assert!(out.exists());
        let (code, _, stderr) = run(&["check", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{name}: {stderr}");
    }
}

#[test]
fn refused_logs_exit_nonzero_and_leave_no_file() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, cause, record) in [
        (
            "fail_unknown_color",
            "unknown colour name \"NoSuchColour\"",
            "RecDefState[",
        ),
        (
            "fail_undefined_event",
            "undefined event number 7777",
            "RecBare[ etype=7777 ]",
        ),
    ] {
        let out = tmp.path().join(format!("{name}.slog2"));
        let (code, _, stderr) = run(&[
            "convert",
            fixture(name, "clog2").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_ne!(code, 0, "{name}");
        assert!(
            stderr.contains(cause) && stderr.contains(record),
            "{name}: {stderr}"
        );
        assert!(stderr.contains("byte offset"), "{name}: {stderr}");
        assert!(!out.exists(), "{name}: output left behind");
    }
}

#[test]
fn print_equals_clog2print() {
    for name in [
        "user_states",
        "info_formats",
        "threads",
        "edge_cases",
        "big_stencil",
        "fail_unknown_color",
        "fail_undefined_event",
    ] {
        let (code, stdout, stderr) = run(&["print", fixture(name, "clog2").to_str().unwrap()]);
        assert_eq!(code, 0, "{name}: {stderr}");
        let want = std::fs::read(fixture(name, "clog2print.txt")).unwrap();
        assert!(stdout == want, "{name}: dump differs from clog2print.txt");
    }
}

#[test]
fn truncated_log_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(fixture("edge_cases", "clog2")).unwrap();
    let cut = tmp.path().join("cut.clog2");
    std::fs::write(&cut, &bytes[..1024 + 5 * 2048]).unwrap();
    let out = tmp.path().join("cut.slog2");
    let (code, _, stderr) = run(&[
        "convert",
        cut.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(stderr.contains("commtable_fptr"), "{stderr}");
    assert!(!out.exists());
    let (code, stdout, stderr) = run(&["print", cut.to_str().unwrap()]);
    assert_ne!(code, 0, "{stderr}");
    assert!(stderr.contains("error"), "{stderr}");
    assert!(stdout.is_empty());
}

#[test]
fn generator_writes_a_convertible_log() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("g.clog2");
    let (code, stdout, stderr) = run(&["bench", "clog2-gen", "5000", "-o", log.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(String::from_utf8_lossy(&stdout).contains("CLOG2 records on 64 ranks"));
    let out = tmp.path().join("g.slog2");
    let (code, stdout, stderr) = run(&[
        "convert",
        log.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let s = String::from_utf8_lossy(&stdout);
    assert!(s.contains("Number of Unmatched Events = 0"), "{s}");
    assert!(s.contains("Number of Drawables = 2880"), "{s}");
}
