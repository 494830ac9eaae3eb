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

/// A temporary file named like another writer's whose pid does not exist
/// here (a writer in another PID namespace or on another NFS host).
fn foreign_temp(dir: &std::path::Path, target: &str) -> std::path::PathBuf {
    // A pid beyond pid_max (4,194,304 at most on Linux): never a process here.
    dir.join(format!(".{target}.slog2tmp-4194999-xyz.partial"))
}

fn flock(f: &std::fs::File) {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on an open descriptor.
    assert_eq!(
        unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
}

/// Issue #27 class 4: liveness by `kill(pid, 0)` deleted the temporary file
/// of a live writer whose pid means nothing here. Now a writer locks its
/// file; a locked file is never removed, an unlocked one of a missing pid is.
#[test]
fn a_locked_temp_file_of_an_unknown_pid_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let live = foreign_temp(dir.path(), "t.slog2");
    let f = std::fs::File::create(&live).unwrap();
    flock(&f);
    let removed = slog2::write::temp::clean_stale(dir.path(), "t.slog2");
    assert!(removed.is_empty(), "{removed:?}");
    assert!(live.exists());
    // Its writer dies (the lock goes with its last descriptor): stale now.
    drop(f);
    let removed = slog2::write::temp::clean_stale(dir.path(), "t.slog2");
    assert_eq!(removed, vec![live.clone()]);
}

/// Our writers lock their temporary files: another process's clean-up
/// (here: the same function, from a child process of ours that cannot see
/// our lock any other way) leaves them alone.
#[test]
fn a_writer_holds_the_lock_of_its_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let w = Slog2Writer::create(dir.path().join("b.slog2"), WriterOptions::default()).unwrap();
    let tmp = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".partial"))
        .unwrap();
    // The lock is held: a second flock on a new descriptor fails.
    let f = std::fs::File::open(&tmp).unwrap();
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on an open descriptor.
    let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(r, -1, "the writer's lock");
    drop(w);
    assert!(!tmp.exists(), "dropped writer removes its file");
}

/// The same across a real PID namespace (`unshare --pid`, as root): a
/// conversion running in a namespace of its own, blocked on a FIFO, keeps
/// its temporary file while a writer of the same target in ours finishes.
#[test]
fn a_writer_in_another_pid_namespace_keeps_its_temp_file() {
    let bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/slog2");
    let unshare_ok = std::process::Command::new("unshare")
        .args(["--pid", "--fork", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !unshare_ok || !bin.exists() {
        // Not root or no util-linux: the simulated namespace above covers
        // the rule; say so (this is not a silent pass of the real case).
        eprintln!("unshare --pid unavailable or no release slog2: covered by a_locked_temp_file_of_an_unknown_pid_is_kept");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("in.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let out = dir.path().join("o.slog2");
    let mut child = std::process::Command::new("unshare")
        .args(["--pid", "--fork", "--kill-child"])
        .arg(&bin)
        .args(["convert", "-q"])
        .arg(&fifo)
        .arg("-o")
        .arg(&out)
        .spawn()
        .unwrap();
    let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let text = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/fixtures/trace-sample/data.txt"),
    )
    .unwrap();
    std::io::Write::write_all(&mut w, &text[..text.len() / 2]).unwrap();
    let partial = || {
        std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".partial"))
            .collect::<Vec<_>>()
    };
    let t0 = std::time::Instant::now();
    while partial().is_empty() {
        assert!(t0.elapsed().as_secs() < 20, "no temporary file");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let theirs = partial();
    // Its name carries the pid of the other namespace (1 there). Make it
    // look old (a long conversion blocked on its input): only the lock now
    // tells that its writer lives.
    let c = std::ffi::CString::new(dir.path().join(&theirs[0]).to_str().unwrap()).unwrap();
    let hour_ago = libc::timespec {
        tv_sec: (std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
            - 3600) as libc::time_t,
        tv_nsec: 0,
    };
    // SAFETY: a valid path and two valid timespecs.
    assert_eq!(
        unsafe { libc::utimensat(libc::AT_FDCWD, c.as_ptr(), [hour_ago, hour_ago].as_ptr(), 0) },
        0
    );
    // A writer of the same target here runs its clean-up and finishes.
    let mut ours = Slog2Writer::create(&out, WriterOptions::default()).unwrap();
    for c in slog2_dev::synth::categories() {
        ours.add_category(c).unwrap();
    }
    for d in slog2_dev::synth::Synthetic::new(100, 4, 1) {
        ours.add_drawable(d).unwrap();
    }
    ours.finish().unwrap();
    assert_eq!(partial(), theirs, "the other namespace's file is kept");
    // The other writer finishes too.
    std::io::Write::write_all(&mut w, &text[text.len() / 2..]).unwrap();
    drop(w);
    assert!(child.wait().unwrap().success());
    assert!(partial().is_empty());
    assert!(slog2::Slog2File::open(&out).unwrap().check().is_valid());
}
