//! The parallel text parser gives exactly what the sequential one gives:
//! the same records, locations and first error, for every chunk size and
//! thread count — on the sample traces and on random traces with composites,
//! categories defined mid-file, info payloads, comments, CRLF line ends and
//! malformed lines.

use std::io::Cursor;
use std::path::PathBuf;

mod common;

use common::{drain_batches, drain_single, Outcome};
use proptest::prelude::*;
use slog2::trace::text::TextSource;
use slog2::trace::text_par::{ParallelOptions, ParallelTextSource};

fn sequential(text: &[u8]) -> Outcome {
    let mut s = TextSource::from_read("t.txt", Cursor::new(text.to_vec()));
    drain_single(&mut s)
}

fn parallel(text: &[u8], workers: usize, chunk: usize, batches: bool) -> Outcome {
    let mut s = ParallelTextSource::from_read(
        "t.txt",
        Cursor::new(text.to_vec()),
        PathBuf::from("t.txt"),
        ParallelOptions {
            workers,
            chunk_bytes: chunk,
        },
    )
    .unwrap();
    if batches {
        drain_batches(&mut s)
    } else {
        drain_single(&mut s)
    }
}

fn assert_same(text: &[u8], workers: usize, chunk: usize) {
    let want = sequential(text);
    for batches in [false, true] {
        let got = parallel(text, workers, chunk, batches);
        assert_eq!(
            got.1, want.1,
            "error differs (workers {workers}, chunk {chunk}, batches {batches})"
        );
        assert_eq!(
            got.0.len(),
            want.0.len(),
            "record count differs (workers {workers}, chunk {chunk}, batches {batches})"
        );
        for (k, (g, w)) in got.0.iter().zip(&want.0).enumerate() {
            assert_eq!(
                g, w,
                "record {k} (workers {workers}, chunk {chunk}, batches {batches})"
            );
        }
    }
}

fn fixture_dir() -> PathBuf {
    common::fixture("trace-sample")
}

#[test]
fn sample_traces_parse_the_same_in_parallel() {
    let mut n = 0;
    for e in std::fs::read_dir(fixture_dir()).expect("../shared/fixtures/trace-sample") {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "txt")
            && !p.to_string_lossy().contains(".print")
            && !p.to_string_lossy().contains("trace_print")
        {
            let text = std::fs::read(&p).unwrap();
            for chunk in [1, 7, 64, 300, 1 << 20] {
                for workers in [1, 3] {
                    assert_same(&text, workers, chunk);
                }
            }
            n += 1;
        }
    }
    assert!(n >= 10, "only {n} sample traces found");
}

#[test]
fn a_large_trace_parses_the_same_in_parallel() {
    let mut text = String::new();
    text.push_str("Category[ index=0 name=msg topo=Arrow color=(255,0,0,255,true) width=1 < tag=%d, size=%d > ]\n");
    text.push_str("Category[ index=1 name=st topo=State color=(0,255,0,127,true) width=1 ]\n");
    for i in 0..20000 {
        let t = i as f64 * 1e-6;
        if i % 7 == 0 {
            text.push_str(&format!(
                "Primitive[ TimeBBox({:.7},{:.7}) Category=0 ({:.7}, {}) ({:.7}, {}) < tag={i}, size={} > ]\n",
                t - 5e-7, t, t - 5e-7, i % 16, t, (i + 1) % 16, i * 3
            ));
        } else if i % 97 == 0 {
            text.push_str(&format!(
                "Composite[ TimeBBox({:.7},{:.7}) Category=1 NumPrimes=2 ]\n\
                 Primitive[ TimeBBox({:.7},{:.7}) Category=1 ({:.7}, 1) ({:.7}, 1) ]\n\
                 Primitive[ TimeBBox({:.7},{:.7}) Category=1 ({:.7}, 2) ({:.7}, 2) ]\n",
                t - 2e-6,
                t,
                t - 2e-6,
                t - 1e-6,
                t - 2e-6,
                t - 1e-6,
                t - 1e-6,
                t,
                t - 1e-6,
                t
            ));
        } else {
            text.push_str(&format!(
                "Primitive[ TimeBBox({:.7},{:.7}) Category=1 ({:.7}, {}) ({:.7}, {}) ]\n",
                t - 3e-7,
                t,
                t - 3e-7,
                i % 16,
                t,
                i % 16
            ));
        }
    }
    let (records, error) = sequential(text.as_bytes());
    assert_eq!(error, None);
    assert_eq!(records.len(), 2 + 20000);
    for chunk in [4096, 65536] {
        assert_same(text.as_bytes(), 2, chunk);
    }
}

/// Info text that matches category `c`'s label (see `header`).
fn info_for(c: i32) -> &'static str {
    match c {
        0 | 1 => "< a=1 b=2 >",
        2 => "< x=7 >",
        _ => "",
    }
}

/// Categories 0..3 with labels, so most random lines are valid.
fn header() -> String {
    let mut s = String::new();
    for (i, label) in [
        (0, "< a=%d b=%d >"),
        (1, "< a=%d b=%d >"),
        (2, "< x=%d >"),
        (3, ""),
    ] {
        s.push_str(&format!(
            "Category[ index={i} name=c{i} topo=State color=(1,2,3,255,true) width=1 {label} ]\n"
        ));
    }
    s
}

/// One line (or a composite's lines) of a random trace; errors are rare so
/// that streams run long and cross many chunk boundaries.
fn line() -> impl Strategy<Value = String> {
    let t = (0u32..1000).prop_map(|k| k as f64 / 1000.0);
    prop_oneof![
        // Primitives with matching info (or none).
        30 => (t.clone(), 0i32..6, 0i32..4, any::<bool>()).prop_map(|(t, l, c, with)| format!(
            "Primitive[ TimeBBox({t},{e}) Category={c} ({t}, {l}) ({e}, {l}) {info} ]",
            e = t + 0.5,
            info = if with { info_for(c) } else { "" }
        )),
        // Composites of n members with info on the header and members.
        10 => (t.clone(), 1usize..5).prop_map(|(t, n)| {
            let mut s = format!("Composite[ TimeBBox({t},{e}) Category=2 NumPrimes={n} < x=3 > ]", e = t + 1.0);
            for k in 0..n {
                s.push_str(&format!(
                    "\nPrimitive[ TimeBBox({t},{e}) Category={c} ({t}, {k}) ({e}, {k}) {info} ]",
                    e = t + 0.5,
                    c = k % 4,
                    info = info_for((k % 4) as i32)
                ));
            }
            s
        }),
        // A category redefined mid-file (changes how later info encodes).
        2 => (0i32..4, prop_oneof![Just("< a=%d b=%d >"), Just("< x=%d >"), Just("< x=%d y=%d >")]).prop_map(
            |(i, label)| format!(
                "Category[ index={i} name=r{i} topo=State color=(1,2,3,255,true) width=1 {label} ]"
            )
        ),
        3 => Just("# a comment".to_string()),
        2 => Just(String::new()),
        1 => Just("YCoordMap[ Nrows=1 Ncolumns=2 Nmethods=0 title=m colnames=< a > ( 0 1 ) ]".to_string()),
        // Rare errors: bad number, info the label does not match, composites
        // with a missing or wrong member, info on an undefined category.
        1 => Just("Primitive[ TimeBBox(0.1,0.2) Category=1 (0.1, x) ]".to_string()),
        1 => Just("Primitive[ TimeBBox(0.1,0.2) Category=2 (0.1, 1) (0.2, 1) < nope > ]".to_string()),
        1 => Just("Composite[ TimeBBox(0,1) Category=1 NumPrimes=2 ]\nPrimitive[ TimeBBox(0,1) Category=1 (0, 1) (1, 1) ]\n# not a member".to_string()),
        1 => Just("Composite[ TimeBBox(0,1) Category=2 NumPrimes=3 < x=1 > ]\nPrimitive[ TimeBBox(0,1) Category=9 (0, 1) (1, 1) < z=1 > ]".to_string()),
        1 => Just("Primitive[ TimeBBox(0.1,0.2) Category=7 (0.1, 1) (0.2, 1) < q=1 > ]".to_string()),
    ]
}

fn trace() -> impl Strategy<Value = Vec<u8>> {
    common::traces(header(), line(), 80)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn random_traces_parse_the_same_in_parallel(
        text in trace(),
        workers in 1usize..4,
        chunk in prop_oneof![1usize..40, 40usize..400, Just(1 << 20)],
    ) {
        assert_same(&text, workers, chunk);
    }
}

/// The parallel parser counts lines that are no record (a mistyped
/// keyword) like the sequential one, across chunks, with the first line.
#[test]
fn skipped_lines_are_counted_like_the_sequential_parser() {
    use slog2::trace::TraceSource;
    let mut text =
        String::from("Category[ index=0 name=s topo=State color=(1,2,3,4,true) width=1 ]\n");
    for i in 0..400 {
        let kw = if i % 97 == 5 { "Primtive" } else { "Primitive" };
        text += &format!(
            "{kw}[ TimeBBox({i},{}) Category=0 ({i}, 0) ({}, 0) ]\n",
            i + 1,
            i + 1
        );
    }
    let mut seq = TextSource::from_read("t.txt", Cursor::new(text.clone().into_bytes()));
    while seq.next_record().unwrap().is_some() {}
    let want = seq.skipped().expect("the sequential parser counts");
    assert!(
        want.contains("5 line(s) of t.txt") && want.contains("first: line 7"),
        "{want}"
    );
    for (workers, chunk) in [(1, 64), (3, 200), (2, 1 << 20)] {
        let mut par = ParallelTextSource::from_read(
            "t.txt",
            Cursor::new(text.clone().into_bytes()),
            PathBuf::from("t.txt"),
            ParallelOptions {
                workers,
                chunk_bytes: chunk,
            },
        )
        .unwrap();
        while par.next_record().unwrap().is_some() {}
        assert_eq!(
            par.skipped().as_deref(),
            Some(want.as_str()),
            "{workers} workers, {chunk} B chunks"
        );
    }
}
