//! Plugin discovery: the readers this project ships, found without
//! `--trace-lib`.
//!
//! Some foreign formats are read by plugins this project ships itself: an
//! OTF2 archive (Score-P) by `libslog2-otf2.so` (readers/otf2). When
//! [`open_source`](crate::trace::open_source) recognises such a format
//! ([`is_otf2`]), [`find_plugin`] looks for the library, first match wins:
//! 1. every directory of the environment variable `SLOG2_PLUGIN_PATH`
//!    (colon-separated);
//! 2. `<directory of the running executable>/../lib/slog2/plugins` (the
//!    installed `bin/slog2` finds `lib/slog2/plugins`);
//! 3. `<directory of libslog2>/slog2/plugins`, then that directory itself
//!    (found with `dladdr`, so a C or Java program linked to an installed
//!    `libslog2.so` finds the plugins installed beside it);
//! 4. the bare file name, left to the dynamic loader (`LD_LIBRARY_PATH`,
//!    system directories).
//!
//! The error names every place tried. `--trace-lib` bypasses all of this.

use std::ffi::{c_void, CStr};
use std::path::Path;

use crate::error::{Error, Result};

use super::{PluginOpen, PluginSource};

/// File name of the OTF2 reader plugin (readers/otf2).
pub const OTF2_PLUGIN: &str = "libslog2-otf2.so";

/// Does `path` name an OTF2 archive: an anchor file (`*.otf2`, or a file
/// starting with OTF2's anchor header: a type byte, an endianness byte,
/// `OTF2`), or a directory holding `traces.otf2`?
pub fn is_otf2(path: &Path) -> bool {
    if path.is_dir() {
        return path.join("traces.otf2").is_file();
    }
    if path.extension().is_some_and(|e| e == "otf2") {
        return true;
    }
    let mut head = [0u8; 6];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|_| &head[2..6] == b"OTF2")
}

/// Directory of the shared library (or executable) holding this code.
fn own_library_dir() -> Option<std::path::PathBuf> {
    // SAFETY: Dl_info is a plain C struct of pointers and integers, for which
    // all-zero bytes are a valid value.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the address and fills `info`; the name it
    // returns lives as long as the library stays loaded (we copy it at once).
    let ok = unsafe { libc::dladdr(own_library_dir as *const c_void, &mut info) };
    if ok == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr succeeded and dli_fname is non-null: a NUL-terminated
    // path owned by the loader, valid while the library is loaded.
    let name = unsafe { CStr::from_ptr(info.dli_fname) }
        .to_string_lossy()
        .into_owned();
    let p = std::fs::canonicalize(name).ok()?;
    p.parent().map(Path::to_path_buf)
}

/// Where [`find_plugin`] looks for `file`, in order (module docs).
pub fn plugin_search_path(file: &str) -> Vec<std::path::PathBuf> {
    let mut dirs = Vec::new();
    if let Some(v) = std::env::var_os("SLOG2_PLUGIN_PATH") {
        dirs.extend(std::env::split_paths(&v).filter(|d| !d.as_os_str().is_empty()));
    }
    if let Some(bin) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        dirs.push(bin.join("../lib/slog2/plugins"));
    }
    if let Some(lib) = own_library_dir() {
        dirs.push(lib.join("slog2/plugins"));
        dirs.push(lib);
    }
    dirs.into_iter().map(|d| d.join(file)).collect()
}

/// The plugin library `file`: the first existing candidate of
/// [`plugin_search_path`], else the bare name for the dynamic loader.
pub fn find_plugin(file: &str) -> std::path::PathBuf {
    plugin_search_path(file)
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| std::path::PathBuf::from(file))
}

/// Open `path` through the shipped plugin `file` (found by [`find_plugin`]).
pub fn open_with_shipped_plugin(file: &str, what: &str, path: &Path) -> Result<PluginSource> {
    let lib = find_plugin(file);
    let spec = path
        .to_str()
        .ok_or_else(|| Error::InvalidArgument(format!("{} is not UTF-8", path.display())))?;
    match PluginSource::open(&lib, spec) {
        Ok(PluginOpen::Source(s)) => Ok(s),
        // A help request is impossible for a path that exists; treat it as an error.
        Ok(PluginOpen::Help(_)) => Err(Error::Source(format!(
            "{spec}: {what} reader returned no handle"
        ))),
        Err(e) if !lib.is_absolute() => {
            let tried: Vec<String> = plugin_search_path(file)
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            Err(Error::Source(format!(
                "{spec} is {what}, which is read by the plugin {file}; it was not found in {} nor by the \
                 dynamic loader ({e}); set SLOG2_PLUGIN_PATH to its directory or pass --trace-lib",
                tried.join(", ")
            )))
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn otf2_archives_are_recognised_by_name_header_or_directory() {
        let dir = tempfile::tempdir().unwrap();
        let anchor = dir.path().join("traces.otf2");
        std::fs::write(&anchor, b"\x03\x42OTF2\x00\x03").unwrap();
        assert!(is_otf2(&anchor));
        assert!(is_otf2(dir.path()), "a directory holding traces.otf2");
        // the anchor header under another name
        let renamed = dir.path().join("run.anchor");
        std::fs::write(&renamed, b"\x03\x23OTF2\x00\x03").unwrap();
        assert!(is_otf2(&renamed));
        // a missing or damaged *.otf2 still goes to the OTF2 reader, whose
        // error names the file
        assert!(is_otf2(&dir.path().join("missing.otf2")));
        let text = dir.path().join("run.txt");
        std::fs::write(&text, "Category[ index=0 name=a topo=State ...").unwrap();
        assert!(!is_otf2(&text));
        let short = dir.path().join("x");
        std::fs::write(&short, b"OTF2").unwrap();
        assert!(!is_otf2(&short));
        let empty = tempfile::tempdir().unwrap();
        assert!(!is_otf2(empty.path()), "a directory without traces.otf2");
    }

    #[test]
    fn plugin_search_order_env_then_exe_then_library() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let joined = std::env::join_paths([a.path(), b.path()]).unwrap();
        // Only this module's tests use the variable; the other test here does not depend on it.
        std::env::set_var("SLOG2_PLUGIN_PATH", &joined);
        let path = plugin_search_path("libx.so");
        std::env::remove_var("SLOG2_PLUGIN_PATH");
        assert_eq!(path[0], a.path().join("libx.so"));
        assert_eq!(path[1], b.path().join("libx.so"));
        let exe_dir = std::env::current_exe()
            .unwrap()
            .parent()
            .unwrap()
            .to_path_buf();
        assert_eq!(path[2], exe_dir.join("../lib/slog2/plugins/libx.so"));
        // then the directory of the code itself (here the test executable)
        assert!(path.len() >= 5, "{path:?}");
        assert!(path[3].ends_with("slog2/plugins/libx.so"), "{path:?}");
        // the first existing candidate wins; nothing found -> the bare name
        std::fs::write(b.path().join("libx.so"), b"").unwrap();
        std::env::set_var("SLOG2_PLUGIN_PATH", &joined);
        let found = find_plugin("libx.so");
        let none = find_plugin("liby.so");
        std::env::remove_var("SLOG2_PLUGIN_PATH");
        assert_eq!(found, b.path().join("libx.so"));
        assert_eq!(none, std::path::PathBuf::from("liby.so"));
    }

    #[test]
    fn missing_plugin_error_names_the_archive_and_the_places_tried() {
        let dir = tempfile::tempdir().unwrap();
        let anchor = dir.path().join("traces.otf2");
        std::fs::write(&anchor, b"\x03\x42OTF2").unwrap();
        let err =
            open_with_shipped_plugin("libslog2-no-such-plugin.so", "an OTF2 archive", &anchor)
                .err()
                .unwrap()
                .to_string();
        assert!(err.contains(&anchor.display().to_string()), "{err}");
        assert!(
            err.contains("lib/slog2/plugins/libslog2-no-such-plugin.so"),
            "{err}"
        );
        assert!(err.contains("SLOG2_PLUGIN_PATH"), "{err}");
    }
}
