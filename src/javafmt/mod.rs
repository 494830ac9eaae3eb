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
//! the unit-test tables of `tests.rs`. (The generator of those values ran
//! against the JDK outside this repository, with the reference material.)
//!
//! Files: this one is the digit generator and the layout; `big.rs` the big
//! integers of the dragon4 path; `tests.rs` the JDK's own output.

mod big;

use big::Big;

/// `Double.toString(v)` exactly as JDK 17 prints it.
pub fn java_double(v: f64) -> String {
    let bits = v.to_bits();
    ieee_to_string(
        bits >> 63 != 0,
        (bits >> 52) & 0x7ff,
        bits & ((1u64 << 52) - 1),
        52,
        0x7ff,
        1023,
    )
}

/// `Float.toString(v)` exactly as JDK 17 prints it.
pub fn java_float(v: f32) -> String {
    let bits = v.to_bits();
    ieee_to_string(
        bits >> 31 != 0,
        u64::from((bits >> 23) & 0xff),
        u64::from(bits & ((1u32 << 23) - 1)),
        23,
        0xff,
        127,
    )
}

/// The JDK's decomposition of an IEEE value (a `frac_bits`-bit fraction,
/// exponent field `raw_exp`, `max_exp` for NaN/infinity, `bias`) into the
/// significand `dtoa` takes, aligned to a double's 52-bit fraction.
fn ieee_to_string(
    negative: bool,
    raw_exp: u64,
    mut fract: u64,
    frac_bits: u32,
    max_exp: u64,
    bias: i32,
) -> String {
    if raw_exp == max_exp {
        return special(fract != 0, negative);
    }
    let n_sig_bits;
    let bin_exp;
    if raw_exp == 0 {
        if fract == 0 {
            return zero(negative);
        }
        // Normalise the subnormal: its leading one to bit `frac_bits`.
        let lz = fract.leading_zeros() as i32;
        let shift = lz - (63 - frac_bits as i32);
        fract <<= shift;
        bin_exp = 1 - shift;
        n_sig_bits = 64 - lz;
    } else {
        fract |= 1u64 << frac_bits;
        bin_exp = raw_exp as i32;
        n_sig_bits = frac_bits as i32 + 1;
    }
    let d = dtoa(bin_exp - bias, fract << (52 - frac_bits), n_sig_bits);
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
        // The digit loop of the JDK in `int` (32-bit) or `long` (64-bit)
        // arithmetic, wrapping exactly as Java does; one body for both.
        macro_rules! digit_loop {
            ($t:ty) => {{
                let mut b = (fract as $t)
                    .wrapping_mul(pow5_u64(b5) as $t)
                    .wrapping_shl(b2 as u32);
                let s = (pow5_u64(s5) as $t).wrapping_shl(s2 as u32);
                let mut m = (pow5_u64(m5) as $t).wrapping_shl(m2 as u32);
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
            }};
        }
        if b_bits < 32 && ten_s_bits < 32 {
            digit_loop!(i32);
        } else {
            digit_loop!(i64);
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

#[cfg(test)]
mod tests;
