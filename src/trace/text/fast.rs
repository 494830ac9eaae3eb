//! The whole-line fast path: primitive lines in their usual spelling — the
//! bulk of a trace — parsed straight from the buffer by a fixed-window
//! parser that finds the line's end by parsing it (no newline search, no
//! per-byte bounds checks, vertex times that repeat the box's text compared
//! instead of parsed, `%d` info matched against the label word by word).
//! Anything it does not accept goes through the general parser
//! ([`super::records`]), which gives the same records
//! (`tests/text_fast_path.rs` holds them to that).

use super::info::{lit_at, load16, InfoPlan};
use super::lexer::*;
use crate::model::*;
use crate::trace::TracePrimitive;

/// The common spelling of a primitive line up to its info, parsed without
/// error reporting: `Primitive[ TimeBBox(S,E) Category=N (T, L) ... ` with
/// plain decimals and single spaces. `None` for anything else (the caller
/// then runs the general parser, which also produces the error message).
/// Returns the stated box, category, vertices and the position after them.
#[inline]
pub(super) fn fast_primitive(s: &[u8]) -> Option<(TimeBox, i32, Vertices, usize)> {
    if !lit_at(s, 0, b"Primitive[ TimeBBox(") {
        return None;
    }
    let mut p = 20;
    let (start, start_len) = fast_decimal_then(s, p, b',')?;
    let start_at = p;
    p += start_len + 1;
    let (end, end_len) = fast_decimal_then(s, p, b')')?;
    let end_at = p;
    p += end_len;
    if !lit_at(s, p, b") Category=") {
        return None;
    }
    p += 11;
    let (category, n) = fast_int(s.get(p..)?)?;
    p += n;
    let mut first: [Vertex; 2] = [Vertex::new(0.0, 0); 2];
    let mut count = 0usize;
    let mut more = Vertices::new();
    while s.get(p) == Some(&b' ') && s.get(p + 1) == Some(&b'(') {
        p += 2;
        // Vertex times usually repeat the box's text: reuse its value.
        let (t, n) = if same_text(s, start_at, p, start_len) {
            (start, start_len)
        } else if same_text(s, end_at, p, end_len) {
            (end, end_len)
        } else {
            fast_decimal_then(s, p, b',')?
        };
        p += n;
        if s.get(p..p + 2)? != b", " {
            return None;
        }
        p += 2;
        let (l, n) = fast_int(s.get(p..)?)?;
        p += n;
        if s.get(p)? != &b')' {
            return None;
        }
        p += 1;
        // States and arrows have two vertices: keep them out of the vector's
        // bookkeeping.
        if count < 2 {
            first[count] = Vertex::new(t, l);
        } else {
            if count == 2 {
                more.extend_from_slice(&first);
            }
            more.push(Vertex::new(t, l));
        }
        count += 1;
    }
    if count == 0 || s.get(p).is_some_and(|b| !b.is_ascii_whitespace()) {
        return None;
    }
    let vertices = match count {
        1 => Vertices::from_slice(&first[..1]),
        2 => Vertices::from_buf(first),
        _ => more,
    };
    Some((TimeBox::new(start, end), category, vertices, p))
}

/// Bytes of input that [`window_line`] looks at: more than a usual line.
pub(super) const WINDOW: usize = 256;

/// A whole primitive line in its usual spelling, parsed in place from the
/// unconsumed input `s` (which starts at the line and holds at least
/// [`WINDOW`] bytes): `Primitive[ TimeBBox(S,E) Category=N (T, L) (T, L)`
/// — times without a sign and with at most 7 integer and 15 fraction digits,
/// one or two vertices — then ` ]` and the newline, or info spelled exactly
/// like its category's label ([`InfoPlan::encode_exact`]) and ` > ]` and
/// the newline. Returns the record and the bytes used, newline included.
/// Indices are kept provably inside the window, so the reads need no bounds
/// checks. `None` for anything else (including the last lines of the buffer
/// and a line longer than the window): the line-by-line parser then takes
/// it, with the same result or the error message. Skipping the search for
/// the newline of every line is much of what this saves.
#[inline]
pub(super) fn window_line(
    s: &[u8],
    formats: &rustc_hash::FxHashMap<i32, InfoPlan>,
) -> Option<(TracePrimitive, usize)> {
    let w: &[u8; WINDOW] = s.get(..WINDOW)?.try_into().ok()?;
    if !lit_at(w, 0, b"Primitive[ TimeBBox(") {
        return None;
    }
    let (start, start_len) = window_decimal(w, 20, b',')?;
    let end_at = 20 + start_len + 1;
    let (end, end_len) = window_decimal(w, end_at, b')')?;
    let mut p = end_at + end_len;
    if p > WINDOW - 64 || !lit_at(w, p, b") Category=") {
        return None;
    }
    p += 11;
    let (category, n) = fast_int(&w[p..])?;
    p += n;
    // Vertex times usually repeat a box time's text: compare, don't parse.
    let start_text = load16(&w[20..36]);
    let end_text = load16(&w[end_at..end_at + 16]);
    let start_mask = low_bytes_mask(start_len);
    let end_mask = low_bytes_mask(end_len);
    let mut vertices = [Vertex::new(0.0, 0); 2];
    let mut count = 0;
    while p <= WINDOW - 64 && w[p] == b' ' && w[p + 1] == b'(' {
        if count == 2 {
            return None;
        }
        p += 2;
        let here = load16(&w[p..p + 16]);
        let (t, n) =
            if start_len <= 16 && (here ^ start_text) & start_mask == 0 && w[p + start_len] == b','
            {
                (start, start_len)
            } else if end_len <= 16 && (here ^ end_text) & end_mask == 0 && w[p + end_len] == b',' {
                (end, end_len)
            } else {
                window_decimal(w, p, b',')?
            };
        p += n;
        if p > WINDOW - 64 || w[p + 1] != b' ' {
            return None;
        }
        p += 2;
        let (l, n) = fast_int(&w[p..])?;
        p += n;
        if p > WINDOW - 64 || w[p] != b')' {
            return None;
        }
        p += 1;
        vertices[count] = Vertex::new(t, l);
        count += 1;
    }
    if count == 0 || p > WINDOW - 64 {
        return None;
    }
    let (info, end_of_line) = if w[p] == b' ' && w[p + 1] == b']' && w[p + 2] == b'\n' {
        (InfoBytes::new(), p + 3)
    } else if w[p] == b' ' && w[p + 1] == b'<' && w[p + 2] == b' ' {
        let (info, q) = formats.get(&category)?.encode_exact(w, p + 3)?;
        if w.get(q..q + 5)? != b" > ]\n" {
            return None;
        }
        (info, q + 5)
    } else {
        return None;
    };
    let vertices = if count == 2 {
        Vertices::from_buf(vertices)
    } else {
        Vertices::from_slice(&vertices[..1])
    };
    Some((
        TracePrimitive {
            stated: TimeBox::new(start, end),
            primitive: Primitive {
                category,
                info,
                vertices,
            },
        },
        end_of_line,
    ))
}

/// `digits[.digits]` at `w[p..]` followed by `delim` (see
/// [`fast_decimal_then`], whose value it gives): at most 7 integer and 15
/// fraction digits, no sign. Three eight-byte digit scans at most.
#[inline(always)]
pub(super) fn window_decimal(w: &[u8; WINDOW], p: usize, delim: u8) -> Option<(f64, usize)> {
    if p > WINDOW - 64 {
        return None;
    }
    let (int, ni) = swar8(w[p..p + 8].try_into().ok()?);
    if ni == 8 {
        return None;
    }
    let q = p + ni;
    let (m, nf, after) = if w[q] == b'.' {
        let (mut frac, mut nf) = swar8(w[q + 1..q + 9].try_into().ok()?);
        if nf == 8 {
            let (more, n2) = swar8(w[q + 9..q + 17].try_into().ok()?);
            if n2 == 8 {
                return None;
            }
            frac = frac * POW10_U64[n2] + more;
            nf += n2;
        }
        if ni + nf == 0 || ni + nf > 19 {
            return None;
        }
        (int * POW10_U64[nf] + frac, nf, q + 1 + nf)
    } else {
        if ni == 0 {
            return None;
        }
        (int, 0, q)
    };
    if w[after] != delim || m > (1u64 << 53) {
        return None;
    }
    Some((m as f64 / POW10[nf], after - p))
}

/// [`fast_decimal`] at `s[p..]` when the number must be followed by `delim`
/// (so no check for exponents or other tails is needed).
#[inline(always)]
pub(super) fn fast_decimal_then(s: &[u8], p: usize, delim: u8) -> Option<(f64, usize)> {
    let t = s.get(p..)?;
    let mut i = 0;
    let neg = t.first() == Some(&b'-');
    i += neg as usize;
    let mut m: u64;
    let int_digits;
    // The common `0.` start without the eight-digit machinery.
    if t.get(i) == Some(&b'0') && t.get(i + 1) == Some(&b'.') {
        m = 0;
        int_digits = 1;
        i += 1;
    } else {
        m = 0;
        let d0 = i;
        i = digit_run(t, i, &mut m);
        int_digits = i - d0;
    }
    let mut frac = 0;
    if t.get(i) == Some(&b'.') {
        i += 1;
        let f0 = i;
        i = digit_run(t, i, &mut m);
        frac = i - f0;
    }
    if t.get(i) != Some(&delim)
        || int_digits + frac == 0
        || int_digits + frac > 19
        || frac > 22
        || m > (1u64 << 53)
    {
        return None;
    }
    let v = m as f64 / POW10[frac];
    Some((if neg { -v } else { v }, i))
}
