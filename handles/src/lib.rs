//! Handles for the bindings: the one registry that both skins of slog2
//! (the C ABI in `slog2-capi`, the JVM binding in `slog2-jni`) use to hand
//! objects to foreign code.
//!
//! # Why keys, not pointers
//!
//! A C or Java caller holds an opaque value between calls. If that value
//! were the address of a Rust object, a stale, doubled or made-up value
//! would be undefined behaviour the moment it is dereferenced. A
//! [`Registry`] instead hands out integer **keys** into a map of live
//! objects: a key that is not in the map is an error the binding reports
//! (SLOG2_ERR_BAD_HANDLE, a `ClosedException`), never a crash.
//!
//! * Keys are non-zero (0 is the foreign NULL) and **never reused** within a
//!   process: they come from one counter shared by every registry, so a
//!   stale key can never reach a newer object, and a key of one kind of
//!   handle (a TRACE file) is never a valid key of another (an SLOG2 file).
//! * Objects are held as `Arc<T>`: the map's lock is held only to find, add
//!   or remove an entry. A call clones the `Arc` and works on the object
//!   (under the object's own lock, if it has one), so a `close` on another
//!   thread removes the key but cannot free the object under a running call.
//! * A call that **panics** leaves its object in an unknown state (half of
//!   an update done). [`Registry::retire_on_panic`] removes the key before the
//!   panic continues to the binding's boundary (which reports it), and
//!   remembers that it did, so later calls are refused with "retired after an
//!   internal error" instead of working on a half-updated object.
//!
//! The registry is `const`-constructible, so bindings keep their registries
//! in plain `static`s.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// One counter for every registry of the process (see the crate docs).
static NEXT_KEY: AtomicU64 = AtomicU64::new(1);

/// Why [`Registry::get`] found no object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// Never handed out by this registry, or closed.
    Unknown,
    /// Retired because a call on it panicked.
    Retired,
}

/// Live objects behind foreign handles (see the crate docs).
pub struct Registry<T> {
    live: RwLock<Option<HashMap<u64, Arc<T>>>>,
    /// Keys retired after a panic (a bug; the set stays small).
    retired: RwLock<Option<HashSet<u64>>>,
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Registry<T> {
    /// An empty registry (usable in a `static`).
    pub const fn new() -> Self {
        Registry {
            live: RwLock::new(None),
            retired: RwLock::new(None),
        }
    }

    // A panic while a map lock is held cannot leave a map inconsistent (each
    // critical section is one insert, remove or lookup), so a poisoned lock
    // is still usable.
    fn read(&self) -> RwLockReadGuard<'_, Option<HashMap<u64, Arc<T>>>> {
        self.live.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Option<HashMap<u64, Arc<T>>>> {
        self.live.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Register `v` and return its new key (non-zero, never used before).
    pub fn insert(&self, v: T) -> u64 {
        let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
        self.write()
            .get_or_insert_with(HashMap::new)
            .insert(key, Arc::new(v));
        key
    }

    /// The object of `key`, shared with the registry.
    pub fn get(&self, key: u64) -> Option<Arc<T>> {
        self.read().as_ref().and_then(|m| m.get(&key)).cloned()
    }

    /// [`get`](Self::get), saying why there is no object.
    pub fn lookup(&self, key: u64) -> Result<Arc<T>, Missing> {
        self.get(key).ok_or_else(|| self.why_missing(key))
    }

    /// Whether `key` names a live object.
    pub fn contains(&self, key: u64) -> bool {
        self.read().as_ref().is_some_and(|m| m.contains_key(&key))
    }

    /// Unregister `key` (a close); the object is freed when the last call
    /// holding it returns.
    pub fn remove(&self, key: u64) -> Option<Arc<T>> {
        self.write().as_mut().and_then(|m| m.remove(&key))
    }

    /// Why `key` names no live object.
    pub fn why_missing(&self, key: u64) -> Missing {
        let retired = self.retired.read().unwrap_or_else(|e| e.into_inner());
        if retired.as_ref().is_some_and(|s| s.contains(&key)) {
            Missing::Retired
        } else {
            Missing::Unknown
        }
    }

    /// Unregister `key` because a call on it failed midway: later lookups
    /// report [`Missing::Retired`].
    pub fn retire(&self, key: u64) {
        if self.remove(key).is_some() {
            self.retired
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert_with(HashSet::new)
                .insert(key);
        }
    }

    /// Run `f`, a call on the object of `key`; if it panics, retire `key`
    /// and let the panic continue (the binding's boundary catches it and
    /// reports it as its internal-error code or exception).
    pub fn retire_on_panic<R>(&self, key: u64, f: impl FnOnce() -> R) -> R {
        match catch_unwind(AssertUnwindSafe(f)) {
            Ok(r) => r,
            Err(p) => {
                self.retire(key);
                resume_unwind(p)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_across_registries_and_never_reused() {
        let a: Registry<i32> = Registry::new();
        let b: Registry<&str> = Registry::new();
        let k1 = a.insert(1);
        let k2 = b.insert("x");
        assert_ne!(k1, 0);
        assert_ne!(k1, k2);
        assert!(a.get(k2).is_none() && b.get(k1).is_none());
        assert_eq!(*a.remove(k1).unwrap(), 1);
        let k3 = a.insert(3);
        assert_ne!(k3, k1, "a key is never reused");
        assert_eq!(a.lookup(k1).unwrap_err(), Missing::Unknown);
        assert_eq!(*a.lookup(k3).unwrap(), 3);
    }

    #[test]
    fn an_object_outlives_its_removal_while_a_call_holds_it() {
        let r: Registry<String> = Registry::new();
        let k = r.insert("alive".into());
        let held = r.get(k).unwrap();
        assert!(r.remove(k).is_some());
        assert!(!r.contains(k));
        assert_eq!(*held, "alive");
    }

    #[test]
    fn a_panicking_call_retires_its_key() {
        let r: Registry<std::sync::Mutex<i32>> = Registry::new();
        let k = r.insert(std::sync::Mutex::new(0));
        let other = r.insert(std::sync::Mutex::new(0));
        let caught = catch_unwind(AssertUnwindSafe(|| {
            r.retire_on_panic(k, || {
                *r.get(k).unwrap().lock().unwrap() = 1;
                panic!("half done");
            })
        }));
        assert!(caught.is_err(), "the panic continues to the boundary");
        assert_eq!(r.lookup(k).unwrap_err(), Missing::Retired);
        assert!(r.contains(other), "other handles are untouched");
        assert_eq!(r.retire_on_panic(other, || 7), 7);
        assert_eq!(r.why_missing(other + 1000), Missing::Unknown);
    }
}
