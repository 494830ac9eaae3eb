//! Temporary files of unfinished writers: named so that a dead writer's
//! leftovers are recognisable, locked so that a live writer's never are
//! taken for them, registered so that a signal handler can remove them.
//!
//! A writer works on `.<target name>.slog2tmp-<pid>-<random>.partial` beside
//! its target and holds an exclusive `flock` on it from its creation until
//! it is renamed or removed (`hold`). Why: a writer killed outright
//! (SIGKILL, power loss, a host program that exits without closing) cannot
//! clean up after itself; the next writer of the same target lists the
//! directory and removes the temporary files of that target that are
//! **stale**: nobody holds their lock (the kernel drops a lock with the
//! last descriptor of its holder, however the holder died), and their
//! writer's pid does not exist here *or* the file is older than
//! [`STALE_AGE`]. The lock is the proof of life: it holds across PID
//! namespaces (containers sharing a directory, where the pid in the name
//! means nothing or another process; `kill(pid, 0)` alone deleted a live
//! writer's file there) and, on NFS, across hosts (Linux implements `flock`
//! there with the server's byte-range locks). The pid and the age only
//! cover the instant between a file's creation and its lock. Files of
//! other targets are left alone.
//!
//! Why a registry: a signal (Ctrl-C, SIGTERM, SIGHUP, …) ends the process
//! without running destructors. [`remove_temp_files`] removes every
//! temporary file of this process's unfinished writers; the CLI calls it
//! from its signal-handling thread, and a C host may call it from its own
//! handling (it takes a lock, so it must not run inside an asynchronous
//! signal handler).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary files of this process's unfinished writers.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

const MARK: &str = ".slog2tmp-";
const SUFFIX: &str = ".partial";

/// The prefix of every temporary file of `name`'s writers (any process).
fn target_prefix(name: &str) -> String {
    format!(".{name}{MARK}")
}

/// The prefix for this process's temporary files of `name`.
pub(crate) fn prefix(name: &str) -> String {
    format!("{}{}-", target_prefix(name), std::process::id())
}

pub(crate) const fn suffix() -> &'static str {
    SUFFIX
}

/// Keeps a temporary file in the registry while it lives.
pub(crate) struct Registered(PathBuf);

impl Registered {
    pub(crate) fn new(path: &Path) -> Self {
        if let Ok(mut v) = LIVE.lock() {
            v.push(path.to_path_buf());
        }
        Registered(path.to_path_buf())
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut v) = LIVE.lock() {
            if let Some(i) = v.iter().position(|p| *p == self.0) {
                v.swap_remove(i);
            }
        }
    }
}

/// Remove the temporary file of every unfinished writer of this process
/// (for signal handling: call it before the process ends on a signal).
/// Returns how many files were removed.
pub fn remove_temp_files() -> usize {
    let v = match LIVE.lock() {
        Ok(v) => v,
        Err(p) => p.into_inner(),
    };
    v.iter().filter(|p| std::fs::remove_file(p).is_ok()).count()
}

/// The pid in a temporary file name of target `name`, if it is one.
fn owner(file_name: &str, name: &str) -> Option<i32> {
    let rest = file_name.strip_prefix(&target_prefix(name))?;
    let rest = rest.strip_suffix(SUFFIX)?;
    let (pid, _) = rest.split_once('-')?;
    pid.parse().ok().filter(|&p: &i32| p > 0)
}

/// An unlocked temporary file this old is stale whatever its pid says
/// (its writer would have locked it microseconds after creating it).
pub const STALE_AGE: std::time::Duration = std::time::Duration::from_secs(10);

/// Take the writer's lock on its temporary file (see the module docs): held
/// until the file's last descriptor closes. An error only when the file
/// system has no locks at all, in which case the writer goes on unlocked.
pub(crate) fn hold(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a valid descriptor we own.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Somebody holds the lock of the file at `p` (a live writer). A file we
/// cannot open or lock for another reason counts as held: never delete
/// what we cannot prove dead.
fn locked(p: &Path) -> bool {
    use std::os::unix::io::AsRawFd;
    let Ok(f) = std::fs::File::open(p) else {
        return true;
    };
    // SAFETY: flock on a valid descriptor we own; closing `f` releases it.
    unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) != 0 }
}

fn process_gone(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Remove the stale temporary files of target `name` in `dir` (unlocked,
/// and of a pid that does not exist here or older than [`STALE_AGE`]). Returns the files removed. Errors (unreadable
/// directory, a file removed meanwhile) are ignored: cleaning is a courtesy.
pub fn clean_stale(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return removed;
    };
    let me = std::process::id() as i32;
    for e in rd.flatten() {
        let file_name = e.file_name();
        let Some(s) = file_name.to_str() else {
            continue;
        };
        match owner(s, name) {
            Some(pid) if pid != me => {
                let p = e.path();
                let old = e
                    .metadata()
                    .ok()
                    .and_then(|m| m.modified().ok())
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age >= STALE_AGE);
                if (old || process_gone(pid)) && !locked(&p) && std::fs::remove_file(&p).is_ok() {
                    removed.push(p);
                }
            }
            _ => {}
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            owner(".a.slog2.slog2tmp-123-xY.partial", "a.slog2"),
            Some(123)
        );
        assert_eq!(owner(".a.slog2.slog2tmp-123-xY.partial", "b.slog2"), None);
        assert_eq!(owner(".a.slog2.slog2tmp-x-xY.partial", "a.slog2"), None);
        assert_eq!(owner(".a.slog2.slog2tmp-123-xY", "a.slog2"), None);
        assert!(prefix("a").starts_with(".a.slog2tmp-"));
    }
}
