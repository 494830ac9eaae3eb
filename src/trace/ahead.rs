//! A source read ahead, on a thread of its own (used for the OTF2 plugin).
//!
//! Converting an OTF2 archive, the converting thread used to do everything
//! but the writer's node work: libotf2 decoding the events, the plugin's
//! callbacks turning them into drawables, the TRACE-API calls that hand
//! each drawable over, and then the checks and the placing of each drawable
//! in the tree. The first three are the plugin's and cost about four fifths
//! of that thread (BENCHMARKS.md, "OTF2 conversion"). [`ReadAhead`] moves
//! them to a reading thread that fills batches of [`BATCH`] records while
//! the converting thread places the previous batch, so on two cores the
//! plugin's work and the tree's overlap instead of adding up.
//!
//! Nothing else changes: the same records in the same order, an error after
//! exactly the records that came before it, and the same locations ("LIB
//! record N", as [`PluginSource`](super::plugin::PluginSource) names them)
//! for the converter's messages. The plugin is called from one
//! thread at a time, as before (the reading thread, from its first call
//! after `TRACE_Open` to `TRACE_Close`); the TRACE-API asks no thread
//! affinity of a reader. Memory: at most [`AHEAD`] batches in flight, and
//! their vectors go back to the reading thread for reuse.
//!
//! Used for the shipped OTF2 plugin when reading may take a thread
//! ([`open_source_with`](super::open_source_with) with `parse_threads != 1`
//! on two or more cores); with one core, or asked for one thread, the
//! plugin is read on the calling thread as before.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

use super::{Record, TraceSource};
use crate::error::{Error, Result};

/// Records per batch: enough that handing a batch over costs nothing per
/// record, few enough (96 bytes each) that a batch stays in the caches.
pub const BATCH: usize = 1024;

/// Batches read ahead of the converting thread.
pub const AHEAD: usize = 4;

/// One batch: records, then (if the reading stopped) why.
struct Batch {
    records: Vec<Record>,
    /// An error after `records`, or `None`.
    error: Option<Error>,
    /// The source is exhausted after `records` (or failed).
    last: bool,
    /// CPU seconds the reading thread has used so far.
    cpu: f64,
}

/// A source read on a thread of its own (module docs).
pub struct ReadAhead {
    rx: Option<Receiver<Batch>>,
    /// Emptied vectors back to the reading thread.
    back: SyncSender<Vec<Record>>,
    thread: Option<JoinHandle<()>>,
    /// What locations are named after: record `n` is "`name` record `n`".
    name: String,
    /// Records handed over so far.
    given: u64,
    /// Records handed over before the last batch (or the last record).
    base: u64,
    /// The error that ended the last batch, owed after its records.
    pending: Option<Error>,
    done: bool,
    /// The batch [`next_record`](TraceSource::next_record) takes from, reversed.
    single: Vec<Record>,
    /// The reading thread's CPU seconds as of the last batch.
    cpu: f64,
}

impl ReadAhead {
    /// Start reading `src` on a new thread; record `n` (from 1) is located
    /// as "`name` record `n`". If no thread can be started, `src` is handed
    /// back to be read on the calling thread.
    pub fn start<S: TraceSource + Send + 'static>(
        src: S,
        name: impl Into<String>,
    ) -> std::result::Result<ReadAhead, S> {
        let (tx, rx) = sync_channel::<Batch>(AHEAD);
        let (back, spare) = sync_channel::<Vec<Record>>(AHEAD + 2);
        // The source goes over once the thread runs, so that a failed spawn
        // leaves it here.
        let (give, take) = sync_channel::<S>(1);
        let spawned = std::thread::Builder::new()
            .name("trace-ahead".into())
            .spawn(move || {
                if let Ok(src) = take.recv() {
                    read(src, &tx, &spare);
                }
            });
        let thread = match spawned {
            Ok(t) => t,
            Err(_) => return Err(src),
        };
        if let Err(e) = give.send(src) {
            // Only if the thread is gone, which it cannot be: it waits for this.
            let _ = thread.join();
            return Err(e.0);
        }
        Ok(ReadAhead {
            rx: Some(rx),
            back,
            thread: Some(thread),
            name: name.into(),
            given: 0,
            base: 0,
            pending: None,
            done: false,
            single: Vec::new(),
            cpu: 0.0,
        })
    }

    /// The next batch's records (empty at the end); an error only after
    /// the records before it were returned.
    fn fetch(&mut self, reuse: Vec<Record>) -> Result<Vec<Record>> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        let mut reuse = reuse;
        reuse.clear();
        let Some(rx) = self.rx.as_ref().filter(|_| !self.done) else {
            return Ok(reuse);
        };
        let batch = rx.recv().map_err(|_| {
            Error::Source(format!(
                "{}: the thread reading it stopped unexpectedly",
                self.name
            ))
        })?;
        // The reading thread may have stopped: then the vector is dropped.
        let _ = self.back.try_send(reuse);
        self.done = batch.last;
        self.cpu = batch.cpu;
        if let Some(e) = batch.error {
            if batch.records.is_empty() {
                return Err(e);
            }
            self.pending = Some(e);
        }
        Ok(batch.records)
    }

    /// Location of record number `n` (1-based).
    fn record_location(&self, n: u64) -> String {
        format!("{} record {}", self.name, n)
    }
}

/// The reading thread: batches of `src`'s records into `tx` until the end,
/// an error, or the reader is dropped.
fn read<S: TraceSource>(mut src: S, tx: &SyncSender<Batch>, spare: &Receiver<Vec<Record>>) {
    loop {
        let mut records = spare.try_recv().unwrap_or_default();
        records.reserve(BATCH);
        let want = BATCH.saturating_sub(records.len());
        let (error, last) = match src.append_records(&mut records, want) {
            Ok(end) => (None, end),
            Err(e) => (Some(e), true),
        };
        let batch = Batch {
            records,
            error,
            last,
            cpu: crate::cputime::thread_cpu_seconds(),
        };
        // A closed channel: the reader was dropped; stop.
        if tx.send(batch).is_err() || last {
            return;
        }
    }
}

impl TraceSource for ReadAhead {
    fn next_record(&mut self) -> Result<Option<Record>> {
        if self.single.is_empty() {
            let emptied = std::mem::take(&mut self.single);
            let mut batch = self.fetch(emptied)?;
            batch.reverse();
            self.single = batch;
        }
        let r = self.single.pop();
        if r.is_some() {
            self.base = self.given;
            self.given += 1;
        }
        Ok(r)
    }

    fn next_records(&mut self, out: &mut Vec<Record>) -> Result<()> {
        if !self.single.is_empty() {
            // Left over from next_record calls.
            out.clear();
            self.single.reverse();
            std::mem::swap(out, &mut self.single);
        } else {
            *out = self.fetch(std::mem::take(out))?;
        }
        self.base = self.given;
        self.given += out.len() as u64;
        Ok(())
    }

    fn location(&self) -> String {
        self.record_location(self.given)
    }

    fn location_of(&self, i: usize) -> String {
        self.record_location(self.base + i as u64 + 1)
    }

    fn stage_cpu(&self) -> Vec<(&'static str, f64)> {
        vec![("read", self.cpu)]
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        // Closing the channel stops the reading thread at its next batch;
        // it closes the plugin (TRACE_Close) as it ends. Wait for that, so
        // the plugin is closed when the reader is gone, as before.
        self.rx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Primitive, TimeBox};
    use crate::trace::TracePrimitive;

    /// `n` states, then the end, or an error in place of record `fail_at`
    /// (0-based); it names its records as a plugin does.
    struct Numbered {
        n: usize,
        fail_at: Option<usize>,
        next: usize,
    }

    fn state(i: usize) -> Record {
        let t = i as f64;
        Record::Primitive(TracePrimitive {
            stated: TimeBox::new(t, t + 0.5),
            primitive: Primitive::state(0, (i % 7) as i32, t, t + 0.5),
        })
    }

    impl TraceSource for Numbered {
        fn next_record(&mut self) -> Result<Option<Record>> {
            if self.fail_at == Some(self.next) {
                return Err(Error::Source(format!(
                    "damaged at record {}",
                    self.next + 1
                )));
            }
            if self.next == self.n {
                return Ok(None);
            }
            self.next += 1;
            Ok(Some(state(self.next - 1)))
        }
    }

    fn numbered(n: usize, fail_at: Option<usize>) -> Numbered {
        Numbered {
            n,
            fail_at,
            next: 0,
        }
    }

    /// Every record by `next_records`, with each one's location, then the
    /// error that ended the reading, if any.
    fn drain(src: &mut dyn TraceSource) -> (Vec<(Record, String)>, Option<String>) {
        let (mut got, mut out) = (Vec::new(), Vec::new());
        loop {
            match src.next_records(&mut out) {
                Ok(()) if out.is_empty() => return (got, None),
                Ok(()) => {
                    let located: Vec<String> = (0..out.len()).map(|i| src.location_of(i)).collect();
                    got.extend(out.drain(..).zip(located));
                }
                Err(e) => return (got, Some(e.to_string())),
            }
        }
    }

    #[test]
    fn same_records_in_order_with_their_locations() {
        let n = 3 * BATCH + 17;
        let mut ahead = ReadAhead::start(numbered(n, None), "lib.so").ok().unwrap();
        let (got, err) = drain(&mut ahead);
        assert_eq!(err, None);
        assert_eq!(got.len(), n);
        for (i, (r, loc)) in got.iter().enumerate() {
            assert_eq!(r, &state(i));
            assert_eq!(loc, &format!("lib.so record {}", i + 1));
        }
        assert_eq!(ahead.location(), format!("lib.so record {n}"));
        assert_eq!(ahead.stage_cpu().len(), 1);
    }

    #[test]
    fn an_error_comes_after_every_record_before_it() {
        for fail_at in [0, 1, BATCH - 1, BATCH, 2 * BATCH + 5] {
            let mut ahead = ReadAhead::start(numbered(5 * BATCH, Some(fail_at)), "x")
                .ok()
                .unwrap();
            let (got, err) = drain(&mut ahead);
            assert_eq!(got.len(), fail_at, "failing at {fail_at}");
            assert!(got.iter().enumerate().all(|(i, (r, _))| r == &state(i)));
            let want = format!("damaged at record {}", fail_at + 1);
            assert!(err.as_deref().is_some_and(|e| e.contains(&want)), "{err:?}");
            // and the end stays the end
            let mut out = Vec::new();
            assert!(ahead.next_records(&mut out).is_ok() && out.is_empty());
        }
    }

    #[test]
    fn one_by_one_and_in_bulk_mix() {
        let n = 2 * BATCH + 3;
        let mut ahead = ReadAhead::start(numbered(n, None), "m").ok().unwrap();
        let mut seen = Vec::new();
        for _ in 0..5 {
            seen.push(ahead.next_record().unwrap().unwrap());
            assert_eq!(ahead.location(), format!("m record {}", seen.len()));
            assert_eq!(ahead.location_of(0), format!("m record {}", seen.len()));
        }
        let mut out = Vec::new();
        while {
            ahead.next_records(&mut out).unwrap();
            !out.is_empty()
        } {
            let first = seen.len();
            assert_eq!(ahead.location_of(0), format!("m record {}", first + 1));
            seen.append(&mut out);
        }
        assert!(ahead.next_record().unwrap().is_none());
        assert_eq!(seen, (0..n).map(state).collect::<Vec<_>>());
    }

    #[test]
    fn dropped_early_the_reading_thread_ends() {
        let mut ahead = ReadAhead::start(numbered(100 * BATCH, None), "d")
            .ok()
            .unwrap();
        let mut out = Vec::new();
        ahead.next_records(&mut out).unwrap();
        assert_eq!(out.len(), BATCH);
        drop(ahead); // joins the thread, which is blocked on a full channel
    }
}
