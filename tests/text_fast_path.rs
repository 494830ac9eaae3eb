//! The whole-line fast path of the text reader (`next_records`, which parses
//! the usual spelling of a primitive line straight from the read buffer and
//! leaves everything else to the line-by-line parser) gives exactly what the
//! line-by-line parser (`next_record`) gives: the same records, locations and
//! first error — on the sample traces, on a large trace, and on random traces
//! whose usual lines are damaged one byte at a time, read in pieces of every
//! size so that lines are cut at the end of the buffer.

use std::io::Read;

mod common;

use common::Outcome;
use proptest::prelude::*;
use slog2::trace::text::TextSource;
use slog2::trace::Record;

/// A reader that hands out at most `step` bytes per call.
struct Trickle {
    data: Vec<u8>,
    pos: usize,
    step: usize,
}

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

fn source(text: &[u8], step: usize) -> TextSource {
    TextSource::from_read(
        "t.txt",
        Trickle {
            data: text.to_vec(),
            pos: 0,
            step,
        },
    )
}

fn line_by_line(text: &[u8]) -> Outcome {
    common::drain_single(&mut source(text, usize::MAX))
}

fn batched(text: &[u8], step: usize) -> Outcome {
    common::drain_batches(&mut source(text, step))
}

fn assert_same(text: &[u8], steps: &[usize]) {
    let want = line_by_line(text);
    for &step in steps {
        let got = batched(text, step);
        assert_eq!(got.1, want.1, "error differs (read size {step})");
        assert_eq!(
            got.0.len(),
            want.0.len(),
            "record count differs (read size {step})"
        );
        for (k, (g, w)) in got.0.iter().zip(&want.0).enumerate() {
            assert_eq!(g, w, "record {k} (read size {step})");
        }
    }
}

#[test]
fn sample_traces_parse_the_same_in_batches() {
    let dir = common::fixture("trace-sample");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("../shared/fixtures/trace-sample") {
        let p = e.unwrap().path();
        let name = p.to_string_lossy().into_owned();
        if name.ends_with(".txt") && !name.contains(".print") && !name.contains("trace_print") {
            let text = std::fs::read(&p).unwrap();
            assert_same(&text, &[1, 2, 3, 7, 64, 1 << 20]);
            n += 1;
        }
    }
    assert!(n >= 10, "only {n} sample traces found");
}

#[test]
fn the_demo_trace_parses_the_same_in_batches() {
    let text = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/demo.txt")).unwrap();
    let (records, error) = line_by_line(&text);
    assert_eq!(error, None);
    assert!(records.len() > 1500);
    assert_same(&text, &[5, 97, 4096, 1 << 20]);
}

/// Categories whose labels take the fast path (all `%d`, no `>`), and some
/// that do not (`%x`, a `>` in a literal, no label).
fn header() -> String {
    [
        "Category[ index=0 name=msg topo=Arrow color=(255,255,255,255,true) width=3 < msg_tag=%d, msg_size=%d > ]",
        "Category[ index=1 name=Compute topo=State color=(255,165,0,127,true) width=1 < AA=%d BB=%d > ]",
        "Category[ index=2 name=Plain topo=State color=(0,0,255,127,true) width=1 ]",
        "Category[ index=3 name=Hex topo=Event color=(0,255,0,127,true) width=1 < h=%x > ]",
        "Category[ index=4 name=Gt topo=State color=(0,255,0,127,true) width=1 < a>%d > ]",
        "Category[ index=5 name=Lead topo=State color=(0,255,0,127,true) width=1 < %d-%d > ]",
    ]
    .join("\n")
        + "\n"
}

/// A time as the generator writes it (0.1 µs precision), sometimes bare.
fn time() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (0u64..100_000_000).prop_map(|k| format!("{}.{:07}", k / 10_000_000, k % 10_000_000)),
        1 => (0u64..100).prop_map(|k| k.to_string()),
        1 => (0u64..1000).prop_map(|k| format!("{k}e-3")),
        // Long spellings: up to 23 characters and 22 digits (more than the
        // fast paths take, and more than a double keeps).
        3 => (0u64..10_000_000, 0u64..1_000_000_000_000_000, 8usize..16)
            .prop_map(|(a, b, n)| format!("{a}.{:0n$}", b % 10u64.pow(n as u32))),
        1 => (0u64..1_000_000_000_000_000_000, 15usize..23)
            .prop_map(|(k, n)| format!("0.{:0n$}", k % 10u64.pow(n.min(19) as u32))),
    ]
}

/// One usual line (or a composite's lines).
fn usual() -> impl Strategy<Value = String> {
    let line = -3i32..20;
    let val = prop_oneof![
        0i32..100,
        Just(-5),
        Just(i32::MAX),
        Just(i32::MIN),
        Just(123_456_789)
    ];
    prop_oneof![
        // States and arrows, with and without info.
        6 => (time(), time(), line.clone(), line.clone(), 0i32..6, val.clone(), val.clone(), 0u8..4)
            .prop_map(|(s, e, a, b, c, x, y, how)| {
                // Vertex times that repeat the box's text, swap it, or
                // differ from it only in the last digit.
                let last_differs = |t: &str| {
                    let mut t = t.to_string();
                    if let Some(d) = t.pop() {
                        t.push(if d == '7' { '8' } else { '7' });
                    }
                    t
                };
                let (v0, v1) = match how {
                    0 => (s.clone(), e.clone()),
                    1 => (e.clone(), s.clone()),
                    2 => (last_differs(&s), e.clone()),
                    _ => (s.clone(), last_differs(&e)),
                };
                let info = match c {
                    0 => format!(" < msg_tag={x}, msg_size={y} >"),
                    1 => format!(" < AA={x} BB={y} >"),
                    3 => format!(" < h={:x} >", x as u32),
                    4 => format!(" < a>{x} >"),
                    5 => format!(" < {x}-{y} >"),
                    _ => String::new(),
                };
                format!("Primitive[ TimeBBox({s},{e}) Category={c} ({v0}, {a}) ({v1}, {b}){info} ]")
            }),
        // Events and many-vertex primitives.
        1 => (time(), line.clone(), 1usize..5).prop_map(|(t, l, n)| {
            let vs: Vec<String> = (0..n).map(|k| format!("({t}, {})", l + k as i32)).collect();
            format!("Primitive[ TimeBBox({t},{t}) Category=2 {} ]", vs.join(" "))
        }),
        1 => (time(), time(), 1usize..4).prop_map(|(s, e, n)| {
            let mut out = format!("Composite[ TimeBBox({s},{e}) Category=1 NumPrimes={n} < AA=1 BB=2 > ]");
            for k in 0..n {
                out.push_str(&format!("\nPrimitive[ TimeBBox({s},{e}) Category=2 ({s}, {k}) ({e}, {k}) ]"));
            }
            out
        }),
        1 => Just("# comment".to_string()),
        1 => Just("Category[ index=1 name=Re topo=State color=(1,2,3,255,true) width=1 < BB=%d AA=%d > ]".to_string()),
    ]
}

/// A usual line, or one damaged by a byte inserted, removed or replaced.
fn line() -> impl Strategy<Value = String> {
    let bytes = prop_oneof![
        Just(b' '),
        Just(b'\t'),
        Just(b'\r'),
        Just(b'>'),
        Just(b'<'),
        Just(b']'),
        Just(b','),
        Just(b'-'),
        Just(b'.'),
        Just(b'9'),
        Just(b'e'),
        Just(b'x'),
    ];
    (usual(), 0u8..9, any::<prop::sample::Index>(), bytes).prop_map(|(l, how, at, b)| {
        let mut v = l.into_bytes();
        let i = at.index(v.len() + 1);
        match how {
            0 => v.insert(i, b),
            1 if i < v.len() => {
                v.remove(i);
            }
            2 if i < v.len() => v[i] = b,
            _ => {}
        }
        String::from_utf8_lossy(&v).into_owned()
    })
}

fn trace() -> impl Strategy<Value = Vec<u8>> {
    common::traces(header(), line(), 60)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn random_traces_parse_the_same_in_batches(
        text in trace(),
        step in prop_oneof![1usize..16, 16usize..300, Just(1 << 20)],
    ) {
        assert_same(&text, &[step]);
    }
}

/// The fast path is taken: the usual lines of a long trace, with and
/// without info, come out of `next_records` with their values.
#[test]
fn usual_lines_have_their_values() {
    let mut text = header();
    for i in 0..5000 {
        let t = i as f64 * 1e-6;
        text.push_str(&format!(
            "Primitive[ TimeBBox({:.7},{:.7}) Category=0 ({:.7}, {}) ({:.7}, {}) < msg_tag={}, msg_size={} > ]\n",
            t - 5e-7,
            t,
            t - 5e-7,
            i % 16,
            t,
            (i + 1) % 16,
            i,
            -i
        ));
    }
    let (records, error) = batched(text.as_bytes(), 1 << 20);
    assert_eq!(error, None);
    assert_eq!(records.len(), 6 + 5000);
    for (i, (r, loc)) in records[6..].iter().enumerate() {
        let Record::Primitive(p) = r else {
            panic!("record {i} is not a primitive")
        };
        assert_eq!(loc, &format!("t.txt:{}", 7 + i));
        assert_eq!(p.primitive.vertices.len(), 2);
        assert_eq!(p.primitive.vertices[0].line, (i % 16) as i32);
        assert_eq!(p.primitive.vertices[1].line, ((i + 1) % 16) as i32);
        let mut info = (i as i32).to_be_bytes().to_vec();
        info.extend_from_slice(&(-(i as i32)).to_be_bytes());
        assert_eq!(&p.primitive.info[..], &info[..]);
        let t = i as f64 * 1e-6;
        let want: f64 = format!("{t:.7}").parse().unwrap();
        assert_eq!(p.stated.end.to_bits(), want.to_bits());
        assert_eq!(p.primitive.vertices[1].time.to_bits(), want.to_bits());
    }
    assert_same(text.as_bytes(), &[1 << 20, 4093]);
}

/// Long times whose text differs from the box's only after 16 characters
/// (the fast path compares 16 bytes at a time).
#[test]
fn long_times_that_differ_late() {
    let mut text = header();
    for _ in 0..10 {
        text.push_str("Primitive[ TimeBBox(0.123456789012345,0.923456789012345) Category=2 (0.123456789012348, 1) (0.923456789012345, 1) ]\n");
    }
    let (records, error) = batched(text.as_bytes(), 1 << 20);
    assert_eq!(error, None);
    let Record::Primitive(p) = &records[6].0 else {
        panic!("not a primitive")
    };
    assert_eq!(p.primitive.vertices[0].time, 0.123456789012348);
    assert_same(text.as_bytes(), &[1 << 20, 100]);
}
