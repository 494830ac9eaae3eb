//! Java-compatible text for floating-point numbers.
//!
//! The reference SLOG-2 tools are Java programs, and everything they print about
//! a file goes through `Double.toString(double)` / `Float.toString(float)`:
//! time boxes (`TimeBBox(5.0E-4,0.008)`), vertex times (printed as
//! `(float) time`), category ratios (f32), and `%e` / `%E` info values. To
//! reproduce `slog2printserial` output byte for byte we need the *exact* text
//! of the Java runtime the reference dumps were made with: **JDK 17**.
//!
//! JDK 17 still uses the old `sun.misc.FloatingDecimal` digit generator
//! (JDK 19 replaced it with a shortest-digits algorithm). It is *not* a
//! shortest round-trip printer: for about 2 % of random doubles and 11 % of
//! random floats (almost all of them `>= 1e7` in magnitude, exact powers of
//! two, or subnormals) it prints one or more extra digits, e.g.
//! `2^60 = 1.15292150460684698E18` (shortest: `1.152921504606847E18`),
//! `2e23 = 1.9999999999999998E23`, `Float.MIN_VALUE = 1.4E-45`,
//! `1.23456791E17f`. In the plain-notation range `[1e-3, 1e7)`, which covers
//! nearly every number in a trace dump, no difference from the shortest
//! digits was found in 190 000 samples — but powers of two and the E-notation
//! ranges do differ, so this module ports the JDK 17 algorithm itself:
//!
//! 1. Unpack the IEEE bits (`binExp`, 53-bit significand with the hidden bit at
//!    bit 52, `nSignificantBits` = 53, 24 for floats, fewer for subnormals;
//!    a float significand is shifted left by 29 to the double position).
//! 2. Integers below 2^63 (`binExp <= 62` and no fraction bits): exact decimal
//!    digits of the integer, except that for `binExp > nSignificantBits` the
//!    last `insignificantDigits(2^(binExp-nSignificantBits-1))` digits are
//!    rounded off (half-up); trailing zeros are dropped.
//! 3. Otherwise Steele & White / dragon4 style digit generation with
//!    `B/S = value / 10^decExp` and `M` = half an ULP (a quarter ULP for exact
//!    powers of two), stopping when the remainder is within `M` of either
//!    neighbour (`low`/`high` test), then rounding the last digit (ties to an
//!    even last digit). The JDK's own quirks are kept: the `decExp` estimate,
//!    the forced second digit in E notation, 32/64-bit wrapping arithmetic in
//!    the fast paths, and `>=` instead of `>` in the big-number `high` test.
//! 4. Layout: `decExponent` in `1..=7` → plain digits with `.0` padding;
//!    `-2..=0` → `0.00ddd`; otherwise `d.dddE±n` (at least one fraction digit).
//!
//! `java_double` / `java_float` were checked against real JDK 17.0.15 output
//! for 4.97 million values (edge cases, every power of two and ten with both
//! neighbours, random bit patterns, short decimals, trace-like times) plus
//! 24.8 million floats (two complete binades, 4 million subnormals, a stride
//! sweep over all 2^32 patterns) with no difference; about 720 of them form
//! the unit-test tables below. The generator and the full specification are in
//! `/work/ref/notes/jfmt/` and `/work/ref/notes/printserial.md` §8.

/// `Double.toString(v)` exactly as JDK 17 prints it.
pub fn java_double(v: f64) -> String {
    let bits = v.to_bits();
    let negative = bits >> 63 != 0;
    let raw_exp = ((bits >> 52) & 0x7ff) as i32;
    let mut fract = bits & ((1u64 << 52) - 1);
    if raw_exp == 0x7ff {
        return special(fract != 0, negative);
    }
    let n_sig_bits;
    let bin_exp;
    if raw_exp == 0 {
        if fract == 0 {
            return zero(negative);
        }
        let lz = fract.leading_zeros() as i32;
        let shift = lz - 11;
        fract <<= shift;
        bin_exp = 1 - shift;
        n_sig_bits = 64 - lz;
    } else {
        fract |= 1u64 << 52;
        bin_exp = raw_exp;
        n_sig_bits = 53;
    }
    let d = dtoa(bin_exp - 1023, fract, n_sig_bits);
    layout(negative, &d)
}

/// `Float.toString(v)` exactly as JDK 17 prints it.
pub fn java_float(v: f32) -> String {
    let bits = v.to_bits();
    let negative = bits >> 31 != 0;
    let raw_exp = ((bits >> 23) & 0xff) as i32;
    let mut fract = bits & ((1u32 << 23) - 1);
    if raw_exp == 0xff {
        return special(fract != 0, negative);
    }
    let n_sig_bits;
    let bin_exp;
    if raw_exp == 0 {
        if fract == 0 {
            return zero(negative);
        }
        let lz = fract.leading_zeros() as i32;
        let shift = lz - 8;
        fract <<= shift;
        bin_exp = 1 - shift;
        n_sig_bits = 32 - lz;
    } else {
        fract |= 1u32 << 23;
        bin_exp = raw_exp;
        n_sig_bits = 24;
    }
    let d = dtoa(bin_exp - 127, (fract as u64) << 29, n_sig_bits);
    layout(negative, &d)
}

fn special(nan: bool, negative: bool) -> String {
    if nan {
        "NaN".to_string()
    } else if negative {
        "-Infinity".to_string()
    } else {
        "Infinity".to_string()
    }
}

fn zero(negative: bool) -> String {
    if negative { "-0.0" } else { "0.0" }.to_string()
}

/// Decimal digits `0.d1 d2 d3 … × 10^dec_exponent` (no trailing-zero guarantee).
struct Digits {
    digits: Vec<u8>,
    dec_exponent: i32,
}

/// Approximately `ceil(log2(5^i))`, as in the JDK (used to pick the arithmetic width).
const N_5_BITS: [i32; 27] = [
    0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56,
    59, 61,
];

/// `insignificantDigitsNumber[p]` = number of decimal digits of `2^p` minus one.
const INSIGNIFICANT_DIGITS: [i32; 64] = [
    0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9,
    9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16,
    16, 17, 17, 17, 18, 18, 18, 19,
];

fn pow5_u64(n: i32) -> u64 {
    // Only used with n <= 26 (5^26 < 2^63).
    5u64.pow(n as u32)
}

/// The JDK's floor(log10(value)) estimate (may be one too small). The literal
/// constants are the JDK's own (not `LOG10_2`), to get identical rounding.
#[allow(clippy::approx_constant)]
fn estimate_dec_exp(fract_bits: u64, bin_exp: i32) -> i32 {
    let d2 = f64::from_bits((1023u64 << 52) | (fract_bits & ((1u64 << 52) - 1)));
    let d = (d2 - 1.5) * 0.289529654 + 0.176091259 + (bin_exp as f64) * 0.301029995663981;
    d.floor() as i32
}

/// Digits of a positive integer, dropping `insignificant` low-order digits with
/// half-up rounding, then trailing zeros.
fn develop_long_digits(mut value: u64, insignificant: i32) -> Digits {
    let mut dec_exponent = 0;
    if insignificant != 0 {
        let pow10 = pow5_u64(insignificant) << insignificant;
        let residue = value % pow10;
        value /= pow10;
        dec_exponent += insignificant;
        if residue >= (pow10 >> 1) {
            value += 1;
        }
    }
    let text = value.to_string();
    let digits: Vec<u8> = text
        .trim_end_matches('0')
        .bytes()
        .map(|b| b - b'0')
        .collect();
    Digits {
        digits,
        dec_exponent: dec_exponent + text.len() as i32,
    }
}

fn dtoa(bin_exp: i32, fract_bits: u64, n_sig_bits: i32) -> Digits {
    let tail_zeros = fract_bits.trailing_zeros() as i32;
    let n_fract_bits = 53 - tail_zeros;
    let n_tiny_bits = (n_fract_bits - bin_exp - 1).max(0);

    // Easy case: an integer below 2^63.
    if (-21..=62).contains(&bin_exp) && n_tiny_bits == 0 {
        let insignificant = if bin_exp > n_sig_bits {
            let p2 = bin_exp - n_sig_bits - 1;
            if p2 > 1 && (p2 as usize) < INSIGNIFICANT_DIGITS.len() {
                INSIGNIFICANT_DIGITS[p2 as usize]
            } else {
                0
            }
        } else {
            0
        };
        let value = if bin_exp >= 52 {
            fract_bits << (bin_exp - 52)
        } else {
            fract_bits >> (52 - bin_exp)
        };
        return develop_long_digits(value, insignificant);
    }

    let mut dec_exp = estimate_dec_exp(fract_bits, bin_exp);
    let b5 = (-dec_exp).max(0);
    let mut b2 = b5 + n_tiny_bits + bin_exp;
    let s5 = dec_exp.max(0);
    let mut s2 = s5 + n_tiny_bits;
    let m5 = b5;
    let mut m2 = b2 - n_sig_bits;

    let fract = fract_bits >> tail_zeros;
    b2 -= n_fract_bits - 1;
    let common2 = b2.min(s2);
    b2 -= common2;
    s2 -= common2;
    m2 -= common2;
    if n_fract_bits == 1 {
        // Exact power of two: the next lower neighbour is only half as far away.
        m2 -= 1;
    }
    if m2 < 0 {
        b2 -= m2;
        s2 -= m2;
        m2 = 0;
    }

    let n5 = |i: i32| -> i32 {
        if (i as usize) < N_5_BITS.len() {
            N_5_BITS[i as usize]
        } else {
            i * 3
        }
    };
    let b_bits = n_fract_bits + b2 + n5(b5);
    let ten_s_bits = s2 + 1 + n5(s5 + 1);

    let mut digits: Vec<u8> = Vec::with_capacity(20);
    let (low, high, low_digit_difference);
    // The E-notation rule of the JDK: in E form at least two digits are produced.
    let e_form = |dec_exp: i32| !(-3..8).contains(&dec_exp);

    if b_bits < 64 && ten_s_bits < 64 {
        if b_bits < 32 && ten_s_bits < 32 {
            // 32-bit arithmetic, wrapping exactly like Java `int`.
            let mut b = (fract as i32)
                .wrapping_mul(pow5_u64(b5) as i32)
                .wrapping_shl(b2 as u32);
            let s = (pow5_u64(s5) as i32).wrapping_shl(s2 as u32);
            let mut m = (pow5_u64(m5) as i32).wrapping_shl(m2 as u32);
            let tens = s.wrapping_mul(10);
            let q = b / s;
            b = (b % s).wrapping_mul(10);
            m = m.wrapping_mul(10);
            let mut lo = b < m;
            let mut hi = b.wrapping_add(m) > tens;
            if q == 0 && !hi {
                dec_exp -= 1;
            } else {
                digits.push(q as u8);
            }
            if e_form(dec_exp) {
                lo = false;
                hi = false;
            }
            while !lo && !hi {
                let q = b / s;
                b = (b % s).wrapping_mul(10);
                m = m.wrapping_mul(10);
                if m > 0 {
                    lo = b < m;
                    hi = b.wrapping_add(m) > tens;
                } else {
                    lo = true;
                    hi = true;
                }
                digits.push(q as u8);
            }
            low = lo;
            high = hi;
            low_digit_difference = b.wrapping_shl(1).wrapping_sub(tens) as i64;
        } else {
            // 64-bit arithmetic, wrapping exactly like Java `long`.
            let mut b = (fract as i64)
                .wrapping_mul(pow5_u64(b5) as i64)
                .wrapping_shl(b2 as u32);
            let s = (pow5_u64(s5) as i64).wrapping_shl(s2 as u32);
            let mut m = (pow5_u64(m5) as i64).wrapping_shl(m2 as u32);
            let tens = s.wrapping_mul(10);
            let q = b / s;
            b = (b % s).wrapping_mul(10);
            m = m.wrapping_mul(10);
            let mut lo = b < m;
            let mut hi = b.wrapping_add(m) > tens;
            if q == 0 && !hi {
                dec_exp -= 1;
            } else {
                digits.push(q as u8);
            }
            if e_form(dec_exp) {
                lo = false;
                hi = false;
            }
            while !lo && !hi {
                let q = b / s;
                b = (b % s).wrapping_mul(10);
                m = m.wrapping_mul(10);
                if m > 0 {
                    lo = b < m;
                    hi = b.wrapping_add(m) > tens;
                } else {
                    lo = true;
                    hi = true;
                }
                digits.push(q as u8);
            }
            low = lo;
            high = hi;
            low_digit_difference = b.wrapping_shl(1).wrapping_sub(tens);
        }
    } else {
        // Exact big-integer arithmetic. M starts at 10·M because the first
        // quotient step already multiplies the remainder by 10.
        let s = Big::pow52(s5, s2);
        let ten_s = Big::pow52(s5 + 1, s2 + 1);
        let mut b = Big::from_u64(fract).mul_pow5(b5).shl(b2);
        let mut m = Big::pow52(m5 + 1, m2 + 1);
        let q = b.quo_rem_times10(&s);
        let mut lo = b.cmp(&m).is_lt();
        let mut hi = b.add(&m).cmp(&ten_s).is_ge();
        if q == 0 && !hi {
            dec_exp -= 1;
        } else {
            digits.push(q);
        }
        if e_form(dec_exp) {
            lo = false;
            hi = false;
        }
        while !lo && !hi {
            let q = b.quo_rem_times10(&s);
            m = m.mul_small(10);
            lo = b.cmp(&m).is_lt();
            hi = b.add(&m).cmp(&ten_s).is_ge();
            digits.push(q);
        }
        low = lo;
        high = hi;
        low_digit_difference = if hi && lo {
            match b.shl(1).cmp(&ten_s) {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
            }
        } else {
            0
        };
    }

    let mut out = Digits {
        digits,
        dec_exponent: dec_exp + 1,
    };
    if high {
        if low {
            if low_digit_difference == 0 {
                // A tie: round towards an even last digit.
                if out.digits.last().is_some_and(|d| d & 1 != 0) {
                    round_up(&mut out);
                }
            } else if low_digit_difference > 0 {
                round_up(&mut out);
            }
        } else {
            round_up(&mut out);
        }
    }
    out
}

/// Adds one to the last digit, carrying; `999` becomes `1` with a larger exponent
/// (the digit count stays the same, the trailing digits keep their zeros).
fn round_up(d: &mut Digits) {
    let Some(mut i) = d.digits.len().checked_sub(1) else {
        return;
    };
    let mut q = d.digits[i];
    if q == 9 {
        while q == 9 && i > 0 {
            d.digits[i] = 0;
            i -= 1;
            q = d.digits[i];
        }
        if q == 9 {
            d.dec_exponent += 1;
            d.digits[0] = 1;
            return;
        }
    }
    d.digits[i] = q + 1;
}

/// `BinaryToASCIIBuffer.getChars`: Java's plain / E-notation layout.
fn layout(negative: bool, d: &Digits) -> String {
    let digits: String = d.digits.iter().map(|&x| (b'0' + x) as char).collect();
    let n = digits.len();
    let e = d.dec_exponent;
    let mut out = String::with_capacity(n + 8);
    if negative {
        out.push('-');
    }
    if e > 0 && e < 8 {
        let int_len = (e as usize).min(n);
        out.push_str(&digits[..int_len]);
        if int_len < e as usize {
            for _ in int_len..e as usize {
                out.push('0');
            }
            out.push_str(".0");
        } else {
            out.push('.');
            if int_len < n {
                out.push_str(&digits[int_len..]);
            } else {
                out.push('0');
            }
        }
    } else if e <= 0 && e > -3 {
        out.push_str("0.");
        for _ in 0..(-e) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        out.push('.');
        if n > 1 {
            out.push_str(&digits[1..]);
        } else {
            out.push('0');
        }
        out.push('E');
        out.push_str(&(e - 1).to_string());
    }
    out
}

/// Minimal unsigned big integer (little-endian 32-bit limbs), just enough for
/// the digit loop: values stay below about 2^1200.
#[derive(Clone, Debug)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    /// `5^p5 · 2^p2`
    fn pow52(p5: i32, p2: i32) -> Big {
        Big::from_u64(1).mul_pow5(p5).shl(p2)
    }

    fn mul_small(mut self, k: u32) -> Big {
        let mut carry = 0u64;
        for limb in self.0.iter_mut() {
            let v = *limb as u64 * k as u64 + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
        self
    }

    fn mul_pow5(mut self, mut p: i32) -> Big {
        // 5^13 is the largest power of five below 2^32.
        while p >= 13 {
            self = self.mul_small(1_220_703_125);
            p -= 13;
        }
        if p > 0 {
            self = self.mul_small(5u32.pow(p as u32));
        }
        self
    }

    fn shl(&self, bits: i32) -> Big {
        if self.0.is_empty() || bits <= 0 {
            return self.clone();
        }
        let words = (bits / 32) as usize;
        let rem = (bits % 32) as u32;
        let mut out = vec![0u32; words];
        if rem == 0 {
            out.extend_from_slice(&self.0);
        } else {
            let mut carry = 0u32;
            for &limb in &self.0 {
                out.push((limb << rem) | carry);
                carry = limb >> (32 - rem);
            }
            if carry != 0 {
                out.push(carry);
            }
        }
        Big(out)
    }

    fn add(&self, other: &Big) -> Big {
        let n = self.0.len().max(other.0.len());
        let mut out = Vec::with_capacity(n + 1);
        let mut carry = 0u64;
        for i in 0..n {
            let a = *self.0.get(i).unwrap_or(&0) as u64;
            let b = *other.0.get(i).unwrap_or(&0) as u64;
            let v = a + b + carry;
            out.push(v as u32);
            carry = v >> 32;
        }
        if carry != 0 {
            out.push(carry as u32);
        }
        Big(out)
    }

    fn sub_assign(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let b = *other.0.get(i).unwrap_or(&0) as i64;
            let mut v = self.0[i] as i64 - b - borrow;
            if v < 0 {
                v += 1 << 32;
                borrow = 1;
            } else {
                borrow = 0;
            }
            self.0[i] = v as u32;
        }
        self.trim();
    }

    fn cmp(&self, other: &Big) -> std::cmp::Ordering {
        let (a, b) = (&self.0, &other.0);
        if a.len() != b.len() {
            return a.len().cmp(&b.len());
        }
        for i in (0..a.len()).rev() {
            if a[i] != b[i] {
                return a[i].cmp(&b[i]);
            }
        }
        std::cmp::Ordering::Equal
    }

    /// `q = self / s; self = 10 · (self mod s)`; the quotient is a single digit.
    fn quo_rem_times10(&mut self, s: &Big) -> u8 {
        let mut q = 0u8;
        while self.cmp(s).is_ge() {
            self.sub_assign(s);
            q += 1;
        }
        let v = std::mem::replace(self, Big(Vec::new()));
        *self = v.mul_small(10);
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(bits: u64) -> String {
        java_double(f64::from_bits(bits))
    }
    fn f(bits: u32) -> String {
        java_float(f32::from_bits(bits))
    }

    #[test]
    fn specials() {
        assert_eq!(java_double(f64::NAN), "NaN");
        assert_eq!(java_double(-f64::NAN), "NaN");
        assert_eq!(java_double(f64::INFINITY), "Infinity");
        assert_eq!(java_double(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(java_double(0.0), "0.0");
        assert_eq!(java_double(-0.0), "-0.0");
        assert_eq!(java_float(f32::NAN), "NaN");
        assert_eq!(java_float(f32::INFINITY), "Infinity");
        assert_eq!(java_float(f32::NEG_INFINITY), "-Infinity");
        assert_eq!(java_float(0.0), "0.0");
        assert_eq!(java_float(-0.0), "-0.0");
    }

    #[test]
    fn layout_and_fixture_values() {
        assert_eq!(java_double(0.0005), "5.0E-4");
        assert_eq!(java_double(0.008), "0.008");
        assert_eq!(java_double(0.001), "0.001");
        assert_eq!(java_double(1.0), "1.0");
        assert_eq!(java_double(100.0), "100.0");
        assert_eq!(java_double(1e7), "1.0E7");
        assert_eq!(java_double(9999999.0), "9999999.0");
        assert_eq!(java_double(1234567.5), "1234567.5");
        assert_eq!(java_double(-1.35e-6), "-1.35E-6");
        assert_eq!(java_double(0.002090999999381893), "0.002090999999381893");
        assert_eq!(java_double(0.15782399999989138), "0.15782399999989138");
        assert_eq!(java_double(1.6885499690033612E-5), "1.6885499690033612E-5");
        assert_eq!(java_float(0.3), "0.3");
        assert_eq!(java_float(1.6666666), "1.6666666");
        assert_eq!(java_float(1.6666667), "1.6666667");
        assert_eq!(java_float(9.88872E-4), "9.88872E-4");
        assert_eq!(java_float(0.002091), "0.002091");
        assert_eq!(java_float(3.8058023), "3.8058023");
        // Vertex times are doubles printed as `(float) t`.
        let t: f64 = 0.0021785;
        assert_eq!(java_float(t as f32), "0.0021785");
        assert_eq!(java_float(1.6885499690033612E-5f64 as f32), "1.68855E-5");
    }

    /// Cases where JDK 17 prints more digits than the shortest round-trip text.
    #[test]
    fn longer_than_shortest() {
        assert_eq!(java_double(2f64.powi(60)), "1.15292150460684698E18");
        assert_eq!(java_double(2e23), "1.9999999999999998E23");
        assert_eq!(java_double(1e23), "9.999999999999999E22");
        assert_eq!(java_double(f64::from_bits(1)), "4.9E-324");
        assert_eq!(java_float(f32::from_bits(1)), "1.4E-45");
        assert_eq!(java_float(f32::MIN_POSITIVE), "1.17549435E-38");
        assert_eq!(java_float(1.0e10), "1.0E10");
        assert_eq!(java_float(2f32.powi(53)), "9.0071993E15");
    }

    /// `(hex bits, Java 17 Double.toString)` produced by running
    /// `/work/ref/notes/jfmt/JavaFmtGen.java` on OpenJDK 17.0.15.
    const DOUBLES: &[(u64, &str)] = &[
        (0x0000000000000000, "0.0"),
        (0x8000000000000000, "-0.0"),
        (0x3ff0000000000000, "1.0"),
        (0xbff0000000000000, "-1.0"),
        (0x3fe0000000000000, "0.5"),
        (0xbfe0000000000000, "-0.5"),
        (0x3fb999999999999a, "0.1"),
        (0xbfb999999999999a, "-0.1"),
        (0x3fc999999999999a, "0.2"),
        (0xbfc999999999999a, "-0.2"),
        (0x3fd3333333333333, "0.3"),
        (0xbfd3333333333333, "-0.3"),
        (0x3f50624dd2f1a9fc, "0.001"),
        (0xbf50624dd2f1a9fc, "-0.001"),
        (0x416312d000000000, "1.0E7"),
        (0xc16312d000000000, "-1.0E7"),
        (0x416312cfffffffff, "9999999.999999998"),
        (0xc16312cfffffffff, "-9999999.999999998"),
        (0x3f1a36e2eb1c432d, "1.0E-4"),
        (0xbf1a36e2eb1c432d, "-1.0E-4"),
        (0x3f50624dd2f1a9fd, "0.0010000000000000002"),
        (0xbf50624dd2f1a9fd, "-0.0010000000000000002"),
        (0x3f50624dd2f1a9fb, "9.999999999999998E-4"),
        (0xbf50624dd2f1a9fb, "-9.999999999999998E-4"),
        (0x416312cfe0000000, "9999999.0"),
        (0xc16312cfe0000000, "-9999999.0"),
        (0x416312d020000000, "1.0000001E7"),
        (0xc16312d020000000, "-1.0000001E7"),
        (0x0000000000000001, "4.9E-324"),
        (0x8000000000000001, "-4.9E-324"),
        (0x0010000000000000, "2.2250738585072014E-308"),
        (0x8010000000000000, "-2.2250738585072014E-308"),
        (0x7fefffffffffffff, "1.7976931348623157E308"),
        (0xffefffffffffffff, "-1.7976931348623157E308"),
        (0x7ff8000000000000, "NaN"),
        (0xfff8000000000000, "NaN"),
        (0x7ff0000000000000, "Infinity"),
        (0xfff0000000000000, "-Infinity"),
        (0x400921fb54442d18, "3.141592653589793"),
        (0xc00921fb54442d18, "-3.141592653589793"),
        (0x4005bf0a8b145769, "2.718281828459045"),
        (0xc005bf0a8b145769, "-2.718281828459045"),
        (0x44b52d02c7e14af6, "9.999999999999999E22"),
        (0xc4b52d02c7e14af6, "-9.999999999999999E22"),
        (0x44c52d02c7e14af6, "1.9999999999999998E23"),
        (0xc4c52d02c7e14af6, "-1.9999999999999998E23"),
        (0x4480f0cf064dd592, "1.0E22"),
        (0xc480f0cf064dd592, "-1.0E22"),
        (0x3f60624dd2f1a9fc, "0.002"),
        (0xbf60624dd2f1a9fc, "-0.002"),
        (0x3ee4f8b588e368f1, "1.0E-5"),
        (0xbee4f8b588e368f1, "-1.0E-5"),
        (0x444b1ae4d6e2ef50, "1.0E21"),
        (0xc44b1ae4d6e2ef50, "-1.0E21"),
        (0x0000000000000002, "1.0E-323"),
        (0x8000000000000002, "-1.0E-323"),
        (0x3f40624dd2f1a9fc, "5.0E-4"),
        (0xbf40624dd2f1a9fc, "-5.0E-4"),
        (0x3f80624dd2f1a9fc, "0.008"),
        (0xbf80624dd2f1a9fc, "-0.008"),
        (0x3ffaaaaaaaaaaaab, "1.6666666666666667"),
        (0xbffaaaaaaaaaaaab, "-1.6666666666666667"),
        (0x4059000000000000, "100.0"),
        (0xc059000000000000, "-100.0"),
        (0x4132d68700000000, "1234567.0"),
        (0xc132d68700000000, "-1234567.0"),
        (0x41678c29c0000000, "1.2345678E7"),
        (0xc1678c29c0000000, "-1.2345678E7"),
        (0x3f5426fe718a86d7, "0.00123"),
        (0xbf5426fe718a86d7, "-0.00123"),
        (0x437b69b4ba630f35, "1.2345678901234568E17"),
        (0xc37b69b4ba630f35, "-1.2345678901234568E17"),
        (0x43b0000000000000, "1.15292150460684698E18"),
        (0xc3b0000000000000, "-1.15292150460684698E18"),
        (0x43d0000000000000, "4.6116860184273879E18"),
        (0xc3d0000000000000, "-4.6116860184273879E18"),
        (0x43e0000000000000, "9.223372036854776E18"),
        (0xc3e0000000000000, "-9.223372036854776E18"),
        (0x43f0000000000000, "1.8446744073709552E19"),
        (0xc3f0000000000000, "-1.8446744073709552E19"),
        (0x4340000000000000, "9.007199254740992E15"),
        (0xc340000000000000, "-9.007199254740992E15"),
        (0x4340000000000001, "9.007199254740994E15"),
        (0xc340000000000001, "-9.007199254740994E15"),
        (0x4350000000000000, "1.8014398509481984E16"),
        (0xc350000000000000, "-1.8014398509481984E16"),
        (0x3fd5555555555555, "0.3333333333333333"),
        (0xbfd5555555555555, "-0.3333333333333333"),
        (0x3fe5555555555555, "0.6666666666666666"),
        (0xbfe5555555555555, "-0.6666666666666666"),
        (0x3fd3333333333334, "0.30000000000000004"),
        (0xbfd3333333333334, "-0.30000000000000004"),
        (0x4011666666666666, "4.35"),
        (0xc011666666666666, "-4.35"),
        (0x3fc43393ab430000, "0.15782399999989138"),
        (0xbfc43393ab430000, "-0.15782399999989138"),
        (0x3f61212513a00000, "0.002090999999381893"),
        (0xbf61212513a00000, "-0.002090999999381893"),
        (0x3ef1b4aab4000000, "1.6885499690033612E-5"),
        (0xbef1b4aab4000000, "-1.6885499690033612E-5"),
        (0x36a0000000000000, "1.401298464324817E-45"),
        (0x3810000000000000, "1.1754943508222875E-38"),
        (0x47efffffe0000000, "3.4028234663852886E38"),
        (0x4202a05f20000000, "1.0E10"),
        (0x3f50624de0000000, "0.0010000000474974513"),
        (0x3f50624dc0000000, "9.999999310821295E-4"),
        (0x3ffaaaaac0000000, "1.6666667461395264"),
        (0x3ffaaaaaa0000000, "1.6666666269302368"),
        (0x3fbbc0c040000000, "0.10840989649295807"),
        (0x3f5033a140000000, "9.888720232993364E-4"),
        (0x4170000000000000, "1.6777216E7"),
        (0x4180000000000000, "3.3554432E7"),
        (0x3ddb7cdfe0000000, "1.000000013351432E-10"),
        (0x0000000000000003, "1.5E-323"),
        (0x0000000000000004, "2.0E-323"),
        (0x0000000000000005, "2.5E-323"),
        (0x0000000000000008, "4.0E-323"),
        (0x4372e2177d5e3f95, "8.5042241539930448E16"),
        (0x43925623f9cd7be8, "3.3032077412027443E17"),
        (0x43625b366e385f70, "4.1334711330732928E16"),
        (0xc3b0e3d76a25bb48, "-1.21705317521970176E18"),
        (0x438b43e11c24362e, "2.45582671680816576E17"),
        (0x43b1a10cae6fec4e, "1.27031051323679078E18"),
        (0x43a9dd7249915cad, "9.3188574054910118E17"),
        (0xc38e39de75f27ed9, "-2.72252061621410592E17"),
        (0x43c36183e9f24a68, "2.7930848005542912E18"),
        (0x43a9f4afd5f0e48f, "9.3515653933500198E17"),
        (0x43b2abe88c570c4f, "1.34542460315371494E18"),
        (0x43d32a2f0aea2f60, "5.5238718386705203E18"),
        (0x43c4f065e8c9e835, "3.0176358513267451E18"),
        (0xc3beeeaec0e62202, "-2.22891100911291648E18"),
        (0x43db39fd1bc5af82, "7.8475096336764785E18"),
        (0xc36a6e3b83c06514, "-5.9516410296215712E16"),
        (0xc3728ddac1c8d50e, "-8.3560324389490912E16"),
        (0xc38e957bd498dc07, "-2.75475468211945696E17"),
        (0x43ca5903b4560cba, "3.7971055819720919E18"),
        (0x438f5c0122bb82ba, "2.82460295214946112E17"),
        (0xc38d1745d7b838a2, "-2.62027618046907456E17"),
        (0xc3b18a29142ea1f7, "-1.26386781208929664E18"),
        (0x43d7a662b0d249a8, "6.8166320823524803E18"),
        (0x43cf171698a1c736, "4.4805683688902769E18"),
        (0x4397ad3801b75e94, "4.2652035346645939E17"),
        (0x43b89827f8566003, "1.77221040092479565E18"),
        (0xc37902add79079b0, "-1.12637121390942976E17"),
        (0xc368b23ea38dd116, "-5.5611052342020272E16"),
        (0xc3b6113b00ba637e, "-1.59011701775161702E18"),
        (0x436aed81995db50c, "6.0635922192771168E16"),
        (0x436874b9d9a55258, "5.5069928082543296E16"),
        (0xc3a1f6f747e7a668, "-6.4724691555838874E17"),
        (0xc3a9e6d06edd32c9, "-9.3320413508386112E17"),
        (0xc3bdb1c28bae6c6b, "-2.13970520316027981E18"),
        (0xc3b7d47973690302, "-1.71713089452500634E18"),
        (0x43651d874aae6025, "4.7547531373248808E16"),
        (0x43b703569107418f, "1.65826426869445811E18"),
        (0x43b50e72db2208ed, "1.51727640996485043E18"),
        (0xc3ab747ccb9dc608, "-9.8917167514484838E17"),
        (0x43721a9268e6f34f, "8.1532251332883696E16"),
        (0x3c20000000000000, "4.3368086899420177E-19"),
        (0x439806b838fb7711, "4.3281841541177453E17"),
        (0xc39d0e8b44961837, "-5.2344100086651642E17"),
        (0x43c0e806c93745c3, "2.4364623209784622E18"),
        (0x43c0e246f03bf113, "2.4332256939104108E18"),
        (0x43b9fce45869bcf3, "1.87262261346152934E18"),
        (0x43632e8bc9e28224, "4.3193619839193376E16"),
        (0xc3b71a0bb6252bf6, "-1.66465588920241101E18"),
        (0xc38eac334deaec8f, "-2.76274740859867616E17"),
        (0xc384d5d85c314a3c, "-1.87667992659183488E17"),
        (0x43be690e506b0777, "2.19129843224828083E18"),
        (0x4373a43a62153ca1, "8.8457523489917456E16"),
        (0x43a6883d1962323c, "8.1180742244899994E17"),
        (0xc3be81d55747ebb6, "-2.19827266397901363E18"),
        (0x43b7949933983ee5, "1.69915140630216013E18"),
        (0xc3773dcbff385b19, "-1.04669933342142864E17"),
        (0x4353c84fe5a5e02a, "2.2273080153309352E16"),
        (0x43c174b379f923d2, "2.5156550647910001E18"),
        (0x43dd0e963520b076, "8.3751041267989115E18"),
        (0xc38e25615df266d9, "-2.71531181425351456E17"),
        (0x43d926d91c712c66, "7.2494984649770004E18"),
        (0x43953ca75857c0e8, "3.8257049281758669E17"),
        (0xc3a2d3f84bc80a4e, "-6.7835045856550272E17"),
        (0x43d88ac8ef1889bd, "7.0737869317230397E18"),
        (0x43d394a2f2878790, "5.6437269832536064E18"),
        (0xc376c4b8536007e2, "-1.02539927031414304E17"),
        (0x43b1ddb23e5286f6, "1.28738104924012288E18"),
        (0xc3dcfcc933fa76c9, "-8.3550622091026852E18"),
        (0x0ab0000000000000, "3.3299958654878358E-257"),
        (0xc3bd348993dd8b21, "-2.10445819405894477E18"),
        (0xc37b67b1b274c583, "-1.23421396352915504E17"),
        (0x439078741a4840e4, "2.9670653951057741E17"),
        (0xc3b9a2d7295c4e42, "-1.84727536981758822E18"),
        (0xc3bfa391fbfa7139, "-2.27982634780414592E18"),
        (0x436a22b4b4e1bf12, "5.8852071349024912E16"),
        (0xc3d82c98da3774a8, "-6.9677408755448955E18"),
        (0x43b220707c2a66a0, "1.30616757052706816E18"),
        (0xc3756b6d5ff56198, "-9.6465472263166336E16"),
        (0x436c66dc35d07dd4, "6.3955162636742304E16"),
        (0xc375823c1b7a2d90, "-9.6866706905028864E16"),
        (0xc3761b88d83c7894, "-9.9563584719653184E16"),
        (0x437b1b1f6f653701, "1.22074339168448528E17"),
        (0x43c878132734945a, "3.5263606264446781E18"),
        (0x43a410b64f571d06, "7.2292796613306035E17"),
        (0x438a505bc20e93ed, "2.37014541518667168E17"),
        (0xc386124f0bd03138, "-1.98802566321415936E17"),
        (0xc3c0a098a089734e, "-2.3962506322975529E18"),
        (0xc3a6edb443137121, "-8.2608741924841485E17"),
        (0xc362993a1e13811e, "-4.1880195780315376E16"),
        (0xc39f1e395d975e5e, "-5.6057318465284288E17"),
        (0xc360ba573e13cb96, "-3.7667867950210224E16"),
        (0xc3a65579aa78fefe, "-8.0466310746809933E17"),
        (0x43db6443fbdedd0a, "7.8951091430000005E18"),
        (0xc3c02bfe6aa97699, "-2.3306093253370312E18"),
        (0xc37f2eb25edf2fa0, "-1.40433086540347904E17"),
        (0x43d8b48069d5d33a, "7.1207557790619996E18"),
        (0xc3bc562a87d662b0, "-2.04186624396484198E18"),
        (0x4366b1f050063206, "5.1104761443881008E16"),
        (0x43c58aa3b263b4a5, "3.1044660163096929E18"),
        (0xc3a7293d2398c15b, "-8.3446618000671885E17"),
        (0xc35667679ed5c28c, "-2.5224576926943792E16"),
        (0x43dd737b4dfeffa3, "8.4887016973700004E18"),
        (0x43a0adadd9956bd8, "6.0090391280208589E17"),
        (0x43b7348c8c0f9d3c, "1.67211589484656947E18"),
        (0x438d17100ec5dc2c, "2.62020225899922816E17"),
        (0x4362b60ec6446a6e, "4.2133793223693168E16"),
        (0x439848c82fda17bc, "4.3746714077036109E17"),
        (0x4396f3060d2b71d9, "4.1341803545208173E17"),
        (0x43d17acbe789289e, "5.0381729644099973E18"),
        (0x3f8dede722ce460a, "0.01461391997307528"),
        (0x3f812d482dc743d5, "0.008387149712605716"),
        (0x3fe168569f9558c2, "0.5439866177428245"),
        (0x3e79c65a02122243, "9.601865304427977E-8"),
        (0x4030a2f5014efb03, "16.63655098131404"),
        (0xe90b8e10f63b2f6d, "-1.0298802691584331E198"),
        (0x3b82e3b40a0e9b4f, "5.0E-22"),
        (0xc310e5d5e0e2f85c, "-1.189076597784087E15"),
        (0x2b95df5ca28ef40e, "1.0000000000000001E-98"),
        (0x41400ace80000000, "2102685.0"),
        (0x3c29c06c71b5e9bb, "6.98E-19"),
        (0x671eee31ac0fb657, "5.383236716454284E188"),
        (0x3d59115de39ac83d, "3.562354164E-13"),
        (0x40e125dca310b2e4, "35118.89490542354"),
        (0x418014d240000000, "3.3725E7"),
        (0xc066c00000000000, "-182.0"),
        (0x40974f9ed27a1fe2, "1491.9050997812233"),
        (0x3e6a247741baa281, "4.86940978349273E-8"),
        (0x3ebdac665be62324, "1.7686746641451155E-6"),
        (0xc30d9531092e8488, "-1.040851520573585E15"),
        (0x3f50d2a7826bf5cd, "0.00102678640695274"),
        (0xc1cc5e9fab000000, "-9.51926614E8"),
        (0x403e29875ba37bb0, "30.16222164861"),
        (0x8a90098b1f812783, "-8.344386421092507E-258"),
        (0x442674df2e765008, "2.0712493526775E20"),
        (0x40495ed74916c9a8, "50.74094499218637"),
        (0x40b0d96cd68be686, "4313.425148719578"),
        (0x4058281bd4720f1f, "96.6266986001833"),
        (0x6b2ae036d8330740, "1.7257147748681105E208"),
        (0x3f3b7cfb71ee4699, "4.1943682475063245E-4"),
        (0x3fdfc458fcdb6984, "0.49635910695146657"),
        (0x3efdc3c863c2564f, "2.8385902837676978E-5"),
        (0x4085f8630a8b840f, "703.0483599567104"),
        (0x535c16a0e2175223, "3.6618922112131052E93"),
        (0x3c9cd2b297d889bc, "1.0E-16"),
        (0x3e688ecb50bb01e0, "4.574244813265708E-8"),
        (0xa36c68905ae845f9, "-4.7711116384905645E-138"),
        (0xd3c8cfde43771a35, "-4.140474903948202E95"),
        (0x4087ad87f401b269, "757.6913833744594"),
        (0x3ee493b973a53d7a, "9.81190134E-6"),
        (0x3ead151ade15f4ba, "8.667242889362212E-7"),
        (0x3e733e3fd0671a61, "7.16863618250288E-8"),
        (0x3f9f3fc393d6d344, "0.030516677759538938"),
        (0x3eea33d3543af516, "1.2494298636917796E-5"),
        (0x7f92872d13e2a3f0, "3.2527065600833226E306"),
        (0xc6dc709f95bf121c, "-2.3073216490106366E33"),
        (0xb52c8190f836f81d, "-1.488088809407898E-52"),
        (0x40563ac8b4395810, "88.9185"),
        (0x3e01746a4e2b8e3d, "5.08E-10"),
        (0x3ff499ccae22b37d, "1.2875487138910267"),
        (0x3e125a573a014602, "1.068279E-9"),
        (0x03112adab8a4dafe, "6.719992138007575E-294"),
        (0x1d43b6ab605fa676, "1.0447137664958645E-167"),
        (0xc20c3ef7b6280000, "-1.5164438213E10"),
        (0x45b8c91bc2aadfd1, "7.670765420331E27"),
        (0x40c317c2969d6886, "9775.52022140125"),
        (0x0000000000000200, "2.53E-321"),
        (0x43d0f9e1a58f6dee, "4.8930275E18"),
        (0x44b05153acf0a3ca, "7.70580794544722E22"),
        (0x3dd945644f5731f7, "9.19355874720164E-11"),
        (0x3fead7be183e95f0, "0.838835761406413"),
        (0xc27c730b950eb000, "-1.955027570923E12"),
        (0x3dd5fd7fe1796495, "8.0E-11"),
        (0x86250512cc5b04db, "-4.631940600036629E-279"),
        (0x4367d0291aba5240, "5.36223954E16"),
        (0x5546efe3768d8703, "6.421646219053373E102"),
        (0xf0eae7389c944536, "-8.55402833943792E235"),
        (0x5d79f08900efb846, "1.9769745866728455E142"),
        (0xd6ca913522044c0c, "-1.2478848082948507E110"),
        (0x405232fe0940287d, "72.79675513520665"),
        (0x435baf8d2d99ee60, "3.1171381046E16"),
        (0x3f032124f42dc6e6, "3.648656868094988E-5"),
        (0x3dcefdf7b24ca91c, "5.63742301862915E-11"),
        (0x1bd847846e5359c9, "1.5338392200691758E-174"),
        (0x42474876e8000000, "2.0E11"),
        (0x3fa31b7d6d1ed72f, "0.037319106645936954"),
        (0x40dec08000000000, "31490.0"),
        (0x2e6facaa7072fa01, "5.0951933676441586E-85"),
        (0x3d8fcb2158c1a422, "3.6144999262812E-12"),
        (0x40b4c0edffb6d050, "5312.929683137758"),
        (0x41b0ab8a08170a3d, "2.7967744809E8"),
        (0xc0b7bf0000000000, "-6079.0"),
        (0x5e88b047d58ec8a7, "2.4662908510097896E147"),
        (0xc20cb26e74980000, "-1.5406583443E10"),
        (0x91917dc1d227f590, "-4.72545684992976E-224"),
        (0x40fd181aac6ea191, "119169.66709769356"),
        (0xc0e9a66000000000, "-52531.0"),
        (0x3e6ee617f3571b0f, "5.755350544370337E-8"),
        (0x3d3722f352db7b85, "8.219745E-14"),
        (0x3fa64637bce67868, "0.0435044687358051"),
        (0x3e36efcf5b5a5f4b, "5.340380073618153E-9"),
        (0x3f9d2febc576a050, "0.02850311653824661"),
        (0x3d5fce82149073fe, "4.52E-13"),
        (0x750e45b7a2bf0c6d, "7.102189117601489E255"),
        (0xc1eee13114200000, "-4.144597153E9"),
        (0x4010000000000000, "4.0"),
        (0x3f66e05976cd1312, "0.0027925250382473477"),
        (0x3f72d0eae4731ff4, "0.0045937705501231"),
        (0x3ee772d129e3cc62, "1.1181118051406355E-5"),
        (0x42b319718a500000, "2.1E13"),
        (0x41e7e6874f400000, "3.207871098E9"),
        (0x41f1092e8be00000, "4.57303059E9"),
        (0xc022000000000000, "-9.0"),
        (0x40b2f30b00bf0109, "4851.042980134728"),
        (0x403ff31996fa5a32, "31.949609218712972"),
        (0x41958c4b7a308073, "9.0378974547365E7"),
        (0x1e96cbed5f983b41, "2.5335660808330624E-161"),
        (0x4096500000000000, "1428.0"),
        (0x41bbaee0eab9396a, "4.644456747235323E8"),
        (0x1941cb41690564bd, "5.11193682492818E-187"),
        (0x3fdbf63eaa447ac0, "0.4369045889633689"),
        (0x4388fb23f0c2cd42, "2.25008999129E17"),
        (0x416a79532fa7ef9e, "1.387996148925E7"),
        (0x3fc7a376922d948e, "0.184676"),
        (0x96ff7ab5174eaec6, "-6.580036204871897E-198"),
        (0xe755d4fa963b9a9e, "-6.079526934264942E189"),
        (0x14ab56d8bf0294ed, "4.1579526149471813E-209"),
        (0x3e610707e05c57ee, "3.1716123101234917E-8"),
        (0xc18ecf72e0000000, "-6.461398E7"),
        (0xc33afaed707dfa57, "-7.594247095974487E15"),
        (0x3e77861868801ee6, "8.763302095104374E-8"),
        (0x3fd200d3b0518434, "0.28130047052951856"),
        (0xc26206db1db76000, "-6.19395476923E11"),
        (0xc2f6eb7476ad3e60, "-4.03208432964582E14"),
        (0x3fb62cd7fdd55189, "0.0866217608175416"),
        (0x40bbb2e72b53a3ff, "7090.9030048632985"),
        (0x3edf93d1354ec436, "7.528641465735311E-6"),
        (0x4061800000000000, "140.0"),
        (0x3e796680ff8d1758, "9.46238855162068E-8"),
        (0x42dc6b3d54acfa80, "1.2498766415153E14"),
        (0x4229d26a91660000, "5.5452190899E10"),
        (0x405a2680c20fa939, "104.60160876778981"),
        (0x3f027d12ffe20c71, "3.526415092471806E-5"),
        (0xc024000000000000, "-10.0"),
        (0x41f58afae1533333, "5.7828756692E9"),
        (0xc194d280ac000000, "-8.7334955E7"),
        (0x426646aa0c54a000, "7.65398639269E11"),
        (0xe52b96cecc42eba0, "-2.2359642748932834E179"),
        (0x3434c6c8746bc75c, "3.3098868033187325E-57"),
        (0x405603fc5d8fc29e, "88.06227816619"),
    ];

    /// `(hex bits, Java 17 Float.toString)`, same source.
    const FLOATS: &[(u32, &str)] = &[
        (0x00000000, "0.0"),
        (0x80000000, "-0.0"),
        (0x3f800000, "1.0"),
        (0xbf800000, "-1.0"),
        (0x3f000000, "0.5"),
        (0xbf000000, "-0.5"),
        (0x3dcccccd, "0.1"),
        (0xbdcccccd, "-0.1"),
        (0x3e4ccccd, "0.2"),
        (0xbe4ccccd, "-0.2"),
        (0x3e99999a, "0.3"),
        (0xbe99999a, "-0.3"),
        (0x3a83126f, "0.001"),
        (0xba83126f, "-0.001"),
        (0x4b189680, "1.0E7"),
        (0xcb189680, "-1.0E7"),
        (0x38d1b717, "1.0E-4"),
        (0xb8d1b717, "-1.0E-4"),
        (0x4b18967f, "9999999.0"),
        (0xcb18967f, "-9999999.0"),
        (0x4b189681, "1.0000001E7"),
        (0xcb189681, "-1.0000001E7"),
        (0x7f800000, "Infinity"),
        (0xff800000, "-Infinity"),
        (0x7fc00000, "NaN"),
        (0xffc00000, "NaN"),
        (0x40490fdb, "3.1415927"),
        (0xc0490fdb, "-3.1415927"),
        (0x402df854, "2.7182817"),
        (0xc02df854, "-2.7182817"),
        (0x65a96816, "1.0E23"),
        (0xe5a96816, "-1.0E23"),
        (0x66296816, "2.0E23"),
        (0xe6296816, "-2.0E23"),
        (0x64078678, "1.0E22"),
        (0xe4078678, "-1.0E22"),
        (0x3b03126f, "0.002"),
        (0xbb03126f, "-0.002"),
        (0x3727c5ac, "1.0E-5"),
        (0xb727c5ac, "-1.0E-5"),
        (0x6258d727, "1.0E21"),
        (0xe258d727, "-1.0E21"),
        (0x3a03126f, "5.0E-4"),
        (0xba03126f, "-5.0E-4"),
        (0x3c03126f, "0.008"),
        (0xbc03126f, "-0.008"),
        (0x3fd55555, "1.6666666"),
        (0xbfd55555, "-1.6666666"),
        (0x42c80000, "100.0"),
        (0xc2c80000, "-100.0"),
        (0x4996b438, "1234567.0"),
        (0xc996b438, "-1234567.0"),
        (0x4b3c614e, "1.2345678E7"),
        (0xcb3c614e, "-1.2345678E7"),
        (0x3aa137f4, "0.00123"),
        (0xbaa137f4, "-0.00123"),
        (0x5bdb4da6, "1.23456791E17"),
        (0xdbdb4da6, "-1.23456791E17"),
        (0x5d800000, "1.1529215E18"),
        (0xdd800000, "-1.1529215E18"),
        (0x5e800000, "4.611686E18"),
        (0xde800000, "-4.611686E18"),
        (0x5f000000, "9.223372E18"),
        (0xdf000000, "-9.223372E18"),
        (0x5f800000, "1.8446744E19"),
        (0xdf800000, "-1.8446744E19"),
        (0x5a000000, "9.0071993E15"),
        (0xda000000, "-9.0071993E15"),
        (0x5a800000, "1.80143985E16"),
        (0xda800000, "-1.80143985E16"),
        (0x3eaaaaab, "0.33333334"),
        (0xbeaaaaab, "-0.33333334"),
        (0x3f2aaaab, "0.6666667"),
        (0xbf2aaaab, "-0.6666667"),
        (0x408b3333, "4.35"),
        (0xc08b3333, "-4.35"),
        (0x3e219c9d, "0.157824"),
        (0xbe219c9d, "-0.157824"),
        (0x3b090929, "0.002091"),
        (0xbb090929, "-0.002091"),
        (0x378da556, "1.68855E-5"),
        (0xb78da556, "-1.68855E-5"),
        (0x00000001, "1.4E-45"),
        (0x80000001, "-1.4E-45"),
        (0x00800000, "1.17549435E-38"),
        (0x80800000, "-1.17549435E-38"),
        (0x7f7fffff, "3.4028235E38"),
        (0xff7fffff, "-3.4028235E38"),
        (0x501502f9, "1.0E10"),
        (0xd01502f9, "-1.0E10"),
        (0x3a83126e, "9.999999E-4"),
        (0xba83126e, "-9.999999E-4"),
        (0x3fd55556, "1.6666667"),
        (0xbfd55556, "-1.6666667"),
        (0x3dde0602, "0.1084099"),
        (0xbdde0602, "-0.1084099"),
        (0x3a819d0a, "9.88872E-4"),
        (0xba819d0a, "-9.88872E-4"),
        (0x4b800000, "1.6777216E7"),
        (0xcb800000, "-1.6777216E7"),
        (0x4c000000, "3.3554432E7"),
        (0xcc000000, "-3.3554432E7"),
        (0x2edbe6ff, "1.0E-10"),
        (0xaedbe6ff, "-1.0E-10"),
        (0x549f73ee, "5.4787582E12"),
        (0xcd476390, "-2.09074432E8"),
        (0xd83968f3, "-8.1544162E14"),
        (0xd74749eb, "-2.19120289E14"),
        (0xccf0abf3, "-1.26181272E8"),
        (0x4d65f233, "2.41115952E8"),
        (0x5422c61e, "2.79643423E12"),
        (0xd5822a50, "-1.78897803E13"),
        (0x5a3390cf, "1.26358099E16"),
        (0x5a8c60d6, "1.97564845E16"),
        (0xd84be785, "-8.9678092E14"),
        (0x4ffebbcd, "8.5474412E9"),
        (0x4e606b55, "9.4128262E8"),
        (0x5682bbad, "7.1871286E13"),
        (0x4dd63b1e, "4.49274816E8"),
        (0x5543e350, "1.34613167E13"),
        (0xdcc00573, "-4.32393496E17"),
        (0x4da01a8d, "3.35761824E8"),
        (0xdce95c44, "-5.25480934E17"),
        (0x5334fd18, "7.7734032E11"),
        (0x4e44e8e0, "8.2589901E8"),
        (0x4cac625c, "9.0378976E7"),
        (0x542848ed, "2.89111199E12"),
        (0x5188922d, "7.3320997E10"),
        (0x51aecb23, "9.3841547E10"),
        (0x57fc091f, "5.5423221E14"),
        (0x55da542d, "3.00068834E13"),
        (0xd79b3614, "-3.41313132E14"),
        (0x4ea2c5c5, "1.36543501E9"),
        (0xcf47a158, "-3.34923981E9"),
        (0x10800000, "5.0487098E-29"),
        (0xde402699, "-3.46148058E18"),
        (0x4c290c06, "4.4314648E7"),
        (0x59802412, "4.5085571E15"),
        (0x4dff73bb, "5.35721824E8"),
        (0x5695e7a4, "8.2411061E13"),
        (0xcceb852e, "-1.23480432E8"),
        (0xd58cef55, "-1.93699439E13"),
        (0xd1554c5e, "-5.7256829E10"),
        (0xdba2dc38, "-9.1682159E16"),
        (0x557a47de, "1.71991609E13"),
        (0xd890323d, "-1.26836357E15"),
        (0xd7c34c1b, "-4.29463276E14"),
        (0xcef2030b, "-2.03014285E9"),
        (0x52df0883, "4.78960255E11"),
        (0x4ed874c7, "1.81576589E9"),
        (0xd061271e, "-1.51097487E10"),
        (0x5057e895, "1.44893757E10"),
        (0x4fc03a88, "6.4501228E9"),
        (0x4f6f9f83, "4.02020838E9"),
        (0x51281ce1, "4.5127438E10"),
        (0xd954e8ac, "-3.74553253E15"),
        (0x55d017a7, "2.86000006E13"),
        (0x533e337b, "8.1690749E11"),
        (0x503563da, "1.21728799E10"),
        (0x4cc27db2, "1.01969296E8"),
        (0x4f703d92, "4.03056691E9"),
        (0x4e130bbd, "6.1675501E8"),
        (0x4f18e1d1, "2.56493594E9"),
        (0x5ef40607, "8.7918747E18"),
        (0xd6af0c53, "-9.6233733E13"),
        (0xde7096ba, "-4.33406208E18"),
        (0x576635c3, "2.53118579E14"),
        (0x5accb21f, "2.88083707E16"),
        (0x57b8cd2f, "4.06382793E14"),
        (0x4e38aa99, "7.7454701E8"),
        (0xd5851bf2, "-1.82943838E13"),
        (0x4e058343, "5.5999302E8"),
        (0xd3a7d4e7, "-1.44166289E12"),
        (0x5291d4df, "3.13170821E11"),
        (0xddd8e413, "-1.95357969E18"),
        (0x5a90002a, "2.02662885E16"),
        (0x4e0f03be, "5.9984678E8"),
        (0x4d50bf7f, "2.18888176E8"),
        (0x57c28593, "4.27757905E14"),
        (0xd36f7472, "-1.02845081E12"),
        (0x58b569e7, "1.59573161E15"),
        (0xd8c86c3d, "-1.76293764E15"),
        (0x590871b0, "2.40034985E15"),
        (0xce76c3fe, "-1.03500992E9"),
        (0xd89e78a5, "-1.39392801E15"),
        (0x5b1b40eb, "4.3699999E16"),
        (0x56c88144, "1.10228759E14"),
        (0x4ea449e7, "1.37815334E9"),
        (0x58c510c5, "1.73340652E15"),
        (0x50e6f7cf, "3.10000005E10"),
        (0x5e7fffff, "4.61168574E18"),
        (0x59629c37, "3.98656905E15"),
        (0x59f95b94, "8.7734951E15"),
        (0xdb050a16, "-3.7447262E16"),
        (0xd7320551, "-1.95735904E14"),
        (0xdebcef78, "-6.8071161E18"),
        (0x5d7e521f, "1.14535899E18"),
        (0x58cdb0e4, "1.80927699E15"),
        (0x54a5e44f, "5.6999999E12"),
        (0x59f376b6, "8.5661179E15"),
        (0x5a46fc82, "1.40024202E16"),
        (0x5b629792, "6.3779998E16"),
        (0x4ed8a157, "1.81722611E9"),
        (0x51b242bf, "9.5702999E10"),
        (0x5c5e16ea, "2.50050556E17"),
        (0xce76f7e0, "-1.03585997E9"),
        (0xd2dcb4cb, "-4.73963004E11"),
        (0xdaf8ee35, "-3.50338528E16"),
        (0x4c65f40a, "6.0280872E7"),
        (0x530c68f0, "6.0305598E11"),
        (0x5da9593f, "1.52535674E18"),
        (0x4cb301c0, "9.3851136E7"),
        (0x55d959bb, "2.98724266E13"),
        (0x5abfeae7, "2.70099992E16"),
        (0xc0800000, "-4.0"),
        (0x457a0000, "4000.0"),
        (0x418e4419, "17.78325"),
        (0x29dfb1f8, "9.934062E-14"),
        (0x68c4dde8, "7.437418E24"),
        (0x3d06f405, "0.03294756"),
        (0x3df9e22e, "0.122013435"),
        (0x32cf10ec, "2.4105667E-8"),
        (0x408aa71e, "4.3329"),
        (0x3ce9bf4e, "0.028533604"),
        (0x3fe315ba, "1.7741005"),
        (0xc7876980, "-69331.0"),
        (0x3d38b98d, "0.04509883"),
        (0x3be47a9d, "0.0069726245"),
        (0x1eea4daf, "2.4807843E-20"),
        (0x3f204619, "0.6260696"),
        (0x42aac877, "85.39153"),
        (0x3dba350d, "0.0909215"),
        (0x3a60042d, "8.545544E-4"),
        (0x3b816d98, "0.003949832"),
        (0x45f7bc25, "7927.518"),
        (0xd352a73c, "-9.0474886E11"),
        (0x40a5bb30, "5.1791"),
        (0x630170d5, "2.3877604E21"),
        (0x5d0f152e, "6.4438734E17"),
        (0x35115983, "5.4146966E-7"),
        (0x024e74dc, "1.5168027E-37"),
        (0x429ca984, "78.331085"),
        (0x4a46e304, "3258561.0"),
        (0x3abe1674, "0.0014502541"),
        (0x397a1874, "2.3850967E-4"),
        (0x62443d5c, "9.049958E20"),
        (0x3c48d418, "0.012257598"),
        (0x3a6bec71, "8.999771E-4"),
        (0x40b167ae, "5.543906"),
        (0x38872d37, "6.4457236E-5"),
        (0x409c4623, "4.8835616"),
        (0xcb2d0769, "-1.1339625E7"),
        (0x3ada2e7c, "0.0016645934"),
        (0x6467812c, "1.7082023E22"),
        (0x381fc65f, "3.80933E-5"),
        (0xd78ad815, "-3.0532134E14"),
        (0x3573e10f, "9.085206E-7"),
        (0x2fcd76c9, "3.7373685E-10"),
        (0xdb730ffe, "-6.8416003E16"),
        (0x2c76eb69, "3.5089381E-12"),
        (0x0a17b8fd, "7.305178E-33"),
        (0x493e3423, "779074.2"),
        (0x3c130242, "0.008972706"),
        (0x3eaf9e46, "0.3430044"),
        (0x369efb1c, "4.738E-6"),
        (0x36fee9c2, "7.597003E-6"),
        (0x3e86157c, "0.26188266"),
        (0x51703de1, "6.4489394E10"),
        (0x4568fbcd, "3727.7375"),
        (0x3ee12795, "0.4397551"),
        (0x40b26962, "5.575364"),
        (0x3a9e3d71, "0.0012072754"),
        (0x0f9bef0c, "1.5376258E-29"),
        (0x47e50288, "117253.06"),
        (0x3dcd07dd, "0.100112654"),
        (0x3f183ed2, "0.59470856"),
        (0x3efc20eb, "0.49243864"),
        (0x319ab003, "4.502E-9"),
        (0x3d54a498, "0.05191478"),
        (0x433dedd3, "189.929"),
        (0x390db110, "1.3512769E-4"),
        (0x38a04380, "7.6419674E-5"),
        (0x390c9aab, "1.3409059E-4"),
        (0x3b938960, "0.0045024604"),
        (0x3a5a43b0, "8.326126E-4"),
        (0x41243dc0, "10.265076"),
        (0x16ef8ebf, "3.8702618E-25"),
        (0x38e15412, "1.07444954E-4"),
        (0x3fd3c8dc, "1.6545672"),
        (0x3b822aac, "0.003972372"),
        (0x3e094e86, "0.1340886"),
        (0x3ca8e8a0, "0.020618737"),
        (0x3d0e0b8f, "0.034678992"),
        (0x3866e06b, "5.504528E-5"),
        (0x481a13c8, "157775.12"),
        (0x36e7c840, "6.9076486E-6"),
        (0x1a317866, "3.67E-23"),
        (0x3c6aac2e, "0.014323277"),
        (0x3baf8bb2, "0.005357229"),
        (0x3e238ce8, "0.1597172"),
        (0x45e9fd53, "7487.6655"),
        (0x49e7c6d0, "1898714.0"),
        (0x383e9de3, "4.5446573E-5"),
        (0x3ac4f5eb, "0.0015026903"),
        (0x3924c67d, "1.5714201E-4"),
        (0x4579cbad, "3996.7297"),
        (0x3ba05e95, "0.0048940876"),
        (0xc5427000, "-3111.0"),
        (0x49b2ba2c, "1464133.5"),
        (0x40809928, "4.018696"),
        (0x324b1e26, "1.182301E-8"),
        (0x2ac4ba7b, "3.494599E-13"),
        (0x3edee51f, "0.4353418"),
        (0x408ec2ab, "4.461263"),
        (0x49c44443, "1607816.4"),
        (0x2d1d2458, "8.932487E-12"),
        (0x43e71279, "462.14432"),
        (0x4b58ec4e, "1.421627E7"),
        (0xc6d74e00, "-27559.0"),
        (0x375c00b8, "1.3113189E-5"),
        (0x47413148, "49457.28"),
        (0x40f256fc, "7.573118"),
        (0x356b108d, "8.7568407E-7"),
        (0x3bf50966, "0.007477927"),
        (0x39fd955a, "4.8367196E-4"),
        (0x43a9659a, "338.79376"),
        (0x4b14f421, "9761825.0"),
        (0xc7cb6400, "-104136.0"),
        (0x3c815a82, "0.015790228"),
        (0x390459cb, "1.2621951E-4"),
        (0x361f32e4, "2.3722469E-6"),
        (0x49f89cb8, "2036631.0"),
        (0x3b431e3f, "0.0029772667"),
        (0x3983934d, "2.5096015E-4"),
        (0x3ce76754, "0.028247513"),
        (0x36d266bc, "6.2704476E-6"),
        (0x1fe7a0f7, "9.80986E-20"),
        (0xa4d5573d, "-9.252181E-17"),
        (0x59b1a4a8, "6.250264E15"),
        (0x4569a271, "3738.1526"),
        (0xc0e00000, "-7.0"),
        (0x43010000, "129.0"),
        (0x375e4184, "1.3247485E-5"),
        (0x445bddd6, "879.4662"),
        (0x313f16f5, "2.7807208E-9"),
        (0x4098273f, "4.754791"),
        (0x43d98d89, "435.10574"),
        (0x40c00000, "6.0"),
        (0xc2dd7d55, "-110.74479"),
        (0x3f1adfbe, "0.60497653"),
        (0x3abd70cc, "0.0014453172"),
        (0x449a9152, "1236.5413"),
        (0xd6f208ea, "-1.3306005E14"),
        (0x3d24534f, "0.04011851"),
    ];

    #[test]
    fn java17_double_table() {
        let mut bad = Vec::new();
        for &(bits, want) in DOUBLES {
            let got = d(bits);
            if got != want {
                bad.push(format!("{bits:016x}: want {want} got {got}"));
            }
        }
        assert!(
            bad.is_empty(),
            "{} mismatches:\n{}",
            bad.len(),
            bad.join("\n")
        );
    }

    #[test]
    fn java17_float_table() {
        let mut bad = Vec::new();
        for &(bits, want) in FLOATS {
            let got = f(bits);
            if got != want {
                bad.push(format!("{bits:08x}: want {want} got {got}"));
            }
        }
        assert!(
            bad.is_empty(),
            "{} mismatches:\n{}",
            bad.len(),
            bad.join("\n")
        );
    }
}
