//! A write that fails in the middle (here: the file size limit, the same
//! path as a full disk) stops the writer with an I/O error on every thread
//! layout, and leaves neither the target nor a temporary file behind.
//!
//! One test in its own binary: the size limit is process-wide.

use slog2::*;

#[test]
fn a_failing_write_is_an_error_and_leaves_no_file() {
    // SAFETY: plain libc calls on this process; SIGXFSZ is ignored so that
    // exceeding the limit is an EFBIG error, not a signal.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        let lim = libc::rlimit {
            rlim_cur: 2 << 20,
            rlim_max: libc::RLIM_INFINITY,
        };
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &lim), 0);
    }
    for block_thread in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("big.slog2");
        let mut w = Slog2Writer::create(
            &target,
            WriterOptions {
                block_thread: Some(block_thread),
                ..Default::default()
            },
        )
        .unwrap();
        for c in slog2_dev::synth::categories() {
            w.add_category(c).unwrap();
        }
        // About 6 MB of nodes: the limit is hit while drawables still come.
        let mut failed = None;
        for d in slog2_dev::synth::Synthetic::new(100_000, 16, 3) {
            if let Err(e) = w.add_drawable(d) {
                failed = Some(e);
                break;
            }
        }
        let err = match failed {
            Some(e) => {
                // An abandoned writer removes its temporary file.
                drop(w);
                e
            }
            None => w.finish().expect_err("the file is over the size limit"),
        };
        let msg = err.to_string();
        assert!(
            msg.contains("I/O error") && msg.contains("File too large"),
            "block thread {block_thread}: {msg}"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(
            left.is_empty(),
            "block thread {block_thread}: left {left:?}"
        );
    }
}
