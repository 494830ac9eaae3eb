//! Popup text: decoding a drawable's info payload with its category's tokens.
//!
//! A category carries text *keys* and one type letter per `%` token of its
//! label (spec §3.1); a drawable carries an opaque big-endian payload (§7.6).
//! The viewer's popup (and `slog2print`) shows, for `i` in
//! `0..max(nkeys, nvalues)`, `key[i]` (if any) then `value[i]` (if any).
//!
//! The reference reader *exits* on a payload shorter than its tokens need or
//! on an unknown token letter. A library must not: [`format_info`] prints the
//! part that decodes and then a marker, so one bad drawable never hides the
//! others. The marker texts (all start and end with `****`, like the
//! reference's own notes) are:
//!
//! * ` **** info payload too short: %d (token 2 of 2) needs 4 byte(s), 1 left **** `
//! * ` **** unknown info token '%q' (token 1 of 1) **** `
//!
//! The two notes the reference itself prints are reproduced verbatim:
//!
//! * payload present, category without tokens:
//!   keys, then ` **** Can't decode user byte[] with Missing format chars! **** `
//! * tokens present, no payload: every value shows as `null`, then
//!   ` **** Missing user byte[] but Non-empty format chars! **** `
//!
//! Extra trailing payload bytes are ignored (CLOG2-derived files carry
//! fixed-size payloads longer than needed). `%s` text is decoded as UTF-8 when
//! valid and byte-per-character (ISO-8859-1) otherwise, so nothing is lost.

use crate::model::Category;

/// Reference note: a payload but no tokens to decode it.
pub const NOTE_NO_TOKENS: &str = " **** Can't decode user byte[] with Missing format chars! **** ";
/// Reference note: tokens but no payload.
pub const NOTE_NO_PAYLOAD: &str = " **** Missing user byte[] but Non-empty format chars! **** ";

/// Why a payload could not be decoded completely (invariant #17).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InfoProblem {
    /// Token `index` (0-based) needs `need` bytes, only `have` are left.
    TooShort {
        index: usize,
        token: u8,
        need: usize,
        have: usize,
    },
    /// Token `index` has a letter outside `s h d l x X e E`.
    UnknownToken { index: usize, token: u8 },
}

impl InfoProblem {
    /// The marker appended to the popup text (see the module docs).
    pub fn marker(&self, ntokens: usize) -> String {
        match *self {
            InfoProblem::TooShort {
                index,
                token,
                need,
                have,
            } => format!(
                " **** info payload too short: %{} (token {} of {ntokens}) needs {need} byte(s), {have} left **** ",
                printable(token),
                index + 1
            ),
            InfoProblem::UnknownToken { index, token } => format!(
                " **** unknown info token '%{}' (token {} of {ntokens}) **** ",
                printable(token),
                index + 1
            ),
        }
    }
}

impl std::fmt::Display for InfoProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            InfoProblem::TooShort {
                index,
                token,
                need,
                have,
            } => write!(
                f,
                "info token #{} (%{}) needs {need} byte(s), only {have} left in the payload",
                index + 1,
                printable(token)
            ),
            InfoProblem::UnknownToken { index, token } => {
                write!(
                    f,
                    "info token #{} is the unknown letter '%{}'",
                    index + 1,
                    printable(token)
                )
            }
        }
    }
}

fn printable(b: u8) -> String {
    if b.is_ascii_graphic() {
        (b as char).to_string()
    } else {
        format!("\\x{b:02x}")
    }
}

/// The values decoded from a payload, as display text, plus what stopped the
/// decoding early (if anything).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DecodedInfo {
    pub values: Vec<String>,
    pub problem: Option<InfoProblem>,
}

/// Decode `payload` with `tokens` (§7.6, big-endian). Never panics; stops at
/// the first token that cannot be decoded.
pub fn decode_info(tokens: &[u8], payload: &[u8]) -> DecodedInfo {
    let mut out = DecodedInfo {
        values: Vec::with_capacity(tokens.len()),
        problem: None,
    };
    let mut rest = payload;
    for (index, &token) in tokens.iter().enumerate() {
        let need = match token {
            b'h' => 2,
            b'd' | b'x' | b'e' => 4,
            b'l' | b'X' | b'E' => 8,
            b's' => 2,
            _ => {
                out.problem = Some(InfoProblem::UnknownToken { index, token });
                return out;
            }
        };
        if rest.len() < need {
            out.problem = Some(InfoProblem::TooShort {
                index,
                token,
                need,
                have: rest.len(),
            });
            return out;
        }
        let (head, tail) = rest.split_at(need);
        rest = tail;
        let text = match token {
            b'h' => i16::from_be_bytes([head[0], head[1]]).to_string(),
            b'd' => be_i32(head).to_string(),
            b'x' => format!("{:x}", be_i32(head) as u32),
            b'l' => be_i64(head).to_string(),
            b'X' => format!("{:x}", be_i64(head) as u64),
            b'e' => java_float(f32::from_bits(be_i32(head) as u32)),
            b'E' => java_double(f64::from_bits(be_i64(head) as u64)),
            _ => {
                // b's': i16 byte count, <= 0 means empty with nothing following.
                let n = i16::from_be_bytes([head[0], head[1]]);
                if n <= 0 {
                    String::new()
                } else {
                    let n = n as usize;
                    if rest.len() < n {
                        out.problem = Some(InfoProblem::TooShort {
                            index,
                            token,
                            need: 2 + n,
                            have: 2 + rest.len(),
                        });
                        return out;
                    }
                    let (s, tail) = rest.split_at(n);
                    rest = tail;
                    decode_text(s)
                }
            }
        };
        out.values.push(text);
    }
    out
}

/// Bytes of the payload described by `tokens`, reading `%s` length prefixes
/// through `byte_at` (for callers that hold a payload of unknown length, such
/// as the draft's `SLOG2_Get_drawable_text`). `None` for an unknown token.
pub fn payload_len(tokens: &[u8], mut byte_at: impl FnMut(usize) -> u8) -> Option<usize> {
    let mut n = 0usize;
    for &t in tokens {
        n += match t {
            b'h' => 2,
            b'd' | b'x' | b'e' => 4,
            b'l' | b'X' | b'E' => 8,
            b's' => {
                let len = i16::from_be_bytes([byte_at(n), byte_at(n + 1)]);
                2 + len.max(0) as usize
            }
            _ => return None,
        };
    }
    Some(n)
}

/// True when `info` holds every byte that a walk of `tokens` reads (the
/// walk of [`payload_len`], as the draft's `SLOG2_Get_drawable_text` does
/// it on a bare pointer): each `%s` length prefix and the sum of the sizes
/// up to the first unknown token lie inside `info`. A payload handed to a C
/// caller must pass, so that the draft call on it never reads past it.
pub fn payload_covers(tokens: &[u8], info: &[u8]) -> bool {
    let mut bad = false;
    let n = payload_len(tokens, |i| match info.get(i) {
        Some(&b) => b,
        None => {
            bad = true;
            0
        }
    });
    // An unknown token ends the walk (the draft call then reads nothing):
    // check the prefix before it.
    let known = tokens
        .iter()
        .position(|t| !b"hdxelXEs".contains(t))
        .unwrap_or(tokens.len());
    let n = n.or_else(|| payload_len(&tokens[..known], |i| info.get(i).copied().unwrap_or(0)));
    !bad && n.is_some_and(|n| n <= info.len())
}

fn be_i32(b: &[u8]) -> i32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[..4]);
    i32::from_be_bytes(a)
}

fn be_i64(b: &[u8]) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    i64::from_be_bytes(a)
}

/// UTF-8 when valid, otherwise one character per byte (ISO-8859-1).
fn decode_text(s: &[u8]) -> String {
    match std::str::from_utf8(s) {
        Ok(t) => t.to_string(),
        Err(_) => s.iter().map(|&b| b as char).collect(),
    }
}

/// Is the payload decodable with these tokens (invariant #17)? `None` = yes.
/// A missing payload, or a payload on a category without tokens, is not an
/// error (the reference only adds a note to the text). The same answer as
/// [`decode_info`]'s `problem`, without decoding (no allocation: the writer
/// checks every payload with it).
pub fn info_problem(tokens: &[u8], payload: &[u8]) -> Option<InfoProblem> {
    if tokens.is_empty() || payload.is_empty() {
        return None;
    }
    let mut rest = payload.len();
    let mut at = 0usize;
    for (index, &token) in tokens.iter().enumerate() {
        let need = match token {
            b'h' | b's' => 2,
            b'd' | b'x' | b'e' => 4,
            b'l' | b'X' | b'E' => 8,
            _ => return Some(InfoProblem::UnknownToken { index, token }),
        };
        if rest < need {
            return Some(InfoProblem::TooShort {
                index,
                token,
                need,
                have: rest,
            });
        }
        if token == b's' {
            let n = i16::from_be_bytes([payload[at], payload[at + 1]]);
            let n = n.max(0) as usize;
            if rest - 2 < n {
                return Some(InfoProblem::TooShort {
                    index,
                    token,
                    need: 2 + n,
                    have: rest,
                });
            }
            at += 2 + n;
            rest -= 2 + n;
        } else {
            at += need;
            rest -= need;
        }
    }
    None
}

/// The popup text of a drawable with category `cat` and payload `info`
/// (spec §3.1 display rule). `cat = None` (an index missing from the category
/// map) behaves like the reference's invented `UnknownType-<i>` category,
/// which has no keys and no tokens.
pub fn format_info(cat: Option<&Category>, info: &[u8]) -> String {
    let (keys, tokens): (&[String], &[u8]) = match cat {
        Some(c) => (&c.info.keys, &c.info.tokens),
        None => (&[], &[]),
    };
    let mut s = String::new();
    if info.is_empty() {
        if tokens.is_empty() {
            for k in keys {
                s.push_str(k);
            }
            return s;
        }
        for i in 0..keys.len().max(tokens.len()) {
            if let Some(k) = keys.get(i) {
                s.push_str(k);
            }
            if i < tokens.len() {
                s.push_str("null");
            }
        }
        s.push_str(NOTE_NO_PAYLOAD);
        return s;
    }
    if tokens.is_empty() {
        for k in keys {
            s.push_str(k);
        }
        s.push_str(NOTE_NO_TOKENS);
        return s;
    }
    let dec = decode_info(tokens, info);
    match &dec.problem {
        None => {
            for i in 0..keys.len().max(dec.values.len()) {
                if let Some(k) = keys.get(i) {
                    s.push_str(k);
                }
                if let Some(v) = dec.values.get(i) {
                    s.push_str(v);
                }
            }
        }
        Some(p) => {
            // The decodable prefix: keys and values up to the failing token's key.
            let upto = dec.values.len();
            for i in 0..=upto {
                if let Some(k) = keys.get(i) {
                    s.push_str(k);
                }
                if let Some(v) = dec.values.get(i) {
                    s.push_str(v);
                }
            }
            s.push_str(&p.marker(tokens.len()));
        }
    }
    s
}

// ---------------------------------------------------------------------------
// Java number text: Java 17's Double/Float.toString (see `crate::javafmt`).

pub(crate) fn java_double(v: f64) -> String {
    crate::javafmt::java_double(v)
}

pub(crate) fn java_float(v: f32) -> String {
    crate::javafmt::java_float(v)
}

#[cfg(test)]
mod problem_tests {
    use super::*;

    /// `info_problem` says exactly what decoding says, for every token
    /// string and payload of a small exhaustive-ish family.
    #[test]
    fn info_problem_equals_decoding() {
        let tokens: [&[u8]; 8] = [b"", b"d", b"hs", b"sd", b"ssE", b"lXe", b"dq", b"sxs"];
        let mut x = 0x9e37_79b9u32;
        for t in tokens {
            for len in 0..24 {
                for _ in 0..40 {
                    let payload: Vec<u8> = (0..len)
                        .map(|_| {
                            x ^= x << 13;
                            x ^= x >> 17;
                            x ^= x << 5;
                            // Small string lengths, sometimes negative.
                            [0u8, 1, 2, 3, 5, 0xff, 7, 9][(x % 8) as usize]
                        })
                        .collect();
                    let want = if t.is_empty() || payload.is_empty() {
                        None
                    } else {
                        decode_info(t, &payload).problem
                    };
                    assert_eq!(info_problem(t, &payload), want, "{t:?} {payload:?}");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Color, InfoFormat, Topology};

    fn cat(label: &str) -> Category {
        let mut c = Category::new(0, "c", Topology::Arrow, Color::rgba(1, 2, 3, 4), 1);
        c.info = InfoFormat::parse(label).unwrap();
        c
    }

    #[test]
    fn msg_tag() {
        let c = cat("msg_tag=%d, msg_size=%d");
        let p = [0, 0, 0, 3, 0, 0, 0x07, 0xd0];
        assert_eq!(format_info(Some(&c), &p), "msg_tag=3, msg_size=2000");
        // Extra trailing bytes are ignored.
        let p2 = [0, 0, 0, 3, 0, 0, 0x07, 0xd0, 9, 9, 9];
        assert_eq!(format_info(Some(&c), &p2), "msg_tag=3, msg_size=2000");
    }

    #[test]
    fn all_tokens() {
        let c = cat("h=%h d=%d l=%l x=%x X=%X e=%e E=%E s=%s");
        let mut p = Vec::new();
        p.extend_from_slice(&(-3i16).to_be_bytes());
        p.extend_from_slice(&(-100000i32).to_be_bytes());
        p.extend_from_slice(&1099511627776i64.to_be_bytes());
        p.extend_from_slice(&(0xdeadbeefu32 as i32).to_be_bytes());
        p.extend_from_slice(&0x123456789abcdefi64.to_be_bytes());
        p.extend_from_slice(&0.3f32.to_be_bytes());
        p.extend_from_slice(&(-1.35e-6f64).to_be_bytes());
        p.extend_from_slice(&2i16.to_be_bytes());
        p.extend_from_slice(b"ab");
        assert_eq!(
            format_info(Some(&c), &p),
            "h=-3 d=-100000 l=1099511627776 x=deadbeef X=123456789abcdef e=0.3 E=-1.35E-6 s=ab"
        );
    }

    #[test]
    fn strings_and_quirks() {
        // "%s and %s": keys [" and ", ""] -> key0 val0 key1 val1.
        let c = cat("%s and %s");
        let mut p = Vec::new();
        p.extend_from_slice(&3i16.to_be_bytes());
        p.extend_from_slice(b"cat");
        p.extend_from_slice(&3i16.to_be_bytes());
        p.extend_from_slice(b"dog");
        assert_eq!(format_info(Some(&c), &p), " and catdog");
        // Negative / zero length = empty, nothing consumed.
        let c = cat("a=[%s]b=%h");
        let p = [0xff, 0xff, 0, 7];
        assert_eq!(format_info(Some(&c), &p), "a=[]b=7");
    }

    #[test]
    fn reference_notes() {
        let c = cat("n=%d");
        assert_eq!(
            format_info(Some(&c), &[]),
            format!("n=null{NOTE_NO_PAYLOAD}")
        );
        let c = cat("");
        assert_eq!(format_info(Some(&c), &[1, 2, 3, 4]), NOTE_NO_TOKENS);
        let c = cat("no tokens here");
        assert_eq!(format_info(Some(&c), &[]), "no tokens here");
        assert_eq!(format_info(None, &[]), "");
    }

    #[test]
    fn bad_payloads_do_not_panic() {
        let c = cat("a=%d b=%d c=%d");
        let t = format_info(Some(&c), &[0, 0, 0, 1, 0, 0]);
        assert_eq!(
            t,
            "a=1 b= **** info payload too short: %d (token 2 of 3) needs 4 byte(s), 2 left **** "
        );
        let mut c = cat("a=%d b=%q");
        c.info.tokens = b"dq".to_vec();
        let t = format_info(Some(&c), &[0, 0, 0, 1, 0, 0]);
        assert_eq!(
            t,
            "a=1 b= **** unknown info token '%q' (token 2 of 2) **** "
        );
        let c = cat("s=%s");
        let t = format_info(Some(&c), &[0, 10, b'x']);
        assert!(t.starts_with("s= **** info payload too short: %s"), "{t}");
        assert!(info_problem(b"d", &[1]).is_some());
        assert_eq!(info_problem(b"d", &[]), None);
        assert_eq!(info_problem(b"", &[1]), None);
    }

    #[test]
    fn java_numbers() {
        assert_eq!(java_double(0.0005), "5.0E-4");
        assert_eq!(java_double(0.008), "0.008");
        assert_eq!(java_double(1.0), "1.0");
        assert_eq!(java_double(-0.0), "-0.0");
        assert_eq!(java_double(1e7), "1.0E7");
        assert_eq!(java_double(1234567.5), "1234567.5");
        assert_eq!(java_double(100.0), "100.0");
        assert_eq!(java_double(f64::NAN), "NaN");
        assert_eq!(java_double(0.002090999999381893), "0.002090999999381893");
        assert_eq!(java_float(1.6666666), "1.6666666");
        assert_eq!(java_float(9.88872E-4), "9.88872E-4");
        assert_eq!(java_float(f32::NEG_INFINITY), "-Infinity");
    }
}
