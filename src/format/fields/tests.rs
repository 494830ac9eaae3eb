//! The record-at-a-time moves ([`Fields::prim`], [`Fields::shadow_tail`]
//! of [`Split`] and [`Join`]) against the grammar's field-by-field
//! definition, on random parts (random counts, negative counts, any
//! bit pattern) and on every cut of them.
use super::*;

/// Forwards the field moves of `F` but not its record moves: the walk
/// then runs the grammar's definitions, field by field.
struct ByField<'f, F>(&'f mut F);

impl<F: Fields> Fields for ByField<'_, F> {
    fn u8(&mut self, s: S) -> Result<u8> {
        self.0.u8(s)
    }
    fn i16(&mut self, s: S) -> Result<i16> {
        self.0.i16(s)
    }
    fn i32(&mut self, s: S) -> Result<i32> {
        self.0.i32(s)
    }
    fn i32_from(&mut self, s: S, base: i32) -> Result<i32> {
        self.0.i32_from(s, base)
    }
    fn u64_from(&mut self, s: S, base: u64) -> Result<u64> {
        self.0.u64_from(s, base)
    }
    fn bytes(&mut self, n: usize) -> Result<()> {
        self.0.bytes(n)
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A count from -1 to `max`.
    fn count(&mut self, max: u64) -> i64 {
        self.below(max + 2) as i64 - 1
    }
    /// A time near `t` (as stored: sorted, close) or any bit pattern.
    fn time(&mut self, t: &mut u64) -> u64 {
        if self.below(8) == 0 {
            self.next()
        } else {
            *t = t.wrapping_add(self.below(1 << 20));
            *t
        }
    }
}

/// A category and an info payload of up to `max_info` bytes.
fn cat_and_info(r: &mut Rng, out: &mut Vec<u8>, max_info: u64) {
    out.extend_from_slice(&(r.below(40) as i32).to_be_bytes());
    let ilen = r.count(max_info) as i16;
    out.extend_from_slice(&ilen.to_be_bytes());
    for _ in 0..ilen.max(0) {
        out.push(r.next() as u8);
    }
}

fn prim(r: &mut Rng, out: &mut Vec<u8>, t: &mut u64) {
    cat_and_info(r, out, 5);
    let nv = r.count(4) as i16;
    vertices(r, out, t, nv);
}

/// A vertex count and its vertices (times near `t`, mostly one line).
fn vertices(r: &mut Rng, out: &mut Vec<u8>, t: &mut u64, nv: i16) {
    out.extend_from_slice(&nv.to_be_bytes());
    let line = r.below(64) as i32;
    for _ in 0..nv.max(0) {
        out.extend_from_slice(&r.time(t).to_be_bytes());
        let l = if r.below(6) == 0 {
            r.next() as i32
        } else {
            line
        };
        out.extend_from_slice(&l.to_be_bytes());
    }
}

fn drawables(r: &mut Rng) -> Vec<u8> {
    let (mut out, mut t) = (Vec::new(), r.next() >> 2);
    for _ in 0..2 {
        let n = r.below(30) as i32;
        out.extend_from_slice(&n.to_be_bytes());
        for _ in 0..n {
            if r.below(5) == 0 {
                out.push(1);
                cat_and_info(r, &mut out, 3);
                let m = r.count(3) as i16;
                out.extend_from_slice(&m.to_be_bytes());
                for _ in 0..m.max(0) {
                    prim(r, &mut out, &mut t);
                }
            } else {
                out.push(0);
                prim(r, &mut out, &mut t);
            }
        }
    }
    out
}

fn stubs_part(r: &mut Rng) -> Vec<u8> {
    let (mut out, mut t) = (Vec::new(), r.next() >> 2);
    let ns = r.below(4) as i32;
    out.extend_from_slice(&ns.to_be_bytes());
    for _ in 0..ns {
        for _ in 0..2 {
            out.extend_from_slice(&r.time(&mut t).to_be_bytes());
        }
        out.extend_from_slice(&(r.below(9) as i16).to_be_bytes());
        out.extend_from_slice(&(r.below(99) as i32).to_be_bytes());
        out.extend_from_slice(&r.next().to_be_bytes());
        out.extend_from_slice(&(r.below(9) as i32).to_be_bytes());
        for _ in 0..2 {
            let n = r.below(12) as i32;
            out.extend_from_slice(&n.to_be_bytes());
            for _ in 0..n {
                prim(r, &mut out, &mut t);
                for _ in 0..2 {
                    out.extend_from_slice(&r.time(&mut t).to_be_bytes());
                }
                out.extend_from_slice(&r.below(1 << 40).to_be_bytes());
                let nw = r.count(4) as i32;
                out.extend_from_slice(&nw.to_be_bytes());
                for _ in 0..nw.max(0) {
                    for _ in 0..3 {
                        out.extend_from_slice(&(r.next() as i32 >> 8).to_be_bytes());
                    }
                    out.extend_from_slice(&r.next().to_be_bytes());
                }
            }
        }
    }
    out
}

fn walk(f: &mut impl Fields, stubs: bool) -> Result<()> {
    if stubs {
        walk_stubs(f)
    } else {
        walk_drawables(f)
    }
}

/// The streams of `plain` (None when it does not walk), by records or
/// field by field.
fn split(plain: &[u8], stubs: bool, by_field: bool) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut s = Split::new(plain, Values::default());
    let walked = if by_field {
        walk(&mut ByField(&mut s), stubs)
    } else {
        walk(&mut s, stubs)
    };
    walked.ok()?;
    let (mut out, mut raw) = (Vec::new(), Vec::new());
    s.finish(&mut out, &mut raw, super::planes::NOISE_BITS)
        .ok()?;
    Some((out, raw))
}

/// The part joined from `streams` into `room` bytes (the error's text
/// when it fails).
fn join(
    streams: &[u8],
    raw: &[u8],
    room: usize,
    stubs: bool,
    by_field: bool,
) -> std::result::Result<Vec<u8>, String> {
    let mut values = Vec::new();
    let (bounds, info) =
        Join::values(streams, raw, room, &mut values).map_err(|e| e.to_string())?;
    let mut out = vec![0; room];
    let mut j = Join::new(&values, &bounds, info, &mut out);
    let walked = if by_field {
        walk(&mut ByField(&mut j), stubs)
    } else {
        walk(&mut j, stubs)
    };
    walked.map_err(|e| e.to_string())?;
    let n = j.finish().map_err(|e| e.to_string())?;
    out.truncate(n);
    Ok(out)
}

#[test]
fn records_at_once_agree_with_the_grammar_field_by_field() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for case in 0..400 {
        let stubs = case % 2 == 1;
        let plain = if stubs {
            stubs_part(&mut r)
        } else {
            drawables(&mut r)
        };
        let (streams, raw) = split(&plain, stubs, false).expect("a valid part walks");
        assert_eq!(
            Some((streams.clone(), raw.clone())),
            split(&plain, stubs, true)
        );
        assert_eq!(
            join(&streams, &raw, plain.len(), stubs, false).as_ref(),
            Ok(&plain)
        );
        assert_eq!(
            join(&streams, &raw, plain.len(), stubs, true).as_ref(),
            Ok(&plain)
        );
        // Every cut of the plain part: both walks refuse it or agree.
        for cut in 0..plain.len() {
            assert_eq!(
                split(&plain[..cut], stubs, false),
                split(&plain[..cut], stubs, true),
                "cut {cut}"
            );
        }
        // Too little room: both joins refuse it.
        for room in (0..plain.len()).step_by(7) {
            assert!(join(&streams, &raw, room, stubs, false).is_err());
            assert!(join(&streams, &raw, room, stubs, true).is_err());
        }
        // Damaged streams: both joins refuse them or write the same.
        for _ in 0..20 {
            let mut bad = streams.clone();
            let at = r.below(bad.len() as u64) as usize;
            bad[at] ^= 1 << r.below(8);
            let a = join(&bad, &raw, plain.len(), stubs, false);
            let b = join(&bad, &raw, plain.len(), stubs, true);
            assert_eq!(a.is_ok(), b.is_ok(), "case {case}: {a:?} {b:?}");
            if a.is_ok() {
                assert_eq!(a, b);
            }
        }
    }
}

/// The drawables part joined and keyed in one walk ([`join_drawables_keyed`])
/// against the checked path (the join, then `scan_node` on its bytes): when
/// the one walk accepts a part, the checked path accepts it too and gives
/// the same bytes and keys; on valid parts of primitives it accepts.
#[test]
fn keyed_join_agrees_with_join_then_scan() {
    use crate::format::directory::{decode_entry_header, encode_entry_header};
    use crate::format::{record_key, BlockPtr, DirEntry, RecordKey};
    use crate::format::{scan_node, Decoder};
    use crate::model::{NodeId, TimeBox};
    let entry = DirEntry {
        id: NodeId { depth: 0, xpos: 3 },
        time_box: TimeBox::new(0.0, 1.0),
        ptr: BlockPtr::new(0, 0),
    };
    let mut head = Vec::new();
    encode_entry_header(&mut head, &entry);
    assert_eq!(
        decode_entry_header(&mut Decoder::new(&head, 0, "t")).unwrap(),
        entry
    );
    // The checked path: bytes and layout, or None.
    let checked = |streams: &[u8], raw: &[u8], room: usize| {
        let part = join(streams, raw, room, false, false).ok()?;
        if part.len() != room {
            return None;
        }
        let block = [head.clone(), part].concat();
        let layout = scan_node(&block, 0).ok()?;
        Some((block, layout.nestless, layout.nestable, layout.stubs_at))
    };
    let keyed = |streams: &[u8], raw: &[u8], room: usize| {
        let mut values = Vec::new();
        let (bounds, info) = Join::values(streams, raw, room, &mut values).ok()?;
        let mut out = head.clone();
        let k = join_drawables_keyed(&values, &bounds, info, &mut out, room)?;
        let [mut a, mut b] = k.lists;
        for (list, i) in k.later {
            let key = if list == 0 { &mut a[i] } else { &mut b[i] };
            let mut d = Decoder::new(&out, 0, "tree node");
            d.skip(key.offset as usize).unwrap();
            let r = record_key(&mut d).ok()?;
            assert_eq!((r.offset, r.len), (key.offset, key.len));
            *key = r;
        }
        let at = out.len();
        Some((out, a, b, at))
    };
    let bits = |v: &[RecordKey]| -> Vec<_> {
        v.iter()
            .map(|k| {
                let b = (k.start.to_bits(), k.end.to_bits());
                (b, k.category, k.first_line, k.last_line, k.offset, k.len)
            })
            .collect()
    };
    type Out = Option<(Vec<u8>, Vec<RecordKey>, Vec<RecordKey>, usize)>;
    let same = |a: &Out, b: &Out| match (a, b) {
        (Some((x, xa, xb, xs)), Some((y, ya, yb, ys))) => {
            x == y && bits(xa) == bits(ya) && bits(xb) == bits(yb) && xs == ys
        }
        _ => false,
    };
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    let (mut accepted, mut simple) = (0, 0);
    for case in 0..600 {
        let plain = if case % 3 == 0 {
            drawables(&mut r)
        } else {
            valid_drawables(&mut r, case % 3 == 1)
        };
        let (streams, raw) = split(&plain, false, false).expect("a valid part walks");
        let want = checked(&streams, &raw, plain.len());
        let got = keyed(&streams, &raw, plain.len());
        if got.is_some() {
            accepted += 1;
            assert!(same(&got, &want), "case {case}");
        }
        // A part of valid primitives and composites only: accepted.
        if want.is_some() {
            simple += 1;
            assert!(got.is_some(), "case {case}: refused a valid part");
        }
        for room in [plain.len().saturating_sub(1), plain.len() + 1] {
            assert!(keyed(&streams, &raw, room).is_none());
        }
        for _ in 0..20 {
            let mut bad = streams.clone();
            let at = r.below(bad.len() as u64) as usize;
            bad[at] ^= 1 << r.below(8);
            if let Some(got) = keyed(&bad, &raw, plain.len()) {
                let want = checked(&bad, &raw, plain.len());
                assert!(same(&Some(got), &want), "case {case}, damaged at {at}");
            }
        }
    }
    assert!(accepted > 300 && simple > 300, "{accepted} {simple}");
}

/// A drawables part `scan_node` accepts: mostly states and arrows (no
/// info, two vertices), some events and polylines with info, and
/// composites when `composites`.
fn valid_drawables(r: &mut Rng, composites: bool) -> Vec<u8> {
    let (mut out, mut t) = (Vec::new(), r.next() >> 2);
    let prim = |r: &mut Rng, out: &mut Vec<u8>, t: &mut u64| {
        let odd = r.below(6) == 0;
        out.extend_from_slice(&(r.below(40) as i32).to_be_bytes());
        let ilen = if odd { r.count(5) as i16 } else { 0 };
        out.extend_from_slice(&ilen.to_be_bytes());
        for _ in 0..ilen.max(0) {
            out.push(r.next() as u8);
        }
        let nv = if odd { 1 + r.below(4) as i16 } else { 2 };
        vertices(r, out, t, nv);
    };
    for _ in 0..2 {
        let n = r.below(40) as i32;
        out.extend_from_slice(&n.to_be_bytes());
        for _ in 0..n {
            if composites && r.below(5) == 0 {
                out.push(1);
                out.extend_from_slice(&(r.below(40) as i32).to_be_bytes());
                let ilen = r.below(3) as i16;
                out.extend_from_slice(&ilen.to_be_bytes());
                for _ in 0..ilen {
                    out.push(r.next() as u8);
                }
                let m = 1 + r.below(3) as i16;
                out.extend_from_slice(&m.to_be_bytes());
                for _ in 0..m {
                    prim(r, &mut out, &mut t);
                }
            } else {
                out.push(0);
                prim(r, &mut out, &mut t);
            }
        }
    }
    out
}

/// A plane that is nearly constant is coded by its exceptions (`sparse`)
/// and filled back in bit for bit; a part of many such records round
/// trips, and a damaged sparse plane (an exception past the plane's end,
/// more exceptions than bytes, a cut) is refused, never a panic.
#[test]
fn sparse_planes_round_trip_and_refuse_damage() {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    for case in 0..200 {
        let n = 1 + r.below(3000) as usize;
        let base = r.next() as u8;
        let mut plane = vec![base; n];
        let k = if case % 3 == 0 {
            0
        } else {
            r.below(n as u64 / 32 + 1)
        };
        for _ in 0..k {
            plane[r.below(n as u64) as usize] = r.next() as u8;
        }
        // The base is the plane's last byte: keep it.
        plane[n - 1] = base;
        let mut out = vec![7, 7];
        out.extend_from_slice(&plane);
        let mut scratch = Vec::new();
        let constant = plane.iter().all(|&b| b == base);
        let coded = sparse(&mut out, 2, constant, &mut scratch);
        let exceptions = plane.iter().filter(|&&b| b != base).count();
        // (A plane whose first 64 bytes hold more than two exceptions is
        // not looked at further.)
        assert!(!coded || exceptions <= n / 32, "case {case}");
        assert!(coded || !constant, "case {case}");
        if !coded {
            continue;
        }
        let mut pos = 2;
        let mut back = Vec::new();
        fill_sparse(&out, &mut pos, n, &mut back).unwrap();
        assert_eq!((back, pos), (plane.clone(), out.len()), "case {case}");
        // Too short a plane: some exception falls outside it, or the
        // count is more than it holds.
        if exceptions > 0 {
            let last = plane.iter().rposition(|&b| b != base).unwrap();
            let mut pos = 2;
            assert!(fill_sparse(&out, &mut pos, last, &mut Vec::new()).is_err());
        }
        for cut in 2..out.len() {
            let mut pos = 2;
            assert!(fill_sparse(&out[..cut], &mut pos, n, &mut Vec::new()).is_err());
        }
    }
    // A count above the plane's bytes, and a gap past its end.
    let mut pos = 0;
    assert!(fill_sparse(&[0, 5, 0, 1, 0, 1], &mut pos, 4, &mut Vec::new()).is_err());
    let mut pos = 0;
    assert!(fill_sparse(&[0, 1, 9, 1], &mut pos, 4, &mut Vec::new()).is_err());

    // A part of 400 states on one category and line but three: its
    // category and line planes are sparse, and it round trips.
    let mut plain = Vec::new();
    plain.extend_from_slice(&400i32.to_be_bytes());
    let mut t = 1u64 << 60;
    for i in 0..400 {
        plain.push(0);
        let cat: i32 = if [3, 150, 399].contains(&i) { 9 } else { 2 };
        plain.extend_from_slice(&cat.to_be_bytes());
        plain.extend_from_slice(&0i16.to_be_bytes());
        plain.extend_from_slice(&2i16.to_be_bytes());
        for _ in 0..2 {
            t += 1 + r.below(1 << 20);
            plain.extend_from_slice(&t.to_be_bytes());
            plain.extend_from_slice(&5i32.to_be_bytes());
        }
    }
    plain.extend_from_slice(&0i32.to_be_bytes());
    let (streams, raw) = split(&plain, false, false).expect("a valid part walks");
    assert!(streams.iter().any(|&b| b & SPARSE_FLAG != 0));
    assert_eq!(join(&streams, &raw, plain.len(), false, false), Ok(plain));
}
