//! A job handed to rayon's pool that its owner can still take back.
//!
//! # Why
//!
//! The compressed-file paths hand independent work to the pool ahead of
//! need (the scan's unpacking, `read::scan::ahead`; the writer's leaves,
//! `write::blocks`) and later wait for it in order. Waiting for a job that
//! sits in the pool's queue is only safe if some pool thread will run it:
//! when every pool thread is itself blocked — say, several conversions
//! driven from pool threads, each waiting to hand a node to a stage that
//! waits for its leaves — nothing would. So [`Task::get`] takes the job
//! back and runs it on the waiting thread when no pool thread has started
//! it, and waits only for a job that is running (which ends on its own).
//!
//! A panic in the job (a bug) is resumed on the thread that takes the
//! result.

use std::any::Any;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};

type Job<T> = Box<dyn FnOnce() -> T + Send>;

/// A job on rayon's pool (module docs).
pub(crate) struct Task<T> {
    /// The job until a thread takes it to run.
    job: Arc<Mutex<Option<Job<T>>>>,
    rx: Receiver<std::result::Result<T, Box<dyn Any + Send>>>,
}

fn take<T>(job: &Mutex<Option<Job<T>>>) -> Option<Job<T>> {
    // A poisoned lock only means a panic elsewhere while taking: the
    // option is still whole.
    job.lock().unwrap_or_else(|e| e.into_inner()).take()
}

impl<T: Send + 'static> Task<T> {
    /// Hand `f` to the pool.
    pub(crate) fn spawn(f: impl FnOnce() -> T + Send + 'static) -> Task<T> {
        let job: Arc<Mutex<Option<Job<T>>>> = Arc::new(Mutex::new(Some(Box::new(f))));
        let (tx, rx) = sync_channel(1);
        let queued = job.clone();
        rayon::spawn(move || {
            if let Some(f) = take(&queued) {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
                // The owner may be gone: then nobody wants the result.
                let _ = tx.send(r);
            }
        });
        Task { job, rx }
    }

    /// The result if the job has ended.
    pub(crate) fn try_get(&self) -> Option<T> {
        self.rx.try_recv().ok().map(resume)
    }

    /// The result of the job run here if no pool thread has started it,
    /// else the task back (to [`get`](Self::get) later).
    pub(crate) fn take_back(self) -> std::result::Result<T, Task<T>> {
        match take(&self.job) {
            Some(f) => Ok(f()),
            None => Err(self),
        }
    }

    /// The result: the job run here if no pool thread has started it,
    /// else waited for.
    pub(crate) fn get(self) -> T {
        match take(&self.job) {
            Some(f) => f(),
            None => resume(
                self.rx
                    .recv()
                    .unwrap_or_else(|_| panic!("a pool job ended without a word (a bug)")),
            ),
        }
    }
}

fn resume<T>(r: std::result::Result<T, Box<dyn Any + Send>>) -> T {
    r.unwrap_or_else(|p| std::panic::resume_unwind(p))
}

#[cfg(test)]
mod tests {
    use super::Task;

    #[test]
    fn a_task_taken_back_or_waited_for_gives_its_result_once() {
        for i in 0..200u64 {
            let t = Task::spawn(move || i * 3);
            let got = match t.take_back() {
                Ok(v) => v,
                Err(t) => t.get(),
            };
            assert_eq!(got, i * 3);
        }
    }
}
