//! An open node's drawables, and their drawing order.
//!
//! A node's drawables are kept in arrival order and never move; each comes
//! with its drawing-order key (spec §7.1: start, then end descending, then
//! category and lines), computed once on arrival, in one list per class
//! (nestless, nestable). Closing the node sorts the keys and encodes the
//! drawables in that order. The sort is a bucket sort tuned to how keys
//! arrive — nearly in start order, since drawables come in end order and
//! most are short — and a property test holds it to a comparison sort.

use crate::model::*;

/// The drawables of an open node in arrival order, with the drawing-order
/// key of each (computed once on arrival) in one list per class (nestless,
/// nestable), and the topology of every primitive (a composite: of each
/// member) in arrival order, for the node thread's shadows. Closing the node
/// sorts the keys (the index keeps equal keys in arrival order, as a stable
/// sort would) and encodes the drawables in that order; the drawables never
/// move.
#[derive(Default)]
pub(super) struct NodeDrawables {
    pub(super) drawables: Vec<Drawable>,
    /// Some drawable holds a heap block (a composite, or spilled info or
    /// vertices): `clear` must run the destructors.
    owns_heap: bool,
    /// `sort` has run since the last `clear`.
    pub(super) sorted: bool,
    pub(super) nestless: Vec<(DrawingKey, u32)>,
    pub(super) nestable: Vec<(DrawingKey, u32)>,
    pub(super) topologies: Vec<Topology>,
    /// Drawable indices in drawing order, per class (set by `sort`).
    pub(super) nestless_order: Vec<u32>,
    pub(super) nestable_order: Vec<u32>,
    scratch: SortScratch,
}

/// Reused buffers of [`sort_drawing_keys`].
#[derive(Debug, Default)]
pub(crate) struct SortScratch {
    /// (start, position in the key list) in bucket order.
    items: Vec<(u64, u32)>,
    counts: Vec<u32>,
}

/// The drawing order of a node's keys, as the drawable indices (the `u32`
/// of each key) in that order. Comparison sorts of a few thousand 40-byte
/// keys were the largest cost of writing. Keys arrive nearly in start order
/// (drawables come in end order, and most are short), so the start times
/// (distinct almost always) are spread over about one bucket per key by
/// their offset from the smallest, scattered stably, and each bucket — a
/// few keys — is put in order by insertion (a crowded bucket is sorted
/// outright). Only runs of equal starts are then ordered by the whole key.
pub(crate) fn sort_drawing_keys(
    keys: &[(DrawingKey, u32)],
    order: &mut Vec<u32>,
    s: &mut SortScratch,
) {
    order.clear();
    let n = keys.len();
    if keys.is_sorted() {
        order.extend(keys.iter().map(|k| k.1));
        return;
    }
    let (lo, hi) = keys.iter().fold((u64::MAX, 0u64), |(lo, hi), k| {
        let b = k.0.start_bits();
        (lo.min(b), hi.max(b))
    });
    // Buckets: the offset from the smallest start, shifted so that there
    // are between n and 2n of them (fewer when the starts span less).
    let span = hi - lo;
    let shift = (64 - span.leading_zeros()).saturating_sub(64 - (n as u64).leading_zeros());
    let buckets = (span >> shift) as usize + 1;
    s.counts.clear();
    s.counts.resize(buckets + 1, 0);
    for k in keys {
        s.counts[((k.0.start_bits() - lo) >> shift) as usize + 1] += 1;
    }
    for i in 0..buckets {
        s.counts[i + 1] += s.counts[i];
    }
    s.items.clear();
    s.items.resize(n, (0, 0));
    for (i, k) in keys.iter().enumerate() {
        let st = k.0.start_bits();
        let c = &mut s.counts[((st - lo) >> shift) as usize];
        s.items[*c as usize] = (st, i as u32);
        *c += 1;
    }
    // `counts[b]` is now the end of bucket b (the start of b + 1).
    let mut from = 0;
    for b in 0..buckets {
        let to = s.counts[b] as usize;
        let bucket = &mut s.items[from..to];
        from = to;
        if bucket.len() < 2 {
            continue;
        }
        if bucket.len() > 32 {
            bucket.sort_unstable();
        } else {
            for i in 1..bucket.len() {
                let x = bucket[i];
                let mut j = i;
                while j > 0 && bucket[j - 1].0 > x.0 {
                    bucket[j] = bucket[j - 1];
                    j -= 1;
                }
                bucket[j] = x;
            }
        }
        // Equal starts (always in one bucket): the whole key decides.
        let mut i = 0;
        while i < bucket.len() {
            let st = bucket[i].0;
            let mut j = i + 1;
            while j < bucket.len() && bucket[j].0 == st {
                j += 1;
            }
            if j - i > 1 {
                bucket[i..j].sort_unstable_by_key(|&(_, p)| keys[p as usize]);
            }
            i = j;
        }
    }
    order.extend(s.items.iter().map(|&(_, p)| keys[p as usize].1));
}

impl NodeDrawables {
    #[inline(always)]
    pub(super) fn push(&mut self, d: Drawable, key: DrawingKey, nestable: bool) {
        let k = (key, self.drawables.len() as u32);
        if nestable {
            self.nestable.push(k);
        } else {
            self.nestless.push(k);
        }
        self.owns_heap |= match &d {
            Drawable::Primitive(p) => p.info.spilled() || p.vertices.spilled(),
            Drawable::Composite(_) => true,
        };
        self.drawables.push(d);
    }

    pub(super) fn clear(&mut self) {
        self.sorted = false;
        if self.owns_heap {
            self.drawables.clear();
            self.owns_heap = false;
        } else {
            // SAFETY: no drawable holds a heap block (no composite, no
            // spilled info or vertices: `push` watched every one), so their
            // destructors would free nothing; skipping them leaks nothing and
            // spares a read of every drawable (3 % of a conversion's time,
            // most of it cache misses on lines the node thread last held).
            // A length of 0 is always within the capacity.
            unsafe { self.drawables.set_len(0) };
        }
        self.nestless.clear();
        self.nestable.clear();
        self.topologies.clear();
    }

    /// Room for a node like `other` and an eighth more, so that lists
    /// rarely grow (a grown list copies everything it holds).
    pub(super) fn reserve_like(&mut self, other: &NodeDrawables) {
        let more = |n: usize| n + n / 8;
        self.drawables.reserve(more(other.drawables.len()));
        self.nestless.reserve(more(other.nestless.len()));
        self.nestable.reserve(more(other.nestable.len()));
        self.topologies.reserve(more(other.topologies.len()));
    }

    /// Put both classes into drawing order (`nestless_order`,
    /// `nestable_order`).
    pub(super) fn sort(&mut self) {
        sort_drawing_keys(&self.nestless, &mut self.nestless_order, &mut self.scratch);
        sort_drawing_keys(&self.nestable, &mut self.nestable_order, &mut self.scratch);
        self.sorted = true;
    }

    /// Drawables in an order made by [`sort`](Self::sort).
    pub(super) fn in_order<'a>(
        &'a self,
        order: &'a [u32],
    ) -> impl Iterator<Item = &'a Drawable> + 'a {
        order.iter().map(move |i| &self.drawables[*i as usize])
    }
}

#[cfg(test)]
mod sort_tests {
    use super::*;
    use proptest::prelude::*;

    /// Keys in the order `sort_drawing_keys` gives (each key's `u32` is its
    /// position here).
    fn sorted(keys: &[(DrawingKey, u32)]) -> Vec<(DrawingKey, u32)> {
        let mut order = Vec::new();
        sort_drawing_keys(keys, &mut order, &mut SortScratch::default());
        order.iter().map(|&i| keys[i as usize]).collect()
    }

    fn comparison_sorted(keys: &[(DrawingKey, u32)]) -> Vec<(DrawingKey, u32)> {
        let mut v = keys.to_vec();
        v.sort_unstable();
        v
    }

    proptest! {
        /// The bucket sort orders keys exactly as a comparison sort does,
        /// including runs of equal start times.
        #[test]
        fn sort_equals_comparison_sort_with_ties(
            raw in prop::collection::vec((0u32..50, 0u32..50, 0i32..3, 0i32..3, -1i32..2), 0..400),
            scale in prop_oneof![Just(1e-6), Just(1.0), Just(1e9), Just(-1e-3)],
        ) {
            let keys: Vec<(DrawingKey, u32)> = raw
                .iter()
                .enumerate()
                .map(|(i, &(s, d, c, f, l))| {
                    let start = s as f64 * scale;
                    let tbox = TimeBox::new(start.min(start + d as f64 * scale), start.max(start + d as f64 * scale));
                    (DrawingKey::new(tbox, c, f, l), i as u32)
                })
                .collect();
            prop_assert_eq!(sorted(&keys), comparison_sorted(&keys));
        }

        /// The same for starts of every shape: a node's usual stream (end
        /// order, short durations), any finite doubles of both signs, and a
        /// few far outliers that crowd the rest into one bucket.
        #[test]
        fn bucket_sort_equals_comparison_sort(
            raw in prop::collection::vec((any::<u64>(), 0u32..64, 0i32..3, 0i32..3), 0..3000),
            shape in 0u8..3,
        ) {
            let keys: Vec<(DrawingKey, u32)> = raw
                .iter()
                .enumerate()
                .map(|(i, &(r, d, c, f))| {
                    let start = match shape {
                        // Arrival in end order: start = end - short duration.
                        0 => i as f64 * 1e-6 - d as f64 * 1e-6,
                        1 => {
                            let x = f64::from_bits(r);
                            if x.is_finite() { x } else { r as f64 }
                        }
                        _ => if r % 97 == 0 { (r % 7) as f64 * -1e12 } else { i as f64 * 1e-7 },
                    };
                    let tbox = TimeBox::new(start, start + d as f64);
                    (DrawingKey::new(tbox, c, f, 0), i as u32)
                })
                .collect();
            prop_assert_eq!(sorted(&keys), comparison_sorted(&keys));
        }
    }
}
