//! Opening inputs (issue #27 classes 3 and 6, issue #28 "compressed
//! inputs"): every format gives the same records from a regular file, a
//! FIFO and gzip (file or FIFO); endless or line-less inputs stop at a limit
//! of the format instead of growing memory.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use slog2::trace::{self, Record, TraceSource};

fn all_records(s: &mut dyn TraceSource) -> Vec<Record> {
    let mut v = Vec::new();
    while let Some(r) = s.next_record().unwrap() {
        v.push(r);
    }
    v
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// The records of `bytes` read through a FIFO (a writer thread feeds it).
fn through_fifo(dir: &Path, bytes: Vec<u8>) -> slog2::Result<Vec<Record>> {
    let fifo = dir.join(format!("in-{}.fifo", bytes.len()));
    mkfifo(&fifo);
    let f2 = fifo.clone();
    let writer = std::thread::spawn(move || {
        // The reader may stop early (an error): a broken pipe is fine.
        if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&f2) {
            let _ = f.write_all(&bytes);
        }
    });
    let r = trace::open_source(&fifo).and_then(|mut s| {
        let mut v = Vec::new();
        while let Some(r) = s.next_record()? {
            v.push(r);
        }
        Ok(v)
    });
    writer.join().unwrap();
    std::fs::remove_file(&fifo).unwrap();
    r
}

fn inputs() -> Vec<PathBuf> {
    [
        "trace-sample/data.txt",
        "trace-sample/arrow.txt",
        "trace-sample/data.slog2",
        "clog2/edge_cases.clog2",
        "clog2/big_stencil.clog2",
    ]
    .iter()
    .map(|r| common::fixture(r))
    .collect()
}

/// Class 6: sniffing took the first bytes of a pipe (a CLOG2 log lost 5
/// bytes, "CLOG versions mismatched", and was then read as text).
#[test]
fn every_format_reads_the_same_from_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    for path in inputs() {
        let expected = all_records(trace::open_source(&path).unwrap().as_mut());
        assert!(!expected.is_empty());
        let got = through_fifo(dir.path(), std::fs::read(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(got, expected, "{}", path.display());
    }
}

/// Issue #28: `.gz` text and CLOG2 (and SLOG-2) inputs stream through
/// flate2, from a file (any name) and from a pipe.
#[test]
fn gzip_inputs_read_like_the_plain_ones() {
    let dir = tempfile::tempdir().unwrap();
    for path in inputs() {
        let expected = all_records(trace::open_source(&path).unwrap().as_mut());
        let gz = gzip(&std::fs::read(&path).unwrap());
        let name = path.file_name().unwrap().to_str().unwrap();
        let file = dir.path().join(format!("{name}.gz"));
        std::fs::write(&file, &gz).unwrap();
        let got = all_records(trace::open_source(&file).unwrap().as_mut());
        assert_eq!(got, expected, "{}", file.display());
        let got = through_fifo(dir.path(), gz).unwrap();
        assert_eq!(got, expected, "{name} gzip through a FIFO");
    }
    // Concatenated members read as one stream (what `cat a.gz b.gz` makes).
    let text = std::fs::read_to_string(common::fixture("trace-sample/data.txt")).unwrap();
    let cut = text.len() / 2;
    let cut = cut + text[cut..].find('\n').unwrap() + 1;
    let mut two = gzip(&text.as_bytes()[..cut]);
    two.extend(gzip(&text.as_bytes()[cut..]));
    let f = dir.path().join("two-members.txt.gz");
    std::fs::write(&f, two).unwrap();
    let expected = all_records(
        trace::open_source(&common::fixture("trace-sample/data.txt"))
            .unwrap()
            .as_mut(),
    );
    assert_eq!(
        all_records(trace::open_source(&f).unwrap().as_mut()),
        expected
    );
}

/// A damaged gzip stream is an error naming the file, not a panic.
#[test]
fn truncated_gzip_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let gz = gzip(&std::fs::read(common::fixture("clog2/big_stencil.clog2")).unwrap());
    let f = dir.path().join("cut.clog2.gz");
    std::fs::write(&f, &gz[..gz.len() / 2]).unwrap();
    let e = trace::open_source(&f)
        .and_then(|mut s| {
            while s.next_record()?.is_some() {}
            Ok(())
        })
        .expect_err("half a gzip stream");
    let m = e.to_string();
    assert!(m.contains("cut.clog2.gz") || m.contains("CLOG2"), "{m}");
}

/// An endless source for class 3: a character device made with `mknod`
/// (a copy of /dev/zero's numbers, in our own directory) when we may, else
/// a FIFO fed endlessly by a thread.
struct Endless {
    path: PathBuf,
    _feeder: Option<std::thread::JoinHandle<()>>,
}

fn endless(dir: &Path, byte: u8) -> Endless {
    let path = dir.join(format!("endless-{byte}"));
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    if byte == 0 {
        // SAFETY: a valid path; makedev(1, 5) is the memory device "zero".
        let r = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o600, libc::makedev(1, 5)) };
        if r == 0 {
            return Endless {
                path,
                _feeder: None,
            };
        }
        eprintln!("mknod not permitted here: an endless FIFO stands in for the device");
    }
    mkfifo(&path);
    let p2 = path.clone();
    let feeder = std::thread::spawn(move || {
        let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&p2) else {
            return;
        };
        let block = vec![byte; 1 << 16];
        // Until the reader goes away (EPIPE).
        while f.write_all(&block).is_ok() {}
    });
    Endless {
        path,
        _feeder: Some(feeder),
    }
}

/// Class 3: an endless input is refused after a bounded read, for every
/// reader: trace sources (convert, TRACE_Open), the SLOG-2 reader (check,
/// print, info, query, SLOG2_Open, Slog2Reader.open).
#[test]
fn endless_inputs_stop_at_a_limit_of_the_format() {
    let dir = tempfile::tempdir().unwrap();
    // NUL bytes: binary, said at once.
    let z = endless(dir.path(), 0);
    let e = trace::open_source(&z.path).err().expect("endless zeros");
    assert!(e.to_string().contains("binary data"), "{e}");
    let e = slog2::Slog2File::open(&z.path).expect_err("endless zeros");
    assert!(e.to_string().contains("not an SLOG-2"), "{e}");
    drop(z);
    // Endless text without a line end: stops at the line limit.
    let a = endless(dir.path(), b'a');
    let e = trace::open_source(&a.path)
        .and_then(|mut s| s.next_record().map(|_| ()))
        .expect_err("endless line");
    assert!(e.to_string().contains("longer than 16 MiB"), "{e}");
    assert_eq!(e.kind(), slog2::ErrorKind::Parse);
    // Endless 'a' as SLOG-2: the header is refused after 108 bytes (a FIFO
    // of its own: the first reader's close ended the first feeder).
    let b = endless(dir.path(), b'b');
    let e = slog2::Slog2File::open(&b.path).expect_err("endless text");
    assert!(e.to_string().contains("not an SLOG-2"), "{e}");
}

/// Class 3: a 1 GB single-line record (or category name) took 1–2 GB of
/// memory before anything refused it; now a line over 16 MiB is a parse
/// error at that line, in both text parsers.
#[test]
fn a_huge_line_is_refused_while_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("huge.txt");
    let mut f = std::fs::File::create(&p).unwrap();
    writeln!(f, "# a comment").unwrap();
    f.write_all(b"Category[ index=0 name=").unwrap();
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..20 {
        f.write_all(&chunk).unwrap();
    }
    writeln!(f, " ]").unwrap();
    drop(f);
    for threads in [1, 2] {
        let e = trace::open_source_with(&p, threads)
            .and_then(|mut s| {
                while s.next_record()?.is_some() {}
                Ok(())
            })
            .expect_err("a 20 MiB line");
        let m = e.to_string();
        assert!(m.contains("huge.txt:2:1"), "threads {threads}: {m}");
        assert!(m.contains("longer than 16 MiB"), "threads {threads}: {m}");
    }
}

/// Issue #26: a binary input named what it is, not "mistyped keyword?";
/// a missing `.otf2` path is a missing file, not a missing plugin.
#[test]
fn binary_and_missing_inputs_say_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let elf = dir.path().join("prog");
    std::fs::write(&elf, b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0rest").unwrap();
    let e = trace::open_source(&elf).err().unwrap().to_string();
    assert!(e.contains("ELF") && e.contains("prog"), "{e}");
    assert!(!e.contains("keyword"), "{e}");
    let missing = dir.path().join("run.otf2");
    let e = trace::open_source(&missing).err().unwrap();
    assert_eq!(e.kind(), slog2::ErrorKind::Io);
    assert!(e.to_string().contains("run.otf2") && !e.to_string().contains("plugin"));
}
