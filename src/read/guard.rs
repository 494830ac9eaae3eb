//! Guarded mappings: a file truncated under a reader is an error on the
//! query, not a SIGBUS that kills the process.
//!
//! # The problem
//!
//! Inputs are memory-mapped. When another process truncates a mapped file
//! (a `cp` over a trace a viewer has open, a conversion rewriting its
//! input), touching a page past the new end raises SIGBUS: by default the
//! process dies (the CLI with 135, the JVM with an hs_err file, Python's
//! interpreter outright).
//!
//! # The choice: a guarded mapping, not reads
//!
//! Reading tree nodes with `pread` would make every query copy its nodes
//! and pay a system call per node; BENCHMARKS.md ("Reliability: a file that
//! changes under a reader") measures what that would add to the window
//! benchmarks against what the guard costs (one relaxed atomic load per
//! query). So the mapping stays, and a SIGBUS handler guards it:
//!
//! - Every mapping a reader makes is **registered** here (its address range
//!   and a "changed" flag) in a table the handler can read without locks
//!   (atomics in fixed chunks, allocated outside the handler).
//! - The handler, for a fault inside a registered mapping, sets the flag and
//!   maps **zero pages** over the mapping from the faulting page to its end
//!   (`mmap(MAP_FIXED | MAP_ANONYMOUS)`, async-signal-safe: one system
//!   call), then returns: the faulting load runs again and reads zeros. The
//!   decoders never trust bytes (every count is checked against the bytes
//!   that remain, fuzzed), so a query on zeros ends, with garbage or an
//!   error, and the reader then sees the flag and reports
//!   [`Error::FileChanged`] instead of either. The mapping stays valid
//!   memory until it is unmapped, so no slice anyone holds dangles.
//! - A fault **outside** our mappings goes to the handler that was there
//!   before ours (chaining): the JVM's (it uses SIGBUS for its own mapped
//!   buffers and writes its crash report), Python's `faulthandler`, Rust's
//!   stack-overflow handler, or the default action (the process dies of
//!   SIGBUS, as it would have). A SIGBUS sent by `kill` also goes on.
//!
//! The handler is installed once, when the first mapping is registered, so
//! a host that never maps a file never has it. **Hosts**: the JVM notices a
//! replaced handler only under `-Xcheck:jni` (its periodic check prints
//! "Warning: SIGBUS handler modified!" and the handler table once); with
//! `LD_PRELOAD=libjsig.so` (the JDK's signal-chaining library) the JVM keeps
//! its handler in place and calls ours for faults it does not know, with no
//! warning. Python: `faulthandler` enabled before the first file is opened
//! (pytest does so at start) is chained to; enabled *after*, it takes SIGBUS
//! first and reports our recoverable fault as fatal.
//!
//! A file rewritten in place without being shortened raises no fault; its
//! new bytes are read as they are. Readers check the file's size and time
//! stamps when a query fails, so such a change is reported as
//! [`Error::FileChanged`] too instead of as damage (see
//! [`Slog2File`](super::Slog2File)).

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Mutex, Once};

use crate::error::Error;

/// One registered mapping.
struct Slot {
    start: AtomicUsize,
    len: AtomicUsize,
    changed: AtomicBool,
}

const CHUNK: usize = 256;
const CHUNKS: usize = 256;

type Chunk = [Slot; CHUNK];

/// Up to 65,536 mappings at once (Linux's default `vm.max_map_count` is
/// 65,530 mappings per process, all kinds): chunks allocated on demand,
/// never freed (the handler may be reading them).
static TABLE: [AtomicPtr<Chunk>; CHUNKS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; CHUNKS];
/// Serialises registration (the handler reads without it).
static REGISTER: Mutex<()> = Mutex::new(());
static INSTALL: Once = Once::new();
static PAGE: AtomicUsize = AtomicUsize::new(4096);
/// The handler that was installed before ours (chained to).
static mut PREVIOUS: std::mem::MaybeUninit<libc::sigaction> = std::mem::MaybeUninit::zeroed();
static INSTALLED: AtomicBool = AtomicBool::new(false);

fn new_chunk() -> *mut Chunk {
    let b: Box<Chunk> = Box::new(std::array::from_fn(|_| Slot {
        start: AtomicUsize::new(0),
        len: AtomicUsize::new(0),
        changed: AtomicBool::new(false),
    }));
    Box::into_raw(b)
}

/// A registered mapping; unregistered on drop (drop it before unmapping).
pub(crate) struct Guard {
    slot: &'static Slot,
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("changed", &self.changed())
            .finish()
    }
}

impl Guard {
    /// Register the mapping `[ptr, ptr + len)`. `None` when the table is
    /// full (the mapping then works unguarded, as before).
    pub(crate) fn register(ptr: *const u8, len: usize) -> Option<Guard> {
        install();
        if len == 0 || ptr.is_null() {
            return None;
        }
        let _g = REGISTER.lock().unwrap_or_else(|p| p.into_inner());
        for c in TABLE.iter() {
            let mut chunk = c.load(Ordering::Acquire);
            if chunk.is_null() {
                chunk = new_chunk();
                c.store(chunk, Ordering::Release);
            }
            // SAFETY: chunks are never freed; registration is serialised.
            let chunk: &'static Chunk = unsafe { &*chunk };
            if let Some(slot) = chunk.iter().find(|s| s.start.load(Ordering::Relaxed) == 0) {
                slot.changed.store(false, Ordering::Relaxed);
                slot.len.store(len, Ordering::Relaxed);
                slot.start.store(ptr as usize, Ordering::Release);
                return Some(Guard { slot });
            }
        }
        None
    }

    /// A fault hit this mapping (its rest now reads as zeros).
    #[inline]
    pub(crate) fn changed(&self) -> bool {
        self.slot.changed.load(Ordering::Acquire)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _g = REGISTER.lock().unwrap_or_else(|p| p.into_inner());
        self.slot.start.store(0, Ordering::Release);
        self.slot.len.store(0, Ordering::Release);
    }
}

/// The error a reader reports once its mapping changed.
pub(crate) fn changed_error(path: Option<&std::path::Path>) -> Error {
    Error::FileChanged {
        path: path.map(|p| p.to_path_buf()).unwrap_or_default(),
    }
}

/// Is our handler installed (a test and the docs' claim)?
pub fn handler_installed() -> bool {
    INSTALLED.load(Ordering::Acquire)
}

fn install() {
    INSTALL.call_once(|| {
        // SAFETY: sysconf is always safe to call.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if page > 0 {
            PAGE.store(page as usize, Ordering::Relaxed);
        }
        // SAFETY: a zeroed sigaction is valid; we fill handler, mask and
        // flags. PREVIOUS is written by sigaction before our handler can
        // read it for a fault in one of our mappings (none is registered
        // yet: registration happens after this returns).
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_sigbus as *const () as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESTART;
            let prev = std::ptr::addr_of_mut!(PREVIOUS).cast::<libc::sigaction>();
            if libc::sigaction(libc::SIGBUS, &sa, prev) == 0 {
                INSTALLED.store(true, Ordering::Release);
            }
        }
    });
}

/// The mapping holding `addr`, if it is one of ours.
fn find(addr: usize) -> Option<(&'static Slot, usize, usize)> {
    for c in TABLE.iter() {
        let chunk = c.load(Ordering::Acquire);
        if chunk.is_null() {
            return None;
        }
        // SAFETY: chunks are never freed.
        let chunk: &'static Chunk = unsafe { &*chunk };
        for s in chunk.iter() {
            let start = s.start.load(Ordering::Acquire);
            let len = s.len.load(Ordering::Acquire);
            if start != 0 && addr >= start && addr - start < len {
                return Some((s, start, len));
            }
        }
    }
    None
}

extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers;
    // everything below is async-signal-safe (atomics, mmap, sigaction).
    unsafe {
        // Only faults (si_code > 0), not a SIGBUS sent by kill/raise.
        if !info.is_null() && (*info).si_code > 0 {
            let addr = (*info).si_addr() as usize;
            if let Some((slot, start, len)) = find(addr) {
                let page = PAGE.load(Ordering::Relaxed);
                let from = addr & !(page - 1);
                let end = (start + len + page - 1) & !(page - 1);
                slot.changed.store(true, Ordering::SeqCst);
                let p = libc::mmap(
                    from as *mut libc::c_void,
                    end - from,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                );
                if p != libc::MAP_FAILED {
                    return;
                }
            }
        }
        chain(sig, info, ctx);
    }
}

/// Hand the signal to the handler that was there before ours.
unsafe fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: called from the handler with the kernel's arguments;
    // PREVIOUS was filled by sigaction before any mapping was registered;
    // a handler of the previous sigaction has the type its flags say.
    unsafe {
        let prev = &*std::ptr::addr_of!(PREVIOUS).cast::<libc::sigaction>();
        let h = prev.sa_sigaction;
        if h == libc::SIG_IGN {
            return;
        }
        if h == libc::SIG_DFL {
            // The default action: restore it; a fault then happens again on
            // return and ends the process by SIGBUS, a sent signal is raised
            // again (it is delivered once this handler returns).
            let mut dfl: libc::sigaction = std::mem::zeroed();
            dfl.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(sig, &dfl, std::ptr::null_mut());
            if info.is_null() || (*info).si_code <= 0 {
                libc::raise(sig);
            }
            return;
        }
        if prev.sa_flags & libc::SA_SIGINFO != 0 {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                std::mem::transmute(h);
            f(sig, info, ctx);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(h);
            f(sig);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A truncated mapped file reads as zeros past its new end and the
    /// guard says so; the process lives.
    #[test]
    fn a_fault_in_a_guarded_mapping_reads_zeros() {
        let mut f = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut f, &vec![7u8; 1 << 20]).unwrap();
        // SAFETY: a private temporary file.
        let map = unsafe { memmap2::Mmap::map(&f) }.unwrap();
        let g = Guard::register(map.as_ptr(), map.len()).unwrap();
        assert!(handler_installed());
        assert_eq!(map[100_000], 7);
        assert!(!g.changed());
        f.set_len(4096).unwrap();
        let v = std::hint::black_box(&map[..])[500_000];
        assert_eq!(v, 0);
        assert!(g.changed());
        assert_eq!(map[100], 7, "pages before the fault are the file's");
        drop(g);
    }
}
