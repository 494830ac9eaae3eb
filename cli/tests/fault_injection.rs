//! Fault injection for the writer (issue #16): ENOSPC, EIO and EFBIG at each
//! write-family call of a conversion. An `LD_PRELOAD` shim
//! (`tests/support/failwrite.c`, compiled here with the system's `cc`) makes
//! the Nth `write`/`pwrite64`/`writev`/`fsync`/`fdatasync` on a regular file
//! fail. Whatever call fails, the command must exit non-zero naming the cause
//! and the target, the target must hold its old bytes (or not exist if it did
//! not), and no temporary file may be left beside it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn shim(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/failwrite.c");
    let so = dir.join("failwrite.so");
    let st = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&so)
        .arg(&src)
        .arg("-ldl")
        .status()
        .expect("cc must be installed for the fault-injection test");
    assert!(st.success(), "compiling {}", src.display());
    so
}

/// Runs `slog2 convert INPUT -o TARGET [extra]` with the shim failing call
/// `n` (0: none) with `errno`; returns (exit ok, stderr, counted calls).
fn convert(
    so: &Path,
    input: &Path,
    target: &Path,
    extra: &[&str],
    n: usize,
    errno: i32,
) -> (bool, String, usize) {
    let count = target.with_extension("count");
    let out = Command::new(env!("CARGO_BIN_EXE_slog2"))
        .arg("convert")
        .arg("-q")
        .arg(input)
        .arg("-o")
        .arg(target)
        .args(extra)
        .env("LD_PRELOAD", so)
        .env("FAILWRITE_N", n.to_string())
        .env("FAILWRITE_ERRNO", errno.to_string())
        .env("FAILWRITE_COUNT", &count)
        .output()
        .unwrap();
    let counted = std::fs::read_to_string(&count)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    let _ = std::fs::remove_file(&count);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        counted,
    )
}

fn leftovers(dir: &Path, keep: &[&Path]) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !keep.contains(&p.as_path()))
        .map(|p| p.display().to_string())
        .collect()
}

fn run_case(input: &Path, extra: &[&str]) -> usize {
    let tools = tempfile::tempdir().unwrap();
    let so = shim(tools.path());
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.slog2");
    // Counting run: the calls a conversion makes; the output is valid.
    let (ok, err, calls) = convert(&so, input, &target, extra, 0, 0);
    assert!(ok, "{err}");
    assert!(calls >= 1, "the shim saw no write of {}", input.display());
    let good = std::fs::read(&target).unwrap();
    std::fs::remove_file(&target).unwrap();
    let old = b"an older file the user keeps".to_vec();
    // Every call for small conversions; spread over the calls for large ones.
    let step = calls.div_ceil(40).max(1);
    let mut cases = 0;
    for (errno, text) in [
        (28, "No space left on device"),
        (5, "Input/output error"),
        (27, "File too large"),
    ] {
        for n in (1..=calls).step_by(step) {
            for existed in [true, false] {
                if existed {
                    std::fs::write(&target, &old).unwrap();
                }
                let (ok, err, _) = convert(&so, input, &target, extra, n, errno);
                assert!(!ok, "errno {errno} at call {n} of {calls}: exit 0");
                assert!(err.contains(text), "errno {errno} at call {n}: {err}");
                assert!(err.contains("out.slog2"), "the target is not named: {err}");
                if existed {
                    assert_eq!(
                        std::fs::read(&target).unwrap(),
                        old,
                        "errno {errno} at call {n}"
                    );
                } else {
                    assert!(
                        !target.exists(),
                        "errno {errno} at call {n}: a file was left"
                    );
                }
                assert_eq!(
                    leftovers(dir.path(), &[&target]),
                    Vec::<String>::new(),
                    "errno {errno} at call {n}"
                );
                let _ = std::fs::remove_file(&target);
                cases += 1;
            }
        }
    }
    // And without a fault the same bytes as the counting run.
    let (ok, err, _) = convert(&so, input, &target, extra, 0, 0);
    assert!(ok, "{err}");
    assert_eq!(std::fs::read(&target).unwrap(), good);
    cases
}

#[test]
fn every_write_of_a_text_conversion_can_fail_cleanly() {
    let n = run_case(&common::fixture("trace-sample/data.txt"), &[]);
    assert!(n >= 6);
}

#[test]
fn every_write_of_a_clog2_conversion_with_small_leaves_can_fail_cleanly() {
    let n = run_case(&common::fixture("clog2/big_stencil.clog2"), &["--ls", "4k"]);
    assert!(n >= 6);
}

#[test]
fn every_write_of_a_multi_megabyte_conversion_can_fail_cleanly() {
    // 300,000 CLOG2 records (13 MB) → an 11 MB file written in ~14 calls.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("g.clog2");
    let st = Command::new(env!("CARGO_BIN_EXE_slog2"))
        .args(["bench", "clog2-gen", "300000", "-o"])
        .arg(&log)
        .output()
        .unwrap();
    assert!(st.status.success());
    let n = run_case(&log, &[]);
    assert!(n >= 60, "{n} cases");
}
