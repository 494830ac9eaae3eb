//! The block stage: a node's bytes, in drawing order, at its offset.
//!
//! A node arrives with its entry (offset and size fixed by the node
//! thread), its drawables and its children's stubs. The stage sorts the
//! drawables into drawing order (unless the tree side already did),
//! encodes the block and writes it; consecutive blocks are gathered into
//! one write of about a megabyte. Drawable lists go back to the tree side
//! for reuse.

use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender};

use super::nodes::BlockJob;
use super::NodeDrawables;
use crate::error::{Error, Result};
use crate::format;

/// The block thread: sorts a node's drawables into drawing order, encodes
/// the block and writes it at its offset; consecutive blocks are gathered
/// into one write. Drawable lists go back to the tree side empty.
pub(super) struct BlockWriter {
    file: std::fs::File,
    path: PathBuf,
    buf: Vec<u8>,
    buf_offset: u64,
}

impl BlockWriter {
    const FLUSH: usize = 1 << 20;

    pub(super) fn new(file: std::fs::File, path: PathBuf) -> Self {
        BlockWriter {
            file,
            path,
            buf: Vec::with_capacity(Self::FLUSH + (1 << 17)),
            buf_offset: 0,
        }
    }

    /// Returns the thread's CPU seconds.
    pub(super) fn run(
        mut self,
        rx: Receiver<BlockJob>,
        back: SyncSender<NodeDrawables>,
    ) -> Result<f64> {
        for job in rx {
            self.block(job, &back)?;
        }
        self.flush()?;
        Ok(crate::cputime::thread_cpu_seconds())
    }

    /// Sort, encode and (with the blocks before it) write one node.
    pub(super) fn block(
        &mut self,
        mut job: BlockJob,
        back: &SyncSender<NodeDrawables>,
    ) -> Result<()> {
        let at = job.entry.ptr.offset as u64;
        if !self.buf.is_empty()
            && (self.buf_offset + self.buf.len() as u64 != at || self.buf.len() >= Self::FLUSH)
        {
            self.flush()?;
        }
        if self.buf.is_empty() {
            self.buf_offset = at;
        }
        let start = self.buf.len();
        self.buf.reserve(job.entry.ptr.size as usize);
        let nd = &mut job.drawables;
        if !nd.sorted {
            nd.sort();
        }
        format::encode_node(
            &mut self.buf,
            &job.entry,
            nd.nestless.len(),
            nd.in_order(&nd.nestless_order),
            nd.nestable.len(),
            nd.in_order(&nd.nestable_order),
            &job.held,
        );
        debug_assert_eq!(self.buf.len() - start, job.entry.ptr.size as usize);
        let _ = back.try_send(job.drawables);
        Ok(())
    }

    pub(super) fn flush(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            self.file
                .write_all_at(&self.buf, self.buf_offset)
                .map_err(|e| Error::io(&self.path, e))?;
            self.buf.clear();
        }
        Ok(())
    }
}
