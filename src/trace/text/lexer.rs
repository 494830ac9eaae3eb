//! The lexer: a cursor over one line with the scanf-like rules of the
//! format (a space matches any run of whitespace), and numbers parsed
//! straight from the bytes (eight digits at a time, exact Clinger fast path
//! for plain decimals, fast-float2 for the rest, `strtod`'s forms).

use crate::error::{Error, TextLocation};
use crate::model::TimeBox;

/// Internal result: a boxed error keeps the hot parsing functions' results
/// small (returned in registers).
pub(super) type PResult<T> = std::result::Result<T, Box<Error>>;

/// First occurrence of a two-byte pattern at or after `from`.
#[inline]
pub(super) fn find(s: &[u8], from: usize, pat: &[u8; 2]) -> Option<usize> {
    if s.len() < from + 64 {
        // Short rests (usually " ]"): a plain scan beats memchr's setup.
        return s
            .get(from..)?
            .windows(2)
            .position(|w| w == pat)
            .map(|k| from + k);
    }
    let mut i = from;
    while i < s.len() {
        let j = i + memchr::memchr(pat[0], &s[i..])?;
        if s.get(j + 1) == Some(&pat[1]) {
            return Some(j);
        }
        i = j + 1;
    }
    None
}

/// `< TEXT >` at or after `from`: (position of `<`, start of TEXT, position of
/// the closing ` >`). `< >` is an empty TEXT.
pub(super) fn angle(s: &[u8], from: usize) -> Option<(usize, usize, usize)> {
    let open = find(s, from, b"< ")?;
    let close = find(s, open + 1, b" >")?;
    Some((open, (open + 2).min(close), close))
}

/// A cursor over one line, with scanf-like matchers that report columns.
pub(super) struct Cur<'a> {
    pub(super) s: &'a [u8],
    pub(super) p: usize,
    pub(super) file: &'a str,
    pub(super) line: usize,
}

impl<'a> Cur<'a> {
    #[cold]
    #[inline(never)]
    pub(super) fn err(&self, detail: &str) -> Box<Error> {
        Box::new(Error::Parse {
            loc: TextLocation {
                file: self.file.to_string(),
                line: self.line,
                column: self.p + 1,
            },
            detail: detail.to_string(),
        })
    }

    /// `KIND[ TimeBBox(start,end) Category=N ` — the head of a primitive or composite line.
    #[inline]
    pub(super) fn drawable_head(&mut self) -> PResult<(TimeBox, i32)> {
        // The usual spelling first, without a byte-by-byte scan.
        match self.s.get(..20) {
            Some(h) if h == b"Primitive[ TimeBBox(" || h == b"Composite[ TimeBBox(" => self.p = 20,
            _ => {
                self.skip_token();
                self.ws();
                self.lit(b"TimeBBox(")?;
            }
        }
        let start = self.double()?;
        self.lit(b",")?;
        let end = self.double()?;
        self.lit(b")")?;
        self.ws();
        self.lit(b"Category=")?;
        let category = self.int()?;
        self.ws();
        Ok((TimeBox::new(start, end), category))
    }

    #[inline(always)]
    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.p).copied()
    }

    #[inline(always)]
    pub(super) fn ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.p += 1;
        }
    }

    /// Skip the record's first token (e.g. `Primitive[`).
    #[inline]
    pub(super) fn skip_token(&mut self) {
        while self.peek().is_some_and(|b| !b.is_ascii_whitespace()) {
            self.p += 1;
        }
    }

    /// A literal, exactly (no whitespace skipped).
    #[inline(always)]
    pub(super) fn lit(&mut self, l: &'static [u8]) -> PResult<()> {
        match self.s.get(self.p..self.p + l.len()) {
            Some(x) if x == l => {
                self.p += l.len();
                Ok(())
            }
            _ => Err(self.lit_err(l)),
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn lit_err(&self, l: &[u8]) -> Box<Error> {
        let found: String = String::from_utf8_lossy(&self.s[self.p.min(self.s.len())..])
            .chars()
            .take(12)
            .collect();
        if found.is_empty() {
            self.err(&format!(
                "expected '{}', found the end of the line",
                String::from_utf8_lossy(l)
            ))
        } else {
            self.err(&format!(
                "expected '{}', found {found:?}",
                String::from_utf8_lossy(l)
            ))
        }
    }

    /// A whitespace-free word (leading whitespace skipped).
    pub(super) fn name(&mut self) -> PResult<&'a [u8]> {
        self.ws();
        let st = self.p;
        while self.peek().is_some_and(|b| !b.is_ascii_whitespace()) {
            self.p += 1;
        }
        if self.p == st {
            return Err(self.err("expected a name"));
        }
        Ok(&self.s[st..self.p])
    }

    /// A floating-point number: anything `strtod` reads (decimal with optional
    /// exponent, `inf`/`infinity`, `nan` and `nan(chars)`, case-insensitive,
    /// and C99 hexadecimal floats such as `0x1.8p3`). Leading whitespace is
    /// skipped, as by scanf.
    #[inline]
    pub(super) fn double(&mut self) -> PResult<f64> {
        self.ws();
        let s = &self.s[self.p..];
        if let Some((v, n)) = fast_decimal(s) {
            self.p += n;
            return Ok(v);
        }
        self.double_slow()
    }

    #[inline(never)]
    pub(super) fn double_slow(&mut self) -> PResult<f64> {
        let s = &self.s[self.p..];
        if let Some((v, n)) = hex_float(s) {
            self.p += n;
            return Ok(v);
        }
        match fast_float2::parse_partial::<f64, _>(s) {
            Ok((v, mut n)) if n > 0 => {
                // strtod also takes `nan(n-char-sequence)`.
                if v.is_nan() && s.get(n) == Some(&b'(') {
                    let rest = &s[n + 1..];
                    let k = rest
                        .iter()
                        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                        .count();
                    if rest.get(k) == Some(&b')') {
                        n += k + 2;
                    }
                }
                self.p += n;
                Ok(v)
            }
            _ => Err(self.err("expected a number")),
        }
    }

    /// A single-precision number (`%e` payloads): the same text as
    /// [`double`](Self::double), rounded once to `f32` (like `strtof`).
    pub(super) fn float(&mut self) -> PResult<f32> {
        self.ws();
        let st = self.p;
        let v = self.double()?;
        Ok(fast_float2::parse::<f32, _>(&self.s[st..self.p]).unwrap_or(v as f32))
    }

    /// A decimal integer with optional sign (leading whitespace skipped),
    /// checked against `[min, max]`.
    #[inline]
    pub(super) fn signed(&mut self, what: &str, min: i64, max: i64) -> PResult<i64> {
        self.ws();
        let s = self.s;
        let st = self.p;
        let mut i = st;
        let neg = match s.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let ds = i;
        let mut m = 0u64;
        i = digit_run(s, i, &mut m);
        let nd = i - ds;
        if nd == 0 {
            return Err(self.err(&format!("expected {what}")));
        }
        if nd > 19 {
            // Only leading zeros can make such a number fit.
            m = 0;
            for &b in &s[ds..i] {
                match m
                    .checked_mul(10)
                    .and_then(|m| m.checked_add((b - b'0') as u64))
                {
                    Some(v) => m = v,
                    None => return Err(self.err(&format!("{what} out of range"))),
                }
            }
        }
        let v = if neg { -(m as i128) } else { m as i128 };
        if v < min as i128 || v > max as i128 {
            return Err(self.err(&format!("{what} {v} out of range")));
        }
        self.p = i;
        Ok(v as i64)
    }

    #[inline]
    pub(super) fn int(&mut self) -> PResult<i32> {
        self.ws();
        // The common `[-]digits` spelling; anything else (a `+`, too many
        // digits, an error to report) takes the general path.
        if let Some((v, n)) = self.s.get(self.p..).and_then(fast_int) {
            self.p += n;
            return Ok(v);
        }
        self.signed("a 32-bit integer", i32::MIN as i64, i32::MAX as i64)
            .map(|v| v as i32)
    }

    pub(super) fn int64(&mut self) -> PResult<i64> {
        self.signed("a 64-bit integer", i64::MIN, i64::MAX)
    }

    /// Hex integer (optional `0x`), `bits` wide, as scanf `%x` reads it.
    pub(super) fn hex(&mut self, bits: u32) -> PResult<u64> {
        self.ws();
        let st = self.p;
        if self.s[self.p..].starts_with(b"0x") || self.s[self.p..].starts_with(b"0X") {
            self.p += 2;
            if !self.peek().is_some_and(|b| b.is_ascii_hexdigit()) {
                // "0x" alone: scanf reads the 0.
                self.p -= 1;
            }
        }
        let ds = self.p;
        while self.peek().is_some_and(|b| b.is_ascii_hexdigit()) {
            self.p += 1;
        }
        let v = std::str::from_utf8(&self.s[ds..self.p])
            .ok()
            .and_then(|s| u64::from_str_radix(s, 16).ok())
            .filter(|v| bits == 64 || *v <= u32::MAX as u64);
        v.ok_or_else(|| {
            self.p = st;
            self.err(&format!("expected a {bits}-bit hexadecimal value"))
        })
    }
}

/// `10^n` for `n <= 19`.
pub(super) const POW10_U64: [u64; 20] = {
    let mut t = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// The leading ASCII digits (at most 8) of `s[..8]`: (value, count).
#[inline(always)]
pub(super) fn swar8(s: &[u8; 8]) -> (u64, usize) {
    let w = u64::from_le_bytes(*s);
    let sub = w.wrapping_sub(0x3030_3030_3030_3030);
    // High bit of each byte set for a non-digit (below '0': borrow wraps it
    // past 0x80; above '9': the +0x76 carries into the high bit). Borrows
    // and carries only travel towards later characters, so everything before
    // the first non-digit is exact.
    let non = (sub | sub.wrapping_add(0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080;
    let n = (non.trailing_zeros() / 8) as usize;
    if n == 0 {
        return (0, 0);
    }
    // Keep the n digits, as the low-order end of an 8-digit number with
    // leading zeros (the first character is the lowest byte).
    let mut v = sub << (8 * (8 - n));
    v = (v.wrapping_mul(10).wrapping_add(v >> 8)) & 0x00FF_00FF_00FF_00FF;
    v = (v.wrapping_mul(100).wrapping_add(v >> 16)) & 0x0000_FFFF_0000_FFFF;
    v = (v.wrapping_mul(10_000).wrapping_add(v >> 32)) & 0xFFFF_FFFF;
    (v, n)
}

/// Accumulate the run of ASCII digits at `s[i..]` into `m` (wrapping: the
/// caller bounds the digit count) and return the index after it.
#[inline(always)]
pub(super) fn digit_run(s: &[u8], mut i: usize, m: &mut u64) -> usize {
    while let Some(chunk) = s.get(i..i + 8) {
        let (v, n) = swar8(chunk.try_into().unwrap());
        *m = m.wrapping_mul(POW10_U64[n]).wrapping_add(v);
        i += n;
        if n < 8 {
            return i;
        }
    }
    while let Some(d) = s.get(i).map(|b| b.wrapping_sub(b'0')).filter(|d| *d < 10) {
        *m = m.wrapping_mul(10).wrapping_add(d as u64);
        i += 1;
    }
    i
}

/// Mask of the low `n` bytes of a 16-byte word (all of it for `n >= 16`).
#[inline(always)]
pub(super) fn low_bytes_mask(n: usize) -> u128 {
    if n >= 16 {
        u128::MAX
    } else {
        (1u128 << (8 * n)) - 1
    }
}

/// `a == b` for the short slices of this format, without a `memcmp` call.
#[inline(always)]
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// `s[b..b + n]` repeats `s[a..a + n]` and is followed by `,` (a vertex
/// time spelled like a box time): two 16-byte loads when the line has room.
#[inline(always)]
pub(super) fn same_text(s: &[u8], a: usize, b: usize, n: usize) -> bool {
    if s.get(b + n) != Some(&b',') {
        return false;
    }
    if n <= 16 {
        if let (Some(x), Some(y)) = (s.get(a..a + 16), s.get(b..b + 16)) {
            let x = u128::from_le_bytes(x.try_into().unwrap_or([0; 16]));
            let y = u128::from_le_bytes(y.try_into().unwrap_or([0; 16]));
            return (x ^ y) & low_bytes_mask(n) == 0;
        }
    }
    s.get(a..a + n) == s.get(b..b + n)
}

/// `[-]digits` fitting an `i32`, without error reporting.
#[inline(always)]
pub(super) fn fast_int(s: &[u8]) -> Option<(i32, usize)> {
    let neg = s.first() == Some(&b'-');
    let d0 = neg as usize;
    // Line IDs and category indices are short: one or two digits directly.
    if let Some(&a) = s.get(d0) {
        let a = a.wrapping_sub(b'0');
        if a < 10 {
            let b = s.get(d0 + 1).map_or(10, |b| b.wrapping_sub(b'0'));
            if b >= 10 {
                let v = a as i32;
                return Some((if neg { -v } else { v }, d0 + 1));
            }
            let c = s.get(d0 + 2).map_or(10, |c| c.wrapping_sub(b'0'));
            if c >= 10 {
                let v = (a * 10 + b) as i32;
                return Some((if neg { -v } else { v }, d0 + 2));
            }
        }
    }
    let mut m = 0u64;
    let i = digit_run(s, d0, &mut m);
    let nd = i - d0;
    if nd == 0 || nd > 10 {
        return None;
    }
    let v = if neg { -(m as i64) } else { m as i64 };
    Some((i32::try_from(v).ok()?, i))
}

/// Powers of ten exactly representable in an `f64`.
pub(super) const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Fast path for the common `[+-]digits[.digits]` form (no exponent): exact
/// when the digits fit 53 bits and there are at most 22 decimals (one
/// correctly rounded division, Clinger's fast path). `None` sends the caller
/// to the general parser.
#[inline(always)]
pub(super) fn fast_decimal(s: &[u8]) -> Option<(f64, usize)> {
    let mut i = 0;
    let neg = match s.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let mut m: u64 = 0;
    let d0 = i;
    i = digit_run(s, i, &mut m);
    let int_digits = i - d0;
    let mut frac = 0;
    if s.get(i) == Some(&b'.') {
        i += 1;
        let f0 = i;
        i = digit_run(s, i, &mut m);
        frac = i - f0;
    }
    if int_digits + frac == 0 || int_digits + frac > 19 || frac > 22 || m > (1u64 << 53) {
        return None;
    }
    // An exponent, a hex prefix, `inf`/`nan` tails etc.: general parser.
    if s.get(i)
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.')
    {
        return None;
    }
    let v = m as f64 / POW10[frac];
    Some((if neg { -v } else { v }, i))
}

/// A C99 hexadecimal float (`[+-]0x` hex digits, optional `.` fraction,
/// optional binary exponent `p[+-]N`), as `strtod` reads it. Rounding is
/// exact for up to 16 significant hex digits (everything `printf("%a")`
/// writes) outside the subnormal range; longer mantissas keep a sticky bit.
pub(super) fn hex_float(s: &[u8]) -> Option<(f64, usize)> {
    let mut i = 0;
    let neg = match s.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    if !(s.get(i) == Some(&b'0') && matches!(s.get(i + 1), Some(b'x' | b'X'))) {
        return None;
    }
    i += 2;
    let mut m: u64 = 0;
    let mut shift: i64 = 0; // binary exponent adjustment
    let mut sig = 0; // significant hex digits kept
    let mut any = false;
    let mut sticky = false;
    let mut seen_dot = false;
    loop {
        match s.get(i) {
            Some(b'.') if !seen_dot => seen_dot = true,
            Some(&b) if b.is_ascii_hexdigit() => {
                any = true;
                let d = (b as char).to_digit(16).unwrap() as u64;
                if sig < 16 {
                    if m != 0 || d != 0 {
                        m = (m << 4) | d;
                        sig += 1;
                    }
                    if seen_dot {
                        shift -= 4;
                    }
                } else {
                    sticky |= d != 0;
                    if !seen_dot {
                        shift += 4;
                    }
                }
            }
            _ => break,
        }
        i += 1;
    }
    if !any {
        // "0x" with no digits: strtod reads the "0" (the general parser does).
        return None;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        let mut j = i + 1;
        let eneg = match s.get(j) {
            Some(b'-') => {
                j += 1;
                true
            }
            Some(b'+') => {
                j += 1;
                false
            }
            _ => false,
        };
        let e0 = j;
        let mut e: i64 = 0;
        while let Some(d) = s.get(j).filter(|b| b.is_ascii_digit()) {
            e = (e * 10 + (d - b'0') as i64).min(100_000);
            j += 1;
        }
        if j > e0 {
            shift += if eneg { -e } else { e };
            i = j;
        }
    }
    if sticky {
        m |= 1;
    }
    // One rounding to 53 bits here, then exact scaling by powers of two
    // (except in the subnormal range).
    let mut v = m as f64;
    let mut k = shift;
    while k > 0 && v != 0.0 && v.is_finite() {
        let step = k.min(1000);
        v *= 2f64.powi(step as i32);
        k -= step;
    }
    while k < 0 && v != 0.0 {
        let step = (-k).min(1000);
        v /= 2f64.powi(step as i32);
        k += step;
    }
    Some((if neg { -v } else { v }, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swar_digits() {
        for (s, v, n) in [
            (&b"12345678"[..], 12345678, 8),
            (b"1234567x", 1234567, 7),
            (b"0000229,", 229, 7),
            (b"9, 0) ]x", 9, 1),
            (b"x1234567", 0, 0),
            (b"99999999", 99999999, 8),
            (b"12/45678", 12, 2),
            (b"12:45678", 12, 2),
        ] {
            assert_eq!(swar8(s.try_into().unwrap()), (v, n), "{s:?}");
        }
    }

    #[test]
    fn doubles_like_strtod() {
        let cases: &[(&str, f64, usize)] = &[
            ("0.0000229, ", 0.0000229, 9),
            ("-0.0010000)", -0.001, 10),
            ("1e-3,", 1e-3, 4),
            ("2E-3 ", 2e-3, 4),
            ("+.5)", 0.5, 3),
            ("5.)", 5.0, 2),
            ("123456789012345678901234567890 ", 1.2345678901234568e29, 30),
            ("0.1234567890123456789012345 ", 0.12345678901234568, 27),
            ("0x1.8p3,", 12.0, 7),
            ("-0X10)", -16.0, 5),
            ("0x.8p-1 ", 0.25, 7),
            ("0x1p-1074 ", 5e-324, 9),
            ("inf,", f64::INFINITY, 3),
            ("-Infinity)", f64::NEG_INFINITY, 9),
            ("1e,", 1.0, 1),
            ("0x,", 0.0, 1),
            ("00012)", 12.0, 5),
        ];
        for &(s, v, n) in cases {
            let mut c = Cur {
                s: s.as_bytes(),
                p: 0,
                file: "t",
                line: 1,
            };
            let got = c.double().unwrap();
            assert_eq!((got.to_bits(), c.p), (v.to_bits(), n), "{s}");
        }
        let mut c = Cur {
            s: b"nan(0x12) ",
            p: 0,
            file: "t",
            line: 1,
        };
        assert!(c.double().unwrap().is_nan());
        assert_eq!(c.p, 9);
        for bad in ["x", "", "-", ".", "e5", ",1"] {
            let mut c = Cur {
                s: bad.as_bytes(),
                p: 0,
                file: "t",
                line: 1,
            };
            assert!(c.double().is_err(), "{bad}");
        }
    }

    #[test]
    fn fast_path_agrees_with_std() {
        // Deterministic pseudo-random decimals of every length.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let int_len = (x % 8) as usize;
            let frac_len = ((x >> 8) % 20) as usize;
            let digits = format!("{:020}{:020}", x >> 3, x.rotate_left(29) >> 2);
            let s = format!(
                "{}{}.{} ",
                if x & 1 == 1 { "-" } else { "" },
                &digits[..int_len],
                &digits[20..20 + frac_len]
            );
            if int_len + frac_len == 0 {
                continue;
            }
            let want: f64 = s.trim_end().parse().unwrap();
            let mut c = Cur {
                s: s.as_bytes(),
                p: 0,
                file: "t",
                line: 1,
            };
            assert_eq!(c.double().unwrap().to_bits(), want.to_bits(), "{s}");
            assert_eq!(c.p, s.len() - 1);
        }
    }

    #[test]
    fn integers() {
        for (s, v) in [
            ("0", 0i64),
            ("-2147483648", -2147483648),
            ("+2147483647", 2147483647),
            ("000000000000000000000000042", 42),
            ("12345678901", -1),
        ] {
            let mut c = Cur {
                s: s.as_bytes(),
                p: 0,
                file: "t",
                line: 1,
            };
            match c.int() {
                Ok(x) => assert_eq!(x as i64, v, "{s}"),
                Err(_) => assert_eq!(v, -1, "{s}"),
            }
        }
        let mut c = Cur {
            s: b"-9223372036854775808",
            p: 0,
            file: "t",
            line: 1,
        };
        assert_eq!(c.int64().unwrap(), i64::MIN);
    }
}
