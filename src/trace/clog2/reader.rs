//! The CLOG-02.44 byte layer: preamble, blocks and records
//! (`clog2-format.md` §1–§6).
//!
//! [`Clog2Reader`] walks the data blocks one at a time with a single block
//! buffer (`block_size` bytes, checked against the file length before it is
//! allocated), so reading a file of any size needs one block of memory. Every
//! record is checked to fit in its block; an unknown record type, a record
//! that runs past its block, a missing end-of-log or a short block is an error
//! naming the byte offset. Bytes after a block's terminator are never looked at
//! (MPE leaves stale records there).
//!
//! A file opened by path is memory-mapped instead ([`Clog2Reader::with_map`]):
//! blocks are decoded where they lie in the page cache, which spares the copy
//! `read` makes (a tenth of a conversion's CPU time), and the pages already
//! read are dropped from the process every few MB, so its resident memory
//! stays flat too. The converter's hot path reads only record headers and the
//! few body fields it needs ([`Clog2Reader::next_head`]); [`RawRecord`] (every
//! field decoded) is for the other records, errors and the printer.

use std::io::Read;

use crate::error::{Error, Result};

/// Size of the preamble at offset 0.
pub const PREAMBLE_SIZE: usize = 1024;
/// Size of every record header.
pub const RECORD_HEADER_SIZE: usize = 24;
/// The only version the reference accepts.
pub const VERSION: &str = "CLOG-02.44";
/// Largest block size accepted from a stream whose length is unknown (the
/// block buffer is allocated up front). MPE's default is 64 KiB.
pub const MAX_BLOCK_SIZE: i64 = 256 << 20;

/// Record types (header field `rectype`).
pub mod rectype {
    pub const ENDLOG: i32 = 0;
    pub const ENDBLOCK: i32 = 1;
    pub const STATEDEF: i32 = 2;
    pub const EVENTDEF: i32 = 3;
    pub const CONSTDEF: i32 = 4;
    pub const BAREEVT: i32 = 5;
    pub const CARGOEVT: i32 = 6;
    pub const MSGEVT: i32 = 7;
    pub const COLLEVT: i32 = 8;
    pub const COMMEVT: i32 = 9;
    pub const SRCLOC: i32 = 10;
    pub const TIMESHIFT: i32 = 11;
}

/// Body size of a record type, `None` for an unknown type.
pub fn body_size(rectype: i32) -> Option<usize> {
    Some(match rectype {
        0 | 1 => 0,
        2 => 112,
        3 => 104,
        4 => 40,
        5 => 8,
        6 => 40,
        7 => 24,
        8 => 16,
        9 => 48,
        10 => 48,
        11 => 8,
        _ => return None,
    })
}

/// The preamble as the reader parses it (§2): titles kept as read, for the printer.
#[derive(Debug, Clone, PartialEq)]
pub struct Preamble {
    pub version: String,
    /// The 15 title strings in file order (`is_big_endian=` … `commtable_fptr=`).
    pub titles: Vec<String>,
    pub is_big_endian: bool,
    pub is_finalized: bool,
    pub block_size: i32,
    pub num_buffered_blocks: i32,
    pub max_comm_world_size: i32,
    pub max_thread_count: i32,
    pub known_event_id_start: i32,
    pub user_event_id_start: i32,
    pub known_solo_event_id_start: i32,
    pub user_solo_event_id_start: i32,
    pub known_state_id_count: i32,
    pub user_state_id_count: i32,
    pub known_solo_event_id_count: i32,
    pub user_solo_event_id_count: i32,
    pub commtable_fptr: i64,
}

fn bad_preamble(detail: impl Into<String>) -> Error {
    Error::malformed("CLOG2 preamble", 0, detail)
}

impl Preamble {
    /// Parse the 1024 preamble bytes: split at NULs, drop empty pieces, trim,
    /// take the pieces by position (titles are not checked, as in the reference).
    pub fn parse(bytes: &[u8]) -> Result<Preamble> {
        if bytes.len() < PREAMBLE_SIZE {
            return Err(Error::Truncated {
                what: "CLOG2 preamble",
                offset: 0,
                need: PREAMBLE_SIZE,
                have: bytes.len(),
            });
        }
        let pieces: Vec<String> = bytes[..PREAMBLE_SIZE]
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| java_trim(&latin1(p)).to_string())
            .collect();
        let version = pieces
            .first()
            .cloned()
            .ok_or_else(|| bad_preamble("empty preamble (not a CLOG2 file)"))?;
        if !version.eq_ignore_ascii_case(VERSION) {
            return Err(bad_preamble(format!(
                "CLOG versions mismatched: file has {version:?}, only {VERSION} is supported"
            )));
        }
        // 1 version + 14 (title, value) pairs + title + 3 values = 33 pieces.
        if pieces.len() < 33 {
            return Err(bad_preamble(format!(
                "{} strings where 33 are expected (version, titles and values)",
                pieces.len()
            )));
        }
        let title = |i: usize| pieces[1 + 2 * i].clone();
        let value = |i: usize| pieces[2 + 2 * i].as_str();
        let boolean = |i: usize| {
            let v = value(i);
            v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("yes")
        };
        let int = |i: usize| -> Result<i32> {
            value(i)
                .parse::<i32>()
                .map_err(|_| bad_preamble(format!("{}{:?} is not an integer", title(i), value(i))))
        };
        let titles: Vec<String> = (0..15).map(title).collect();
        let g: i64 = pieces[30].parse().map_err(|_| {
            bad_preamble(format!("commtable_fptr {:?} is not an integer", pieces[30]))
        })?;
        let u: i64 = pieces[31].parse().map_err(|_| {
            bad_preamble(format!("commtable_fptr {:?} is not an integer", pieces[31]))
        })?;
        let r: i64 = pieces[32].parse().map_err(|_| {
            bad_preamble(format!("commtable_fptr {:?} is not an integer", pieces[32]))
        })?;
        let commtable_fptr = g
            .checked_mul(u)
            .and_then(|x| x.checked_add(r))
            .ok_or_else(|| bad_preamble("commtable_fptr overflows"))?;
        Ok(Preamble {
            version,
            titles,
            is_big_endian: boolean(0),
            is_finalized: boolean(1),
            block_size: int(2)?,
            num_buffered_blocks: int(3)?,
            max_comm_world_size: int(4)?,
            max_thread_count: int(5)?,
            known_event_id_start: int(6)?,
            user_event_id_start: int(7)?,
            known_solo_event_id_start: int(8)?,
            user_solo_event_id_start: int(9)?,
            known_state_id_count: int(10)?,
            user_state_id_count: int(11)?,
            known_solo_event_id_count: int(12)?,
            user_solo_event_id_count: int(13)?,
            commtable_fptr,
        })
    }

    /// Number of data blocks: `(commtable_fptr - 1024) / block_size`.
    pub fn num_blocks(&self) -> i64 {
        (self.commtable_fptr - PREAMBLE_SIZE as i64) / self.block_size as i64
    }

    /// The text `clog2print` prints for it (ends with a newline).
    pub fn to_java_string(&self) -> String {
        let t = &self.titles;
        let vals = [
            self.is_big_endian.to_string(),
            self.is_finalized.to_string(),
            self.block_size.to_string(),
            self.num_buffered_blocks.to_string(),
            self.max_comm_world_size.to_string(),
            self.max_thread_count.to_string(),
            self.known_event_id_start.to_string(),
            self.user_event_id_start.to_string(),
            self.known_solo_event_id_start.to_string(),
            self.user_solo_event_id_start.to_string(),
            self.known_state_id_count.to_string(),
            self.user_state_id_count.to_string(),
            self.known_solo_event_id_count.to_string(),
            self.user_solo_event_id_count.to_string(),
            self.commtable_fptr.to_string(),
        ];
        let mut s = format!("{}\n", self.version);
        for (title, v) in t.iter().zip(vals.iter()) {
            s.push_str(title);
            s.push_str(v);
            s.push('\n');
        }
        s
    }
}

/// Bytes as ISO-8859-1 text (one char per byte), which is how the fixtures'
/// reference dumps were made and round-trips any byte.
pub fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| c as char).collect()
}

/// Java's `String.trim`: strip chars <= U+0020 at both ends.
pub fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// A fixed-size text field read the reference's way (§3.3): the text up to
/// the first NUL, trimmed; absent (`None`) when it starts with NUL or has no NUL.
pub fn text_field(b: &[u8]) -> Option<String> {
    match memchr::memchr(0, b) {
        Some(i) if i > 0 => Some(java_trim(&latin1(&b[..i])).to_string()),
        _ => None,
    }
}

/// A decoded record body (§4). Text fields are kept raw (see [`text_field`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    EndLog,
    EndBlock,
    StateDef {
        state_id: i32,
        start: i32,
        end: i32,
        color: [u8; 24],
        name: [u8; 32],
        format: [u8; 40],
    },
    EventDef {
        etype: i32,
        color: [u8; 24],
        name: [u8; 32],
        format: [u8; 40],
    },
    ConstDef {
        etype: i32,
        value: i32,
        name: [u8; 32],
    },
    Bare {
        etype: i32,
    },
    Cargo {
        etype: i32,
        bytes: [u8; 32],
    },
    Msg {
        etype: i32,
        icomm: i32,
        rank: i32,
        tag: i32,
        size: i32,
    },
    Coll {
        etype: i32,
        root: i32,
        size: i32,
        pad: i32,
    },
    Comm {
        kind: i32,
        icomm: i32,
        rank: i32,
        wrank: i32,
        uuid_random: i32,
        uuid_time: f64,
        uuid_name: [u8; 20],
    },
    Src {
        srcloc: i32,
        lineno: i32,
        filename: [u8; 40],
    },
    Tshift {
        shift: f64,
    },
}

/// One record: header fields, its byte offset in the file, its body.
#[derive(Debug, Clone, PartialEq)]
pub struct RawRecord {
    /// Byte offset of the record header in the file.
    pub offset: u64,
    pub time: f64,
    pub icomm: i32,
    pub rank: i32,
    pub thread: i32,
    pub rectype: i32,
    pub body: Body,
}

impl RawRecord {
    /// Header and body bytes.
    pub fn byte_size(&self) -> usize {
        RECORD_HEADER_SIZE + body_size(self.rectype).unwrap_or(0)
    }
}

#[derive(Clone, Copy)]
struct Order(bool);

impl Order {
    #[inline]
    fn i32(self, b: &[u8], at: usize) -> i32 {
        let mut a = [0u8; 4];
        a.copy_from_slice(&b[at..at + 4]);
        if self.0 {
            i32::from_be_bytes(a)
        } else {
            i32::from_le_bytes(a)
        }
    }
    #[inline]
    fn f64(self, b: &[u8], at: usize) -> f64 {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[at..at + 8]);
        if self.0 {
            f64::from_be_bytes(a)
        } else {
            f64::from_le_bytes(a)
        }
    }
}

fn arr<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[at..at + N]);
    a
}

/// Decode one body; `b` holds exactly the body bytes of `rectype`.
fn decode_body(o: Order, rectype: i32, b: &[u8]) -> Body {
    match rectype {
        rectype::ENDLOG => Body::EndLog,
        rectype::ENDBLOCK => Body::EndBlock,
        rectype::STATEDEF => Body::StateDef {
            state_id: o.i32(b, 0),
            start: o.i32(b, 4),
            end: o.i32(b, 8),
            color: arr(b, 16),
            name: arr(b, 40),
            format: arr(b, 72),
        },
        rectype::EVENTDEF => Body::EventDef {
            etype: o.i32(b, 0),
            color: arr(b, 8),
            name: arr(b, 32),
            format: arr(b, 64),
        },
        rectype::CONSTDEF => Body::ConstDef {
            etype: o.i32(b, 0),
            value: o.i32(b, 4),
            name: arr(b, 8),
        },
        rectype::BAREEVT => Body::Bare { etype: o.i32(b, 0) },
        rectype::CARGOEVT => Body::Cargo {
            etype: o.i32(b, 0),
            bytes: arr(b, 8),
        },
        rectype::MSGEVT => Body::Msg {
            etype: o.i32(b, 0),
            icomm: o.i32(b, 4),
            rank: o.i32(b, 8),
            tag: o.i32(b, 12),
            size: o.i32(b, 16),
        },
        rectype::COLLEVT => Body::Coll {
            etype: o.i32(b, 0),
            root: o.i32(b, 4),
            size: o.i32(b, 8),
            // Pads are never swapped (§4.8).
            pad: Order(true).i32(b, 12),
        },
        rectype::COMMEVT => Body::Comm {
            kind: o.i32(b, 0),
            icomm: o.i32(b, 4),
            rank: o.i32(b, 8),
            wrank: o.i32(b, 12),
            uuid_random: o.i32(b, 16),
            uuid_time: o.f64(b, 20),
            uuid_name: arr(b, 28),
        },
        rectype::SRCLOC => Body::Src {
            srcloc: o.i32(b, 0),
            lineno: o.i32(b, 4),
            filename: arr(b, 8),
        },
        _ => Body::Tshift { shift: o.f64(b, 0) },
    }
}

/// Streaming record reader over any byte stream (a file, a slice).
pub struct Clog2Reader<R: Read> {
    input: R,
    preamble: Preamble,
    order: Order,
    /// The block being read (unused when the file is mapped).
    block: Vec<u8>,
    /// Guards `map` against truncation (`read::guard`); declared first so
    /// it is unregistered before the map is unmapped.
    guard: Option<crate::read::guard::Guard>,
    /// The mapped file, to compare its size with the map's at the end:
    /// zeros in the page holding a new end of file read without a fault.
    pub(crate) file: Option<std::fs::File>,
    /// The whole file, mapped ([`Clog2Reader::with_map`]): blocks are read
    /// where they lie, without copying them.
    map: Option<memmap2::Mmap>,
    /// Offset of the current block in `map`.
    base: usize,
    /// Mapped bytes before this offset may be dropped from the process
    /// (see `load_next_block`).
    dropped: usize,
    /// The block size.
    bs: usize,
    /// Index of the block in `block` (-1 before the first).
    block_index: i64,
    /// Read position inside `block`.
    pos: usize,
    /// Bytes of `block` that hold records (`block_size`).
    loaded: bool,
    done: bool,
    records: u64,
    /// Bytes of the records read so far (the reference's "Total ByteSize").
    record_bytes: u64,
}

impl<R: Read> Clog2Reader<R> {
    /// Read the preamble. `file_len`, when known, bounds the block size and the
    /// communicator-table offset before anything is allocated.
    pub fn new(mut input: R, file_len: Option<u64>) -> Result<Self> {
        let mut pre = vec![0u8; PREAMBLE_SIZE];
        let got = read_full(&mut input, &mut pre).map_err(|e| Error::Source(e.to_string()))?;
        let mut r = Self::setup(input, &pre[..got], file_len, None)?;
        r.block = vec![0u8; r.bs];
        Ok(r)
    }

    /// Check the preamble (`pre`: the bytes read of it) and make the reader.
    fn setup(
        input: R,
        pre: &[u8],
        file_len: Option<u64>,
        map: Option<memmap2::Mmap>,
    ) -> Result<Self> {
        let got = pre.len().min(PREAMBLE_SIZE);
        if got < PREAMBLE_SIZE {
            return Err(Error::Truncated {
                what: "CLOG2 preamble",
                offset: got as u64,
                need: PREAMBLE_SIZE - got,
                have: 0,
            });
        }
        let preamble = Preamble::parse(pre)?;
        let bs = preamble.block_size as i64;
        if bs < RECORD_HEADER_SIZE as i64 || bs % 8 != 0 {
            return Err(bad_preamble(format!(
                "block_size {bs} must be a multiple of 8 and at least {RECORD_HEADER_SIZE}"
            )));
        }
        let limit = file_len.map_or(MAX_BLOCK_SIZE, |l| l as i64 - PREAMBLE_SIZE as i64);
        if bs > limit {
            return Err(bad_preamble(format!(
                "block_size {bs} is larger than the data the file can hold ({limit} bytes)"
            )));
        }
        if preamble.commtable_fptr < PREAMBLE_SIZE as i64 + bs {
            return Err(bad_preamble(format!(
                "commtable_fptr {} leaves no room for a data block of {bs} bytes",
                preamble.commtable_fptr
            )));
        }
        if let Some(l) = file_len {
            if preamble.commtable_fptr as u64 > l {
                return Err(bad_preamble(format!(
                    "commtable_fptr {} is past the end of the file ({l} bytes)",
                    preamble.commtable_fptr
                )));
            }
        }
        let w = preamble.max_comm_world_size;
        let t = preamble.max_thread_count;
        if w < 1 || t < 1 || (w as i64) * (t as i64) > i32::MAX as i64 {
            return Err(bad_preamble(format!(
                "max_comm_world_size {w} and max_thread_count {t} must be >= 1 with a product that fits 32 bits"
            )));
        }
        Ok(Clog2Reader {
            input,
            order: Order(preamble.is_big_endian),
            block: Vec::new(),
            file: None,
            guard: map
                .as_ref()
                .and_then(|m| crate::read::guard::Guard::register(m.as_ptr(), m.len())),
            map,
            base: 0,
            dropped: 0,
            bs: bs as usize,
            preamble,
            block_index: -1,
            pos: 0,
            loaded: false,
            done: false,
            records: 0,
            record_bytes: 0,
        })
    }

    pub fn preamble(&self) -> &Preamble {
        &self.preamble
    }

    /// The mapped file was truncated while read (see `read::guard`): what
    /// was read since is zeros, not the log.
    pub fn changed(&self) -> bool {
        self.guard.as_ref().is_some_and(|g| g.changed())
    }

    /// [`changed`](Self::changed), or the mapped file is shorter now than
    /// its map (a system call: for the end of the log and errors).
    pub fn changed_now(&self) -> bool {
        self.changed()
            || match (&self.file, &self.map) {
                (Some(f), Some(m)) => f.metadata().is_ok_and(|md| md.len() < m.len() as u64),
                _ => false,
            }
    }

    /// The current block's bytes.
    #[inline(always)]
    fn data(&self) -> &[u8] {
        match &self.map {
            Some(m) => &m[self.base..self.base + self.bs],
            None => &self.block,
        }
    }

    /// Records read so far.
    pub fn records_read(&self) -> u64 {
        self.records
    }

    /// Header plus body bytes of the records read so far.
    pub fn record_bytes(&self) -> u64 {
        self.record_bytes
    }

    /// Byte offset of the next record (for progress and messages).
    pub fn offset(&self) -> u64 {
        let bs = self.preamble.block_size as u64;
        PREAMBLE_SIZE as u64 + self.block_index.max(0) as u64 * bs + self.pos as u64
    }

    /// Rough progress in `[0, 1]`.
    pub fn progress(&self) -> f64 {
        let total = self.preamble.commtable_fptr.max(1) as f64;
        (self.offset() as f64 / total).min(1.0)
    }

    fn load_next_block(&mut self) -> Result<()> {
        self.block_index += 1;
        let bs = self.bs;
        let start = PREAMBLE_SIZE as u64 + self.block_index as u64 * bs as u64;
        if self.block_index >= self.preamble.num_blocks() {
            return Err(Error::malformed(
                "CLOG2 file",
                start,
                format!(
                    "no end-of-log record in the {} data block(s) before the communicator table at {}",
                    self.preamble.num_blocks(),
                    self.preamble.commtable_fptr
                ),
            ));
        }
        if self.changed() {
            return Err(crate::read::guard::changed_error(None));
        }
        let got = match &self.map {
            Some(m) => {
                let have = (m.len() as u64).saturating_sub(start).min(bs as u64) as usize;
                if have == bs {
                    self.base = start as usize;
                    // Pages read stay in the page cache but leave this
                    // process every few MB: a mapped file counts in the
                    // resident set as it is touched, and memory must not
                    // grow with the log.
                    if self.base - self.dropped >= DROP_EVERY {
                        let page = page_size();
                        let upto = self.base / page * page;
                        if upto > self.dropped {
                            // SAFETY: the range lies inside the mapping, is
                            // read-only file data, and no slice of it is
                            // held (only offsets are kept): after
                            // MADV_DONTNEED a read refaults the same file
                            // bytes from the page cache.
                            let _ = unsafe {
                                m.unchecked_advise_range(
                                    memmap2::UncheckedAdvice::DontNeed,
                                    self.dropped,
                                    upto - self.dropped,
                                )
                            };
                            self.dropped = upto;
                        }
                    }
                }
                have
            }
            None => read_full(&mut self.input, &mut self.block)
                .map_err(|e| Error::malformed("CLOG2 block", start, e.to_string()))?,
        };
        if got < bs {
            return Err(Error::Truncated {
                what: "CLOG2 data block",
                offset: start + got as u64,
                need: bs - got,
                have: 0,
            });
        }
        self.pos = 0;
        self.loaded = true;
        Ok(())
    }

    /// The next record (terminators included), or `None` after the end of log.
    pub fn next_record(&mut self) -> Result<Option<RawRecord>> {
        Ok(self.next_head()?.map(|h| self.record(&h)))
    }

    /// The next record's header (terminators included), or `None` after the
    /// end of log. Its body stays readable through [`body_i32`](Self::body_i32),
    /// [`body_bytes`](Self::body_bytes) and [`record`](Self::record) until the
    /// next call. This is the converter's hot path: the common records
    /// (bare, cargo and message events) are read field by field from the
    /// block buffer, without building a [`RawRecord`] (whose body enum is
    /// sized for the 112-byte state definition).
    #[inline]
    pub fn next_head(&mut self) -> Result<Option<Head>> {
        if self.done {
            // Zeros read after a truncation look like an end-of-log record
            // (type 0): the end counts only if the file is whole.
            if self.changed_now() {
                return Err(crate::read::guard::changed_error(None));
            }
            return Ok(None);
        }
        if !self.loaded {
            self.load_next_block()?;
        }
        let bs = self.bs;
        let pos = self.pos;
        if pos + RECORD_HEADER_SIZE > bs {
            return Err(self.header_past_block());
        }
        let (time, icomm, rank, thread, rt) = self.header_fields(pos);
        let body_at = pos + RECORD_HEADER_SIZE;
        let size = match body_size(rt) {
            Some(size) if body_at + size <= bs => size,
            _ => return Err(self.bad_record(rt)),
        };
        let offset = self.offset();
        self.pos = body_at + size;
        self.records += 1;
        self.record_bytes += (RECORD_HEADER_SIZE + size) as u64;
        match rt {
            rectype::ENDBLOCK => self.loaded = false,
            rectype::ENDLOG => {
                // (Not loaded either: the fast path tests one flag.)
                self.done = true;
                self.loaded = false;
            }
            _ => {}
        }
        Ok(Some(Head {
            offset,
            time,
            icomm,
            rank,
            thread,
            rectype: rt,
            body_at,
        }))
    }

    /// [`next_head`](Self::next_head) for a record inside the loaded block;
    /// `None` (nothing consumed) when a block must be loaded, at the end of
    /// the log, or for a bad record: then `next_head` says which. Small
    /// enough to inline, so the header stays in registers.
    #[inline(always)]
    pub fn next_head_fast(&mut self) -> Option<Head> {
        if !self.loaded {
            return None;
        }
        let bs = self.bs;
        let pos = self.pos;
        if pos + RECORD_HEADER_SIZE > bs {
            return None;
        }
        let (time, icomm, rank, thread, rt) = self.header_fields(pos);
        let body_at = pos + RECORD_HEADER_SIZE;
        let size = body_size(rt)?;
        if body_at + size > bs {
            return None;
        }
        let head = Head {
            offset: PREAMBLE_SIZE as u64 + self.block_index as u64 * bs as u64 + pos as u64,
            time,
            icomm,
            rank,
            thread,
            rectype: rt,
            body_at,
        };
        self.pos = body_at + size;
        self.records += 1;
        self.record_bytes += (RECORD_HEADER_SIZE + size) as u64;
        match rt {
            rectype::ENDBLOCK => self.loaded = false,
            rectype::ENDLOG => {
                // (Not loaded either: the fast path tests one flag.)
                self.done = true;
                self.loaded = false;
            }
            _ => {}
        }
        Some(head)
    }

    #[cold]
    fn header_past_block(&self) -> Error {
        Error::malformed(
            "CLOG2 record",
            self.offset(),
            format!(
                "record header runs past the end of block {} (no end-of-block record)",
                self.block_index
            ),
        )
    }

    #[cold]
    fn bad_record(&self, rt: i32) -> Error {
        let offset = self.offset();
        match body_size(rt) {
            None => Error::malformed("CLOG2 record", offset, format!("unknown record type {rt}")),
            Some(size) => Error::malformed(
                "CLOG2 record",
                offset,
                format!(
                    "record of type {rt} ({} bytes) runs past the end of block {}",
                    RECORD_HEADER_SIZE + size,
                    self.block_index
                ),
            ),
        }
    }

    /// The 4-byte integer at `at` in the body of `h` (the last record read).
    #[inline(always)]
    pub fn body_i32(&self, h: &Head, at: usize) -> i32 {
        self.order.i32(self.data(), h.body_at + at)
    }

    /// Time, communicator, rank, thread and record type of the record
    /// header at `pos` of the current block (which holds it whole), with
    /// one byte-order test.
    #[inline(always)]
    fn header_fields(&self, pos: usize) -> (f64, i32, i32, i32, i32) {
        let h: [u8; RECORD_HEADER_SIZE] = arr(self.data(), pos);
        let t: [u8; 8] = [h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]];
        let w = |k: usize| [h[k], h[k + 1], h[k + 2], h[k + 3]];
        if self.order.0 {
            (
                f64::from_be_bytes(t),
                i32::from_be_bytes(w(8)),
                i32::from_be_bytes(w(12)),
                i32::from_be_bytes(w(16)),
                i32::from_be_bytes(w(20)),
            )
        } else {
            (
                f64::from_le_bytes(t),
                i32::from_le_bytes(w(8)),
                i32::from_le_bytes(w(12)),
                i32::from_le_bytes(w(16)),
                i32::from_le_bytes(w(20)),
            )
        }
    }

    /// The first `N` 32-bit integers of the body of `h` (the last record
    /// read), with one bounds check and one byte-order test.
    #[inline(always)]
    pub fn body_i32s<const N: usize>(&self, h: &Head) -> [i32; N] {
        let b = &self.data()[h.body_at..h.body_at + 4 * N];
        let mut out = [0i32; N];
        let be = self.order.0;
        for (o, c) in out.iter_mut().zip(b.chunks_exact(4)) {
            let a = [c[0], c[1], c[2], c[3]];
            *o = if be {
                i32::from_be_bytes(a)
            } else {
                i32::from_le_bytes(a)
            };
        }
        out
    }

    /// `N` raw bytes at `at` in the body of `h` (the last record read).
    #[inline(always)]
    pub fn body_bytes<const N: usize>(&self, h: &Head, at: usize) -> [u8; N] {
        arr(self.data(), h.body_at + at)
    }

    /// The whole record `h` (the last record read), body decoded.
    pub fn record(&self, h: &Head) -> RawRecord {
        let at = h.body_at;
        let size = body_size(h.rectype).unwrap_or(0);
        RawRecord {
            offset: h.offset,
            time: h.time,
            icomm: h.icomm,
            rank: h.rank,
            thread: h.thread,
            rectype: h.rectype,
            body: decode_body(self.order, h.rectype, &self.data()[at..at + size]),
        }
    }
}

/// Mapped input is dropped from the process in steps of this many bytes.
const DROP_EVERY: usize = 4 << 20;

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

impl Clog2Reader<std::io::Empty> {
    /// A reader over a mapped file (what [`Clog2Source::open`] uses):
    /// blocks are decoded where they lie in the page cache, without the
    /// copy `read` makes (an eighth of a conversion's CPU time).
    ///
    /// The map is guarded (`read::guard`): a truncation while it is read
    /// makes [`changed`](Self::changed) true and the reader fail, instead of
    /// a SIGBUS.
    ///
    /// [`Clog2Source::open`]: super::Clog2Source::open
    pub fn with_map(map: memmap2::Mmap) -> Result<Self> {
        let len = map.len();
        let _ = map.advise(memmap2::Advice::Sequential);
        let pre: Vec<u8> = map[..len.min(PREAMBLE_SIZE)].to_vec();
        Self::setup(std::io::empty(), &pre, Some(len as u64), Some(map))
    }
}

/// A record header as [`Clog2Reader::next_head`] reads it, with where its
/// body is in the reader's block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Head {
    /// Byte offset of the record header in the file.
    pub offset: u64,
    pub time: f64,
    pub icomm: i32,
    pub rank: i32,
    pub thread: i32,
    pub rectype: i32,
    body_at: usize,
}

/// Read until `buf` is full or the stream ends; the number of bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
