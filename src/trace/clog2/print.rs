//! `clog2print`: the reference's raw dump of a CLOG2 file (`clog2-format.md` §8).
//!
//! Text is written as raw bytes (one byte per character, ISO-8859-1), so cargo
//! payloads and UUID host names come out exactly as the reference prints them
//! with `-Dfile.encoding=ISO-8859-1` (how the fixture dumps were made).
//! Differences from the reference, on purpose: we stop at the end-of-log record
//! (the reference tries to read one more block and, if the communicator table
//! were at least one block long, would print it as garbage records), and a
//! damaged file ends with an error after the records read so far instead of a
//! stack trace or misparsed records.

use std::io::{Read, Write};

use super::reader::{text_field, Body, Clog2Reader, RawRecord};
use crate::error::{Error, Result};
use crate::javafmt::java_double;

fn opt(s: Option<String>) -> String {
    s.unwrap_or_else(|| "null".to_string())
}

fn comm_kind(k: i32) -> String {
    match k {
        0 => "CommWorldCreate".into(),
        1 => "CommSelfCreate".into(),
        10 => "CommFree".into(),
        100 => "IntraCommCreate".into(),
        101 => "LocalIntraComm".into(),
        102 => "RemoteIntraComm".into(),
        1000 => "InterCommCreate".into(),
        k => format!("Unknown({k})"),
    }
}

/// The two lines the reference prints for one record (header, body), as bytes.
pub fn record_lines(r: &RawRecord, out: &mut Vec<u8>) {
    out.extend_from_slice(
        format!(
            "RecHeader[ time={}, icomm={}, rank={}, thread={}, rectype={} ]\n",
            java_double(r.time),
            r.icomm,
            r.rank,
            r.thread,
            r.rectype
        )
        .as_bytes(),
    );
    let line = match &r.body {
        Body::EndLog => "End Of File".to_string(),
        Body::EndBlock => "End Of Block".to_string(),
        Body::StateDef {
            state_id,
            start,
            end,
            color,
            name,
            format,
        } => format!(
            "RecDefState[ stateID={state_id}, startetype={start}, finaletype={end}, color={}, name={}, format={} ]",
            opt(text_field(color)),
            opt(text_field(name)),
            opt(text_field(format))
        ),
        Body::EventDef {
            etype,
            color,
            name,
            format,
        } => format!(
            "RecDefEvent[ etype={etype}, color={}, name={}, format={} ]",
            opt(text_field(color)),
            opt(text_field(name)),
            opt(text_field(format))
        ),
        Body::ConstDef { etype, value, name } => format!(
            "RecDefConst[ etype={etype}, value={value}, name={} ]",
            opt(text_field(name))
        ),
        Body::Bare { etype } => format!("RecBare[ etype={etype} ]"),
        Body::Cargo { etype, bytes } => {
            out.extend_from_slice(format!("RecCargo[ etype={etype}, bytes=").as_bytes());
            out.extend_from_slice(bytes);
            " ]".to_string()
        }
        Body::Msg {
            etype,
            icomm,
            rank,
            tag,
            size,
        } => format!(
            "RecMsg[ etype={}, icomm={icomm}, rank={rank}, tag={tag}, size={size} ]",
            match etype {
                -101 => "send".to_string(),
                -102 => "recv".to_string(),
                e => format!("Unknown({e})"),
            }
        ),
        Body::Coll {
            etype,
            root,
            size,
            pad,
        } => format!("RecColl[ etype={etype}, root={root}, comm={size}, size={pad} ]"),
        Body::Comm {
            kind,
            icomm,
            rank,
            wrank,
            uuid_random,
            uuid_time,
            uuid_name,
        } => {
            out.extend_from_slice(
                format!(
                    "RecComm[ etype={}, icomm={icomm}, rank={rank}, wrank={wrank}, gcomm={uuid_random}-{}-",
                    comm_kind(*kind),
                    java_double(*uuid_time)
                )
                .as_bytes(),
            );
            out.extend_from_slice(uuid_name);
            " ]".to_string()
        }
        Body::Src {
            srcloc,
            lineno,
            filename,
        } => format!(
            "RecSrc[ srcloc={srcloc}, lineno={lineno}, filename={} ]",
            opt(text_field(filename))
        ),
        Body::Tshift { shift } => format!("RecTshift[ timeshift={} ]", java_double(*shift)),
    };
    // Text fields were decoded one char per byte; write them back the same way.
    out.extend(line.chars().map(|c| c as u32 as u8));
    out.push(b'\n');
}

/// Print a CLOG2 stream the way `clog2print.jar` does. On a damaged file the
/// records before the damage are printed, then the error is returned.
pub fn print<R: Read>(input: R, file_len: Option<u64>, w: &mut dyn Write) -> Result<()> {
    let io = |e: std::io::Error| Error::Source(format!("writing the dump: {e}"));
    let mut reader = Clog2Reader::new(input, file_len)?;
    w.write_all(reader.preamble().to_java_string().as_bytes())
        .map_err(io)?;
    w.write_all(b"\n").map_err(io)?;
    let mut buf = Vec::with_capacity(256);
    while let Some(r) = reader.next_record()? {
        buf.clear();
        record_lines(&r, &mut buf);
        w.write_all(&buf).map_err(io)?;
    }
    writeln!(
        w,
        "Total ByteSize of the logfile = {}",
        reader.record_bytes()
    )
    .map_err(io)?;
    Ok(())
}

/// [`print()`] of a file.
pub fn print_file(path: &std::path::Path, w: &mut dyn Write) -> Result<()> {
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let len = f.metadata().map_err(|e| Error::io(path, e))?.len();
    print(std::io::BufReader::with_capacity(1 << 16, f), Some(len), w)
}

/// [`print()`] of bytes in memory.
pub fn print_bytes(bytes: &[u8], w: &mut dyn Write) -> Result<()> {
    print(bytes, Some(bytes.len() as u64), w)
}
