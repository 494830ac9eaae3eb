//! The unsigned big integers of the digit loop (`dtoa`'s Steele & White /
//! dragon4 path in `mod.rs`): `B`, `S` and `M` are exact multiples of powers
//! of two and five up to about 2^1200, so a few `u32` limbs and the handful
//! of operations the JDK's `FDBigInteger` offers are all it needs. Kept apart
//! so that the port of the JDK's digit generator reads as the JDK's does.

/// Minimal unsigned big integer (little-endian 32-bit limbs), just enough for
/// the digit loop: values stay below about 2^1200.
#[derive(Clone, Debug)]
pub(super) struct Big(Vec<u32>);

impl Big {
    pub(super) fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }

    pub(super) fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    /// `5^p5 · 2^p2`
    pub(super) fn pow52(p5: i32, p2: i32) -> Big {
        Big::from_u64(1).mul_pow5(p5).shl(p2)
    }

    pub(super) fn mul_small(mut self, k: u32) -> Big {
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

    pub(super) fn mul_pow5(mut self, mut p: i32) -> Big {
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

    pub(super) fn shl(&self, bits: i32) -> Big {
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

    pub(super) fn add(&self, other: &Big) -> Big {
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

    pub(super) fn sub_assign(&mut self, other: &Big) {
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

    pub(super) fn cmp(&self, other: &Big) -> std::cmp::Ordering {
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
    pub(super) fn quo_rem_times10(&mut self, s: &Big) -> u8 {
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
