//! The block stage: a node's bytes, in drawing order, at its offset.
//!
//! A node arrives in close order (post-order) with its entry, its drawables
//! and its children's stubs. The stage sorts the drawables into drawing
//! order (unless the tree side already did), encodes the block, and gives
//! it its place in the file: nodes are contiguous from the end of the
//! header, so a node's offset is the sum of the sizes before it. That is
//! decided here, not on the node thread, because a compressed node's size
//! (`WriterOptions::compress`) is only known once it is packed — and a
//! parent's stubs carry its children's block pointers, which are patched
//! in from the children written before it. Plain nodes get the same
//! offsets the node thread used to compute. Consecutive blocks are gathered
//! into one write of about a megabyte. Drawable lists go back to the tree
//! side for reuse.

use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender};

use rustc_hash::FxHashMap;

use super::NodeDrawables;
use crate::error::{Error, Result};
use crate::format::{self, BlockPtr, DirEntry, Packer, Stub};
use crate::model::NodeId;

/// A node ready to be written: its entry (the pointer's size is the
/// block's size in the 2.0.6 layout, its offset not yet known), its
/// drawables and its children's stubs.
pub(super) struct BlockJob {
    pub(super) entry: DirEntry,
    pub(super) drawables: NodeDrawables,
    pub(super) held: Vec<Stub>,
}

/// What the block stage leaves when every node is written.
#[derive(Debug, Default)]
pub(super) struct BlocksWritten {
    /// One entry per node, in write order.
    pub dir: Vec<DirEntry>,
    /// End of the tree's blocks.
    pub offset: u64,
    /// The largest node block (as written).
    pub max_buffer_bytesize: i32,
    /// Nodes' bytes in the 2.0.6 layout (the same as `offset - 108` for a
    /// plain file).
    pub plain_bytes: u64,
}

/// The block stage (see the module docs).
pub(super) struct BlockWriter {
    file: std::fs::File,
    path: PathBuf,
    buf: Vec<u8>,
    buf_offset: u64,
    /// Compressed nodes: the packer, and the plain block being packed.
    packer: Option<Packer>,
    plain: Vec<u8>,
    /// Pointers of written nodes whose parent is not written yet.
    pending: FxHashMap<NodeId, BlockPtr>,
    written: BlocksWritten,
}

impl BlockWriter {
    const FLUSH: usize = 1 << 20;

    /// A block stage whose first node goes at `offset`; nodes are packed at
    /// zlib level `compress` when it is set.
    pub(super) fn new(
        file: std::fs::File,
        path: PathBuf,
        offset: u64,
        compress: Option<u32>,
    ) -> Self {
        BlockWriter {
            file,
            path,
            buf: Vec::with_capacity(Self::FLUSH + (1 << 17)),
            buf_offset: offset,
            packer: compress.map(Packer::new),
            plain: Vec::new(),
            pending: FxHashMap::default(),
            written: BlocksWritten {
                offset,
                ..Default::default()
            },
        }
    }

    /// Write every job; returns the thread's CPU seconds and what was
    /// written.
    pub(super) fn run(
        mut self,
        rx: Receiver<BlockJob>,
        back: SyncSender<NodeDrawables>,
    ) -> Result<(f64, BlocksWritten)> {
        for job in rx {
            self.block(job, &back)?;
        }
        let w = self.finish()?;
        Ok((crate::cputime::thread_cpu_seconds(), w))
    }

    /// Sort, encode, place and (with the blocks before it) write one node.
    pub(super) fn block(
        &mut self,
        mut job: BlockJob,
        back: &SyncSender<NodeDrawables>,
    ) -> Result<()> {
        if self.buf.len() >= Self::FLUSH {
            self.flush()?;
        }
        for s in &mut job.held {
            s.entry.ptr = self.pending.remove(&s.entry.id).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "tree node {} written before its child {}",
                    job.entry.id, s.entry.id
                ))
            })?;
        }
        let offset = self.written.offset;
        let plain_size = job.entry.ptr.size as usize;
        job.entry.ptr = BlockPtr::new(offset, plain_size);
        let nd = &mut job.drawables;
        if !nd.sorted {
            nd.sort();
        }
        let (out, size) = match &mut self.packer {
            None => {
                self.buf.reserve(plain_size);
                (&mut self.buf, plain_size)
            }
            Some(_) => {
                self.plain.clear();
                self.plain.reserve(plain_size);
                (&mut self.plain, plain_size)
            }
        };
        let start = out.len();
        let stubs_at = format::encode_node(
            out,
            &job.entry,
            nd.nestless.len(),
            nd.in_order(&nd.nestless_order),
            nd.nestable.len(),
            nd.in_order(&nd.nestable_order),
            &job.held,
        );
        debug_assert_eq!(out.len() - start, size);
        let size = match &mut self.packer {
            None => size,
            Some(p) => p.pack(&self.plain, stubs_at, offset, &mut self.buf)?,
        };
        job.entry.ptr = BlockPtr::new(offset, size);
        let w = &mut self.written;
        w.dir.push(job.entry);
        w.offset += size as u64;
        w.plain_bytes += plain_size as u64;
        w.max_buffer_bytesize = w.max_buffer_bytesize.max(size as i32);
        self.pending.insert(job.entry.id, job.entry.ptr);
        let _ = back.try_send(job.drawables);
        Ok(())
    }

    pub(super) fn flush(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            self.file
                .write_all_at(&self.buf, self.buf_offset)
                .map_err(|e| Error::io(&self.path, e))?;
            self.buf_offset += self.buf.len() as u64;
            self.buf.clear();
        }
        Ok(())
    }

    /// Flush the last blocks; what was written.
    pub(super) fn finish(mut self) -> Result<BlocksWritten> {
        self.flush()?;
        Ok(self.written)
    }
}
