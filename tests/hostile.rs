//! Hostile files and ordinary accidents (issue #16), each reproduced here:
//! every test failed (panic, wrong output, lost data) before its fix.

mod common;

use std::path::{Path, PathBuf};

use slog2::convert::{convert, ConvertOptions};
use slog2::format::{PackedNode, PACKED_PREFIX};
use slog2::trace::{self, Record, TraceSource};
use slog2::*;

fn fixtures() -> PathBuf {
    common::fixtures()
}

fn all_records(s: &mut dyn TraceSource) -> Vec<Record> {
    let mut v = Vec::new();
    while let Some(r) = s.next_record().unwrap() {
        v.push(r);
    }
    v
}

fn run_convert(src: &mut dyn TraceSource, out: &Path) -> Result<slog2::convert::ConvertSummary> {
    convert(
        src,
        out,
        &ConvertOptions::default(),
        &mut |_| {},
        &mut |_| {},
    )
}

/// Replace every big-endian encoding of `from` in `bytes` by `to`.
fn patch_f64(bytes: &mut [u8], from: f64, to: f64) -> usize {
    let (a, b) = (from.to_be_bytes(), to.to_be_bytes());
    let mut n = 0;
    let mut i = 0;
    while i + 8 <= bytes.len() {
        if bytes[i..i + 8] == a {
            bytes[i..i + 8].copy_from_slice(&b);
            n += 1;
            i += 8;
        } else {
            i += 1;
        }
    }
    n
}

/// A file `check` accepted with a vertex (and the boxes above it) at +inf:
/// re-treeing it panicked with an index out of bounds in the SLOG-2
/// source's error path (the drawable's position in its node was taken for
/// the node's directory position). Now: an error naming file and node.
#[test]
fn retree_vertex_at_infinity_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(fixtures().join("trace-sample/onetimeline.slog2")).unwrap();
    assert_eq!(patch_f64(&mut bytes, 0.0025, f64::INFINITY), 3);
    let input = dir.path().join("inf.slog2");
    std::fs::write(&input, &bytes).unwrap();
    // `check` now reports what the writer refuses (issue #27 class 8; it
    // used to accept this file).
    let rep = Slog2File::open(&input).unwrap().check();
    assert!(
        rep.errors.iter().any(|e| e.contains("not finite")),
        "{:?}",
        rep.errors
    );
    let out = dir.path().join("out.slog2");
    for sorted in [false, true] {
        let mut src = if sorted {
            trace::slog2::Slog2Source::open_sorted(&input).unwrap()
        } else {
            trace::slog2::Slog2Source::open(&input).unwrap()
        };
        let e = run_convert(&mut src, &out).expect_err("a vertex at +inf cannot be written");
        let msg = e.to_string();
        assert!(
            msg.contains("not finite") && msg.contains("inf.slog2") && msg.contains("node (0, 0)"),
            "{msg}"
        );
        assert!(!out.exists());
    }
}

/// Negative category indices are the preview categories': a drawable using
/// one gave a file every reader rejects (exit 0 before).
#[test]
fn negative_category_indices_are_rejected_by_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("neg.slog2");
    for cat in [-1, -2, -3] {
        // From the text format, a primitive and a composite member.
        let prim = format!(
            "Category[ index=0 name=s topo=State color=(1,2,3,4,true) width=1 ]\n\
             Primitive[ TimeBBox(0,1) Category=0 (0, 0) (1, 0) ]\n\
             Primitive[ TimeBBox(1,2) Category={cat} (1, 0) (2, 0) ]\n"
        );
        let comp = format!(
            "Category[ index=0 name=s topo=State color=(1,2,3,4,true) width=1 ]\n\
             Composite[ TimeBBox(0,2) Category=0 NumPrimes=1 ]\n\
             Primitive[ TimeBBox(0,2) Category={cat} (0, 0) (2, 0) ]\n"
        );
        for text in [prim, comp] {
            let mut src = trace::text::TextSource::from_str("neg.txt", &text);
            let e = run_convert(&mut src, &out).expect_err("negative category");
            let msg = e.to_string();
            assert!(
                msg.contains(&format!("category index {cat} is negative"))
                    && msg.contains("neg.txt:"),
                "{msg}"
            );
            assert!(!out.exists());
        }
        // Straight to the writer (the C ABI's path).
        let mut w = Slog2Writer::create(&out, WriterOptions::default()).unwrap();
        let p = Primitive::new(cat, vec![Vertex::new(0.0, 0), Vertex::new(1.0, 0)], vec![]);
        assert!(w.add_drawable(Drawable::Primitive(p)).is_err());
        drop(w);
        assert!(!out.exists());
    }
}

/// The same, from an SLOG-2 file whose drawable uses category -3: it used
/// to convert with exit 0 into a file `check` rejects.
#[test]
fn negative_category_from_an_slog2_source_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let src_path = fixtures().join("trace-sample/onetimeline.slog2");
    let mut bytes = std::fs::read(&src_path).unwrap();
    // Every drawable of this file has category 13 or 82; find the i32 13
    // that follows a drawable's info/vertex counts by trying each
    // occurrence until the file still opens and holds a -3 drawable.
    let pat = 13i32.to_be_bytes();
    let mut found = None;
    for i in 0..bytes.len() - 4 {
        if bytes[i..i + 4] != pat {
            continue;
        }
        let mut b = bytes.clone();
        b[i..i + 4].copy_from_slice(&(-3i32).to_be_bytes());
        if let Ok(f) = Slog2File::from_bytes(b.clone()) {
            if f.drawables().any(|d| d.is_ok_and(|d| d.category() == -3)) {
                found = Some(b);
                break;
            }
        }
    }
    bytes = found.expect("a drawable's category field");
    let input = dir.path().join("neg.slog2");
    std::fs::write(&input, &bytes).unwrap();
    let out = dir.path().join("out.slog2");
    let mut src = trace::slog2::Slog2Source::open(&input).unwrap();
    let e = run_convert(&mut src, &out).expect_err("negative category");
    assert!(e.to_string().contains("is negative"), "{e}");
    assert!(!out.exists());
}

/// Format sniffing read the first bytes of a FIFO, and the text parser,
/// opening the path again, lost them (the first record).
#[test]
fn fifo_input_keeps_its_first_record() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("in.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let data = fixtures().join("trace-sample/data.txt");
    let text = std::fs::read(&data).unwrap();
    let expected = all_records(trace::open_source(&data).unwrap().as_mut());
    for threads in [0, 1, 4] {
        let f2 = fifo.clone();
        let t2 = text.clone();
        let writer = std::thread::spawn(move || std::fs::write(&f2, &t2).unwrap());
        let got = all_records(trace::open_source_with(&fifo, threads).unwrap().as_mut());
        writer.join().unwrap();
        assert_eq!(got.len(), expected.len(), "threads {threads}");
        assert_eq!(got, expected, "threads {threads}");
    }
    // An SLOG-2 stream is read into memory as far as its header's blocks
    // reach (tests/inputs.rs has every format through a FIFO).
    let f2 = fifo.clone();
    let writer = std::thread::spawn(move || {
        let b = std::fs::read(fixtures().join("trace-sample/data.slog2")).unwrap();
        let _ = std::fs::write(&f2, &b);
    });
    let got = all_records(trace::open_source(&fifo).unwrap().as_mut());
    writer.join().unwrap();
    let expected = all_records(
        trace::open_source(&fixtures().join("trace-sample/data.slog2"))
            .unwrap()
            .as_mut(),
    );
    assert_eq!(got, expected);
}

/// `convert X -o X` replaced the user's trace by its conversion.
#[test]
fn output_equal_to_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.slog2");
    std::fs::copy(fixtures().join("trace-sample/data.slog2"), &x).unwrap();
    let link = dir.path().join("link.slog2");
    std::fs::hard_link(&x, &link).unwrap();
    let dotted = dir.path().join(".").join("x.slog2");
    for out in [&x, &link, &dotted] {
        let e = slog2::convert::check_output_is_not_input(&x, out).expect_err("same file");
        assert!(e.to_string().contains("is the input file"), "{e}");
    }
    slog2::convert::check_output_is_not_input(&x, &dir.path().join("new.slog2")).unwrap();
    let other = dir.path().join("other.slog2");
    std::fs::copy(&x, &other).unwrap();
    slog2::convert::check_output_is_not_input(&x, &other).unwrap();
}

fn tiny_file(path: &Path) -> Result<WriteSummary> {
    let mut w = Slog2Writer::create(path, WriterOptions::default())?;
    let p = Primitive::new(0, vec![Vertex::new(0.0, 0), Vertex::new(1.0, 0)], vec![]);
    w.add_drawable(Drawable::Primitive(p))?;
    w.finish()
}

/// A writer killed outright leaves its temporary file; the next writer of
/// the same target removes it (its process is gone) but not the temporary
/// files of live writers or of other targets.
#[test]
fn stale_temp_files_of_dead_writers_are_cleaned() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = dir
        .path()
        .join(format!(".t.slog2.slog2tmp-{dead}-abc123.partial"));
    let live = dir.path().join(format!(
        ".t.slog2.slog2tmp-{}-abc123.partial",
        std::process::id()
    ));
    let other = dir
        .path()
        .join(format!(".u.slog2.slog2tmp-{dead}-abc123.partial"));
    for p in [&stale, &live, &other] {
        std::fs::write(p, b"half a file").unwrap();
    }
    tiny_file(&dir.path().join("t.slog2")).unwrap();
    assert!(!stale.exists());
    assert!(live.exists() && other.exists());
}

/// A missing output directory read as a missing file.
#[test]
fn missing_output_directory_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let e = tiny_file(&dir.path().join("nope/out.slog2")).expect_err("no directory");
    let msg = e.to_string();
    assert!(
        msg.contains("output directory") && msg.contains("nope"),
        "{msg}"
    );
}

/// A text file opened as SLOG-2 printed up to 32 KB of it as the version.
#[test]
fn non_slog2_file_error_is_short() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.txt");
    let mut text = std::fs::read(fixtures().join("trace-sample/data.txt")).unwrap();
    text.resize(40_000, b'x');
    std::fs::write(&p, &text).unwrap();
    let e = Slog2File::open(&p).expect_err("not SLOG-2");
    let msg = e.to_string();
    // A short quote, plus the convert command naming the file twice.
    let path = p.display().to_string().len();
    assert!(msg.len() < 200 + 2 * path, "{} bytes: {msg}", msg.len());
    assert!(msg.contains("not an SLOG-2"), "{msg}");
    assert!(msg.contains("convert it first"), "{msg}");
}

/// 3000 synthetic drawables in a tree of small leaves (4 KiB, 2 children
/// per node): a file with many nodes on several levels, to damage.
fn small_multilevel_file(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let mut w = Slog2Writer::create(
        &path,
        WriterOptions {
            children_per_node: 2,
            leaf_bytesize: 4096,
            ..Default::default()
        },
    )
    .unwrap();
    for c in slog2_dev::synth::categories() {
        w.add_category(c).unwrap();
    }
    for d in slog2_dev::synth::Synthetic::new(3000, 4, 7) {
        w.add_drawable(d).unwrap();
    }
    w.finish().unwrap();
    path
}

/// A directory pointing many entries at one large node made `print` and
/// `query` (and the C ABI's SLOG2_Query_window_size, aborting its host)
/// decode that node once per entry. Each node now needs bytes of its own:
/// the node bytes a query reads sum to at most the file size.
#[test]
fn directory_entries_sharing_one_block_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_multilevel_file(dir.path(), "many.slog2");
    let f = Slog2File::open(&path).unwrap();
    let n = f.directory().len();
    assert!(n > 8);
    let big = *f.directory().iter().max_by_key(|e| e.ptr.size).unwrap();
    let dir_at = f.header().treedir.offset as usize + 4;
    let mut bytes = f.as_bytes().to_vec();
    drop(f);
    for i in 0..n {
        // depth i16, xpos i32, two f64 times, then the block pointer.
        let at = dir_at + i * slog2::format::DIR_ENTRY_SIZE + 2 + 4 + 16;
        bytes[at..at + 8].copy_from_slice(&big.ptr.offset.to_be_bytes());
        bytes[at + 8..at + 12].copy_from_slice(&big.ptr.size.to_be_bytes());
    }
    let e = Slog2File::from_bytes(bytes).expect_err("shared blocks");
    assert!(e.to_string().contains("overlaps"), "{e}");
}

/// A record with a mistyped keyword was dropped without a word; it is still
/// skipped (the reference's leniency) but counted and reported.
#[test]
fn mistyped_keyword_is_counted_and_reported() {
    let text = "Category[ index=0 name=s topo=State color=(1,2,3,4,true) width=1 ]\n\
                Primitive[ TimeBBox(0,1) Category=0 (0, 0) (1, 0) ]\n\
                Primtive[ TimeBBox(1,2) Category=0 (1, 0) (2, 0) ]\n\
                \n\
                # a comment is no record and no typo\n\
                Primitive[ TimeBBox(2,3) Category=0 (2, 0) (3, 0) ]\n\
                Primitve[ TimeBBox(3,4) Category=0 (3, 0) (4, 0) ]\n";
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.slog2");
    let mut src = trace::text::TextSource::from_str("typo.txt", text);
    let mut warnings = Vec::new();
    let s = convert(
        &mut src,
        &out,
        &ConvertOptions::default(),
        &mut |_| {},
        &mut |w| warnings.push(w.to_string()),
    )
    .unwrap();
    assert_eq!(s.write.drawables, 2);
    assert_eq!(s.warnings, 1);
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].contains("2 line(s) of typo.txt") && warnings[0].contains("first: line 3"),
        "{warnings:?}"
    );
}

/// Fuzz-found (retree target): a category whose stored info token is no
/// token of the format (`%\xf3`) was copied by re-treeing into a file that
/// failed `check`. The writer now refuses the category, so the conversion
/// fails with a message naming it and leaves no file.
#[test]
fn retree_refuses_a_category_with_an_unknown_info_token() {
    let mut bytes = std::fs::read(fixtures().join("trace-sample/data.slog2")).unwrap();
    let at = bytes
        .windows(4)
        .position(|w| w == b"\x00\x02dd")
        .expect("the message category's tokens");
    bytes[at + 3] = 0xf3;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.slog2");
    std::fs::write(&input, &bytes).unwrap();
    let out = dir.path().join("out.slog2");
    let mut src = trace::slog2::Slog2Source::open(&input).unwrap();
    let e = run_convert(&mut src, &out).unwrap_err();
    assert!(e.to_string().contains("info token"), "{e}");
    assert!(!out.exists());
    // The writer refuses it directly too.
    let mut w = Slog2Writer::create(dir.path().join("w.slog2"), WriterOptions::default()).unwrap();
    let mut c = Category::new(1, "s", Topology::State, Color::rgba(1, 2, 3, 4), 1);
    c.info = InfoFormat {
        keys: vec!["a".into(), "b".into()],
        tokens: vec![b'd', 0xf3],
    };
    assert!(w.add_category(c).is_err());
}

/// Fuzz-found (retree target): payloads shorter than their category's format
/// were copied by re-treeing into a file that failed `check`. The SLOG-2
/// source now stops at the first such drawable, naming it.
#[test]
fn retree_refuses_a_payload_shorter_than_its_format() {
    let mut bytes = std::fs::read(fixtures().join("trace-sample/data.slog2")).unwrap();
    let at = bytes
        .windows(4)
        .position(|w| w == b"\x00\x02dd")
        .expect("the message category's tokens");
    // "%d %d" (8 bytes) becomes "%d %E" (12 bytes): every message payload is short.
    bytes[at + 3] = b'E';
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.slog2");
    std::fs::write(&input, &bytes).unwrap();
    let out = dir.path().join("out.slog2");
    let mut src = trace::slog2::Slog2Source::open(&input).unwrap();
    let e = run_convert(&mut src, &out).unwrap_err();
    assert!(e.to_string().contains("info payload does not fit"), "{e}");
    assert!(e.to_string().contains("in.slog2"), "{e}");
    assert!(!out.exists());
}

/// A header claiming 32767 children per node made `tree_directory` and
/// `check` loop over 32767 possible children of every node (most of them
/// absent). Children are now found by a binary search over the directory's
/// nodes: the result equals a brute-force scan of the directory, and the
/// work is bounded by the nodes that exist.
#[test]
fn huge_children_per_node_is_answered_from_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_multilevel_file(dir.path(), "nc.slog2");
    let mut bytes = std::fs::read(&path).unwrap();
    // The header: version (i16 length + bytes), then NumOfChildrenPerNode.
    let vlen = i16::from_be_bytes([bytes[0], bytes[1]]) as usize;
    let at = 2 + vlen;
    assert_eq!(i16::from_be_bytes([bytes[at], bytes[at + 1]]), 2);
    bytes[at..at + 2].copy_from_slice(&i16::MAX.to_be_bytes());
    let f = Slog2File::from_bytes(bytes).unwrap();
    assert_eq!(f.header().num_children_per_node, i16::MAX);
    let n = i64::from(i16::MAX);
    let entries = f.directory();
    assert!(entries.len() > 8);
    for e in entries {
        let (d, x) = (i64::from(e.id.depth), i64::from(e.id.xpos));
        let mut want: Vec<_> = entries
            .iter()
            .filter(|c| i64::from(c.id.depth) == d - 1)
            .filter(|c| (x * n..x * n + n).contains(&i64::from(c.id.xpos)))
            .map(|c| c.id)
            .collect();
        want.sort_by_key(|id| id.xpos);
        want.dedup();
        let got: Vec<_> = f.children(e.id).map(|c| c.id).collect();
        assert_eq!(got, want, "children of {}", e.id);
    }
    let tree = f.tree_directory();
    assert_eq!(tree.len(), entries.len());
    let edges: usize = tree
        .iter()
        .filter(|t| t.first_child >= 0)
        .map(|t| (t.last_child - t.first_child + 1) as usize)
        .sum();
    assert!(
        edges < entries.len(),
        "{edges} child links for {} nodes",
        entries.len()
    );
    // `check` reports the mismatch with the stubs instead of looping.
    let report = f.check();
    assert!(
        !report.is_valid(),
        "a tree read with the wrong fan-out is not valid"
    );
}

/// Issue #27 class 7: a category count of 2^32 in an otherwise valid file
/// passed `check`, and Python's windowed scan planned 4.3 million windows
/// from it. Counts are hints: clamped at open to what the tree nodes can
/// hold, and `check` reports the stored value as an error.
#[test]
fn a_stored_count_beyond_the_file_is_clamped_and_reported() {
    let good = std::fs::read(fixtures().join("trace-sample/data.slog2")).unwrap();
    let f = Slog2File::from_bytes(good.clone()).unwrap();
    let r = f
        .header()
        .categories
        .range("categories", good.len() as u64)
        .unwrap();
    let mut cats = f.categories().to_vec();
    let last = cats.len() - 1;
    cats[last].count = 1 << 32;
    let mut block = Vec::new();
    slog2::format::encode_categories(&mut block, cats.iter());
    assert_eq!(block.len(), r.len());
    let mut bad = good.clone();
    bad[r].copy_from_slice(&block);
    let f = Slog2File::from_bytes(bad).unwrap();
    let node_bytes: i64 = f.directory().iter().map(|e| e.ptr.size as i64).sum();
    let c = &f.categories()[last];
    assert!(c.count <= node_bytes / 20, "clamped: {}", c.count);
    let rep = f.check();
    assert!(!rep.is_valid());
    assert!(
        rep.errors.iter().any(|e| e.contains("4294967296")),
        "{:?}",
        rep.errors
    );
}

/// Issue #27 class 8: a NaN vertex time and a negative category on a real
/// drawable passed `check` (exit 0) while `convert` refused the same file.
/// One validation (`write::drawable_problem`) now serves both.
#[test]
fn check_and_convert_agree_on_bad_drawables() {
    let good = std::fs::read(fixtures().join("trace-sample/data.slog2")).unwrap();
    let f = Slog2File::from_bytes(good.clone()).unwrap();
    let d0 = f.drawables().next().unwrap().unwrap();
    let t = d0.primitives()[0].vertices[0].time;
    let dir = tempfile::tempdir().unwrap();
    // A NaN in place of a vertex time (every copy of that value).
    let mut nan = good.clone();
    assert!(patch_f64(&mut nan, t, f64::NAN) > 0);
    let p = dir.path().join("nan.slog2");
    std::fs::write(&p, &nan).unwrap();
    let rep = Slog2File::open(&p).unwrap().check();
    let refused = run_convert(
        trace::open_source(&p).unwrap().as_mut(),
        &dir.path().join("nan-out.slog2"),
    );
    assert!(refused.is_err());
    assert!(
        rep.errors.iter().any(|e| e.contains("not finite")),
        "check must say what convert refuses: {:?}",
        rep.errors
    );
}

// --- Compressed tree nodes (SLOG 2.0.Z): damaged and hostile nodes ---

/// Every query that reads nodes, on a file with damaged nodes: errors, no
/// panic.
fn query_everything(f: &Slog2File) -> Vec<(ErrorKind, String)> {
    let mut errors = Vec::new();
    let tb = f.total_time();
    let mut note = |r: Result<()>| {
        if let Err(e) = r {
            errors.push((e.kind(), e.to_string()));
        }
    };
    for e in f.directory() {
        note(f.read_node(e, format::NodeParts::All).map(|_| ()));
    }
    note(f.window_rows(tb.start, tb.end).map(|_| ()));
    note(f.preview_rows(tb.start, tb.end, 1).map(|_| ()));
    note(f.scan_rows().map(|_| ()));
    let mut c = read::WindowCursor::new();
    note(c.move_to(f, tb.start, tb.end).map(|_| ()));
    let _ = f.check();
    let _ = f.node_storage();
    errors
}

/// Patch the part header of node `pos`'s drawables (method, plain size).
fn patch_part(bytes: &mut [u8], f: &Slog2File, pos: usize, method: Option<u8>, plain: Option<i32>) {
    let at = f.directory()[pos].ptr.offset as usize + 34;
    if let Some(m) = method {
        bytes[at] = m;
    }
    if let Some(p) = plain {
        bytes[at + 1..at + 5].copy_from_slice(&p.to_be_bytes());
    }
}

#[test]
fn hostile_part_headers_are_errors_naming_the_node() {
    let dir = tempfile::tempdir().unwrap();
    let z = common::compressed_synthetic(dir.path());
    let f = Slog2File::open(&z).unwrap();
    let orig = std::fs::read(&z).unwrap();
    // A leaf whose drawables are zlib or fields (not stored).
    let pos = (0..f.directory().len())
        .find(|&i| {
            let e = &f.directory()[i];
            let r = e.ptr.range("n", f.file_len()).unwrap();
            let p = PackedNode::parse(&orig[r], e.ptr.offset as u64).unwrap();
            e.id.depth == 0 && p.parts[0].method != format::Method::Stored
        })
        .unwrap();
    let id = f.directory()[pos].id;
    let plain = {
        let e = &f.directory()[pos];
        let r = e.ptr.range("n", f.file_len()).unwrap();
        PackedNode::parse(&orig[r], e.ptr.offset as u64)
            .unwrap()
            .parts[0]
            .plain as i32
    };
    let cases: Vec<(&str, Option<u8>, Option<i32>)> = vec![
        ("unknown compression method 7", Some(7), None),
        // One byte less declared than the stream inflates to: stops at once.
        ("beyond its declared", None, Some(plain - 1)),
        ("where", None, Some(plain + 1)),
        // A zip bomb: 2 GB declared from a few KB.
        ("more than it can hold", None, Some(i32::MAX)),
        ("negative part size", None, Some(-5)),
        // Stored, but the sizes disagree.
        ("more than it can hold", Some(0), None),
    ];
    for (want, method, size) in cases {
        let mut b = orig.clone();
        patch_part(&mut b, &f, pos, method, size);
        let g = Slog2File::from_bytes(b).unwrap();
        let errs = query_everything(&g);
        assert!(!errs.is_empty(), "{want}: no error");
        for (k, e) in &errs {
            assert_eq!(*k, ErrorKind::Format, "{e}");
            assert!(e.contains(&format!("node {id}")), "{want}: {e}");
        }
        assert!(
            errs.iter().any(|(_, e)| e.contains(want)),
            "{want}: {errs:?}"
        );
    }
}

/// Every single byte of a compressed node's payload changed, one at a
/// time: an error or the same answers, never a panic. (zlib's checksum
/// catches nearly all of them.)
#[test]
fn damaged_payload_bytes_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let z = common::compressed_synthetic(dir.path());
    let f = Slog2File::open(&z).unwrap();
    let orig = std::fs::read(&z).unwrap();
    let e = f.directory()[f.directory().len() / 2];
    let (start, len) = (
        e.ptr.offset as usize + PACKED_PREFIX,
        e.ptr.size as usize - PACKED_PREFIX,
    );
    let mut caught = 0;
    for i in (0..len).step_by((len / 300).max(1)) {
        let mut b = orig.clone();
        b[start + i] ^= 0x5a;
        let g = Slog2File::from_bytes(b).unwrap();
        let errs = query_everything(&g);
        if !errs.is_empty() {
            caught += 1;
            // A damaged zlib stream names the node; a damaged stored part
            // (a leaf's four-byte stub list) is a plain format error.
            assert!(
                errs.iter().all(|(k, m)| *k == ErrorKind::Format
                    && (m.contains(&format!("node {}", e.id))
                        || m.starts_with("malformed")
                        || m.starts_with("truncated"))),
                "{errs:?}"
            );
        }
    }
    assert!(caught > 0);
}
