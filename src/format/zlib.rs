//! The zlib codec of compressed tree nodes: libdeflate, one call per part.
//!
//! Every compressed part of a node is a whole buffer whose plain size the
//! part header records, so no streaming state is needed: libdeflate's
//! whole-buffer codec inflates it in one call straight into the exact
//! declared size, and deflates it in one call into room for the worst
//! case. Against zlib-rs through flate2's streaming API (what this module
//! replaced; flate2 still reads the gzip *inputs*, which stream) it
//! inflates with about 40 % fewer instructions and deflates at the same
//! nominal level with less than two thirds of them, and smaller
//! (BENCHMARKS.md, "Compressed SLOG-2"). The streams are plain zlib (RFC
//! 1950) either way: files written by one read with the other.
//!
//! # Inflating hostile bytes
//!
//! The output room is exactly the declared size (bounded by the stored
//! bytes before anything is allocated, `PackedNode::parse`): output that
//! would pass it stops libdeflate at once (`InsufficientSpace`), a stream
//! that ends short of it is an error, and so are bytes after the stream's
//! checksum. Inflating into the spare capacity of the caller's vector (no
//! zero-fill of memory that is written right after) needs the raw
//! binding: the `libdeflater` wrapper takes an initialised slice and does
//! not report the input consumed, so this side calls `libdeflate-sys`
//! (the library `libdeflater` itself builds) directly.

use std::cell::RefCell;
use std::ptr::NonNull;

use libdeflate_sys as sys;
use libdeflater::{CompressionLvl, Compressor};

/// Why a part did not inflate to its declared size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum InflateError {
    /// A bad code, block or checksum.
    Damaged,
    /// The stream yields more than the declared size.
    Beyond,
    /// The stream ends after this many bytes, short of the declared size.
    Short(usize),
    /// Bytes follow the stream's checksum.
    Trailing,
}

impl std::fmt::Display for InflateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InflateError::Damaged => f.write_str("damaged zlib stream (bad code or checksum)"),
            InflateError::Beyond => f.write_str("inflates beyond its declared"),
            InflateError::Short(n) => write!(f, "zlib stream ends early: inflates to {n} bytes"),
            InflateError::Trailing => f.write_str("bytes after the end of its zlib stream"),
        }
    }
}

/// A libdeflate decompressor (its decode tables, ~10 KB), one per thread.
struct Inflater(NonNull<sys::libdeflate_decompressor>);

impl Inflater {
    fn new() -> Inflater {
        // SAFETY: no arguments; a null return is checked.
        let p = unsafe { sys::libdeflate_alloc_decompressor() };
        // Null only when malloc fails (as Rust's own allocations do: abort).
        Inflater(NonNull::new(p).expect("libdeflate: out of memory for a decompressor"))
    }
}

impl Drop for Inflater {
    fn drop(&mut self) {
        // SAFETY: allocated by libdeflate_alloc_decompressor, freed once.
        unsafe { sys::libdeflate_free_decompressor(self.0.as_ptr()) }
    }
}

thread_local! {
    static INFLATER: RefCell<Inflater> = RefCell::new(Inflater::new());
}

/// Append exactly `plain` bytes inflated from the zlib stream `z` to
/// `out` (module docs). On an error `out` is as it was.
pub(super) fn inflate(z: &[u8], plain: usize, out: &mut Vec<u8>) -> Result<(), InflateError> {
    out.reserve(plain);
    let start = out.len();
    let (mut used, mut got) = (0usize, 0usize);
    let r = INFLATER.with(|d| {
        let d = d.borrow_mut();
        let room = out.spare_capacity_mut();
        // SAFETY: `z` is readable for its length; `room` (at least `plain`
        // bytes, reserved above) is writable for `plain` bytes, and
        // libdeflate writes no more than the room it is given; `used` and
        // `got` are valid for one write each; `d` is this thread's alone.
        unsafe {
            sys::libdeflate_zlib_decompress_ex(
                d.0.as_ptr(),
                z.as_ptr().cast(),
                z.len(),
                room.as_mut_ptr().cast(),
                plain,
                &mut used,
                &mut got,
            )
        }
    });
    match r {
        sys::libdeflate_result_LIBDEFLATE_SUCCESS if got <= plain => {
            // SAFETY: libdeflate initialised the first `got` (<= `plain`,
            // within the reserved capacity) bytes after `start`.
            unsafe { out.set_len(start + got) };
            if got < plain {
                out.truncate(start);
                Err(InflateError::Short(got))
            } else if used != z.len() {
                out.truncate(start);
                Err(InflateError::Trailing)
            } else {
                Ok(())
            }
        }
        sys::libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE => Err(InflateError::Beyond),
        _ => Err(InflateError::Damaged),
    }
}

/// A zlib compressor at one level, reused for every part a packer packs,
/// with room for its output (zeroed once as it grows, not per part: the
/// compressor takes an initialised slice).
pub(super) struct Deflater {
    z: Compressor,
    room: Vec<u8>,
}

impl Deflater {
    /// `level` within [`super::packed::MIN_LEVEL`]..=[`super::packed::MAX_LEVEL`].
    pub(super) fn new(level: u32) -> Deflater {
        let lvl = i32::try_from(level)
            .ok()
            .and_then(|l| CompressionLvl::new(l).ok())
            .unwrap_or_default();
        Deflater {
            z: Compressor::new(lvl),
            room: Vec::new(),
        }
    }

    /// Append the zlib stream of `data` to `out`; `false` (and `out` as it
    /// was) if the compressor fails, which it cannot with the room it is
    /// given (its own worst-case bound) but for a bug.
    pub(super) fn deflate(&mut self, data: &[u8], out: &mut Vec<u8>) -> bool {
        let bound = self.z.zlib_compress_bound(data.len());
        if self.room.len() < bound {
            self.room.resize(bound, 0);
        }
        match self.z.zlib_compress(data, &mut self.room[..bound]) {
            Ok(n) => {
                out.extend_from_slice(&self.room[..n]);
                true
            }
            Err(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn sample() -> Vec<u8> {
        (0..50_000u32)
            .flat_map(|i| ((i % 251) ^ (i / 7)).to_be_bytes())
            .collect()
    }

    /// What the writer used before libdeflate: flate2's zlib stream.
    fn flate2_zlib(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn streams_of_either_writer_inflate_to_the_same_bytes() {
        let data = sample();
        let mut mine = Vec::new();
        for level in 1..=12 {
            mine.clear();
            assert!(Deflater::new(level).deflate(&data, &mut mine));
            let mut out = b"kept".to_vec();
            inflate(&mine, data.len(), &mut out).unwrap();
            assert_eq!(&out[4..], &data[..], "level {level}");
            assert_eq!(&out[..4], b"kept");
            // The old writer's streams, and flate2 reading the new ones.
            let mut out = Vec::new();
            inflate(&flate2_zlib(&data), data.len(), &mut out).unwrap();
            assert_eq!(out, data);
            let mut back = Vec::new();
            let mut d = flate2::write::ZlibDecoder::new(&mut back);
            d.write_all(&mine).unwrap();
            d.finish().unwrap();
            assert_eq!(back, data, "level {level}");
        }
    }

    #[test]
    fn wrong_sizes_damage_and_trailing_bytes_are_errors() {
        let data = sample();
        let mut z = Vec::new();
        assert!(Deflater::new(6).deflate(&data, &mut z));
        let n = data.len();
        let mut out = vec![1, 2, 3];
        assert_eq!(inflate(&z, n - 1, &mut out), Err(InflateError::Beyond));
        assert_eq!(inflate(&z, 0, &mut out), Err(InflateError::Beyond));
        assert_eq!(inflate(&z, n + 1, &mut out), Err(InflateError::Short(n)));
        let mut long = z.clone();
        long.push(0);
        assert_eq!(inflate(&long, n, &mut out), Err(InflateError::Trailing));
        let mut bad = z.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1; // the checksum
        assert_eq!(inflate(&bad, n, &mut out), Err(InflateError::Damaged));
        assert_eq!(
            inflate(&z[..z.len() / 2], n, &mut out),
            Err(InflateError::Damaged)
        );
        assert_eq!(inflate(&[], n, &mut out), Err(InflateError::Damaged));
        assert_eq!(out, [1, 2, 3], "errors leave the output as it was");
    }
}
