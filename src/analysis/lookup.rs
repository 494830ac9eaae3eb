//! A map from `i32` keys (category indices, line IDs) to small values that
//! costs one bounds check and one load per lookup: analyses look up every
//! drawable's category and line, tens of millions of times per second.
//!
//! Keys of real files are small and dense (MPE numbers categories and lines
//! from 0), so the map is a table over `[min, max]`; a hostile or exotic
//! spread of keys (span over [`DENSE_SPAN`]) falls back to a hash map, so
//! memory never follows what a file claims.

use rustc_hash::FxHashMap;

/// Widest key span held in a table (entries, not bytes).
const DENSE_SPAN: i64 = 1 << 22;

#[derive(Debug, Clone)]
pub(crate) enum Lookup<T: Copy> {
    Dense { min: i32, slots: Vec<Option<T>> },
    Sparse(FxHashMap<i32, T>),
}

impl<T: Copy> Lookup<T> {
    /// The map of `pairs` (the first value of a key repeated wins).
    pub fn new(pairs: impl IntoIterator<Item = (i32, T)>) -> Lookup<T> {
        let pairs: Vec<(i32, T)> = pairs.into_iter().collect();
        let (min, max) = pairs
            .iter()
            .fold((i32::MAX, i32::MIN), |(a, b), &(k, _)| (a.min(k), b.max(k)));
        if pairs.is_empty() || i64::from(max) - i64::from(min) >= DENSE_SPAN {
            let mut m = FxHashMap::default();
            for (k, v) in pairs {
                m.entry(k).or_insert(v);
            }
            return Lookup::Sparse(m);
        }
        let mut slots = vec![None; (i64::from(max) - i64::from(min) + 1) as usize];
        for (k, v) in pairs {
            let s = &mut slots[(i64::from(k) - i64::from(min)) as usize];
            if s.is_none() {
                *s = Some(v);
            }
        }
        Lookup::Dense { min, slots }
    }

    #[inline(always)]
    pub fn get(&self, key: i32) -> Option<T> {
        match self {
            Lookup::Dense { min, slots } => {
                let i = (i64::from(key) - i64::from(*min)) as u64;
                slots.get(i as usize).copied().flatten()
            }
            Lookup::Sparse(m) => m.get(&key).copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_agree() {
        let keys = [5, -3, 7, 5, 100];
        let d = Lookup::new(keys.iter().enumerate().map(|(i, &k)| (k, i)));
        assert!(matches!(d, Lookup::Dense { .. }));
        let s = Lookup::new(
            keys.iter()
                .enumerate()
                .map(|(i, &k)| (k, i))
                .chain([(i32::MAX, 9), (i32::MIN, 8)]),
        );
        assert!(matches!(s, Lookup::Sparse(_)));
        for k in -10..110 {
            assert_eq!(d.get(k), s.get(k), "{k}");
        }
        assert_eq!(d.get(5), Some(0));
        assert_eq!(s.get(i32::MIN), Some(8));
        assert_eq!(d.get(i32::MIN), None);
        assert_eq!(d.get(i32::MAX), None);
        assert_eq!(Lookup::<u8>::new([]).get(0), None);
    }
}
