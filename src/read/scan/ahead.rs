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
//! [`Ahead::push`] hands a node's block range to the pool (`rayon::spawn`,
//! one task per node) with a buffer to unpack into; [`Ahead::pop`] takes
//! the oldest node's bytes, waiting for it if needed, so nodes come out in
//! the scan's order whichever task ends first. Each task holds the file's
//! bytes ([`SharedBytes`]), so a scan dropped with tasks in flight leaves
//! nothing dangling; their results go nowhere. Spent buffers come back
//! through [`Ahead::recycle`], so memory stays at `depth` nodes.
//!
//! Errors keep their place: a damaged node's error comes out of `pop` when
//! the scan reaches it, as if it had been unpacked there. A panic in a task
//! (a bug) is caught and resumed on the scan's thread.
//!
//! A scan running *on* a pool thread (inside a parallel analysis) does not
//! unpack ahead: blocking a worker on tasks queued behind it could stall
//! the pool. [`Ahead::new`] returns `None` there, and the scan unpacks in
//! place as before.

use std::any::Any;
use std::collections::VecDeque;
use std::ops::Range;
use std::sync::mpsc::{sync_channel, Receiver};

use crate::error::Result;
use crate::format::PackedNode;
use crate::read::{SharedBytes, Slog2File};

/// What a task sends back: the node's unpacked bytes, its error, or its
/// panic.
type Unpacked = std::result::Result<Result<Vec<u8>>, Box<dyn Any + Send>>;

/// Nodes unpacked ahead of a scan (module docs).
pub(super) struct Ahead {
    bytes: SharedBytes,
    /// Nodes handed to the pool, oldest first: the block's offset, and
    /// where its bytes arrive (or the error found before it was handed).
    queue: VecDeque<(usize, Receiver<Unpacked>)>,
    /// Buffers for the next tasks.
    spare: Vec<Vec<u8>>,
    depth: usize,
}

impl Ahead {
    /// Unpacking ahead for a scan of `file`, or `None` where it would not
    /// help or could stall (a plain file, or a scan on a pool thread).
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
        let (tx, rx) = sync_channel(1);
        let r = match range {
            Ok(r) => r,
            Err(e) => {
                self.queue.push_back((0, rx));
                let _ = tx.send(Ok(Err(e)));
                return;
            }
        };
        self.queue.push_back((r.start, rx));
        let bytes = self.bytes.clone();
        let mut out = self.spare.pop().unwrap_or_default();
        rayon::spawn(move || {
            let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                PackedNode::parse(&bytes[r.clone()], r.start as u64)?
                    .unpack_into(false, &mut out)?;
                Ok(out)
            }));
            // The scan may be gone: then nobody wants the bytes.
            let _ = tx.send(res);
        });
    }

    /// The oldest node's block offset and unpacked bytes (header and
    /// drawables), waiting for them; `None` when nothing is in flight.
    pub(super) fn pop(&mut self) -> Option<Result<(usize, Vec<u8>)>> {
        let (start, rx) = self.queue.pop_front()?;
        Some(match rx.recv() {
            Ok(Ok(r)) => r.map(|b| (start, b)),
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(_) => panic!("an unpacking task ended without a word (a bug)"),
        })
    }

    /// A spent buffer, for the next task.
    pub(super) fn recycle(&mut self, buf: Vec<u8>) {
        if self.spare.len() < self.depth {
            self.spare.push(buf);
        }
    }
}
