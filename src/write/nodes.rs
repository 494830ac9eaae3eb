//! The node thread: what happens to a node once the tree side closes it.
//!
//! Nodes arrive in close order (post-order: a node's children before it).
//! For each, the node thread fixes its size (in the 2.0.6 layout) and its
//! entry, builds its shadows (its own primitives folded in arrival order,
//! then its children's stubs merged, then exclusive ratios, spec §8.2) and
//! keeps the result — its outgoing buffer, the stub its parent will write —
//! until the parent closes. The node then goes, with its children's stubs,
//! to the block stage (`blocks.rs`), on this thread or on one of its own
//! (see the module docs of `write`), which gives it its place in the file
//! and patches its children's block pointers into its stubs.
//!
//! [`Encoder`] is the tree side's end of the pipeline: it sends jobs,
//! recycles drawable lists that come back, and tells whether the node
//! thread is behind (then the tree side sorts the drawing order itself).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;

use super::blocks::{BlockJob, BlockWriter, BlocksWritten};
use super::shadow::ShadowBuf;
use super::NodeDrawables;
use crate::error::{Error, Result};
use crate::format::{BlockPtr, DirEntry, Stub};
use crate::model::*;

/// A closed node on its way to the node thread.
pub(super) struct NodeJob {
    /// Its trunk position (0 = leaf): its children's stubs are the ones
    /// written by the nodes closed at `level - 1` since its last close.
    pub(super) level: usize,
    pub(super) id: NodeId,
    pub(super) time_box: TimeBox,
    /// 46 + Σ (1 + record size) of its drawables (stubs not included).
    pub(super) bytes: usize,
    pub(super) drawables: NodeDrawables,
    /// The last node of all: its outgoing buffer and line IDs are kept for
    /// the category summaries and the identity map.
    pub(super) root: bool,
}

/// What the node thread leaves when every node is written.
pub(super) struct NodesWritten {
    /// CPU seconds of the node thread and of the block thread (`None`:
    /// blocks were written on the node thread).
    pub(super) shadows_cpu: f64,
    pub(super) blocks_cpu: Option<f64>,
    /// The directory, the end of the tree's blocks, the largest block.
    pub(super) blocks: BlocksWritten,
    /// The root's entry, its outgoing buffer, and the line IDs of its
    /// drawables and of its children's shadows (the identity map's rows).
    pub(super) root: Option<(DirEntry, Stub, std::collections::BTreeSet<i32>)>,
}

/// The node thread's end of the writer: see the module documentation.
/// Drawable lists come back empty for reuse.
pub(super) struct Encoder {
    tx: Option<SyncSender<NodeJob>>,
    /// Jobs sent and not yet taken by the node thread.
    pub(super) queued: Arc<AtomicUsize>,
    /// Blocks are sorted, encoded and written on a thread of their own.
    pub(super) block_thread: bool,
    back: Receiver<NodeDrawables>,
    handle: Option<std::thread::JoinHandle<Result<NodesWritten>>>,
    /// The node thread's error, once reported, for later calls.
    failed: Option<String>,
}

impl Encoder {
    /// Start the node thread; the first node goes at `offset`, packed at
    /// level `compress` (libdeflate's) when it is set.
    pub(super) fn start(
        file: &std::fs::File,
        path: &Path,
        offset: u64,
        block_thread: bool,
        compress: Option<u32>,
    ) -> Result<Self> {
        let file = file.try_clone().map_err(|e| Error::io(path, e))?;
        let path = path.to_path_buf();
        // Closed nodes come in bursts (a leaf and the ancestors it
        // completes) and cost unequal work; a queue of 16 keeps both sides
        // busy through them (4 left both idle a tenth of the time), for a
        // few MB (BENCHMARKS.md).
        let (tx, rx) = sync_channel::<NodeJob>(16);
        let (back_tx, back) = sync_channel::<NodeDrawables>(24);
        let queued = Arc::new(AtomicUsize::new(0));
        let taken = queued.clone();
        let handle = std::thread::Builder::new()
            .name("slog2-nodes".into())
            .spawn(move || {
                let stage = BlockWriter::new(file, path, offset, compress);
                NodeWorker::run(stage, block_thread, rx, back_tx, taken)
            })
            .map_err(|e| Error::io(Path::new("."), e))?;
        Ok(Encoder {
            tx: Some(tx),
            queued,
            block_thread,
            back,
            handle: Some(handle),
            failed: None,
        })
    }

    /// An empty drawable list, recycled when one came back. It is emptied
    /// here, on the tree side: the node thread, which is the longer of the
    /// two, sends it back full.
    pub(super) fn recycled(&self) -> NodeDrawables {
        let mut nd = self.back.try_recv().unwrap_or_default();
        nd.clear();
        nd
    }

    /// The node thread has not yet taken the last job sent: it is the
    /// longer side of the conversion just now.
    pub(super) fn node_thread_behind(&self) -> bool {
        self.queued.load(Ordering::Relaxed) > 1
    }

    pub(super) fn send(&mut self, job: NodeJob) -> Result<()> {
        self.queued.fetch_add(1, Ordering::Relaxed);
        let sent = match &self.tx {
            Some(tx) => tx.send(job).is_ok(),
            None => false,
        };
        if sent {
            return Ok(());
        }
        // The node thread stopped: its error is the cause.
        self.finish()?;
        Err(Error::InvalidArgument("writer already finished".into()))
    }

    /// Wait until every node is written.
    pub(super) fn finish(&mut self) -> Result<NodesWritten> {
        self.tx = None;
        let Some(h) = self.handle.take() else {
            let msg = self.failed.clone();
            return Err(Error::InvalidArgument(
                msg.unwrap_or_else(|| "writer already finished".into()),
            ));
        };
        let r = h
            .join()
            .unwrap_or_else(|_| Err(Error::InvalidArgument("node thread panicked".into())));
        if let Err(e) = &r {
            self.failed = Some(e.to_string());
        }
        r
    }
}

impl Drop for Encoder {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// The node thread: shadows and sizes of closed nodes, in close order
/// (post-order, so a node's children are done before it). Each node then
/// goes with its children's stubs to the block stage ([`BlockWriter`]),
/// which sorts, encodes, places and writes it.
struct NodeWorker {
    /// Outgoing buffers per trunk level, waiting for the parent's close.
    finished: Vec<Vec<Stub>>,
    /// Reused for every node: a node's shadows are built when it closes.
    shadows: ShadowBuf,
    root: Option<(DirEntry, Stub, std::collections::BTreeSet<i32>)>,
}

impl NodeWorker {
    fn run(
        stage: BlockWriter,
        block_thread: bool,
        rx: Receiver<NodeJob>,
        back: SyncSender<NodeDrawables>,
        queued: Arc<AtomicUsize>,
    ) -> Result<NodesWritten> {
        let rx = rx.iter().inspect(|_| {
            queued.fetch_sub(1, Ordering::Relaxed);
        });
        let mut w = NodeWorker {
            finished: Vec::new(),
            shadows: ShadowBuf::default(),
            root: None,
        };
        // Without a block thread (fewer than three cores, by default) the
        // caller's thread and this one have a core each, instead of three
        // busy threads sharing two cores (BENCHMARKS.md).
        let (shadows_cpu, blocks_cpu, blocks) = if !block_thread {
            let mut bw = stage;
            for job in rx {
                let b = w.node(job)?;
                bw.block(b, &back)?;
            }
            let blocks = bw.finish()?;
            (crate::cputime::thread_cpu_seconds(), None, blocks)
        } else {
            let (tx, blocks) = sync_channel::<BlockJob>(16);
            let writer = std::thread::Builder::new()
                .name("slog2-blocks".into())
                .spawn(move || stage.run(blocks, back))
                .map_err(|e| Error::io(Path::new("."), e))?;
            let mut failed = None;
            for job in rx {
                match w.node(job) {
                    Ok(b) => {
                        if tx.send(b).is_err() {
                            // The block thread stopped: its error is the cause.
                            break;
                        }
                    }
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            drop(tx);
            let shadows_cpu = crate::cputime::thread_cpu_seconds();
            let written = writer
                .join()
                .unwrap_or_else(|_| Err(Error::InvalidArgument("block thread panicked".into())));
            if let Some(e) = failed {
                return Err(e);
            }
            let (cpu, blocks) = written?;
            (shadows_cpu, Some(cpu), blocks)
        };
        // The root is written last: its pointer is the last one.
        let root = w.root.map(|(mut e, stub, lines)| {
            if let Some(last) = blocks.dir.last() {
                e.ptr = last.ptr;
            }
            (e, stub, lines)
        });
        Ok(NodesWritten {
            shadows_cpu,
            blocks_cpu,
            blocks,
            root,
        })
    }

    /// Size one closed node (§9.4), build its shadows from its own
    /// primitives and its children's stubs, and keep its outgoing buffer
    /// (the block stage fills in the block pointers).
    fn node(&mut self, job: NodeJob) -> Result<BlockJob> {
        let held: Vec<Stub> = match job.level.checked_sub(1) {
            Some(c) => self
                .finished
                .get_mut(c)
                .map(std::mem::take)
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let size = job.bytes + held.iter().map(Stub::byte_size).sum::<usize>();
        if size > i32::MAX as usize {
            return Err(Error::InvalidArgument(format!(
                "tree node {} would exceed 2 GiB",
                job.id
            )));
        }
        let entry = DirEntry {
            id: job.id,
            time_box: job.time_box,
            ptr: BlockPtr::new(0, size),
        };

        // Shadows: own primitives in arrival order, then the children's.
        let nd = &job.drawables;
        let shadows = &mut self.shadows;
        let mut topologies = nd.topologies.iter();
        for d in &nd.drawables {
            for p in d.primitives() {
                let t = topologies.next().copied().unwrap_or(Topology::State);
                // The vertex envelope (as `Primitive::time_box`), without a loop
                // for the one or two vertices of nearly every primitive.
                let tbox = match p.vertices.as_slice() {
                    [v] => TimeBox::new(v.time, v.time),
                    [v, w] => TimeBox::new(
                        if w.time < v.time { w.time } else { v.time },
                        if w.time > v.time { w.time } else { v.time },
                    ),
                    _ => p.time_box(),
                };
                shadows.add_primitive(t, p, tbox);
            }
        }
        shadows.seal();
        for s in &held {
            shadows.merge_child(s);
        }
        let outgoing = shadows.finalize(entry);

        if job.root {
            let mut lines = std::collections::BTreeSet::new();
            for d in &nd.drawables {
                for p in d.primitives() {
                    lines.extend(p.vertices.iter().map(|v| v.line));
                }
            }
            for s in &held {
                for sh in s.shadows() {
                    lines.extend(sh.vertices.iter().map(|v| v.line));
                }
            }
            self.root = Some((entry, outgoing, lines));
        } else {
            if self.finished.len() <= job.level {
                self.finished.resize_with(job.level + 1, Vec::new);
            }
            self.finished[job.level].push(outgoing);
        }
        Ok(BlockJob {
            entry,
            drawables: job.drawables,
            held,
        })
    }
}

#[cfg(test)]
mod balance_tests {
    use super::super::{Slog2Writer, WriterOptions};
    use super::*;

    fn write(path: &Path, behind: bool, leaf: i32) -> Vec<u8> {
        let opts = WriterOptions {
            leaf_bytesize: leaf,
            block_thread: Some(false),
            ..Default::default()
        };
        let mut w = Slog2Writer::create(path, opts).unwrap();
        if behind {
            // The node thread always looks behind: every sort on this side.
            w.encoder.queued.fetch_add(1 << 40, Ordering::Relaxed);
        }
        for c in crate::synth::categories() {
            w.add_category(c).unwrap();
        }
        for d in crate::synth::Synthetic::new(20_000, 8, 3) {
            w.add_drawable(d).unwrap();
        }
        w.finish().unwrap();
        std::fs::read(path).unwrap()
    }

    /// Sorting the drawing order on the tree side or on the node thread
    /// gives the same bytes.
    #[test]
    fn sort_side_does_not_change_the_file() {
        let dir = tempfile::tempdir().unwrap();
        for leaf in [1024, 65536] {
            let a = write(&dir.path().join("a.slog2"), false, leaf);
            let b = write(&dir.path().join("b.slog2"), true, leaf);
            assert!(a.len() > 100_000);
            assert!(a == b, "leaf {leaf}: files differ");
        }
    }
}
