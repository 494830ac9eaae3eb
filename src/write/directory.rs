//! The tree directory while the tree is written: one entry per node, kept
//! encoded (34 bytes, the file's form) and, past [`Directory::IN_MEMORY`]
//! bytes, in an unnamed temporary file beside the target.
//!
//! Why: the directory is the one part of the writer's state that grows
//! with the tree (107,777 nodes at 100M drawables: 4.3 MB as entries, and
//! twice that for a moment each time the vector grew), and the writer's
//! peak memory is meant to stay flat from 1M to 100M drawables
//! (BENCHMARKS.md, issue #28). It is only read once, by `finish`, in the
//! file's order: depth descending, then xpos ascending. Nodes are placed
//! in close order (post-order), in which the nodes of one depth come left
//! to right, so the file's order is one pass per depth over the entries in
//! write order; that is checked as entries come, and a directory that
//! breaks it (no writer of this crate makes one) is sorted in memory
//! instead.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::format::{self, DirEntry, DIR_ENTRY_SIZE};

/// The directory of the nodes written so far (see the module docs).
#[derive(Debug, Default)]
pub(super) struct Directory {
    /// Entries not yet spilled, encoded, in write order.
    buf: Vec<u8>,
    /// The spill file (created when first needed), its bytes, its folder.
    file: Option<File>,
    spilled: u64,
    folder: PathBuf,
    len: usize,
    last: Option<DirEntry>,
    /// Per depth (from 0), the last xpos placed; `ordered`: every depth's
    /// xpos came ascending.
    last_xpos: Vec<Option<i32>>,
    ordered: bool,
    /// No spill file could be made: every entry stays in memory.
    in_memory: bool,
}

impl Directory {
    /// Bytes of entries kept in memory before they go to the spill file
    /// (about 7,700 nodes: a trace of some 7M drawables never spills).
    const IN_MEMORY: usize = 256 << 10;
    /// Bytes read back at a time.
    const READ: usize = 1927 * DIR_ENTRY_SIZE;

    /// An empty directory whose spill file goes in `folder`.
    pub(super) fn new(folder: &Path) -> Directory {
        Directory {
            folder: folder.to_path_buf(),
            ordered: true,
            ..Default::default()
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The entry placed last.
    pub(super) fn last(&self) -> Option<&DirEntry> {
        self.last.as_ref()
    }

    pub(super) fn push(&mut self, e: DirEntry) -> Result<()> {
        let depth = usize::try_from(e.id.depth).unwrap_or(0);
        if self.last_xpos.len() <= depth {
            self.last_xpos.resize(depth + 1, None);
        }
        let slot = &mut self.last_xpos[depth];
        if slot.is_some_and(|x| x > e.id.xpos) || e.id.depth < 0 {
            self.ordered = false;
        }
        *slot = Some(e.id.xpos);
        format::encode_treedir_entries(&mut self.buf, std::slice::from_ref(&e));
        self.len += 1;
        self.last = Some(e);
        if self.buf.len() >= Self::IN_MEMORY && !self.in_memory {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> Result<()> {
        let file = match &mut self.file {
            Some(f) => f,
            None => {
                // Beside the target, else in the temporary folder (a target
                // on a pipe or a device), else nowhere: memory, as before.
                match tempfile::tempfile_in(&self.folder).or_else(|_| tempfile::tempfile()) {
                    Ok(f) => self.file.insert(f),
                    Err(_) => {
                        self.in_memory = true;
                        return Ok(());
                    }
                }
            }
        };
        file.write_all_at(&self.buf, self.spilled)
            .map_err(|e| Error::io(&self.folder, e))?;
        self.spilled += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }

    /// Every entry's bytes in write order, a slice of whole entries at a
    /// time.
    fn each_slice(&self, mut f: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        if let Some(file) = &self.file {
            let mut chunk = vec![0; Self::READ];
            let mut at = 0u64;
            while at < self.spilled {
                let n = (self.spilled - at).min(Self::READ as u64) as usize;
                file.read_exact_at(&mut chunk[..n], at)
                    .map_err(|e| Error::io(&self.folder, e))?;
                f(&chunk[..n])?;
                at += n as u64;
            }
        }
        f(&self.buf)
    }

    /// The directory block's entries (without its count) in the file's
    /// order, handed to `write` a slice at a time.
    pub(super) fn write_sorted(&self, mut write: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        if !self.ordered {
            let mut v = self.entries_in_write_order()?;
            v.sort_by(|a, b| b.id.depth.cmp(&a.id.depth).then(a.id.xpos.cmp(&b.id.xpos)));
            let mut out = Vec::with_capacity(Self::READ);
            for entries in v.chunks(Self::READ / DIR_ENTRY_SIZE) {
                out.clear();
                format::encode_treedir_entries(&mut out, entries);
                write(&out)?;
            }
            return Ok(());
        }
        let mut out = Vec::with_capacity(Self::READ);
        for depth in (0..self.last_xpos.len()).rev() {
            let depth = (depth as i16).to_be_bytes();
            self.each_slice(|entries| {
                for e in entries.chunks_exact(DIR_ENTRY_SIZE) {
                    if e[..2] == depth {
                        out.extend_from_slice(e);
                        if out.len() >= Self::READ {
                            write(&out)?;
                            out.clear();
                        }
                    }
                }
                Ok(())
            })?;
        }
        if !out.is_empty() {
            write(&out)?;
        }
        Ok(())
    }

    fn entries_in_write_order(&self) -> Result<Vec<DirEntry>> {
        self.decoded(|f| self.each_slice(f))
    }

    /// Every entry in the file's order (for a last check of the tree).
    pub(super) fn entries(&self) -> Result<Vec<DirEntry>> {
        self.decoded(|f| self.write_sorted(f))
    }

    /// The entries `walk` hands out, decoded.
    fn decoded(
        &self,
        walk: impl FnOnce(&mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()>,
    ) -> Result<Vec<DirEntry>> {
        let mut block = Vec::with_capacity(4 + self.len * DIR_ENTRY_SIZE);
        block.extend_from_slice(&(self.len as i32).to_be_bytes());
        walk(&mut |b| {
            block.extend_from_slice(b);
            Ok(())
        })?;
        format::decode_treedir(&block, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::BlockPtr;
    use crate::model::{NodeId, TimeBox};

    fn entry(depth: i16, xpos: i32) -> DirEntry {
        DirEntry {
            id: NodeId::new(depth, xpos),
            time_box: TimeBox::new(xpos as f64, xpos as f64 + 1.0),
            ptr: BlockPtr::new(1000 + xpos as u64 * 7 + depth as u64, 42),
        }
    }

    /// The file's order from the spill file and memory, in order or not,
    /// is the sort the writer used to do.
    #[test]
    fn sorted_like_the_stable_sort_spilled_or_not() {
        let dir = tempfile::tempdir().unwrap();
        for (n, shuffle) in [(10, false), (40_000, false), (40_000, true), (0, false)] {
            // Post-order of a binary tree of leaves 0..n.
            let mut placed = Vec::new();
            for x in 0..n {
                placed.push(entry(0, x));
                let mut depth = 0;
                let mut xpos = x;
                while xpos % 2 == 1 {
                    depth += 1;
                    xpos /= 2;
                    placed.push(entry(depth, xpos));
                }
            }
            if shuffle {
                placed.swap(5, 9000);
            }
            let mut d = Directory::new(dir.path());
            for e in &placed {
                d.push(*e).unwrap();
            }
            assert_eq!(d.len(), placed.len());
            assert_eq!(d.last(), placed.last());
            assert_eq!(d.file.is_some(), n > 10, "spilled");
            let mut want = placed.clone();
            want.sort_by(|a, b| b.id.depth.cmp(&a.id.depth).then(a.id.xpos.cmp(&b.id.xpos)));
            assert_eq!(d.entries().unwrap(), want);
            let mut block = Vec::new();
            format::encode_treedir(&mut block, &want);
            let mut got = (d.len() as i32).to_be_bytes().to_vec();
            d.write_sorted(|b| {
                got.extend_from_slice(b);
                Ok(())
            })
            .unwrap();
            assert_eq!(got, block);
        }
    }
}
