//! CPU time of the calling thread, for the per-stage figures of a
//! conversion (`slog2 convert --timings`): a conversion runs its stages on
//! separate threads, and which stage bounds the wall time is the question
//! when tuning one.

/// CPU seconds (user + system) the calling thread has used so far; 0 where
/// the clock is unavailable.
pub(crate) fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0.0;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}
