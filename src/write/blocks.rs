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
//!
//! # Compressed nodes on more than one thread
//!
//! Packing (the field pre-pass and zlib) is most of a compressed
//! conversion's time, and a node without children — a leaf, half the nodes
//! and most of the drawables — depends on nothing before it: only its
//! header's offset, patched in when it is placed. So a leaf is encoded here
//! and packed on rayon's pool, while this thread goes on with the next
//! jobs; nodes wait in a queue and are placed strictly in arrival order. A
//! node with children is packed here when it reaches the front of the
//! queue, when every node before it (its children among them) is placed.
//! At most [`Waiting`]'s depth of nodes are in flight (a few MB); when the
//! queue is full, its oldest leaf is packed here if no pool thread has
//! started it ([`Task`]), so a busy pool never stalls the conversion.

use std::collections::VecDeque;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender};

use rustc_hash::FxHashMap;

use super::directory::Directory;
use super::NodeDrawables;
use crate::error::{Error, Result};
use crate::format::{self, BlockPtr, DirEntry, Packer, Stub};
use crate::model::NodeId;
use crate::task::Task;

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
    /// One entry per node.
    pub dir: Directory,
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
    /// Compressed nodes waiting to be placed, in arrival order (module
    /// docs); `None`: every node is packed and placed as it comes.
    waiting: Option<VecDeque<Waiting>>,
    /// Buffers for the leaves' plain blocks (reused).
    spare: Vec<Vec<u8>>,
}

/// A leaf's packing: its packed block (at offset 0) and its plain buffer
/// back, or its error.
type Packed = Task<Result<(Vec<u8>, Vec<u8>)>>;

/// A node waiting to be placed.
enum Waiting {
    /// A leaf being packed on the pool: its entry and plain size.
    Leaf {
        entry: DirEntry,
        plain_size: usize,
        task: Packed,
    },
    /// A node with children: packed when it reaches the front.
    Upper(BlockJob),
}

impl Waiting {
    /// Nodes in flight before the stage waits for the oldest.
    fn depth() -> usize {
        2 * rayon::current_num_threads() + 2
    }
}

/// Sort a job's drawables into drawing order (unless the tree side did)
/// and append its 2.0.6 block to `out`; returns where its stubs begin.
fn encode(job: &mut BlockJob, out: &mut Vec<u8>) -> usize {
    let nd = &mut job.drawables;
    if !nd.sorted {
        nd.sort();
    }
    format::encode_node(
        out,
        &job.entry,
        nd.nestless.len(),
        nd.in_order(&nd.nestless_order),
        nd.nestable.len(),
        nd.in_order(&nd.nestable_order),
        &job.held,
    )
}

thread_local! {
    /// A pool thread's packer (compressor and scratch), by level.
    static PACKER: std::cell::RefCell<Option<Packer>> = const { std::cell::RefCell::new(None) };
}

/// Pack the leaf block `plain` at offset 0 on this thread's packer; the
/// plain buffer comes back for reuse.
fn pack_leaf(level: u32, plain: Vec<u8>, stubs_at: usize) -> Result<(Vec<u8>, Vec<u8>)> {
    PACKER.with(|p| {
        let mut p = p.borrow_mut();
        if p.as_ref().is_none_or(|p| p.level() != level) {
            *p = Some(Packer::new(level));
        }
        let Some(packer) = p.as_mut() else {
            unreachable!("set above")
        };
        let mut out = Vec::with_capacity(plain.len() / 2);
        packer.pack(&plain, stubs_at, 0, &mut out)?;
        Ok((out, plain))
    })
}

impl BlockWriter {
    const FLUSH: usize = 1 << 20;

    /// A block stage whose first node goes at `offset`; nodes are packed at
    /// level `compress` (libdeflate's) when it is set.
    pub(super) fn new(
        file: std::fs::File,
        path: PathBuf,
        offset: u64,
        compress: Option<u32>,
    ) -> Self {
        BlockWriter {
            file,
            path: path.clone(),
            buf: Vec::with_capacity(Self::FLUSH + (1 << 17)),
            buf_offset: offset,
            packer: compress.map(Packer::new),
            plain: Vec::new(),
            pending: FxHashMap::default(),
            written: BlocksWritten {
                offset,
                dir: Directory::new(path.parent().unwrap_or(Path::new("."))),
                ..Default::default()
            },
            waiting: (compress.is_some() && rayon::current_thread_index().is_none())
                .then(VecDeque::new),
            spare: Vec::new(),
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

    /// Take one node: placed and (with the blocks before it) written now,
    /// or, compressed, queued to be (module docs).
    pub(super) fn block(&mut self, job: BlockJob, back: &SyncSender<NodeDrawables>) -> Result<()> {
        if self.waiting.is_none() {
            return self.place(job, Some(back));
        }
        if job.held.is_empty() {
            self.start_leaf(job, back)?;
        } else if let Some(q) = self.waiting.as_mut() {
            q.push_back(Waiting::Upper(job));
        }
        self.drain(Some(back), false)
    }

    /// Encode a leaf here and pack it on the pool.
    fn start_leaf(&mut self, mut job: BlockJob, back: &SyncSender<NodeDrawables>) -> Result<()> {
        let level = self.packer.as_ref().map_or(6, Packer::level);
        let plain_size = job.entry.ptr.size as usize;
        job.entry.ptr = BlockPtr::new(0, plain_size);
        let mut plain = self.spare.pop().unwrap_or_default();
        plain.clear();
        plain.reserve(plain_size);
        let stubs_at = encode(&mut job, &mut plain);
        debug_assert_eq!(plain.len(), plain_size);
        let _ = back.try_send(job.drawables);
        let task = Task::spawn(move || pack_leaf(level, plain, stubs_at));
        if let Some(q) = self.waiting.as_mut() {
            q.push_back(Waiting::Leaf {
                entry: job.entry,
                plain_size,
                task,
            });
        }
        Ok(())
    }

    /// Place the nodes at the front of the queue that are ready (`all`:
    /// every node). A full queue takes its oldest leaf: packed here if no
    /// pool thread has started it, else waited for.
    fn drain(&mut self, back: Option<&SyncSender<NodeDrawables>>, all: bool) -> Result<()> {
        loop {
            let Some(q) = self.waiting.as_mut() else {
                return Ok(());
            };
            let wait = all || q.len() > Waiting::depth();
            let ready = match q.front() {
                None => return Ok(()),
                Some(Waiting::Upper(_)) => None,
                Some(Waiting::Leaf { task, .. }) if !wait => match task.try_get() {
                    Some(r) => Some(r),
                    None => return Ok(()),
                },
                Some(Waiting::Leaf { .. }) => None,
            };
            match q.pop_front() {
                Some(Waiting::Upper(job)) => self.place(job, back)?,
                Some(Waiting::Leaf {
                    entry,
                    plain_size,
                    task,
                }) => {
                    let (block, plain) = match ready {
                        Some(r) => r?,
                        None => task.get()?,
                    };
                    self.place_packed(entry, plain_size, block)?;
                    if self.spare.len() < Waiting::depth() {
                        self.spare.push(plain);
                    }
                }
                None => unreachable!("the front was looked at above"),
            }
        }
    }

    /// Place a leaf packed at offset 0: its header gets its offset.
    fn place_packed(
        &mut self,
        mut entry: DirEntry,
        plain_size: usize,
        mut block: Vec<u8>,
    ) -> Result<()> {
        if self.buf.len() >= Self::FLUSH {
            self.flush()?;
        }
        let offset = self.written.offset;
        Packer::move_to(&mut block, offset)?;
        let size = block.len();
        self.buf.extend_from_slice(&block);
        entry.ptr = BlockPtr::new(offset, size);
        self.placed(entry, plain_size, size)
    }

    /// The bookkeeping of a node just placed at its offset.
    fn placed(&mut self, entry: DirEntry, plain_size: usize, size: usize) -> Result<()> {
        let w = &mut self.written;
        w.dir.push(entry)?;
        w.offset += size as u64;
        w.plain_bytes += plain_size as u64;
        w.max_buffer_bytesize = w.max_buffer_bytesize.max(size as i32);
        self.pending.insert(entry.id, entry.ptr);
        Ok(())
    }

    /// Sort, encode, place and (with the blocks before it) write one node.
    fn place(&mut self, mut job: BlockJob, back: Option<&SyncSender<NodeDrawables>>) -> Result<()> {
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
        let stubs_at = encode(&mut job, out);
        debug_assert_eq!(out.len() - start, size);
        let size = match &mut self.packer {
            None => size,
            Some(p) => p.pack(&self.plain, stubs_at, offset, &mut self.buf)?,
        };
        job.entry.ptr = BlockPtr::new(offset, size);
        self.placed(job.entry, plain_size, size)?;
        if let Some(back) = back {
            let _ = back.try_send(job.drawables);
        }
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
        self.drain(None, true)?;
        self.flush()?;
        Ok(self.written)
    }
}
