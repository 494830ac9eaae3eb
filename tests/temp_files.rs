//! `remove_temp_files` (what the signal handler calls) removes the temporary
//! file of *every* unfinished writer of the process. It has a test binary of
//! its own: run beside other tests in one process it removed their writers'
//! files too (a rename then failed with "No such file", now and then).

use slog2::{Slog2Writer, WriterOptions};

/// Every unfinished writer's temporary file is listed for signal handling.
#[test]
fn remove_temp_files_removes_unfinished_writers_files() {
    let dir = tempfile::tempdir().unwrap();
    let w = Slog2Writer::create(dir.path().join("a.slog2"), WriterOptions::default()).unwrap();
    let names = || -> Vec<String> {
        std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    let n = names();
    assert_eq!(n.len(), 1);
    assert!(n[0].starts_with(&format!(".a.slog2.slog2tmp-{}-", std::process::id())));
    assert!(slog2::write::temp::remove_temp_files() >= 1);
    assert!(names().is_empty());
    drop(w);
}
