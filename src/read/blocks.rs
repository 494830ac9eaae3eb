//! Node blocks as every query sees them: the 2.0.6 layout, whether the file
//! stores its nodes plain or compressed.
//!
//! A plain file's node block is a slice of the map, decoded where it lies.
//! A compressed file's (`SLOG 2.0.Z`, [`crate::format::packed`]) is unpacked
//! first — and only the part a query needs: a window query and the
//! whole-file scan unpack a node's drawables, a preview its stubs too. The
//! unpacked bytes are the 2.0.6 block (with this file's pointers), so
//! everything downstream — record keys, tables, rows, shadows — is the same
//! code for both kinds of file.
//!
//! Unpacking is not free (zlib, then the field pre-pass undone), so a
//! compressed node's unpacked drawables live in its table in the node cache
//! ([`super::index`]): the same bounded, settable cache holds them, counted
//! in its byte limit, and a query that holds a table holds the bytes its
//! hits are decoded from. Nothing is unpacked on open.
//!
//! Errors inside an unpacked node carry the node's file offset plus the
//! position in its unpacked bytes; errors of the packing itself (a method
//! this library does not know, sizes that do not add up, a zlib stream that
//! is damaged, ends early or inflates beyond its declared size) name the
//! node and the offset in the file.

use std::ops::Deref;
use std::sync::Arc;

use super::index::NodeTable;
use super::{QueryStats, Slog2File};
use crate::error::Result;
use crate::format::{self, DirEntry, NodeLayout, PackedNode};
use crate::task::Task;

/// A node block in the 2.0.6 layout: borrowed from the file, or unpacked.
pub(crate) enum NodeBytes<'a> {
    File(&'a [u8]),
    Unpacked(Arc<Vec<u8>>),
}

impl Deref for NodeBytes<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            NodeBytes::File(b) => b,
            NodeBytes::Unpacked(b) => b,
        }
    }
}

impl Slog2File {
    /// Whether the tree nodes are compressed (`SLOG 2.0.Z`).
    pub fn is_compressed(&self) -> bool {
        self.header().is_compressed()
    }

    /// The block of the directory entry at `pos` as it lies in the file,
    /// and its offset.
    pub(crate) fn raw_block(&self, pos: u32) -> Result<(&[u8], u64)> {
        self.raw_block_of(&self.directory()[pos as usize])
    }

    fn raw_block_of(&self, e: &DirEntry) -> Result<(&[u8], u64)> {
        let r = e.ptr.range("tree node", self.file_len())?;
        Ok((&self.as_bytes()[r], e.ptr.offset as u64))
    }

    /// The node of `entry` in the 2.0.6 layout: its header and drawables,
    /// and its stubs when `stubs` (a plain file's block always has them).
    pub(crate) fn node_bytes(&self, entry: &DirEntry, stubs: bool) -> Result<NodeBytes<'_>> {
        let (block, base) = self.raw_block_of(entry)?;
        if !self.is_compressed() {
            return Ok(NodeBytes::File(block));
        }
        let mut v = Vec::new();
        PackedNode::parse(block, base)?.unpack_into(stubs, &mut v)?;
        Ok(NodeBytes::Unpacked(Arc::new(v)))
    }

    /// The header and drawables of node `pos` in the 2.0.6 layout (a
    /// compressed node: unpacked) and their layout, as `scan_node` gives
    /// it — a compressed node's joined and keyed in one walk when it can
    /// be ([`PackedNode::unpack_keyed`]).
    pub(crate) fn drawables_layout(&self, pos: u32) -> Result<(NodeBytes<'_>, NodeLayout)> {
        let (block, base) = self.raw_block(pos)?;
        if !self.is_compressed() {
            return Ok((NodeBytes::File(block), format::scan_node(block, base)?));
        }
        let (v, layout) = unpack_layout(block, base)?;
        Ok((NodeBytes::Unpacked(Arc::new(v)), layout))
    }

    /// The node of directory position `pos`, with its stubs.
    pub(crate) fn node_with_stubs(&self, pos: u32) -> Result<NodeBytes<'_>> {
        self.node_bytes(&self.directory()[pos as usize], true)
    }

    /// The bytes a table's records are decoded from, and the node's offset.
    #[inline]
    pub(crate) fn table_block<'a>(&'a self, pos: u32, t: &'a NodeTable) -> Result<(&'a [u8], u64)> {
        match &t.bytes {
            Some(b) => Ok((b, self.directory()[pos as usize].ptr.offset as u64)),
            None => self.raw_block(pos),
        }
    }

    /// Bytes a query walks to index node `pos`: its 2.0.6 block (a
    /// compressed node: header and drawables unpacked).
    pub(crate) fn indexed_len(&self, pos: u32) -> Result<usize> {
        let (block, base) = self.raw_block(pos)?;
        if !self.is_compressed() {
            return Ok(block.len());
        }
        let p = PackedNode::parse(block, base)?;
        Ok(format::NODE_HEADER_SIZE + p.parts[0].plain)
    }

    /// The table of the node at directory position `pos`, from the cache or
    /// walked now (and cached).
    pub(crate) fn node_table(&self, pos: u32, stats: &mut QueryStats) -> Result<Arc<NodeTable>> {
        if let Some(t) = self.cache.get(pos) {
            stats.cache_hits += 1;
            return Ok(t);
        }
        self.build_table(pos, stats)
    }

    /// Walk (a compressed node: unpack) node `pos` into its table and cache
    /// it.
    fn build_table(&self, pos: u32, stats: &mut QueryStats) -> Result<Arc<NodeTable>> {
        let t = if self.is_compressed() {
            unpack_table(self.as_bytes(), &self.directory()[pos as usize])?
        } else {
            let (block, base) = self.raw_block(pos)?;
            NodeTable::new(format::scan_node(block, base)?, None)
        };
        Ok(self.keep_table(pos, t, stats))
    }

    /// Count and cache the table of node `pos`, just built.
    fn keep_table(&self, pos: u32, t: NodeTable, stats: &mut QueryStats) -> Arc<NodeTable> {
        // The block's range was checked when the table was built.
        let stored = self.directory()[pos as usize].ptr.size.max(0) as u64;
        stats.bytes_indexed += t.bytes.as_ref().map_or(stored, |b| b.len() as u64);
        let t = Arc::new(t);
        self.cache.insert(pos, t.clone());
        self.note_touched(stored);
        t
    }

    /// The tables of `nodes`, in order, as [`node_table`](Self::node_table)
    /// gives them one by one (the same statistics, the first error in
    /// order).
    ///
    /// On a compressed file a cold jump misses about 1.5 leaves (~64 KB of
    /// drawables each: most of its time) and ~5 upper nodes (~1 KB each).
    /// A pool thread (rayon, [`Task`]) is worth waking for a leaf-sized
    /// node ([`POOL_MIN_STORED`]) or for the small ones together, not for
    /// one small node. So with a large miss and [`SMALL_GROUP_MIN`] small
    /// ones, or two large ones, this thread unpacks the largest while the
    /// pool takes the other large ones, one job each, then the small ones
    /// as one job (first to last); this thread then unpacks any small ones
    /// left to it, takes back the jobs no pool thread has started, last
    /// first, and only then waits for the ones running. Otherwise
    /// everything is unpacked here, with no hand-off. A busy pool never
    /// stalls a query: a job it has not started is run here.
    pub(crate) fn node_tables(
        &self,
        nodes: &[u32],
        stats: &mut QueryStats,
    ) -> Result<Vec<Arc<NodeTable>>> {
        if !self.is_compressed() || nodes.len() < 2 {
            return nodes.iter().map(|&p| self.node_table(p, stats)).collect();
        }
        let cached: Vec<Option<Arc<NodeTable>>> =
            nodes.iter().map(|&p| self.cache.get(p)).collect();
        // What unpacking a node costs: its drawables' stored bytes (a
        // damaged node: 0, its error comes when it is unpacked).
        let stored = |p: u32| {
            self.raw_block(p)
                .and_then(|(block, base)| PackedNode::parse(block, base))
                .map_or(0, |n| n.parts[0].stored as u32)
        };
        // The misses, large and small.
        let (mut large, small): (Vec<usize>, Vec<usize>) = (0..nodes.len())
            .filter(|&i| cached[i].is_none())
            .partition(|&i| stored(nodes[i]) >= POOL_MIN_STORED);
        if large.is_empty() || (large.len() == 1 && small.len() < SMALL_GROUP_MIN) {
            let mut out = Vec::with_capacity(nodes.len());
            for (&pos, c) in nodes.iter().zip(cached) {
                out.push(match c {
                    Some(t) => {
                        stats.cache_hits += 1;
                        t
                    }
                    None => self.build_table(pos, stats)?,
                });
            }
            return Ok(out);
        }
        // Largest first (ties: directory order). The pool's jobs: every
        // large miss but the largest, one each, then the small ones as one.
        large.sort_by_key(|&i| std::cmp::Reverse(stored(nodes[i])));
        let mut jobs: Vec<Vec<usize>> = large[1..].iter().map(|&i| vec![i]).collect();
        let inline = if small.len() >= SMALL_GROUP_MIN {
            jobs.push(small);
            Vec::new()
        } else {
            small
        };
        let tasks: Vec<Task<Unpacked>> = jobs
            .into_iter()
            .map(|job| {
                let bytes = self.shared_bytes();
                let es: Vec<(usize, DirEntry)> = job
                    .into_iter()
                    .map(|i| (i, self.directory()[nodes[i] as usize]))
                    .collect();
                Task::spawn(move || {
                    es.iter()
                        .map(|(i, e)| (*i, unpack_table(&bytes, e)))
                        .collect()
                })
            })
            .collect();
        // Every miss's table, unpacked here or on the pool; counted and
        // cached below, in order.
        let mut built: Vec<Option<Result<NodeTable>>> = nodes.iter().map(|_| None).collect();
        for i in std::iter::once(large[0]).chain(inline) {
            let e = &self.directory()[nodes[i] as usize];
            built[i] = Some(unpack_table(self.as_bytes(), e));
        }
        let mut running = Vec::new();
        for task in tasks.into_iter().rev() {
            match task.take_back() {
                Ok(r) => r.into_iter().for_each(|(i, t)| built[i] = Some(t)),
                Err(task) => running.push(task),
            }
        }
        for task in running.into_iter().rev() {
            task.get().into_iter().for_each(|(i, t)| built[i] = Some(t));
        }
        let mut out = Vec::with_capacity(nodes.len());
        for ((&pos, c), b) in nodes.iter().zip(cached).zip(built) {
            out.push(match (c, b) {
                (Some(t), _) => {
                    stats.cache_hits += 1;
                    t
                }
                (None, Some(t)) => self.keep_table(pos, t?, stats),
                (None, None) => self.build_table(pos, stats)?,
            });
        }
        Ok(out)
    }
}

/// The stored bytes from which a node is worth unpacking on a pool thread
/// ([`Slog2File::node_tables`]), counting its drawables part: a leaf's
/// (64 KiB plain, ~20 KB stored at level 1) is; an upper node's (~1 KB
/// plain, a few hundred bytes stored) is not.
const POOL_MIN_STORED: u32 = 8 * 1024;

/// Tables unpacked by one job, with their slots in the query's nodes.
type Unpacked = Vec<(usize, Result<NodeTable>)>;

/// The fewest small misses handed to the pool, as one job, while this
/// thread unpacks a large one (~5 per cold jump, a few µs each).
const SMALL_GROUP_MIN: usize = 2;

/// The table of a compressed node, from its unpacked drawables: a function
/// of the file's bytes alone (so it may run on the pool).
fn unpack_table(bytes: &[u8], e: &DirEntry) -> Result<NodeTable> {
    let r = e.ptr.range("tree node", bytes.len() as u64)?;
    let (v, layout) = unpack_layout(&bytes[r], e.ptr.offset as u64)?;
    Ok(NodeTable::new(layout, Some(Arc::new(v))))
}

/// The compressed node `block` (at file offset `base`): its header and
/// drawables unpacked, and their layout. Joined and keyed in one walk when
/// it can be; else the checked path (unpack, then `scan_node`), which
/// gives the same result or the error.
fn unpack_layout(block: &[u8], base: u64) -> Result<(Vec<u8>, NodeLayout)> {
    let node = PackedNode::parse(block, base)?;
    if let Some(keyed) = node.unpack_keyed() {
        return Ok(keyed);
    }
    let mut v = Vec::new();
    node.unpack_into(false, &mut v)?;
    let layout = format::scan_node(&v, base)?;
    Ok((v, layout))
}

/// How a file's tree nodes are stored: what `slog2 info` reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NodeStorage {
    /// Tree nodes in the directory.
    pub nodes: usize,
    /// Their bytes in the file.
    pub stored_bytes: u64,
    /// Their bytes in the 2.0.6 layout (equal to `stored_bytes` for a plain
    /// file).
    pub plain_bytes: u64,
    /// Node parts (two per node) by method: stored, zlib, fields+zlib.
    pub parts_by_method: [usize; 3],
}

impl NodeStorage {
    /// Stored bytes per plain byte (1 for a plain file).
    pub fn ratio(&self) -> f64 {
        if self.plain_bytes == 0 {
            1.0
        } else {
            self.stored_bytes as f64 / self.plain_bytes as f64
        }
    }
}

impl Slog2File {
    /// How the tree nodes are stored (a compressed file: each node's
    /// prefix is read, nothing is unpacked).
    pub fn node_storage(&self) -> Result<NodeStorage> {
        let mut s = NodeStorage {
            nodes: self.directory().len(),
            ..Default::default()
        };
        for pos in 0..self.directory().len() as u32 {
            let (block, base) = self.raw_block(pos)?;
            s.stored_bytes += block.len() as u64;
            if self.is_compressed() {
                let p = PackedNode::parse(block, base)?;
                s.plain_bytes += p.plain_size() as u64;
                for part in p.parts {
                    s.parts_by_method[part.method as usize] += 1;
                }
            } else {
                s.plain_bytes += block.len() as u64;
            }
        }
        Ok(s)
    }
}
