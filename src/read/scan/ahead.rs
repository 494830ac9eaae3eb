//! A compressed file's nodes unpacked ahead of the scan, on rayon's pool.
//!
//! # Why
//!
//! Unpacking a compressed node (zlib, then the field pre-pass undone) costs
//! about three times what decoding its records into columns does, so a
//! scan that unpacks on its own thread runs at a fraction of a plain
//! file's speed. Nodes are independent: while the scan's thread decodes
//! node *i*, the pool unpacks nodes *i + 1 … i + depth*, and on two cores
//! the scan's time becomes about the larger of the two (BENCHMARKS.md,
//! "Compressed SLOG-2").
//!
//! # How
//!
//! [`Ahead::push`] hands a node's block range to the pool (a
//! [`Task`] per node) with a buffer to unpack into; [`Ahead::pop`] takes
//! the oldest node's bytes — unpacking it on the scan's thread if no pool
//! thread has started it, else waiting for it — so nodes come out in the
//! scan's order whichever task ends first, and a busy pool never stalls
//! the scan. Each task holds the file's
//! bytes ([`SharedBytes`]), so a scan dropped with tasks in flight leaves
//! nothing dangling; their results go nowhere. Spent buffers come back
//! through [`Ahead::recycle`], so memory stays at `depth` nodes.
//!
//! Errors keep their place: a damaged node's error comes out of `pop` when
//! the scan reaches it, as if it had been unpacked there. A panic in a task
//! (a bug) is caught and resumed on the scan's thread.
//!
//! A scan running *on* a pool thread (inside a parallel analysis, which
//! keeps the pool busy already) does not unpack ahead: [`Ahead::new`]
//! returns `None` there, and the scan unpacks in place as before.

use std::collections::VecDeque;
use std::ops::Range;

use crate::error::Result;
use crate::format::PackedNode;
use crate::read::{SharedBytes, Slog2File};
use crate::task::Task;

/// A node being unpacked: its header and drawables, or its error.
type Unpacking = Task<Result<Vec<u8>>>;

/// Nodes unpacked ahead of a scan (module docs).
pub(super) struct Ahead {
    bytes: SharedBytes,
    /// Nodes handed to the pool, oldest first: the block's offset and its
    /// unpacking (or the error found before it was handed).
    queue: VecDeque<(usize, Result<Unpacking>)>,
    /// Buffers for the next tasks.
    spare: Vec<Vec<u8>>,
    depth: usize,
}

impl Ahead {
    /// Unpacking ahead for a scan of `file`, or `None` where it would not
    /// help (a plain file, or a scan on a pool thread: the pool is busy).
    pub(super) fn new(file: &Slog2File) -> Option<Ahead> {
        if !file.is_compressed() || rayon::current_thread_index().is_some() {
            return None;
        }
        Some(Ahead {
            bytes: file.shared_bytes(),
            queue: VecDeque::new(),
            spare: Vec::new(),
            depth: (4 * rayon::current_num_threads()).clamp(4, 32),
        })
    }

    /// Whether another node may be handed to the pool now.
    pub(super) fn has_room(&self) -> bool {
        self.queue.len() < self.depth
    }

    /// Hand the node whose block is `range` (or the error of finding it) to
    /// the pool.
    pub(super) fn push(&mut self, range: Result<Range<usize>>) {
        let r = match range {
            Ok(r) => r,
            Err(e) => {
                self.queue.push_back((0, Err(e)));
                return;
            }
        };
        let bytes = self.bytes.clone();
        let mut out = self.spare.pop().unwrap_or_default();
        let start = r.start;
        let task = Task::spawn(move || {
            PackedNode::parse(&bytes[r.clone()], r.start as u64)?.unpack_into(false, &mut out)?;
            Ok(out)
        });
        self.queue.push_back((start, Ok(task)));
    }

    /// The oldest node's block offset and unpacked bytes (header and
    /// drawables); `None` when nothing is in flight.
    pub(super) fn pop(&mut self) -> Option<Result<(usize, Vec<u8>)>> {
        let (start, task) = self.queue.pop_front()?;
        Some(task.and_then(|t| t.get()).map(|b| (start, b)))
    }

    /// A spent buffer, for the next task.
    pub(super) fn recycle(&mut self, buf: Vec<u8>) {
        if self.spare.len() < self.depth {
            self.spare.push(buf);
        }
    }
}
