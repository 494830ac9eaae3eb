//! A plugin read ahead, on a thread of its own.
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
//! record N") for the converter's messages. The plugin is called from one
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

use super::plugin::PluginSource;
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

/// A [`PluginSource`] read on a thread of its own (module docs).
pub struct ReadAhead {
    rx: Option<Receiver<Batch>>,
    /// Emptied vectors back to the reading thread.
    back: SyncSender<Vec<Record>>,
    thread: Option<JoinHandle<()>>,
    lib_name: String,
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
    /// Start reading `src` on a new thread; if no thread can be started,
    /// `src` is handed back to be read on the calling thread.
    pub fn start(src: PluginSource) -> std::result::Result<ReadAhead, PluginSource> {
        let lib_name = src.lib_name().to_string();
        let (tx, rx) = sync_channel::<Batch>(AHEAD);
        let (back, spare) = sync_channel::<Vec<Record>>(AHEAD + 2);
        // The source goes over once the thread runs, so that a failed spawn
        // leaves it here.
        let (give, take) = sync_channel::<PluginSource>(1);
        let spawned = std::thread::Builder::new()
            .name("trace-plugin".into())
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
            lib_name,
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
                "{}: the thread reading the plugin stopped unexpectedly",
                self.lib_name
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

    /// Location of record number `n` (1-based), as [`PluginSource`] names it.
    fn record_location(&self, n: u64) -> String {
        format!("{} record {}", self.lib_name, n)
    }
}

/// The reading thread: batches of `src`'s records into `tx` until the end,
/// an error, or the reader is dropped.
fn read(mut src: PluginSource, tx: &SyncSender<Batch>, spare: &Receiver<Vec<Record>>) {
    loop {
        let mut records = spare.try_recv().unwrap_or_default();
        records.reserve(BATCH);
        let (mut error, mut last) = (None, false);
        while records.len() < BATCH {
            match src.next_record() {
                Ok(Some(r)) => records.push(r),
                Ok(None) => {
                    last = true;
                    break;
                }
                Err(e) => {
                    error = Some(e);
                    last = true;
                    break;
                }
            }
        }
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
        vec![("plugin", self.cpu)]
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
