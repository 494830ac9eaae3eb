//! The TRACE-API's reading protocol over any [`TraceSource`]: look at the
//! next record without taking it (peek), take it (get), and remember and
//! return to positions (`TRACE_Get_position` / `TRACE_Set_position`).
//!
//! Both TRACE bindings follow this one protocol: the C `TRACE_*` functions
//! (`slog2-capi`) and the drop-in `logformat.trace.InputLog` natives
//! (`slog2-jni`). Its rules (`trace-api.md` §1.5, "Our rule"):
//!
//! * **Peeks are idempotent.** [`TraceReader::peek_kind`] reads the next
//!   record once and keeps it; asking again returns the same answer.
//! * **A get consumes only on success**, and peeks first if the caller did
//!   not. A call for the wrong kind of record is an error
//!   ([`ErrorKind::State`](crate::ErrorKind::State)) that changes nothing.
//! * **Composites two ways.** A C client may take a composite's members one
//!   by one: the first [`primitive`](TraceReader::primitive) on a composite
//!   *enters* it and the members follow as primitives
//!   ([`composite`](TraceReader::composite) before that is optional). A Java
//!   client takes the whole composite with [`take`](TraceReader::take).
//! * **Positions are record counts.** The position of the next record is the
//!   number of top-level records consumed before it; inside a composite
//!   there is none.
//!
//! # Seeking by checkpoints
//!
//! Reading again from the start to reach a position costs the whole trace.
//! Instead, as the reading passes every [`CHECKPOINT_EVERY`]-th record, the
//! reader asks the source for a [`Checkpoint`] (a text trace: byte offset
//! and line; an SLOG-2 file: the nodes being merged). A seek goes to the
//! checkpoint at or before the target and reads at most
//! `CHECKPOINT_EVERY - 1` records from there; a short forward move just
//! skips. A source that cannot give checkpoints (a pipe, a C plugin, a
//! CLOG2 log, whose pairing state is not kept) is opened again by the
//! reader's `reopen` function and skipped from its start; a reader made
//! without one cannot go back.

use std::collections::VecDeque;

use super::{Checkpoint, Record, TraceComposite, TraceSource};
use crate::error::{Error, Result};
use crate::model::{Category, Primitive, TimeBox, YCoordMap};

/// Records between two checkpoints: a seek reads at most this many records
/// again, and a checkpoint costs a few words, so 10 million records keep
/// about 40 000 of them.
pub const CHECKPOINT_EVERY: i64 = 256;

/// The kind of the next record (the TRACE-API's `TRACE_Rec_Kind_t`, in its
/// numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    Eof = 0,
    Primitive = 1,
    Composite = 2,
    Category = 3,
    YCoordMap = 4,
}

impl RecordKind {
    /// "a category", "a primitive", ... (for messages).
    pub fn article_name(self) -> &'static str {
        match self {
            RecordKind::Eof => "the end of the trace",
            RecordKind::Primitive => "a primitive",
            RecordKind::Composite => "a composite",
            RecordKind::Category => "a category",
            RecordKind::YCoordMap => "a y-coordinate map",
        }
    }

    fn of(r: &Record) -> RecordKind {
        match r {
            Record::Primitive(_) => RecordKind::Primitive,
            Record::Composite(_) => RecordKind::Composite,
            Record::Category(_) => RecordKind::Category,
            Record::YCoordMap(_) => RecordKind::YCoordMap,
        }
    }
}

/// Opens the trace again from its start (for seeks without checkpoints).
pub type Reopen<S> = Box<dyn Fn() -> Result<Box<S>> + Send + Sync>;

/// A [`TraceSource`] read by the TRACE-API's protocol (module docs). `S` is
/// the source type: `dyn TraceSource + Send` (the default) or, for sources
/// that are not `Send` (a C plugin), `dyn TraceSource`.
pub struct TraceReader<S: ?Sized + TraceSource = dyn TraceSource + Send> {
    src: Box<S>,
    reopen: Option<Reopen<S>>,
    /// The current (peeked, not yet consumed) top-level record.
    current: Option<Record>,
    /// Members of the composite being delivered one by one.
    members: VecDeque<(TimeBox, Primitive)>,
    eof: bool,
    /// Top-level records consumed so far (the position).
    consumed: i64,
    /// `checkpoints[k]`: the source just before record `k * CHECKPOINT_EVERY`.
    checkpoints: Vec<Checkpoint>,
    seekable: bool,
}

impl<S: ?Sized + TraceSource> std::fmt::Debug for TraceReader<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceReader")
            .field("consumed", &self.consumed)
            .field("eof", &self.eof)
            .field("checkpoints", &self.checkpoints.len())
            .finish_non_exhaustive()
    }
}

impl<S: ?Sized + TraceSource> TraceReader<S> {
    /// Read `src` from where it is. Without `reopen`, positions before the
    /// first checkpoint the source cannot give are out of reach.
    pub fn new(src: Box<S>, reopen: Option<Reopen<S>>) -> Self {
        TraceReader {
            src,
            reopen,
            current: None,
            members: VecDeque::new(),
            eof: false,
            consumed: 0,
            checkpoints: Vec::new(),
            seekable: true,
        }
    }

    /// Open a reader with `open`, which is kept to open the trace again
    /// when a seek needs it.
    pub fn open(open: impl Fn() -> Result<Box<S>> + Send + Sync + 'static) -> Result<Self> {
        let src = open()?;
        Ok(Self::new(src, Some(Box::new(open))))
    }

    /// The source (for its location and report).
    pub fn source(&self) -> &S {
        &self.src
    }

    /// Load the next top-level record if none is current.
    fn fill(&mut self) -> Result<()> {
        if self.current.is_none() && self.members.is_empty() && !self.eof {
            // About to read record `consumed`: remember the place when it
            // starts a new stretch of CHECKPOINT_EVERY records.
            if self.seekable
                && self.consumed % CHECKPOINT_EVERY == 0
                && self.consumed / CHECKPOINT_EVERY == self.checkpoints.len() as i64
            {
                match self.src.checkpoint() {
                    Some(cp) => self.checkpoints.push(cp),
                    None => self.seekable = false,
                }
            }
            match self.src.next_record()? {
                Some(r) => self.current = Some(r),
                None => self.eof = true,
            }
        }
        Ok(())
    }

    /// The kind of the next record (a member of an entered composite is a
    /// primitive). Reads it if needed; idempotent.
    pub fn peek_kind(&mut self) -> Result<RecordKind> {
        self.fill()?;
        if !self.members.is_empty() {
            return Ok(RecordKind::Primitive);
        }
        Ok(self
            .current
            .as_ref()
            .map_or(RecordKind::Eof, RecordKind::of))
    }

    /// Fail (a state error, nothing changed) unless the next record is of
    /// kind `want`.
    fn expect(&mut self, want: RecordKind) -> Result<()> {
        let got = self.peek_kind()?;
        if got == want {
            return Ok(());
        }
        Err(Error::State(format!(
            "the next record is {}, not {}",
            got.article_name(),
            want.article_name()
        )))
    }

    /// The next record if it is a category (not consumed).
    pub fn category(&mut self) -> Result<&Category> {
        self.expect(RecordKind::Category)?;
        match &self.current {
            Some(Record::Category(c)) => Ok(c),
            _ => Err(mismatch()),
        }
    }

    /// The next record if it is a y-coordinate map (not consumed).
    pub fn ycoordmap(&mut self) -> Result<&YCoordMap> {
        self.expect(RecordKind::YCoordMap)?;
        match &self.current {
            Some(Record::YCoordMap(m)) => Ok(m),
            _ => Err(mismatch()),
        }
    }

    /// The next record if it is a composite not yet entered (not consumed).
    pub fn composite(&mut self) -> Result<&TraceComposite> {
        self.expect(RecordKind::Composite)?;
        match &self.current {
            Some(Record::Composite(c)) => Ok(c),
            _ => Err(mismatch()),
        }
    }

    /// The next primitive with its stated box: a top-level primitive, or
    /// the next member of a composite (a composite not yet entered is
    /// entered: it counts as consumed, its members follow).
    pub fn primitive(&mut self) -> Result<(TimeBox, &Primitive)> {
        if self.peek_kind()? == RecordKind::Composite {
            if let Some(Record::Composite(c)) = self.current.take() {
                self.consumed += 1;
                let c = *c;
                self.members = c
                    .member_boxes
                    .into_iter()
                    .zip(c.composite.members)
                    .collect();
            }
        }
        self.expect(RecordKind::Primitive)?;
        if let Some((b, p)) = self.members.front() {
            return Ok((*b, p));
        }
        match &self.current {
            Some(Record::Primitive(p)) => Ok((p.stated, &p.primitive)),
            _ => Err(mismatch()),
        }
    }

    /// Consume the primitive [`primitive`](Self::primitive) returned.
    pub fn consume_primitive(&mut self) {
        if self.members.pop_front().is_none() {
            self.current = None;
            self.consumed += 1;
        }
    }

    /// Consume the current top-level record (a category or a map after
    /// reading it).
    pub fn consume(&mut self) {
        if self.current.take().is_some() {
            self.consumed += 1;
        }
    }

    /// Take the next top-level record whole, if it is of kind `want`
    /// (a composite with its members; not inside an entered composite).
    pub fn take(&mut self, want: RecordKind) -> Result<Record> {
        self.expect(want)?;
        if !self.members.is_empty() {
            return Err(Error::State(
                "inside a composite: its members come one by one".into(),
            ));
        }
        let r = self.current.take().ok_or_else(mismatch)?;
        self.consumed += 1;
        Ok(r)
    }

    /// The position of the next top-level record, `None` inside an
    /// entered composite.
    pub fn position(&self) -> Option<i64> {
        self.members.is_empty().then_some(self.consumed)
    }

    /// Go to position `offset` (from [`position`](Self::position)):
    /// `Ok(false)`, with nothing changed, when there is no such position
    /// (negative or past the end). See the module docs for how.
    pub fn set_position(&mut self, offset: i64) -> Result<bool> {
        if offset < 0 {
            return Ok(false);
        }
        if offset == self.consumed && self.members.is_empty() {
            return Ok(true);
        }
        if self.restore_before(offset)? || (offset >= self.consumed && self.members.is_empty()) {
            return self.skip_to(offset);
        }
        let Some(reopen) = &self.reopen else {
            return Err(Error::Unsupported(
                "this trace source cannot go back (no checkpoints, and it cannot be reopened)"
                    .into(),
            ));
        };
        let src = reopen()?;
        let mut fresh = TraceReader::new(src, self.reopen.take());
        let ok = fresh.skip_to(offset);
        match ok {
            Ok(true) => {
                *self = fresh;
                Ok(true)
            }
            other => {
                self.reopen = fresh.reopen.take();
                other
            }
        }
    }

    /// Go back (or far ahead) to the checkpoint at or before `offset` when
    /// that reads less than skipping from here; false when not.
    fn restore_before(&mut self, offset: i64) -> Result<bool> {
        let k = offset / CHECKPOINT_EVERY;
        let Some(cp) = self.checkpoints.get(k as usize) else {
            return Ok(false);
        };
        let at = k * CHECKPOINT_EVERY;
        if at <= self.consumed && offset >= self.consumed && self.members.is_empty() {
            // Skipping from here reads no more than going back would.
            return Ok(false);
        }
        self.src.restore(cp)?;
        self.current = None;
        self.members.clear();
        self.eof = false;
        self.consumed = at;
        Ok(true)
    }

    /// Skip top-level records up to `offset` (>= the current position);
    /// false at the end of the trace before it.
    fn skip_to(&mut self, offset: i64) -> Result<bool> {
        while self.consumed < offset {
            if self.peek_kind()? == RecordKind::Eof {
                return Ok(false);
            }
            self.members.clear();
            self.current = None;
            self.consumed += 1;
        }
        Ok(true)
    }
}

/// The record checked by `expect` is not there (cannot happen).
fn mismatch() -> Error {
    Error::State("the trace reader lost its current record (a bug)".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Color, Composite, Topology, Vertex};
    use crate::trace::{TraceComposite, TracePrimitive};

    /// Records 0..n: a category, then primitives, every 5th a composite of
    /// two members; checkpoints when `seekable`.
    struct Numbers {
        at: usize,
        n: usize,
        seekable: bool,
    }

    fn record(i: usize) -> Record {
        let t = i as f64;
        let p = |line| {
            Primitive::new(
                0,
                vec![Vertex::new(t, line), Vertex::new(t + 0.5, line)],
                vec![],
            )
        };
        match i {
            0 => Record::Category(Box::new(Category::new(
                0,
                "s",
                Topology::State,
                Color::rgba(1, 2, 3, 255),
                1,
            ))),
            i if i % 5 == 0 => Record::Composite(Box::new(TraceComposite {
                stated: TimeBox::new(t, t + 0.5),
                member_boxes: vec![TimeBox::new(t, t + 0.5); 2],
                composite: Composite {
                    category: 0,
                    info: Default::default(),
                    members: vec![p(1), p(2)],
                },
            })),
            _ => Record::Primitive(TracePrimitive {
                stated: TimeBox::new(t, t + 0.5),
                primitive: p(0),
            }),
        }
    }

    impl TraceSource for Numbers {
        fn next_record(&mut self) -> Result<Option<Record>> {
            if self.at >= self.n {
                return Ok(None);
            }
            self.at += 1;
            Ok(Some(record(self.at - 1)))
        }
        fn checkpoint(&mut self) -> Option<Checkpoint> {
            self.seekable.then(|| Checkpoint::new(self.at))
        }
        fn restore(&mut self, cp: &Checkpoint) -> Result<()> {
            self.at = *cp.get::<usize>().expect("ours");
            Ok(())
        }
    }

    fn reader(n: usize, seekable: bool, reopen: bool) -> TraceReader {
        let open =
            move || Ok(Box::new(Numbers { at: 0, n, seekable }) as Box<dyn TraceSource + Send>);
        TraceReader::new(open().unwrap(), reopen.then(|| Box::new(open) as Reopen<_>))
    }

    /// The start time of the record at the reader's position.
    fn start_here(r: &mut TraceReader) -> Option<f64> {
        match r.peek_kind().unwrap() {
            RecordKind::Eof => None,
            RecordKind::Category => Some(0.0),
            RecordKind::Composite => Some(r.composite().unwrap().stated.start),
            RecordKind::Primitive => Some(r.primitive().unwrap().0.start),
            RecordKind::YCoordMap => unreachable!(),
        }
    }

    #[test]
    fn peek_is_idempotent_and_wrong_kinds_change_nothing() {
        let mut r = reader(10, true, false);
        assert_eq!(r.peek_kind().unwrap(), RecordKind::Category);
        assert_eq!(r.peek_kind().unwrap(), RecordKind::Category);
        let e = r.primitive().unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::State);
        assert_eq!(
            e.to_string(),
            "the next record is a category, not a primitive"
        );
        assert_eq!(r.category().unwrap().name, "s");
        r.consume();
        assert_eq!(r.position(), Some(1));
        for i in 1..5 {
            assert_eq!(r.primitive().unwrap().0.start, i as f64);
            r.consume_primitive();
        }
        // Record 5 is a composite: entered by `primitive`, members follow.
        assert_eq!(r.peek_kind().unwrap(), RecordKind::Composite);
        assert_eq!(r.composite().unwrap().composite.members.len(), 2);
        assert_eq!(r.primitive().unwrap().1.vertices[0].line, 1);
        assert_eq!(r.position(), None, "no position inside a composite");
        assert!(
            r.take(RecordKind::Primitive).is_err(),
            "no whole record inside"
        );
        r.consume_primitive();
        assert_eq!(r.primitive().unwrap().1.vertices[0].line, 2);
        r.consume_primitive();
        assert_eq!(r.position(), Some(6));
        // A whole record, as the JNI bridge takes it.
        assert!(matches!(
            r.take(RecordKind::Primitive).unwrap(),
            Record::Primitive(_)
        ));
        assert_eq!(r.position(), Some(7));
    }

    #[test]
    fn take_at_the_end_is_a_state_error() {
        let mut r = reader(1, true, false);
        assert!(matches!(
            r.take(RecordKind::Category).unwrap(),
            Record::Category(_)
        ));
        let e = r.take(RecordKind::Primitive).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the next record is the end of the trace, not a primitive"
        );
        assert_eq!(r.peek_kind().unwrap(), RecordKind::Eof);
    }

    /// Every seek (backward, forward, near, far; with checkpoints, by
    /// reopening, and without either) lands on the record at that position.
    #[test]
    fn seeks_land_on_their_record() {
        let n = 3 * CHECKPOINT_EVERY as usize + 17;
        for (seekable, reopen) in [(true, false), (false, true), (true, true)] {
            let mut r = reader(n, seekable, reopen);
            // Read to the end once, so every checkpoint exists.
            while r.peek_kind().unwrap() != RecordKind::Eof {
                let _ = r.primitive();
                r.consume();
                r.members.clear();
            }
            assert_eq!(r.position(), Some(n as i64));
            for &to in &[0i64, 700, 3, 256, 255, 257, 780, n as i64 - 1, 1, n as i64] {
                assert!(r.set_position(to).unwrap(), "{to}");
                assert_eq!(r.position(), Some(to));
                let want = (to < n as i64).then_some(to as f64);
                assert_eq!(start_here(&mut r), want, "seekable {seekable}, to {to}");
            }
            assert!(!r.set_position(-1).unwrap());
            assert!(!r.set_position(n as i64 + 1).unwrap());
            assert_eq!(
                r.position(),
                Some(n as i64),
                "a failed seek changes nothing"
            );
        }
        // Neither checkpoints nor a way to reopen: forward only.
        let mut r = reader(50, false, false);
        assert!(r.set_position(20).unwrap());
        assert_eq!(
            r.set_position(3).unwrap_err().kind(),
            crate::ErrorKind::Unsupported
        );
    }
}
