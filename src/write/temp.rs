//! Temporary files of unfinished writers: named so that a dead writer's
//! leftovers are recognisable, registered so that a signal handler can
//! remove them.
//!
//! A writer works on `.<target name>.slog2tmp-<pid>-<random>.partial` beside
//! its target. Why the pid: a writer killed outright (SIGKILL, power loss, a
//! host program that exits without closing) cannot clean up after itself;
//! the next writer of the same target lists the directory, and removes the
//! temporary files of that target whose process no longer exists
//! (`kill(pid, 0)` fails with `ESRCH`). Files of live processes, and of
//! other targets, are left alone. A recycled pid only delays the clean-up.
//!
//! Why a registry: a signal (Ctrl-C, SIGTERM, SIGHUP) ends the process
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

fn process_gone(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Remove the temporary files of target `name` in `dir` left by writers
/// whose process is gone. Returns the files removed. Errors (unreadable
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
            Some(pid) if pid != me && process_gone(pid) => {
                let p = e.path();
                if std::fs::remove_file(&p).is_ok() {
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
