//! Where a writer's output goes: never destroy what is at the path.
//!
//! A writer writes a temporary file and publishes it at the end. What
//! "publish" means depends on what the output path is (issue #27 class 1:
//! renaming over whatever was there replaced `/dev/stdout`'s link with a
//! regular file, a copy of `/dev/null` with a file, a symlink instead of its
//! target, and reset a read-only file's mode to 0644):
//!
//! | the path is | the writer |
//! |---|---|
//! | missing, or a regular file | writes beside it and renames over it (atomic); an existing file's permission bits are kept |
//! | a symlink (any chain) | follows it to the final target and applies these rules there; the link stays |
//! | `-` | writes through to standard output |
//! | a FIFO or a character device (`/dev/stdout`, `/dev/null`, a tty) | writes through: the temporary file lives in the temporary directory (`$TMPDIR`), and the finished file is copied into the special file, which is opened for writing only (never created, truncated, renamed or removed) |
//! | a directory, a block device, a socket | refused, before anything is written |
//!
//! Written through, the output is not atomic for the reader at the other
//! end: it gets the file's bytes once the file is complete, or nothing
//! if the conversion fails.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A resolved output (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Output {
    /// Rename over `path` (a regular file or nothing); `mode`: the existing
    /// file's permission bits, kept.
    Replace { path: PathBuf, mode: Option<u32> },
    /// Copy into a FIFO or character device at `path`, or standard output
    /// (`path` is `-`).
    Through { path: PathBuf },
}

impl Output {
    /// The directory for the temporary file.
    pub(crate) fn temp_dir(&self) -> PathBuf {
        match self {
            Output::Replace { path, .. } => match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            },
            Output::Through { .. } => std::env::temp_dir(),
        }
    }

    /// The path the rename targets (the resolved one).
    pub(crate) fn path(&self) -> &Path {
        match self {
            Output::Replace { path, .. } | Output::Through { path } => path,
        }
    }
}

/// Follow a chain of symlinks at `p` to the path it finally names (which
/// need not exist yet). At most 40 links (the kernel's own limit).
fn follow(p: &Path) -> Result<PathBuf> {
    let mut cur = p.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&cur) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&cur).map_err(|e| Error::io(&cur, e))?;
                cur = match cur.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(cur),
        }
    }
    Err(Error::io(
        p,
        std::io::Error::other("too many levels of symbolic links"),
    ))
}

/// Decide how to write `target` (see the module documentation).
pub(crate) fn resolve(target: &Path) -> Result<Output> {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    if target.as_os_str() == "-" {
        return Ok(Output::Through {
            path: target.to_path_buf(),
        });
    }
    let real = follow(target)?;
    let meta = match std::fs::metadata(&real) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Output::Replace {
                path: real,
                mode: None,
            })
        }
        Err(e) => return Err(Error::io(target, e)),
    };
    let ft = meta.file_type();
    if ft.is_file() {
        return Ok(Output::Replace {
            path: real,
            mode: Some(meta.permissions().mode() & 0o7777),
        });
    }
    if ft.is_fifo() || ft.is_char_device() {
        return Ok(Output::Through { path: real });
    }
    let what = if ft.is_dir() {
        "a directory"
    } else if ft.is_block_device() {
        "a block device (refused: writing a trace over a disk is never meant)"
    } else if ft.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    };
    Err(Error::io(
        target,
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("the output is {what}"),
        ),
    ))
}

/// Publish the finished temporary file `tmp` at `out`; `shown` names the
/// output in errors (the path the user gave).
pub(crate) fn publish(tmp: tempfile::NamedTempFile, out: &Output, shown: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    match out {
        Output::Replace { path, mode } => {
            if let Some(m) = mode {
                tmp.as_file()
                    .set_permissions(std::fs::Permissions::from_mode(*m))
                    .map_err(|e| Error::io(shown, e))?;
            }
            tmp.persist(path).map_err(|e| Error::io(shown, e.error))?;
            Ok(())
        }
        Output::Through { path } => {
            let mut src = tmp.reopen().map_err(|e| Error::io(tmp.path(), e))?;
            let copied = if path.as_os_str() == "-" {
                let stdout = std::io::stdout();
                let mut lock = stdout.lock();
                std::io::copy(&mut src, &mut lock)
                    .and_then(|n| std::io::Write::flush(&mut lock).map(|_| n))
            } else {
                // Never create or truncate: the special file stays itself.
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .and_then(|mut dst| std::io::copy(&mut src, &mut dst))
            };
            copied.map_err(|e| Error::io(shown, e))?;
            // `tmp` is removed when dropped here.
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlink_chains_are_followed() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real.slog2");
        std::os::unix::fs::symlink("real.slog2", d.path().join("a")).unwrap();
        std::os::unix::fs::symlink(d.path().join("a"), d.path().join("b")).unwrap();
        assert_eq!(
            resolve(&d.path().join("b")).unwrap(),
            Output::Replace {
                path: real,
                mode: None
            }
        );
        std::os::unix::fs::symlink("loop", d.path().join("loop")).unwrap();
        assert!(resolve(&d.path().join("loop")).is_err());
    }
}
