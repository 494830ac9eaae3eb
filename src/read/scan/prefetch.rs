//! A whole-file scan decoded ahead on a thread of its own, handed out in
//! batches of whole records that fit a caller's room.
//!
//! # Why
//!
//! A binding that copies a scan into caller memory (the C API's
//! `SLOG2_Scan_next`, and through it Python's `File.scan()`) spends about as
//! long copying and in the caller's own work as the core spends decoding.
//! [`PrefetchScan`] overlaps the two: a worker thread owns a [`Scan`] and
//! decodes sub-batches of `sub_rows` rows (16 k by default, ≈ 1 MiB of
//! columns, which stay in the CPU cache until copied), at most two ahead;
//! spent sub-batches go back to the worker, so their memory is reused.
//!
//! # Batches that fit
//!
//! The caller's arrays decide the batch size: [`PrefetchScan::next_batch`]
//! hands over, piece by piece, the longest run of **whole records** (a
//! composite row and its member rows are never split) that fits in the room
//! left, across as many sub-batches as fit. When not even the next record
//! fits, nothing is handed over and [`Batch::TooBig`] says how much room it
//! needs ([`PrefetchScan::pending`] keeps saying so until it is taken).
//!
//! # Errors and the end
//!
//! A damaged node ends the scan with the codec's error. If rows were
//! already handed over in the same call, the error is kept and returned by
//! the next call, so no rows are lost. After the end (or an error), every
//! call returns [`Batch::End`]. A panic on the worker (a bug) is resumed on
//! the caller's thread at its next call, where the binding's boundary
//! reports it. Dropping the scan stops the worker at its next sub-batch.

use std::any::Any;
use std::ops::Range;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;

use super::Scan;
use crate::error::{Error, Result};
use crate::read::{QueryStats, Rows, RowsRef, Slog2File};

/// Rows the worker decodes at a time by default (≈ 1 MiB of columns).
pub const DEFAULT_SUB_ROWS: usize = 16 * 1024;

/// What [`PrefetchScan::next_batch`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Batch {
    /// `rows` rows of whole records were handed over; `stats`: the nodes
    /// started and record bytes decoded by the sub-batches received.
    Rows { rows: usize, stats: QueryStats },
    /// Every drawable was handed over before this call.
    End { stats: QueryStats },
    /// The next record alone needs `rows` rows and `info` info bytes, more
    /// than the room given; nothing was handed over.
    TooBig { rows: usize, info: usize },
}

/// A message of the worker (a few per 16 k rows: the size does not matter).
#[allow(clippy::large_enum_variant)]
enum Msg {
    /// A decoded sub-batch; an empty one marks the end.
    Rows(Result<Rows>),
    /// The worker panicked (a bug): resumed on the caller's thread.
    Panic(Box<dyn Any + Send>),
}

/// A whole-file scan decoded ahead (module docs).
pub struct PrefetchScan {
    rx: Receiver<Msg>,
    /// Spent sub-batches back to the worker (their memory is reused).
    back: SyncSender<Rows>,
    /// The sub-batch being handed out and its first row not yet handed out.
    cur: Rows,
    at: usize,
    /// The end was reached (or an error returned).
    done: bool,
    /// An error met after rows were handed over in the same call.
    err: Option<Error>,
    /// Rows and info bytes of the record that did not fit.
    need: Option<(usize, usize)>,
}

impl std::fmt::Debug for PrefetchScan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrefetchScan")
            .field("done", &self.done)
            .field("need", &self.need)
            .finish_non_exhaustive()
    }
}

impl PrefetchScan {
    /// Start a scan of `file` with sub-batches of [`DEFAULT_SUB_ROWS`].
    pub fn start(file: Arc<Slog2File>) -> Result<PrefetchScan> {
        Self::with_sub_rows(file, DEFAULT_SUB_ROWS)
    }

    /// Start a scan of `file` whose worker decodes `sub_rows` rows at a
    /// time. Fails (an I/O error) only when the thread cannot be started.
    pub fn with_sub_rows(file: Arc<Slog2File>, sub_rows: usize) -> Result<PrefetchScan> {
        Self::of(Scan::new(file), sub_rows)
    }

    /// Prefetch the records of `scan` (a whole-file scan, or one over a time
    /// range: [`Scan::with_range`]), `sub_rows` rows at a time.
    pub fn of(scan: Scan<Arc<Slog2File>>, sub_rows: usize) -> Result<PrefetchScan> {
        let (tx, rx) = sync_channel(2);
        let (back, back_rx) = sync_channel(4);
        let path = scan
            .file()
            .path()
            .map(|p| p.to_path_buf())
            .unwrap_or_default();
        std::thread::Builder::new()
            .name("slog2-scan".into())
            .spawn(move || worker(scan, sub_rows.max(1), tx, back_rx))
            .map_err(|e| Error::io(path, e))?;
        Ok(PrefetchScan {
            rx,
            back,
            cur: Rows::default(),
            at: 0,
            done: false,
            err: None,
            need: None,
        })
    }

    /// Rows and info bytes of the record the last call could not hand over
    /// ([`Batch::TooBig`]), until a call hands it over.
    pub fn pending(&self) -> Option<(usize, usize)> {
        self.need
    }

    /// Hand over the next whole records that fit in `max_rows` rows and
    /// `max_info` info bytes: `emit(rows, range, first)` is called for each
    /// piece (`range` of `rows`, `first` = rows handed over before it in
    /// this call). See the module docs for the end, errors and records too
    /// big for the room.
    pub fn next_batch(
        &mut self,
        max_rows: usize,
        max_info: usize,
        mut emit: impl FnMut(RowsRef<'_>, Range<usize>, usize),
    ) -> Result<Batch> {
        if let Some(e) = self.err.take() {
            return Err(e);
        }
        let (mut wrote, mut info) = (0usize, 0usize);
        let mut stats = QueryStats::default();
        loop {
            let room_rows = max_rows.saturating_sub(wrote);
            let room_info = max_info.saturating_sub(info);
            if self.at >= self.cur.len() {
                if self.done || (wrote > 0 && room_rows == 0) {
                    break;
                }
                match self.receive() {
                    Ok(true) => {
                        stats.nodes_read += self.cur.stats.nodes_read;
                        stats.bytes_read += self.cur.stats.bytes_read;
                    }
                    Ok(false) => break,
                    Err(e) if wrote > 0 => {
                        self.err = Some(e);
                        break;
                    }
                    Err(e) => return Err(e),
                }
            }
            let end = fitting(&self.cur, self.at, room_rows, room_info);
            if end == self.at {
                if wrote > 0 {
                    break; // the next call starts with this record
                }
                let (rows, info) = record_size(&self.cur, self.at);
                self.need = Some((rows, info));
                return Ok(Batch::TooBig { rows, info });
            }
            emit(self.cur.view(), self.at..end, wrote);
            self.need = None;
            wrote += end - self.at;
            info += (self.cur.info_offset[end] - self.cur.info_offset[self.at]) as usize;
            self.at = end;
            if self.at < self.cur.len() {
                break; // room exhausted
            }
        }
        Ok(if wrote == 0 {
            Batch::End { stats }
        } else {
            Batch::Rows { rows: wrote, stats }
        })
    }

    /// Take the next sub-batch from the worker into `cur`; `false` at the
    /// end. Errors end the scan.
    fn receive(&mut self) -> Result<bool> {
        let spent = std::mem::take(&mut self.cur);
        let _ = self.back.try_send(spent);
        self.at = 0;
        match self.rx.recv() {
            Ok(Msg::Rows(Ok(r))) if r.is_empty() => {
                self.done = true;
                Ok(false)
            }
            Ok(Msg::Rows(Ok(r))) => {
                self.cur = r;
                Ok(true)
            }
            Ok(Msg::Rows(Err(e))) => {
                self.done = true;
                Err(e)
            }
            Ok(Msg::Panic(p)) => {
                self.done = true;
                std::panic::resume_unwind(p)
            }
            Err(_) => {
                self.done = true;
                panic!("the scan thread stopped without a word (a bug)")
            }
        }
    }
}

/// The worker: decode sub-batches until the end, an error, or the scan is
/// dropped (the receiver gone). It holds the file (an `Arc`), so the map
/// stays valid while it runs.
fn worker(
    mut scan: Scan<Arc<Slog2File>>,
    sub_rows: usize,
    tx: SyncSender<Msg>,
    back: Receiver<Rows>,
) {
    loop {
        let mut rows = back.try_recv().unwrap_or_default();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            scan.next_into(&mut rows, sub_rows, usize::MAX)
        }));
        let msg = match r {
            Ok(Ok(true)) => Msg::Rows(Ok(rows)),
            Ok(Ok(false)) => Msg::Rows(Ok(Rows::default())),
            Ok(Err(e)) => Msg::Rows(Err(e)),
            Err(p) => Msg::Panic(p),
        };
        let last = !matches!(&msg, Msg::Rows(Ok(r)) if !r.is_empty());
        if tx.send(msg).is_err() || last {
            return;
        }
    }
}

/// The end of the longest run of whole records of `r` from row `at` that
/// fits in `rows` rows and `info` bytes (`at` when not even one fits).
fn fitting(r: &Rows, at: usize, rows: usize, info: usize) -> usize {
    let mut end = r.len().min(at.saturating_add(rows));
    // Back to a record boundary: a member row never starts a record.
    while end > at && end < r.len() && r.parent[end] >= 0 {
        end -= 1;
    }
    let ib = r.info_offset[at] as usize;
    if r.info_offset[end] as usize - ib > info {
        // Info offsets grow with the row: the last row whose info fits.
        let lim = (ib as u64).saturating_add(info as u64);
        end = at + r.info_offset[at..=end].partition_point(|&o| u64::from(o) <= lim) - 1;
        while end > at && end < r.len() && r.parent[end] >= 0 {
            end -= 1;
        }
    }
    end
}

/// Rows and info bytes of the record starting at row `at` of `r`.
fn record_size(r: &Rows, at: usize) -> (usize, usize) {
    let mut end = at + 1;
    while end < r.len() && r.parent[end] >= 0 {
        end += 1;
    }
    (end - at, (r.info_offset[end] - r.info_offset[at]) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of records: `sizes[i]` = (rows, info bytes) of record i (a
    /// record of n rows is a composite with n - 1 members).
    fn rows_of(sizes: &[(usize, usize)]) -> Rows {
        let mut r = Rows::default();
        for &(n, info) in sizes {
            let first = r.len() as i32;
            for k in 0..n {
                let bytes = if k == 0 { vec![7u8; info] } else { Vec::new() };
                r.push_row(
                    0,
                    0,
                    (0.0, 1.0),
                    (0.0, 0),
                    (1.0, 0),
                    if k == 0 { -1 } else { first },
                    1,
                    &bytes,
                );
            }
        }
        r
    }

    #[test]
    fn fitting_keeps_records_whole() {
        let r = rows_of(&[(1, 0), (3, 4), (1, 2), (2, 0)]);
        assert_eq!(r.len(), 7);
        assert_eq!(fitting(&r, 0, 1, 100), 1);
        assert_eq!(
            fitting(&r, 0, 3, 100),
            1,
            "the composite of 3 rows does not fit in 2"
        );
        assert_eq!(fitting(&r, 0, 4, 100), 4);
        assert_eq!(
            fitting(&r, 0, 100, 3),
            1,
            "its 4 info bytes do not fit in 3"
        );
        assert_eq!(fitting(&r, 0, 100, 5), 4);
        assert_eq!(fitting(&r, 0, 100, 6), 7, "the last record has no info");
        assert_eq!(fitting(&r, 1, 2, 100), 1, "not even one record fits");
        assert_eq!(fitting(&r, 5, 100, 0), 7);
        assert_eq!(record_size(&r, 1), (3, 4));
        assert_eq!(record_size(&r, 5), (2, 0));
    }
}
