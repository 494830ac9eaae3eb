//! The matching state of the CLOG2 source: categories as the log defines
//! them, **open states** (per category and line, matched first in, first
//! out as the reference does) and **messages in flight** (per sender,
//! receiver and tag), each kept in a compact FIFO per key, plus the small
//! cache of hot event numbers (`Hot`) that keeps the per-record lookup off
//! the hash maps.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Start,
    End,
    Solo,
}

#[derive(Debug, Clone)]
pub(super) struct Cat {
    pub(super) topology: Topology,
    pub(super) name: Option<String>,
    pub(super) color: (u8, u8, u8),
    pub(super) format: Option<String>,
    /// Definitions handed over (multiplies its leftovers, as the reference does).
    pub(super) defined: u64,
    /// A drawable of it has been handed to the writer.
    pub(super) used: bool,
}

impl Cat {
    pub(super) fn nameless(topology: Topology) -> Cat {
        Cat {
            topology,
            name: None,
            color: (255, 192, 203),
            format: None,
            defined: 0,
            used: false,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) struct OpenState {
    pub(super) time: f64,
    pub(super) info: Option<[u8; 32]>,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Half {
    pub(super) time: f64,
    pub(super) line: i32,
    pub(super) size: i32,
}

/// The pending items (open states, unpaired message halves) of one key,
/// oldest first. Almost every key has one item at a time (a state of one
/// category open on a line, a message of one tag in flight between two
/// processes), which is stored inline: a key costs no allocation, and its
/// map entry is removed when its last item leaves, so the maps hold exactly
/// the keys with something pending.
#[derive(Debug, Clone)]
pub(super) enum Fifo<T> {
    One(T),
    Many(VecDeque<T>),
}

impl<T: Copy> Fifo<T> {
    #[inline]
    pub(super) fn push(&mut self, x: T) {
        match self {
            Fifo::One(a) => {
                let mut q = VecDeque::with_capacity(4);
                q.push_back(*a);
                q.push_back(x);
                *self = Fifo::Many(q);
            }
            Fifo::Many(q) => q.push_back(x),
        }
    }

    /// The oldest item, and whether the key is now empty.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<(T, bool)> {
        match self {
            Fifo::One(a) => Some((*a, true)),
            Fifo::Many(q) => q.pop_front().map(|x| (x, q.is_empty())),
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Fifo::One(_) => 1,
            Fifo::Many(q) => q.len(),
        }
    }
}

/// Push `x` on the queue of `key`.
#[inline]
pub(super) fn fifo_push<K: std::hash::Hash + Eq, T: Copy>(
    m: &mut FxHashMap<K, Fifo<T>>,
    key: K,
    x: T,
) {
    match m.entry(key) {
        std::collections::hash_map::Entry::Occupied(mut o) => o.get_mut().push(x),
        std::collections::hash_map::Entry::Vacant(v) => {
            v.insert(Fifo::One(x));
        }
    }
}

/// The key of the open states of category `index` on line `line`.
#[inline(always)]
pub(super) fn open_key(index: i32, line: i32) -> u64 {
    (index as u32 as u64) << 32 | line as u32 as u64
}

/// Open states per (category, line). A line has a few categories open at a
/// time (its nesting depth), so lines below [`DENSE_LINES`] index a short
/// list searched by category — about a third of a hash-map operation on the
/// hottest path of the conversion; other line IDs go to a map. A line's list
/// keeps its capacity when its states close (at most [`DENSE_LINES`] lists).
#[derive(Debug, Default)]
pub(super) struct OpenStates {
    pub(super) dense: Vec<Vec<(i32, Fifo<OpenState>)>>,
    pub(super) sparse: FxHashMap<u64, Fifo<OpenState>>,
}

impl OpenStates {
    #[inline(always)]
    pub(super) fn push(&mut self, index: i32, line: i32, s: OpenState) {
        let l = line as u32 as usize;
        if l >= DENSE_LINES {
            return fifo_push(&mut self.sparse, open_key(index, line), s);
        }
        if l >= self.dense.len() {
            self.dense.resize_with(l + 1, Vec::new);
        }
        let list = &mut self.dense[l];
        match list.iter_mut().find(|(c, _)| *c == index) {
            Some((_, q)) => q.push(s),
            None => list.push((index, Fifo::One(s))),
        }
    }

    /// The oldest open state of `index` on `line`.
    #[inline(always)]
    pub(super) fn pop(&mut self, index: i32, line: i32) -> Option<OpenState> {
        let l = line as u32 as usize;
        if l >= DENSE_LINES {
            return fifo_pop(&mut self.sparse, open_key(index, line));
        }
        let list = self.dense.get_mut(l)?;
        let k = list.iter().position(|(c, _)| *c == index)?;
        let (x, empty) = list[k].1.pop()?;
        if empty {
            list.swap_remove(k);
        }
        Some(x)
    }

    /// (category, number of open states) of every key with open states.
    pub(super) fn counts(&self) -> impl Iterator<Item = (i32, usize)> + '_ {
        let dense = self.dense.iter().flatten().map(|(c, q)| (*c, q.len()));
        let sparse = self
            .sparse
            .iter()
            .map(|(&k, q)| ((k >> 32) as i32, q.len()));
        dense.chain(sparse)
    }
}

/// Take the oldest item of `key`, removing the key when it empties.
#[inline]
pub(super) fn fifo_pop<K: std::hash::Hash + Eq, T: Copy>(
    m: &mut FxHashMap<K, Fifo<T>>,
    key: K,
) -> Option<T> {
    match m.entry(key) {
        std::collections::hash_map::Entry::Occupied(mut o) => {
            let (x, empty) = o.get_mut().pop()?;
            if empty {
                o.remove();
            }
            Some(x)
        }
        std::collections::hash_map::Entry::Vacant(_) => None,
    }
}

/// What an event number resolves to, cached (see [`Clog2Source::hot`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Hot {
    pub(super) etype: i32,
    pub(super) index: i32,
    pub(super) role: Role,
    pub(super) topology: Topology,
    /// Its category has been handed a drawable (no category record due).
    pub(super) used: bool,
}

/// Slots of the event-number cache (a power of two).
pub(super) const HOT_SLOTS: usize = 64;

/// Line IDs below this are counted in a vector (the y-map needs the lines
/// that carry drawables), the rest in a map.
pub(super) const DENSE_LINES: usize = 1 << 16;

/// One line-table entry: communicator ID, rank in it, thread, world rank.
pub(super) type LineEntry = (i32, i32, i32, i32);
