//! Window and preview queries: which tree nodes a time window touches, which
//! of their records it hits, in drawing order.
//!
//! A query finds the intersecting nodes with the directory's per-depth
//! interval index ([`super::index`]), searches each node's table of record
//! keys (built on first touch, kept in the node cache) and decodes only the
//! records that intersect: the cost follows what is returned, not the file.
//! Hits are sorted into the reference's drawing order by their keys before
//! anything is decoded, so the order costs no decoding either. Previews add
//! the shadows of the stubs of the lowest level they load (Jumpshot's rule,
//! spec §8.3).

use super::*;

impl Slog2File {
    pub(super) fn check_window(t0: f64, t1: f64) -> Result<TimeBox> {
        if t0.is_nan() || t1.is_nan() || t0 > t1 {
            return Err(Error::InvalidArgument(format!(
                "time window [{}, {}] is empty or not a number",
                TimeText(t0),
                TimeText(t1)
            )));
        }
        Ok(TimeBox::new(t0, t1))
    }

    // -----------------------------------------------------------------------
    // Node tables and the cache (see `index`)

    /// The byte limit of the node cache (see [`index`] for the default and
    /// the environment variable).
    pub fn node_cache_limit(&self) -> usize {
        self.cache.stats().limit
    }

    /// Set the byte limit of the node cache; `0` disables caching. Tables
    /// over the new limit are dropped at once. Safe while other threads query.
    pub fn set_node_cache_limit(&self, bytes: usize) {
        self.cache.set_limit(bytes);
    }

    /// What the node cache holds now.
    pub fn node_cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// Count map bytes faulted in; past [`MAP_TRIM_BYTES`], drop this
    /// process's mappings of the file's pages so RSS stays bounded.
    pub(super) fn note_touched(&self, bytes: u64) {
        use std::sync::atomic::Ordering;
        let Backing::Mapped(Mapped { map, .. }) = &*self.backing else {
            return;
        };
        let before = self.map_touched.fetch_add(bytes, Ordering::Relaxed);
        if before + bytes < MAP_TRIM_BYTES {
            return;
        }
        self.map_touched.store(0, Ordering::Relaxed);
        // SAFETY: the map is a read-only shared mapping of a file that is
        // not modified while mapped (the same assumption as the map itself,
        // module docs). MADV_DONTNEED only removes our page-table entries:
        // the next access, from any thread, faults the same file bytes back
        // from the page cache, so no slice into the map changes value. A
        // failure only leaves RSS as it was.
        let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
    }

    /// The records of the nodes of depth `>= min_depth` that intersect `w`:
    /// nodes in directory order, each node's records nestless then nestable
    /// in stored order (the order a full decode of each node yields them).
    /// Each node's table is pushed on `tables`; `f` gets its slot there, the
    /// table and each hit.
    pub(super) fn for_each_hit(
        &self,
        w: TimeBox,
        min_depth: i16,
        stats: &mut QueryStats,
        tables: &mut Tables,
        mut f: impl FnMut(u32, &NodeTable, &RecordKey) -> Result<()>,
    ) -> Result<()> {
        let mut nodes = Vec::new();
        self.dir_index.overlapping(w, min_depth, &mut nodes);
        let all = self.node_tables(&nodes, stats)?;
        for (pos, t) in nodes.into_iter().zip(all) {
            stats.nodes_read += 1;
            let slot = tables.len() as u32;
            for k in t.hits(w) {
                stats.bytes_read += k.len as u64;
                f(slot, &t, k)?;
            }
            tables.push((pos, t));
        }
        Ok(())
    }

    /// A decoder over exactly the record `k` of the node at `pos`, whose
    /// table is `t`.
    pub(super) fn hit_decoder<'a>(
        &'a self,
        pos: u32,
        t: &'a NodeTable,
        k: &RecordKey,
    ) -> Result<format::Decoder<'a>> {
        let (block, base) = self.table_block(pos, t)?;
        let at = k.offset as usize;
        let rec = block
            .get(at..at + k.len as usize)
            .ok_or_else(|| Error::malformed("tree node", base, "record outside its block"))?;
        Ok(format::Decoder::new(rec, base + at as u64, "tree node"))
    }

    /// Decode the record `k` of the node in `slot` of `tables`.
    pub(super) fn decode_hit(&self, tables: &Tables, slot: u32, k: &RecordKey) -> Result<Drawable> {
        let (pos, t) = &tables[slot as usize];
        format::decode_drawable(&mut self.hit_decoder(*pos, t, k)?)
    }

    /// The intersecting records of nodes of depth `>= min_depth`, in drawing
    /// order (stable: ties keep node and list order, as a full decode and a
    /// stable sort would), with the tables of their nodes.
    pub(super) fn sorted_hits(
        &self,
        w: TimeBox,
        min_depth: i16,
        stats: &mut QueryStats,
    ) -> Result<(Tables, Vec<(u32, RecordKey)>)> {
        let mut hits: Vec<(u32, RecordKey)> = Vec::new();
        let mut tables = Tables::new();
        self.for_each_hit(w, min_depth, stats, &mut tables, |slot, _, k| {
            hits.push((slot, *k));
            Ok(())
        })?;
        sort_hits(&mut hits);
        Ok((tables, hits))
    }

    /// The records of a window query in drawing order (with their nodes'
    /// tables), and its stats.
    pub(super) fn window_hits(&self, t0: f64, t1: f64) -> Result<(Hits, QueryStats)> {
        let w = Self::check_window(t0, t1)?;
        let mut stats = QueryStats::default();
        let (tables, hits) = self.sorted_hits(w, i16::MIN, &mut stats)?;
        Ok((Hits { tables, hits }, stats))
    }

    /// Every drawable whose time box intersects the closed window `[t0, t1]`,
    /// in drawing order, each exactly once. Finds the intersecting nodes
    /// through the directory index, searches their (cached) tables and
    /// decodes only the records that intersect (see [`index`]).
    /// `t0 > t1` or a NaN bound is an `InvalidArgument` error.
    pub fn window(&self, t0: f64, t1: f64) -> Result<Window> {
        self.settle((|| {
            let (h, stats) = self.window_hits(t0, t1)?;
            let drawables = h
                .hits
                .iter()
                .map(|(slot, k)| self.decode_hit(&h.tables, *slot, k))
                .collect::<Result<Vec<_>>>()?;
            Ok(Window { drawables, stats })
        })())
    }

    /// The same drawables as [`window`](Self::window), streamed: memory holds
    /// one node's hits at a time, so the order is node by node in directory
    /// order (each node's drawables in drawing order), not globally sorted.
    pub fn window_each(
        &self,
        t0: f64,
        t1: f64,
        mut f: impl FnMut(&Drawable),
    ) -> Result<QueryStats> {
        self.settle((|| {
            let w = Self::check_window(t0, t1)?;
            let mut stats = QueryStats::default();
            let mut nodes = Vec::new();
            self.dir_index.overlapping(w, i16::MIN, &mut nodes);
            for pos in nodes {
                let t = self.node_table(pos, &mut stats)?;
                stats.nodes_read += 1;
                let mut hits: Vec<&RecordKey> = t.hits(w).collect();
                hits.sort_by(|a, b| key_cmp(a, b));
                for k in hits {
                    stats.bytes_read += k.len as u64;
                    f(&format::decode_drawable(
                        &mut self.hit_decoder(pos, &t, k)?,
                    )?);
                }
            }
            Ok(stats)
        })())
    }

    /// A Jumpshot-style preview of `[t0, t1]` at `depth` (spec §8.3).
    ///
    /// * Nodes of depth `>= depth` whose box intersects the window are read;
    ///   their real drawables that intersect the window are returned.
    /// * The shadows in the stubs of the lowest loaded level (stubs of loaded
    ///   nodes whose child has depth `< depth`), restricted to those whose box
    ///   intersects the window, stand in for the levels not read.
    /// * `depth <= 0` is full detail: the same drawables as
    ///   [`window`](Self::window) and no shadows.
    /// * `depth` above the root's depth reads just the root (if it intersects):
    ///   its drawables plus the shadows of all its stubs.
    ///
    /// Only the directory index, the node tables (cached) and the stubs of
    /// the lowest loaded level are read: the real drawables decoded are those
    /// returned.
    pub fn preview(&self, t0: f64, t1: f64, depth: i16) -> Result<Preview> {
        self.settle((|| {
            if depth <= 0 {
                let w = self.window(t0, t1)?;
                return Ok(Preview {
                    drawables: w.drawables,
                    shadows: Vec::new(),
                    stats: w.stats,
                });
            }
            let w = Self::check_window(t0, t1)?;
            let mut stats = QueryStats::default();
            let walk = self.preview_walk(w, depth, &mut stats)?;
            let mut shadows: Vec<Shadow> = Vec::new();
            self.preview_shadows(&walk, w, depth, &mut stats, |s| shadows.push(s.to_shadow()))?;
            let drawables = walk
                .hits
                .hits
                .iter()
                .map(|(slot, k)| self.decode_hit(&walk.hits.tables, *slot, k))
                .collect::<Result<Vec<_>>>()?;
            shadows.sort_by(|a, b| a.drawing_cmp(b));
            Ok(Preview {
                drawables,
                shadows,
                stats,
            })
        })())
    }

    /// The node walk of a preview at `depth >= 1` ([`preview`](Self::preview)
    /// says which nodes and shadows): the real drawables' hits in drawing
    /// order, and the nodes whose stubs give shadows, their stubs at hand
    /// (a compressed node's unpacked) for [`preview_shadows`](Self::preview_shadows).
    pub(super) fn preview_walk(
        &self,
        w: TimeBox,
        depth: i16,
        stats: &mut QueryStats,
    ) -> Result<PreviewWalk<'_>> {
        let root = self.root();
        let just_root = depth > root.id.depth;
        let mut nodes: Vec<u32> = Vec::new();
        if just_root {
            if root.time_box.overlaps(&w) {
                nodes.push(self.root as u32);
            }
        } else {
            self.dir_index.overlapping(w, depth, &mut nodes);
        }
        let mut hits: Vec<(u32, RecordKey)> = Vec::new();
        let mut tables = Tables::new();
        let mut stubs = Vec::new();
        for pos in nodes {
            let t = self.node_table(pos, stats)?;
            stats.nodes_read += 1;
            let slot = tables.len() as u32;
            for k in t.hits(w) {
                stats.bytes_read += k.len as u64;
                hits.push((slot, *k));
            }
            // Only nodes whose children lie below `depth` contribute shadows.
            let e = &self.directory[pos as usize];
            if just_root || e.id.depth <= depth {
                stubs.push((pos, t.stubs_at, self.node_with_stubs(pos)?));
            }
            tables.push((pos, t));
        }
        sort_hits(&mut hits);
        Ok(PreviewWalk {
            hits: Hits { tables, hits },
            stubs,
        })
    }

    /// Hand every shadow of a preview walk to show to `shadow`, in stub
    /// order (the caller puts them in drawing order).
    pub(super) fn preview_shadows<'a>(
        &self,
        walk: &'a PreviewWalk<'_>,
        w: TimeBox,
        depth: i16,
        stats: &mut QueryStats,
        mut shadow: impl FnMut(format::ShadowRef<'a>),
    ) -> Result<()> {
        for (pos, stubs_at, block) in &walk.stubs {
            let base = self.directory[*pos as usize].ptr.offset as u64;
            stats.bytes_read += (block.len() - stubs_at.min(&block.len())) as u64;
            format::visit_stub_shadows(block, base, *stubs_at, |child, s| {
                if child.id.depth < depth && s.time_box.overlaps(&w) {
                    shadow(s);
                }
            })?;
        }
        Ok(())
    }
}

/// The tables of the nodes a query read, by slot: (directory position,
/// table). A hit names its node by slot, and holding the tables holds what
/// its records are decoded from (a compressed node's unpacked bytes).
pub(super) type Tables = Vec<(u32, Arc<NodeTable>)>;

/// The hits of a query in drawing order, `(slot in tables, key)`.
pub(crate) struct Hits {
    pub(super) tables: Tables,
    pub(super) hits: Vec<(u32, RecordKey)>,
}

impl Hits {
    pub(super) fn len(&self) -> usize {
        self.hits.len()
    }
}

/// What a preview walk read: its real drawables' hits, and the nodes whose
/// stubs give shadows (position, stub offset, block with stubs).
pub(super) struct PreviewWalk<'a> {
    pub(super) hits: Hits,
    pub(super) stubs: Vec<(u32, usize, blocks::NodeBytes<'a>)>,
}

pub(super) fn drawing_key(k: &RecordKey) -> DrawingKey {
    DrawingKey::new(
        TimeBox::new(k.start, k.end),
        k.category,
        k.first_line,
        k.last_line,
    )
}

/// Stable sort of hits into drawing order. The hits arrive as one sorted run
/// per node list. They are sorted as 16-byte (start, index) pairs — the
/// start decides almost every comparison, and moving 16 bytes instead of an
/// 80-byte keyed hit halved a window query's sort — then each run of equal
/// starts by its whole drawing key, and gathered. Both sorts are stable and
/// the index breaks no tie the first sort did not keep, so the result is the
/// stable sort by the whole key.
pub(super) fn sort_hits(hits: &mut Vec<(u32, RecordKey)>) {
    let order = drawing_permutation(hits.len(), |i| hits[i].1.start, |i| drawing_key(&hits[i].1));
    let sorted: Vec<(u32, RecordKey)> = order.iter().map(|e| hits[e.1 as usize]).collect();
    *hits = sorted;
}

/// The stable drawing order of `n` items as (start bits, item) pairs: by
/// start first (16-byte pairs, cheap to move), then each run of equal
/// starts by the whole drawing key `key(i)`.
pub(super) fn drawing_permutation(
    n: usize,
    start: impl Fn(usize) -> f64,
    key: impl Fn(usize) -> DrawingKey,
) -> Vec<(u64, u32)> {
    let mut order: Vec<(u64, u32)> = (0..n)
        .map(|i| (total_order_bits(start(i)), i as u32))
        .collect();
    order.sort_by_key(|e| e.0);
    for run in order.chunk_by_mut(|a, b| a.0 == b.0) {
        if run.len() > 1 {
            run.sort_by_key(|e| key(e.1 as usize));
        }
    }
    order
}

pub(super) fn key_cmp(a: &RecordKey, b: &RecordKey) -> std::cmp::Ordering {
    drawing_order(
        (
            TimeBox::new(a.start, a.end),
            a.category,
            a.first_line,
            a.last_line,
        ),
        (
            TimeBox::new(b.start, b.end),
            b.category,
            b.first_line,
            b.last_line,
        ),
    )
}

pub(super) fn keyed_cmp(a: &(TimeBox, Drawable), b: &(TimeBox, Drawable)) -> std::cmp::Ordering {
    drawing_order(a.1.rank(a.0), b.1.rank(b.0))
}

/// Stable sort into drawing order, with each time box computed once.
pub(super) fn sort_drawables(mut keyed: Vec<(TimeBox, Drawable)>) -> Vec<Drawable> {
    keyed.sort_by(keyed_cmp);
    keyed.into_iter().map(|(_, d)| d).collect()
}
