//! Signals: an interrupted conversion leaves no temporary file, and a full
//! file-size limit is an error message, not a silent death.
//!
//! `install` runs first thing in `main`, before any other thread exists:
//!
//! - Every signal whose default action ends the process and that may come
//!   from outside ([`CLEANUP`]: INT, TERM, HUP, QUIT, USR1, USR2, ALRM, XCPU,
//!   VTALRM, PROF — XCPU and USR1 are what batch schedulers send when a
//!   job's limit runs out) is blocked in every thread (threads inherit the
//!   mask) and received by one thread of ours with `sigwait`. That
//!   thread is an ordinary thread, so it may take locks and remove files:
//!   it removes the temporary files of the unfinished writers
//!   ([`slog2::write::temp::remove_temp_files`]), then ends the process *by
//!   the same signal* (default action restored, unblocked in that thread,
//!   raised), so the parent sees the usual "killed by SIGINT" status. An
//!   asynchronous handler could do neither safely; `libc` suffices for this
//!   (no `signal-hook` needed: one `sigwait` loop).
//! - SIGXFSZ is ignored: exceeding `ulimit -f` then makes the write fail
//!   with EFBIG, which the writer reports ("File too large") before removing
//!   its temporary file, instead of the process dying without a word.
//! - SIGPIPE stays ignored (Rust's default): `slog2 print F | head` sees
//!   EPIPE, and `main` ends quietly on it.

/// The signals after which the temporary files are removed. (SIGKILL and
/// SIGSTOP cannot be caught; SIGSEGV, SIGBUS, SIGILL, SIGFPE are faults of
/// the thread that runs into them, not deliverable to another thread;
/// SIGPIPE and SIGXFSZ are ignored, below.)
pub const CLEANUP: [libc::c_int; 10] = [
    libc::SIGINT,
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGXCPU,
    libc::SIGVTALRM,
    libc::SIGPROF,
];

pub fn install() {
    // SAFETY: plain libc calls on this process at start-up, before any
    // other thread exists; the sigset is initialised by sigemptyset.
    let set = unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in CLEANUP {
            libc::sigaddset(&mut set, s);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        set
    };
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || loop {
            let mut sig: libc::c_int = 0;
            // SAFETY: `set` is a valid sigset; `sig` a valid out-pointer.
            if unsafe { libc::sigwait(&set, &mut sig) } != 0 {
                continue;
            }
            slog2::write::temp::remove_temp_files();
            // SAFETY: restore the default action and deliver the signal to
            // this thread, the only one where it is unblocked: the process
            // ends by it.
            unsafe {
                libc::signal(sig, libc::SIG_DFL);
                let mut one: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut one);
                libc::sigaddset(&mut one, sig);
                libc::pthread_sigmask(libc::SIG_UNBLOCK, &one, std::ptr::null_mut());
                libc::raise(sig);
            }
            std::process::exit(128 + sig);
        });
    if spawned.is_err() {
        // No handling thread: unblock again rather than ignore the signals.
        // SAFETY: as above.
        unsafe {
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        }
    }
}
