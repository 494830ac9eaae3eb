//! Opening a file: mapping or reading its bytes, and validating the
//! metadata a reader needs before any query.
//!
//! Why it is its own file: opening decides how the bytes are held — a
//! guarded memory map for regular files of 64 KiB and more ([`super::guard`]:
//! a file truncated under the reader is an error on the query, not SIGBUS),
//! memory for small files, pipes and devices (read only as far as the
//! header's blocks reach, so `/dev/zero` cannot grow the process) — and what
//! `open` promises (the module docs of [`super`], "What `open` validates").
//! Queries never see the difference: they ask [`Slog2File::as_bytes`].
//!
//! A file that is a trace of another format (CLOG2, OTF2, slog2sdk's text
//! format) fails with an error that names the `slog2 convert` command.

use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::*;

/// Files smaller than this are read into memory instead of being mapped
/// (a map costs a syscall and page-table work that small files do not repay).
pub(super) const MMAP_THRESHOLD: u64 = 64 * 1024;

/// Bytes of the map that queries may fault in before the reader drops its
/// page mappings (`MADV_DONTNEED`; the pages stay in the OS page cache). A
/// mapped file's touched pages count in the process's RSS; without this,
/// random jumps over a 6 GB file would grow RSS towards the file size.
pub(super) const MAP_TRIM_BYTES: u64 = 256 << 20;

pub(super) enum Backing {
    Mapped(Mapped),
    Owned(Vec<u8>),
}

/// A mapped file with its guard ([`guard`]) and what it looked like when
/// it was mapped (to tell a file rewritten in place from a damaged one).
pub(super) struct Mapped {
    /// Declared before `map`: unregistered before the map is unmapped.
    pub(super) guard: Option<guard::Guard>,
    pub(super) map: memmap2::Mmap,
    pub(super) file: std::fs::File,
    pub(super) stamp: Stamp,
}

/// Size and modification/change times of an open file.
#[derive(PartialEq)]
pub(super) struct Stamp(u64, i64, i64, i64, i64);

impl Stamp {
    pub(super) fn of(f: &std::fs::File) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let m = f.metadata().ok()?;
        Some(Stamp(
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        ))
    }
}

impl Backing {
    pub(super) fn bytes(&self) -> &[u8] {
        match self {
            Backing::Mapped(m) => &m.map,
            Backing::Owned(v) => v,
        }
    }
}

/// The file's bytes, held by work that may outlive a borrow of the
/// [`Slog2File`] (the scan's unpacking tasks on rayon's pool): the map
/// stays valid, and guarded, while any holder lives.
#[derive(Clone)]
pub(crate) struct SharedBytes(std::sync::Arc<Backing>);

impl std::ops::Deref for SharedBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.0.bytes()
    }
}

impl Slog2File {
    /// The file's bytes, shared ([`SharedBytes`]).
    pub(crate) fn shared_bytes(&self) -> SharedBytes {
        SharedBytes(self.backing.clone())
    }
}

/// Byte offsets of the header's pointer fields (for error messages).
pub(super) const PTR_CATEGORIES: u64 = 24;
pub(super) const PTR_LINEIDMAPS: u64 = 48;
pub(super) const PTR_TREEROOT: u64 = 60;
pub(super) const PTR_TREEDIR: u64 = 72;

pub(super) fn required_block(
    ptr: BlockPtr,
    what: &'static str,
    field: u64,
    file_len: u64,
) -> Result<Range<usize>> {
    if ptr.is_null() {
        return Err(Error::malformed(
            "header",
            field,
            format!(
                "the {what} pointer is null ({} bytes @ {})",
                ptr.size, ptr.offset
            ),
        ));
    }
    ptr.range(what, file_len)
}

impl Slog2File {
    /// Open and memory-map a file, validating its metadata (see the module
    /// docs). I/O errors name the path.
    pub fn open(path: impl AsRef<Path>) -> Result<Slog2File> {
        let path = path.as_ref();
        Self::open_mapped(path).map_err(|e| match e {
            Error::BadVersion { .. } => needs_conversion(e, path),
            e => e,
        })
    }

    pub(super) fn open_mapped(path: &Path) -> Result<Slog2File> {
        let io = |e| Error::io(path, e);
        let mut file = std::fs::File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            // A pipe, a FIFO, a device: read once, as far as the header's
            // blocks reach (never "to the end": /dev/zero has none).
            return Self::read_from(file, path);
        }
        let len = meta.len();
        let backing = if len < MMAP_THRESHOLD {
            let mut v = Vec::with_capacity(len as usize);
            file.read_to_end(&mut v).map_err(io)?;
            Backing::Owned(v)
        } else {
            // SAFETY: the map is read-only and never handed out mutably; a
            // truncation by another process faults into `guard`'s handler,
            // which keeps the range mapped (zero pages) and flags the map.
            let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
            let stamp = Stamp::of(&file)
                .ok_or_else(|| io(std::io::Error::other("cannot stat the file")))?;
            Backing::Mapped(Mapped {
                guard: guard::Guard::register(map.as_ptr(), map.len()),
                map,
                file,
                stamp,
            })
        };
        Self::from_backing(backing, Some(path.to_path_buf()))
    }

    /// Read a file from a stream (a pipe, a decompressor) into memory. The
    /// header is read first; then the stream is read only as far as the
    /// farthest block the header points to (the reference and our writer put
    /// the category map, line-ID maps and directory after the tree nodes), so
    /// an endless stream (`/dev/zero`) costs its 108 header bytes, and memory
    /// grows only with the bytes that actually arrive. `path` names the
    /// stream in messages.
    pub fn read_from(mut r: impl Read, path: &Path) -> Result<Slog2File> {
        let io = |e| Error::io(path, e);
        let mut bytes = Vec::with_capacity(format::HEADER_SIZE);
        r.by_ref()
            .take(format::HEADER_SIZE as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        let header = Header::decode(&bytes)?;
        let end = [
            header.categories,
            header.lineidmaps,
            header.treeroot,
            header.treedir,
        ]
        .iter()
        .filter(|p| !p.is_null() && p.offset >= 0 && p.size >= 0)
        .map(|p| p.offset as u64 + p.size as u64)
        .max()
        .unwrap_or(0);
        let rest = end.saturating_sub(bytes.len() as u64);
        r.take(rest).read_to_end(&mut bytes).map_err(io)?;
        Self::from_backing(Backing::Owned(bytes), Some(path.to_path_buf()))
    }

    /// The same as [`open`](Self::open), from bytes in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Slog2File> {
        Self::from_backing(Backing::Owned(bytes), None)
    }

    pub(super) fn from_backing(backing: Backing, path: Option<PathBuf>) -> Result<Slog2File> {
        let bytes = backing.bytes();
        let file_len = bytes.len() as u64;
        let header = Header::decode(bytes)?;

        let cat_r = required_block(header.categories, "category map", PTR_CATEGORIES, file_len)?;
        let map_r = required_block(
            header.lineidmaps,
            "line-ID map list",
            PTR_LINEIDMAPS,
            file_len,
        )?;
        required_block(header.treeroot, "tree root", PTR_TREEROOT, file_len)?;
        let dir_r = required_block(header.treedir, "tree directory", PTR_TREEDIR, file_len)?;

        let mut categories = format::decode_categories(&bytes[cat_r.clone()], cat_r.start as u64)?;
        let ycoordmaps = format::decode_ycoordmaps(&bytes[map_r.clone()], map_r.start as u64)?;
        let directory = format::decode_treedir(&bytes[dir_r.clone()], dir_r.start as u64)?;
        if directory.is_empty() {
            return Err(Error::malformed(
                "tree directory",
                dir_r.start as u64,
                "the directory has no entries",
            ));
        }

        let mut category_index = FxHashMap::default();
        category_index.reserve(categories.len());
        for (i, c) in categories.iter().enumerate() {
            category_index.entry(c.index).or_insert(i);
        }
        let mut node_index = FxHashMap::default();
        node_index.reserve(directory.len());
        // Each ID's first entry, in directory order.
        let mut by_position: Vec<(NodeId, usize)> = Vec::with_capacity(directory.len());
        for (i, e) in directory.iter().enumerate() {
            let at = dir_r.start as u64 + 4 + (i * DIR_ENTRY_SIZE) as u64;
            if e.ptr.is_null() {
                return Err(Error::malformed(
                    "tree directory",
                    at,
                    format!("node {} has a null block pointer", e.id),
                ));
            }
            if e.ptr.range("tree node", file_len).is_err() {
                return Err(Error::malformed(
                    "tree directory",
                    at,
                    format!(
                        "node {}: block pointer ({} bytes @ {}) is outside the file of {file_len} bytes",
                        e.id, e.ptr.size, e.ptr.offset
                    ),
                ));
            }
            if let std::collections::hash_map::Entry::Vacant(v) = node_index.entry(e.id) {
                v.insert(i);
                by_position.push((e.id, i));
            }
        }

        check_disjoint_nodes(&directory, dir_r.start as u64)?;

        // Stored counts are hints: no category can count more drawables than
        // the tree nodes' bytes hold (a hostile 2^32 made a windowed scan
        // plan 4.3 million windows). Clamped here, reported by `check`.
        let mut node_bytes: u64 = directory.iter().map(|e| e.ptr.size.max(0) as u64).sum();
        if header.is_compressed() {
            // Compressed nodes hold at most MAX_RATIO times their bytes.
            node_bytes = node_bytes.saturating_mul(format::packed::MAX_RATIO);
        }
        let most = (node_bytes / MIN_DRAWABLE_BYTES).min(i64::MAX as u64) as i64;
        let mut clamped = Vec::new();
        for c in categories.iter_mut() {
            if c.count > most || c.count < 0 {
                clamped.push((c.index, c.count, most));
                c.count = c.count.clamp(0, most);
            }
        }

        let by_ptr = directory.iter().position(|e| e.ptr == header.treeroot);
        let by_id = node_index
            .get(&NodeId::new(header.max_treedepth, 0))
            .copied();
        let root = by_ptr.or(by_id).ok_or_else(|| {
            Error::malformed(
                "header",
                PTR_TREEROOT,
                format!(
                    "the tree root pointer ({} bytes @ {}) matches no directory entry and the directory has no ID({},0)",
                    header.treeroot.size, header.treeroot.offset, header.max_treedepth
                ),
            )
        })?;

        // Stable (the keys are unique): merges the directory's runs, one
        // per depth.
        by_position.sort_by_key(|(id, _)| (id.depth, id.xpos));

        Ok(Slog2File {
            backing: std::sync::Arc::new(backing),
            path,
            header,
            categories,
            category_index,
            ycoordmaps,
            dir_index: DirIndex::new(&directory),
            directory,
            cache: NodeCache::new(index::limit_from_env()),
            map_touched: std::sync::atomic::AtomicU64::new(0),
            counts: std::sync::OnceLock::new(),
            node_index,
            by_position,
            root,
            clamped,
        })
    }

    // -----------------------------------------------------------------------
    // Metadata

    /// The map of a memory-mapped file; `None` for files held in memory
    /// (the whole-file scan advises the kernel on it, see [`scan`]).
    pub(crate) fn map(&self) -> Option<&memmap2::Mmap> {
        match &*self.backing {
            Backing::Mapped(m) => Some(&m.map),
            Backing::Owned(_) => None,
        }
    }

    /// The file changed under the reader since it was opened: a fault in
    /// its mapping (it was truncated, [`guard`]), or, for a query that
    /// failed, a new size or time stamp (rewritten in place). Files read
    /// into memory never change.
    pub fn changed(&self) -> bool {
        match &*self.backing {
            Backing::Mapped(m) => {
                m.guard.as_ref().is_some_and(|g| g.changed())
                    || Stamp::of(&m.file).is_some_and(|s| s != m.stamp)
            }
            Backing::Owned(_) => false,
        }
    }

    /// What every query returns: its result, unless the file changed
    /// underneath while it ran ([`Error::FileChanged`] then replaces the
    /// garbage or the damage the query saw). One relaxed load on success
    /// (the guard's flag); the file's stamp is looked at only on failure.
    #[inline]
    pub(crate) fn settle<T>(&self, r: Result<T>) -> Result<T> {
        if let Backing::Mapped(m) = &*self.backing {
            let faulted = m.guard.as_ref().is_some_and(|g| g.changed());
            if faulted || (r.is_err() && self.changed()) {
                return Err(guard::changed_error(self.path.as_deref()));
            }
        }
        r
    }
}

/// A file that is no SLOG-2 file but a trace `slog2 convert` reads: the
/// error says so and gives the command (a user handed `slog2.open` a `.clog2`
/// or a text trace). Other files keep the reader's error.
pub(super) fn needs_conversion(e: Error, path: &Path) -> Error {
    // Only a regular file is read again: a FIFO or a device would block
    // or never end (its bytes went to the reader that failed).
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return e;
    }
    let mut head = Vec::with_capacity(4096);
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(4096).read_to_end(&mut head);
    }
    let text = String::from_utf8_lossy(&head);
    let what = if crate::trace::clog2::looks_like_bytes(&head) {
        "an MPE CLOG2 log"
    } else if crate::trace::plugin::is_otf2(path) {
        "an OTF2 archive's anchor file"
    } else if text.lines().any(|l| {
        let l = l.trim_start();
        ["Category[", "Primitive[", "Composite[", "YCoordMap["]
            .iter()
            .any(|k| l.starts_with(k))
    }) {
        "a trace in slog2sdk's text format"
    } else {
        return e;
    };
    let out = if path.extension().is_some_and(|x| x == "slog2") {
        path.with_extension("converted.slog2")
    } else {
        path.with_extension("slog2")
    };
    Error::NeedsConversion {
        source: Box::new(e),
        path: path.display().to_string(),
        what,
        out: out.display().to_string(),
    }
}

/// Budget: every directory entry must have bytes of its own. A hostile
/// directory pointing many entries at one large block made a query decode
/// that block again for each entry (a 3.6 MB file exhausted memory and
/// aborted a C host). With disjoint blocks, the node bytes a query can read
/// sum to at most the file's size, and so do the allocations decoding them.
pub(super) fn check_disjoint_nodes(directory: &[DirEntry], dir_offset: u64) -> Result<()> {
    let mut spans: Vec<(i64, i64, usize)> = directory
        .iter()
        .enumerate()
        .map(|(i, e)| (e.ptr.offset, e.ptr.offset + i64::from(e.ptr.size), i))
        .collect();
    // A stable sort (the keys are unique: the same order as any sort)
    // merges the directory's runs: each depth's nodes lie in file order.
    spans.sort();
    for w in spans.windows(2) {
        let ((a0, a1, i), (b0, b1, j)) = (w[0], w[1]);
        if b0 < a1 {
            return Err(Error::malformed(
                "tree directory",
                dir_offset,
                format!(
                    "node {} block [{a0}, {a1}) overlaps node {} block [{b0}, {b1}): \
                     every tree node needs bytes of its own",
                    directory[i].id, directory[j].id
                ),
            ));
        }
    }
    Ok(())
}
