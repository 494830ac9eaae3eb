//! Writing CLOG2 files: a block-filling record writer ([`Clog2Writer`]) and a
//! generator of valid, time-sorted synthetic logs ([`generate`]) for tests and
//! the benchmark (`slog2 bench clog2-gen`).
//!
//! The writer lays records out as MPE's merger does (`clog2-format.md` §1–§4):
//! big-endian, records never cross a block, every block ends with an
//! end-of-block record timed like the next record, the last with the
//! end-of-log record (time 1e8), then an (empty) communicator table whose
//! offset the preamble states.

use std::io::{Seek, SeekFrom, Write};

use super::reader::{body_size, rectype, PREAMBLE_SIZE, RECORD_HEADER_SIZE};
use crate::error::{Error, Result};

/// Preamble numbers a generated file states.
#[derive(Debug, Clone)]
pub struct GenPreamble {
    pub block_size: i32,
    pub world_size: i32,
    pub thread_count: i32,
    pub user_state_count: i32,
    pub user_solo_count: i32,
}

/// Writes records into blocks; call [`finish`](Self::finish) at the end.
pub struct Clog2Writer<W: Write + Seek> {
    out: W,
    pre: GenPreamble,
    block: Vec<u8>,
    blocks: u64,
    records: u64,
}

fn text<const N: usize>(s: &str) -> [u8; N] {
    let mut a = [0u8; N];
    let b = s.as_bytes();
    let n = b.len().min(N - 1);
    a[..n].copy_from_slice(&b[..n]);
    a
}

impl<W: Write + Seek> Clog2Writer<W> {
    pub fn new(mut out: W, pre: GenPreamble) -> Result<Self> {
        let io = |e: std::io::Error| Error::Source(format!("writing CLOG2: {e}"));
        if pre.block_size < 64 || pre.block_size % 8 != 0 {
            return Err(Error::InvalidArgument(
                "block size must be a multiple of 8, >= 64".into(),
            ));
        }
        out.write_all(&[0u8; PREAMBLE_SIZE]).map_err(io)?;
        Ok(Clog2Writer {
            out,
            block: Vec::with_capacity(pre.block_size as usize),
            pre,
            blocks: 0,
            records: 0,
        })
    }

    /// Records written so far (terminators included).
    pub fn records(&self) -> u64 {
        self.records
    }

    fn header(&mut self, time: f64, icomm: i32, rank: i32, thread: i32, rt: i32) {
        self.block.extend_from_slice(&time.to_be_bytes());
        for v in [icomm, rank, thread, rt] {
            self.block.extend_from_slice(&v.to_be_bytes());
        }
        self.records += 1;
    }

    fn flush_block(&mut self, next_time: f64, end_of_log: bool) -> Result<()> {
        if end_of_log {
            self.header(1.0e8, 0, 0, 0, rectype::ENDLOG);
        } else {
            self.header(next_time, 0, 0, 0, rectype::ENDBLOCK);
        }
        self.block.resize(self.pre.block_size as usize, 0);
        self.out
            .write_all(&self.block)
            .map_err(|e| Error::Source(format!("writing CLOG2: {e}")))?;
        self.block.clear();
        self.blocks += 1;
        Ok(())
    }

    /// Write one record: header fields and the body bytes (exactly the body
    /// size of `rt`, big-endian).
    pub fn record(
        &mut self,
        time: f64,
        icomm: i32,
        rank: i32,
        thread: i32,
        rt: i32,
        body: &[u8],
    ) -> Result<()> {
        let size =
            body_size(rt).ok_or_else(|| Error::InvalidArgument(format!("record type {rt}")))?;
        if body.len() != size {
            return Err(Error::InvalidArgument(format!(
                "record type {rt} needs a {size}-byte body, got {}",
                body.len()
            )));
        }
        if self.block.len() + RECORD_HEADER_SIZE + size + RECORD_HEADER_SIZE
            > self.pre.block_size as usize
        {
            self.flush_block(time, false)?;
        }
        self.header(time, icomm, rank, thread, rt);
        self.block.extend_from_slice(body);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub fn state_def(
        &mut self,
        time: f64,
        id: i32,
        start: i32,
        end: i32,
        color: &str,
        name: &str,
        format: &str,
    ) -> Result<()> {
        let mut b = Vec::with_capacity(112);
        for v in [id, start, end, 0] {
            b.extend_from_slice(&v.to_be_bytes());
        }
        b.extend_from_slice(&text::<24>(color));
        b.extend_from_slice(&text::<32>(name));
        b.extend_from_slice(&text::<40>(format));
        self.record(time, 0, 0, 0, rectype::STATEDEF, &b)
    }

    pub fn event_def(
        &mut self,
        time: f64,
        etype: i32,
        color: &str,
        name: &str,
        format: &str,
    ) -> Result<()> {
        let mut b = Vec::with_capacity(104);
        for v in [etype, 0] {
            b.extend_from_slice(&v.to_be_bytes());
        }
        b.extend_from_slice(&text::<24>(color));
        b.extend_from_slice(&text::<32>(name));
        b.extend_from_slice(&text::<40>(format));
        self.record(time, 0, 0, 0, rectype::EVENTDEF, &b)
    }

    pub fn comm(
        &mut self,
        time: f64,
        rank: i32,
        kind: i32,
        id: i32,
        comm_rank: i32,
        wrank: i32,
    ) -> Result<()> {
        let mut b = Vec::with_capacity(48);
        for v in [kind, id, comm_rank, wrank, rank * 7919 + id] {
            b.extend_from_slice(&v.to_be_bytes());
        }
        b.extend_from_slice(&(1.0f64 + rank as f64).to_be_bytes());
        b.extend_from_slice(&text::<20>("genhost"));
        self.record(time, 0, rank, 0, rectype::COMMEVT, &b)
    }

    pub fn bare(
        &mut self,
        time: f64,
        icomm: i32,
        rank: i32,
        thread: i32,
        etype: i32,
    ) -> Result<()> {
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&etype.to_be_bytes());
        self.record(time, icomm, rank, thread, rectype::BAREEVT, &b)
    }

    pub fn cargo(
        &mut self,
        time: f64,
        icomm: i32,
        rank: i32,
        thread: i32,
        etype: i32,
        payload: &[u8],
    ) -> Result<()> {
        let mut b = [0u8; 40];
        b[..4].copy_from_slice(&etype.to_be_bytes());
        let n = payload.len().min(32);
        b[8..8 + n].copy_from_slice(&payload[..n]);
        self.record(time, icomm, rank, thread, rectype::CARGOEVT, &b)
    }

    /// A send (`-101`) or receive (`-102`) on communicator `icomm`.
    #[allow(clippy::too_many_arguments)]
    pub fn msg(
        &mut self,
        time: f64,
        icomm: i32,
        rank: i32,
        etype: i32,
        partner: i32,
        tag: i32,
        size: i32,
    ) -> Result<()> {
        let mut b = [0u8; 24];
        for (i, v) in [etype, icomm, partner, tag, size].into_iter().enumerate() {
            b[4 * i..4 * i + 4].copy_from_slice(&v.to_be_bytes());
        }
        self.record(time, icomm, rank, 0, rectype::MSGEVT, &b)
    }

    /// End the log, write the communicator table and the preamble; the file size.
    pub fn finish(mut self) -> Result<u64> {
        let io = |e: std::io::Error| Error::Source(format!("writing CLOG2: {e}"));
        self.flush_block(0.0, true)?;
        let fptr = PREAMBLE_SIZE as u64 + self.blocks * self.pre.block_size as u64;
        self.out.write_all(&0i32.to_be_bytes()).map_err(io)?;
        let u: u64 = 1 << 30;
        let p = &self.pre;
        let items: Vec<String> = vec![
            "CLOG-02.44".into(),
            "is_big_endian=".into(),
            "TRUE ".into(),
            "is_finalzed=".into(),
            "TRUE ".into(),
            "block_size=".into(),
            p.block_size.to_string(),
            "num_buffered_blocks=".into(),
            "128".into(),
            "max_comm_world_size=".into(),
            p.world_size.to_string(),
            "max_thread_count=".into(),
            p.thread_count.to_string(),
            "known_eventID_start=".into(),
            "0".into(),
            "user_eventID_start=".into(),
            "600".into(),
            "known_solo_eventID_start=".into(),
            "-10".into(),
            "user_solo_eventID_start=".into(),
            "5000".into(),
            "known_stateID_count=".into(),
            "300".into(),
            "user_stateID_count=".into(),
            p.user_state_count.to_string(),
            "known_solo_eventID_count=".into(),
            "0".into(),
            "user_solo_eventID_count=".into(),
            p.user_solo_count.to_string(),
            "commtable_fptr=".into(),
            (fptr / u).to_string(),
            u.to_string(),
            (fptr % u).to_string(),
        ];
        let mut pre = Vec::with_capacity(PREAMBLE_SIZE);
        for s in items {
            pre.extend_from_slice(s.as_bytes());
            pre.push(0);
        }
        pre.resize(PREAMBLE_SIZE, 0);
        self.out.seek(SeekFrom::Start(0)).map_err(io)?;
        self.out.write_all(&pre).map_err(io)?;
        self.out.flush().map_err(io)?;
        Ok(fptr + 4)
    }
}

/// Write a synthetic, time-sorted CLOG2 log of about `records` records on
/// `ranks` processes: per iteration and rank an `Outer` state (cargo start
/// with the iteration number) containing `Compute`, which contains `Inner`
/// and a `Tick` solo event, then a ring send to the right neighbour and a
/// receive from the left one — 9 records per rank and iteration, all matched.
/// Returns the number of records written.
pub fn generate<W: Write + Seek>(out: W, records: u64, ranks: i32) -> Result<u64> {
    let ranks = ranks.max(1);
    let mut w = Clog2Writer::new(
        out,
        GenPreamble {
            block_size: 65536,
            world_size: ranks,
            thread_count: 1,
            user_state_count: 3,
            user_solo_count: 1,
        },
    )?;
    let mut t = 0.0f64;
    let tick = 1e-7;
    for r in 0..ranks {
        w.comm(t, r, 0, 0, r, r)?;
        t += tick;
        w.comm(t, r, 1, 1 + r, 0, r)?;
        t += tick;
    }
    w.state_def(t, 300, 600, 601, "gray", "Outer", "iter=%d")?;
    w.state_def(t, 301, 602, 603, "red", "Compute", "")?;
    w.state_def(
        t,
        302,
        604,
        605,
        "forest green",
        "Inner",
        "value=%d label=%s",
    )?;
    w.event_def(t, 5000, "yellow", "Tick", "")?;
    let per_iter = 9 * ranks as u64;
    let iters = records.div_ceil(per_iter).max(1);
    let phase = 1e-5;
    let eps = phase / (ranks as f64 + 1.0);
    for i in 0..iters {
        let base = 1e-3 + i as f64 * 10.0 * phase;
        let at = |p: u32, r: i32| base + p as f64 * phase + r as f64 * eps;
        for r in 0..ranks {
            w.cargo(at(0, r), 0, r, 0, 600, &(i as i32).to_be_bytes())?;
        }
        for r in 0..ranks {
            w.bare(at(1, r), 0, r, 0, 602)?;
        }
        for r in 0..ranks {
            let mut p = Vec::with_capacity(16);
            p.extend_from_slice(&((i as i32).wrapping_mul(100) + r).to_be_bytes());
            let label = format!("r{r}i{}", i % 1000);
            p.extend_from_slice(&(label.len() as i16).to_be_bytes());
            p.extend_from_slice(label.as_bytes());
            w.cargo(at(2, r), 0, r, 0, 604, &p)?;
        }
        for r in 0..ranks {
            w.bare(at(3, r), 0, r, 0, 5000)?;
        }
        for r in 0..ranks {
            w.bare(at(4, r), 0, r, 0, 605)?;
        }
        for r in 0..ranks {
            w.bare(at(5, r), 0, r, 0, 603)?;
        }
        let tag = (i % 32768) as i32;
        for r in 0..ranks {
            w.msg(at(6, r), 0, r, super::SEND, (r + 1) % ranks, tag, 8)?;
        }
        for r in 0..ranks {
            w.msg(at(7, r), 0, r, super::RECV, (r + ranks - 1) % ranks, tag, 8)?;
        }
        for r in 0..ranks {
            w.bare(at(8, r), 0, r, 0, 601)?;
        }
    }
    let n = w.records();
    w.finish()?;
    Ok(n)
}

/// [`generate`] into a file.
pub fn generate_file(path: &std::path::Path, records: u64, ranks: i32) -> Result<u64> {
    let f = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    generate(
        std::io::BufWriter::with_capacity(1 << 16, f),
        records,
        ranks,
    )
}
