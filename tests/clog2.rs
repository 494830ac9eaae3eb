//! The CLOG2 source against the reference fixtures (`../shared/fixtures/clog2`):
//! conversions equal the reference `.slog2` semantically, refusals name the
//! cause and the record, the dump equals `clog2print`'s byte for byte, and
//! damaged files (cut at every block and record boundary, every byte flipped)
//! give errors, never a panic or a hang.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use slog2::convert::{convert, ConvertOptions};
use slog2::trace::clog2::{self, print, Clog2Source};
use slog2::trace::{Record, TraceSource};
use slog2::Slog2File;

const CONVERTIBLE: [&str; 5] = [
    "user_states",
    "info_formats",
    "threads",
    "edge_cases",
    "big_stencil",
];
const ALL: [&str; 7] = [
    "user_states",
    "info_formats",
    "threads",
    "edge_cases",
    "big_stencil",
    "fail_unknown_color",
    "fail_undefined_event",
];

fn dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/clog2");
    assert!(
        d.is_dir(),
        "fixtures missing: {} (the suite cannot run)",
        d.display()
    );
    d
}

fn fixture(name: &str, ext: &str) -> PathBuf {
    dir().join(format!("{name}.{ext}"))
}

/// The value after `key = ` in the reference converter's output.
fn convert_txt(name: &str, key: &str) -> u64 {
    let t = std::fs::read_to_string(fixture(name, "convert.txt")).unwrap();
    let line = t
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("{name}: no {key} line"));
    line.rsplit('=').next().unwrap().trim().parse().unwrap()
}

type CatKey = (i32, String, i32, i8, String, i64);

fn categories(f: &Slog2File) -> BTreeMap<String, CatKey> {
    f.categories()
        .iter()
        .filter(|c| !c.is_preview())
        .map(|c| {
            (
                c.name.clone(),
                (
                    c.index,
                    c.topology.name().to_string(),
                    c.color.to_argb(),
                    c.width,
                    c.info.label(),
                    c.count,
                ),
            )
        })
        .collect()
}

fn drawables(f: &Slog2File) -> Vec<String> {
    let mut v: Vec<String> = f
        .drawables()
        .map(|d| {
            let d = d.unwrap();
            let cat = f
                .category(d.category())
                .map(|c| c.name.clone())
                .unwrap_or_default();
            let verts: Vec<String> = d
                .primitives()
                .iter()
                .flat_map(|p| p.vertices.iter())
                .map(|v| format!("({:x},{})", v.time.to_bits(), v.line))
                .collect();
            format!("{cat} {} | {}", verts.join(" "), f.popup_text(&d))
        })
        .collect();
    v.sort();
    v
}

fn drain<S: TraceSource + ?Sized>(s: &mut S) -> slog2::Result<usize> {
    let mut n = 0;
    let mut v = Vec::new();
    loop {
        s.next_records(&mut v)?;
        if v.is_empty() {
            return Ok(n);
        }
        n += v
            .iter()
            .filter(|r| matches!(r, Record::Primitive(_)))
            .count();
    }
}

#[test]
fn conversions_equal_the_reference_files() {
    let tmp = tempfile::tempdir().unwrap();
    for name in CONVERTIBLE {
        let out = tmp.path().join(format!("{name}.slog2"));
        let mut src = Clog2Source::open(&fixture(name, "clog2")).unwrap();
        convert(
            &mut src,
            &out,
            &ConvertOptions::default(),
            &mut |_| {},
            &mut |_| {},
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let rep = src.counts().clone();
        assert_eq!(
            rep.drawables,
            convert_txt(name, "Number of Drawables"),
            "{name}"
        );
        assert_eq!(
            rep.unmatched,
            convert_txt(name, "Number of Unmatched Events"),
            "{name}"
        );
        assert_eq!(
            rep.record_bytes,
            convert_txt(name, "Total ByteSize"),
            "{name}"
        );
        let lines = TraceSource::report(&src);
        assert!(
            lines[1].starts_with("Number of Unmatched Events = "),
            "{name}: {lines:?}"
        );

        let ours = Slog2File::open(&out).unwrap();
        let reference = Slog2File::open(fixture(name, "slog2")).unwrap();
        assert_eq!(
            categories(&ours),
            categories(&reference),
            "{name}: categories"
        );
        assert_eq!(ours.ycoordmaps(), reference.ycoordmaps(), "{name}: y-maps");
        let (a, b) = (drawables(&ours), drawables(&reference));
        assert_eq!(
            a.len() as u64,
            rep.drawables,
            "{name}: drawables in the file"
        );
        assert_eq!(a.len(), b.len(), "{name}: drawable counts");
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x, y, "{name}: drawables differ");
        }
        assert!(
            ours.check().errors.is_empty(),
            "{name}: {:?}",
            ours.check().errors
        );
    }
}

#[test]
fn edge_cases_report_warnings_with_counts() {
    let mut src = Clog2Source::open(&fixture("edge_cases", "clog2")).unwrap();
    drain(&mut src).unwrap();
    let r = src.counts();
    assert_eq!(
        (
            r.open_states,
            r.unpaired_sends,
            r.unpaired_recvs,
            r.unmatched_ends
        ),
        (1, 1, 0, 1)
    );
    let w = r.warnings.join("\n");
    assert!(w.contains("state definition at byte offset"), "{w}");
    assert!(w.contains("has no open start"), "{w}");
    assert!(w.contains("1 state(s) never ended, 1 send(s)"), "{w}");
}

#[test]
fn refused_fixtures_fail_naming_cause_and_record() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, cause, record) in [
        (
            "fail_unknown_color",
            "unknown colour name \"NoSuchColour\"",
            "RecDefState[ stateID=300",
        ),
        (
            "fail_undefined_event",
            "undefined event number 7777",
            "RecBare[ etype=7777 ]",
        ),
    ] {
        let out = tmp.path().join(format!("{name}.slog2"));
        let mut src = Clog2Source::open(&fixture(name, "clog2")).unwrap();
        let e = convert(
            &mut src,
            &out,
            &ConvertOptions::default(),
            &mut |_| {},
            &mut |_| {},
        )
        .expect_err(name)
        .to_string();
        assert!(e.contains(cause), "{name}: {e}");
        assert!(e.contains(record), "{name}: {e}");
        assert!(e.contains("byte offset"), "{name}: {e}");
        assert!(!out.exists(), "{name}: output left behind");
        assert_eq!(
            std::fs::read_dir(tmp.path()).unwrap().count(),
            0,
            "{name}: temp file left"
        );
    }
}

#[test]
fn print_equals_clog2print_byte_for_byte() {
    for name in ALL {
        let mut out = Vec::new();
        print::print_file(&fixture(name, "clog2"), &mut out).unwrap();
        let want = std::fs::read(fixture(name, "clog2print.txt")).unwrap();
        assert!(out == want, "{name}: dump differs");
        // The same from bytes in memory.
        let mut out2 = Vec::new();
        print::print_bytes(&std::fs::read(fixture(name, "clog2")).unwrap(), &mut out2).unwrap();
        assert!(out2 == want, "{name}: dump from bytes differs");
    }
}

#[test]
fn detected_by_content_not_extension() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("run.bin");
    std::fs::copy(fixture("user_states", "clog2"), &p).unwrap();
    let mut s = slog2::trace::open_source(&p).unwrap();
    assert_eq!(drain(s.as_mut()).unwrap(), 372);
    assert_eq!(s.report()[0], "Number of Drawables = 372");
}

/// Offsets of every record boundary of a file (and its block boundaries).
fn boundaries(bytes: &[u8]) -> Vec<usize> {
    let pre = clog2::Preamble::parse(bytes).unwrap();
    let bs = pre.block_size as usize;
    let mut cuts = vec![0, 1, 100, 1023, 1024];
    let mut r = clog2::Clog2Reader::new(bytes, Some(bytes.len() as u64)).unwrap();
    while let Some(rec) = r.next_record().unwrap() {
        cuts.push(rec.offset as usize);
        cuts.push(rec.offset as usize + 7);
    }
    for k in 0..pre.num_blocks() as usize {
        cuts.push(1024 + k * bs);
        cuts.push(1024 + k * bs + bs / 2);
    }
    cuts.retain(|&c| c < pre.commtable_fptr as usize);
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

#[test]
fn truncated_files_are_errors() {
    for name in ["edge_cases", "user_states", "threads"] {
        let bytes = std::fs::read(fixture(name, "clog2")).unwrap();
        let cuts = boundaries(&bytes);
        assert!(cuts.len() > 50, "{name}");
        for cut in cuts {
            let b = &bytes[..cut];
            let res = Clog2Source::from_bytes(b).and_then(|mut s| drain(&mut s));
            assert!(res.is_err(), "{name} cut at {cut}: no error");
            let mut sink = Vec::new();
            assert!(
                print::print_bytes(b, &mut sink).is_err(),
                "{name} cut at {cut}: print ok"
            );
        }
    }
}

#[test]
fn every_flipped_byte_is_handled() {
    // Every byte of the 12-block file, inverted: an error or a conversion,
    // never a panic, hang or huge allocation.
    let bytes = std::fs::read(fixture("edge_cases", "clog2")).unwrap();
    let mut errors = 0;
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0xff;
        match Clog2Source::from_bytes(&b).and_then(|mut s| drain(&mut s)) {
            Ok(_) => {}
            Err(e) => {
                errors += 1;
                assert!(!e.to_string().is_empty());
            }
        }
        let mut sink = Vec::new();
        let _ = print::print_bytes(&b, &mut sink);
    }
    // Flips in headers, preamble and definitions must be caught.
    assert!(errors > 500, "only {errors} flips detected");
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn random_corruption_never_panics(
            flips in proptest::collection::vec((0usize..66724, any::<u8>()), 1..20),
            cut in 0usize..70000,
        ) {
            let mut b = std::fs::read(fixture("user_states", "clog2")).unwrap();
            for (i, v) in flips {
                if i < b.len() {
                    b[i] = v;
                }
            }
            b.truncate(cut.min(b.len()));
            let _ = Clog2Source::from_bytes(&b).and_then(|mut s| drain(&mut s));
            let mut sink = Vec::new();
            let _ = print::print_bytes(&b, &mut sink);
        }
    }
}

#[test]
fn generated_logs_convert_with_everything_matched() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("gen.clog2");
    let n = clog2::gen::generate_file(&p, 20_000, 64).unwrap();
    assert!(n >= 20_000);
    let out = tmp.path().join("gen.slog2");
    let mut src = Clog2Source::open(&p).unwrap();
    convert(
        &mut src,
        &out,
        &ConvertOptions::default(),
        &mut |_| {},
        &mut |_| {},
    )
    .unwrap();
    let r = src.counts().clone();
    assert_eq!(r.unmatched, 0);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // Per rank and iteration: 3 states, 1 event, 1 arrow.
    let iters = 20_000u64.div_ceil(9 * 64);
    assert_eq!(r.drawables, iters * 64 * 5);
    let f = Slog2File::open(&out).unwrap();
    let names: Vec<&str> = f.categories().iter().map(|c| c.name.as_str()).collect();
    for want in ["Outer", "Compute", "Inner", "Tick", "message"] {
        assert!(names.contains(&want), "{names:?}");
    }
    assert!(f.check().errors.is_empty());
    // Popup of the nested cargo state.
    let inner = f
        .drawables()
        .map(|d| d.unwrap())
        .find(|d| f.category(d.category()).unwrap().name == "Inner")
        .unwrap();
    assert!(
        f.popup_text(&inner).starts_with("value="),
        "{}",
        f.popup_text(&inner)
    );
}

/// A log of two processes (4 KiB blocks), their world communicator
/// announced.
fn two_rank_log(
    buf: &mut std::io::Cursor<Vec<u8>>,
) -> clog2::gen::Clog2Writer<&mut std::io::Cursor<Vec<u8>>> {
    let mut w = clog2::gen::Clog2Writer::new(
        buf,
        clog2::gen::GenPreamble {
            block_size: 4096,
            world_size: 2,
            thread_count: 1,
            user_state_count: 0,
            user_solo_count: 0,
        },
    )
    .unwrap();
    w.comm(0.0, 0, 0, 0, 0, 0).unwrap();
    w.comm(0.0, 1, 0, 0, 1, 1).unwrap();
    w
}

#[test]
fn pathological_logs_hit_the_pending_limit() {
    // A log of sends that are never received: bounded by max_pending.
    let mut buf = std::io::Cursor::new(Vec::new());
    let mut w = two_rank_log(&mut buf);
    for i in 0..5000 {
        w.msg(1.0 + i as f64, 0, 0, clog2::SEND, 1, i, 4).unwrap();
    }
    w.finish().unwrap();
    let bytes = buf.into_inner();
    let opts = clog2::Clog2Options { max_pending: 1000 };
    let mut s =
        Clog2Source::new(&bytes[..], Some(bytes.len() as u64), "sends".into(), opts).unwrap();
    let e = drain(&mut s).unwrap_err().to_string();
    assert!(e.contains("more than 1000 items pending"), "{e}");
    assert!(e.contains("1001 sends"), "{e}");
    // Below the limit: read to the end, leftovers counted and warned about.
    let mut s = Clog2Source::from_bytes(&bytes).unwrap();
    assert_eq!(drain(&mut s).unwrap(), 0);
    let c = s.counts();
    assert_eq!((c.unpaired_sends, c.unmatched), (5000, 5000));
    assert!(c.warnings[0].contains("5000 send(s)"), "{:?}", c.warnings);
}

/// Open states are kept per line in a short list (line IDs below 65536) or
/// in a map (the rest): both give the pairing a brute-force FIFO per
/// (category, line) gives, and the same leftovers.
#[test]
fn open_states_pair_alike_on_dense_and_sparse_lines() {
    let mut buf = std::io::Cursor::new(Vec::new());
    let mut w = two_rank_log(&mut buf);
    w.comm(0.0, 0, 2, 40000, 0, 0).unwrap();
    w.comm(0.0, 1, 2, 40000, 1, 1).unwrap();
    w.state_def(0.0, 300, 600, 601, "gray", "A", "").unwrap();
    w.state_def(0.0, 301, 602, 603, "red", "B", "").unwrap();
    // Line ID = icomm * 2 + rank: icomm 40000 puts rank 1 on line 80001.
    let lines = [(0, 0), (0, 1), (40000, 1), (40000, 0)];
    let mut rng = 7u64;
    let mut next = move || {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (rng >> 33) as usize
    };
    let mut expect: BTreeMap<(i32, i32), Vec<f64>> = BTreeMap::new();
    let mut pairs: Vec<(i32, i32, f64, f64)> = Vec::new();
    for i in 0..4000 {
        let t = 1.0 + i as f64 * 1e-3;
        let (icomm, rank) = lines[next() % 4];
        let cat = (next() % 2) as i32;
        let line = icomm * 2 + rank;
        let q = expect.entry((cat, line)).or_default();
        if next() % 2 == 0 || q.is_empty() {
            w.bare(t, icomm, rank, 0, 600 + 2 * cat).unwrap();
            q.push(t);
        } else {
            w.bare(t, icomm, rank, 0, 601 + 2 * cat).unwrap();
            pairs.push((cat, line, q.remove(0), t));
        }
    }
    w.finish().unwrap();
    let bytes = buf.into_inner();
    let mut s = Clog2Source::from_bytes(&bytes).unwrap();
    let mut got = Vec::new();
    let mut v = Vec::new();
    loop {
        s.next_records(&mut v).unwrap();
        if v.is_empty() {
            break;
        }
        for r in &v {
            if let Record::Primitive(p) = r {
                let vs = &p.primitive.vertices;
                got.push((p.primitive.category, vs[0].line, vs[0].time, vs[1].time));
            }
        }
    }
    // Category indices are the converter's; map them back by first use.
    let mut index_of: BTreeMap<i32, i32> = BTreeMap::new();
    for ((c, _, _, _), (gc, _, _, _)) in pairs.iter().zip(&got) {
        assert_eq!(*index_of.entry(*c).or_insert(*gc), *gc);
    }
    let want: Vec<(i32, i32, f64, f64)> = pairs
        .iter()
        .map(|&(c, l, a, b)| (index_of[&c], l, a, b))
        .collect();
    assert_eq!(got, want);
    assert!(got.iter().any(|g| g.1 == 80001) && got.iter().any(|g| g.1 == 1));
    let left: usize = expect.values().map(Vec::len).sum();
    assert!(left > 0);
    assert_eq!(s.counts().open_states, left as u64);
    assert_eq!(s.counts().unmatched, left as u64);
}

/// Every record of a source, or its error with the source's name replaced.
fn records_or_error<S: TraceSource + ?Sized>(s: &mut S, name: &str) -> Result<Vec<Record>, String> {
    let mut all = Vec::new();
    let mut batch = Vec::new();
    loop {
        match s.next_records(&mut batch) {
            Ok(()) if batch.is_empty() => return Ok(all),
            Ok(()) => all.append(&mut batch),
            Err(e) => return Err(e.to_string().replace(name, "<bytes>")),
        }
    }
}

#[test]
fn mapped_file_reads_like_the_byte_stream() {
    // `Clog2Source::open` maps the file (and drops pages every 4 MB);
    // `from_bytes` reads through the one-block buffer: the same records,
    // or the same error, for whole fixtures, every cut at a block
    // boundary, and a generated log large enough to drop pages.
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.clog2");
    clog2::gen::generate_file(&big, 200_000, 16).unwrap();
    assert!(std::fs::metadata(&big).unwrap().len() > 8 << 20);
    let mut inputs: Vec<Vec<u8>> = vec![std::fs::read(&big).unwrap()];
    for name in ["edge_cases", "user_states", "threads"] {
        let bytes = std::fs::read(fixture(name, "clog2")).unwrap();
        for cut in boundaries(&bytes).into_iter().step_by(7) {
            inputs.push(bytes[..cut].to_vec());
        }
        inputs.push(bytes);
    }
    let path = dir.path().join("in.clog2");
    let name = path.display().to_string();
    let mut converted = 0;
    for bytes in &inputs {
        std::fs::write(&path, bytes).unwrap();
        let from_bytes = Clog2Source::from_bytes(bytes)
            .map_err(|e| e.to_string())
            .and_then(|mut s| records_or_error(&mut s, "<bytes>"));
        let mapped = Clog2Source::open(&path)
            .map_err(|e| e.to_string().replace(&name, "<bytes>"))
            .and_then(|mut s| records_or_error(&mut s, &name));
        if from_bytes.is_ok() {
            converted += 1;
        }
        assert_eq!(mapped, from_bytes, "input of {} bytes", bytes.len());
    }
    assert_eq!(converted, 4, "the whole inputs convert");
}
