//! The cube cache: a file's microscopic model kept at [`CACHE_SLICES`]
//! slices over its whole time range, so that later overviews — any slice
//! count, any zoom — answer without reading the drawables (Ocelotl keeps
//! its microscopic model at 1,000 slices the same way).
//!
//! # Where it lives
//!
//! In a cache directory, never beside or inside the trace (the SLOG-2 file
//! stays byte-identical and the trace's directory may be read-only):
//! `$SLOG2_CACHE_DIR`, else `$XDG_CACHE_HOME/slog2`, else
//! `$HOME/.cache/slog2`; one file per trace and metric,
//! `overview-<hash of the trace's canonical path>-<metric>.cube`. It is
//! built on first use (one pass over the drawables, [`Cube::build`]) and
//! written atomically (a temporary file renamed). A cache that cannot be
//! written is not an error: the overview is answered from the fresh cube.
//!
//! # When it is used
//!
//! A cache file records the trace's size, modification time and a
//! fingerprint of its header and tree directory; any difference, a damaged
//! or truncated cache, or other lines or categories than the request's
//! make it stale, and it is rebuilt.
//!
//! # Rebinning ([`rebin`])
//!
//! A requested slice `[a, b)` is the sum of the cached slices inside it,
//! plus, for a cached slice it covers only in part, the covered fraction of
//! that slice's values (Ocelotl's proportional split of "dirty" slices).
//! The answer is **exact** when every requested slice edge falls on a
//! cached edge (e.g. 100, 200, 500 or 1,000 slices of the whole range):
//! then no slice is split. Otherwise the split assumes values spread evenly
//! inside a cached slice; the error of any requested cell is at most the
//! values of the two cached slices at its edges. The overview says which
//! ([`Overview::exact`](super::Overview)); `--no-cache` (C:
//! `no_cache = 1`, Python `cache=False`) reads the drawables instead.
//!
//! # Format (little-endian)
//!
//! `"SLOG2CUBE\x01"`, trace size u64, mtime (ns) i128, fingerprint u64,
//! metric u8, t0 f64, t1 f64, slices u64, lines u64 + i32s, categories u64
//! + i32s, unmapped u64, cells f64 (slice-major).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::read::Slog2File;

use super::cube::{Cube, CubeSpec, Grid, Metric};

/// Slices of a cached cube.
pub const CACHE_SLICES: usize = 1000;
/// The environment variable naming the cache directory.
pub const CACHE_DIR_ENV: &str = "SLOG2_CACHE_DIR";

const MAGIC: &[u8; 10] = b"SLOG2CUBE\x01";

/// The cache directory (module docs), if any can be named.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os(CACHE_DIR_ENV).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("slog2"));
    }
    std::env::var_os("HOME")
        .filter(|d| !d.is_empty())
        .map(|h| PathBuf::from(h).join(".cache").join("slog2"))
}

/// FNV-1a over 8-byte words (then the tail bytes): a fingerprint, not a
/// defence; word-wise because the tree directory of a 10⁸-drawable file is
/// a few MB and this runs on every overview.
fn fnv(bytes: &[u8], mut h: u64) -> u64 {
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    for w in words {
        h ^= u64::from_le_bytes(w.try_into().unwrap_or_default());
        h = h.wrapping_mul(0x100_0000_01b3);
        h ^= h >> 29;
    }
    for &b in tail {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

const FNV0: u64 = 0xcbf2_9ce4_8422_2325;

/// What identifies a trace's state: size, mtime, header + directory bytes.
fn identity(file: &Slog2File, path: &Path) -> Option<(u64, i128, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0);
    let bytes = file.as_bytes();
    let mut h = fnv(&bytes[..bytes.len().min(crate::format::HEADER_SIZE)], FNV0);
    if let Ok(r) = file
        .header()
        .treedir
        .range("tree directory", file.file_len())
    {
        h = fnv(&bytes[r], h);
    }
    Some((meta.len(), mtime, h))
}

/// The cache file of `path` and `metric` in `dir`.
pub fn cache_path(dir: &Path, path: &Path, metric: Metric) -> PathBuf {
    let canon = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let h = fnv(canon.to_string_lossy().as_bytes(), FNV0);
    dir.join(format!("overview-{h:016x}-{}.cube", metric.name()))
}

/// The whole-file cube at [`CACHE_SLICES`] slices for `metric`, from the
/// cache in `dir` or built (and cached) now; `true` when it came from the
/// cache. Files held in memory (no path) are never cached.
pub fn cached_cube(
    file: &Slog2File,
    dir: Option<&Path>,
    metric: Metric,
    lines: &[i32],
    categories: &[i32],
) -> Result<(Cube, bool)> {
    let total = file.total_time();
    let mut spec = CubeSpec::new(CACHE_SLICES, metric);
    spec.lines = Some(lines.to_vec());
    spec.categories = Some(categories.to_vec());
    let place = match (dir, file.path()) {
        (Some(d), Some(p)) => identity(file, p).map(|id| (cache_path(d, p, metric), id)),
        _ => None,
    };
    if let Some((cp, id)) = &place {
        if let Some(c) = read_cache(cp, *id, metric, lines, categories) {
            if c.grid.t0 == total.start && c.grid.t1 == total.end {
                return Ok((c, true));
            }
        }
    }
    let cube = Cube::build(file, &spec)?;
    if let Some((cp, id)) = place {
        let _ = write_cache(&cp, id, &cube);
    }
    Ok((cube, false))
}

fn write_cache(path: &Path, id: (u64, i128, u64), c: &Cube) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        w.write_all(MAGIC)?;
        w.write_all(&id.0.to_le_bytes())?;
        w.write_all(&id.1.to_le_bytes())?;
        w.write_all(&id.2.to_le_bytes())?;
        w.write_all(&[matches!(c.metric, Metric::Count) as u8])?;
        w.write_all(&c.grid.t0.to_le_bytes())?;
        w.write_all(&c.grid.t1.to_le_bytes())?;
        w.write_all(&(c.grid.n as u64).to_le_bytes())?;
        for list in [&c.lines, &c.categories] {
            w.write_all(&(list.len() as u64).to_le_bytes())?;
            for v in list.iter() {
                w.write_all(&v.to_le_bytes())?;
            }
        }
        w.write_all(&c.unmapped.to_le_bytes())?;
        for v in c.data() {
            w.write_all(&v.to_le_bytes())?;
        }
        w.flush()?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A little-endian reader over the cache's bytes; `None` past the end.
struct Rd<'a>(&'a [u8]);

impl Rd<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (a, b) = self.0.split_first_chunk::<N>()?;
        self.0 = b;
        Some(*a)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }
    fn f64(&mut self) -> Option<f64> {
        self.take().map(f64::from_le_bytes)
    }
    fn i32s(&mut self) -> Option<Vec<i32>> {
        let n = usize::try_from(self.u64()?).ok()?;
        if n > self.0.len() / 4 {
            return None;
        }
        (0..n)
            .map(|_| self.take().map(i32::from_le_bytes))
            .collect()
    }
}

fn read_cache(
    path: &Path,
    id: (u64, i128, u64),
    metric: Metric,
    lines: &[i32],
    categories: &[i32],
) -> Option<Cube> {
    let bytes = std::fs::read(path).ok()?;
    let mut r = Rd(&bytes);
    if &r.take::<10>()? != MAGIC {
        return None;
    }
    let got = (r.u64()?, i128::from_le_bytes(r.take()?), r.u64()?);
    let m = if r.take::<1>()?[0] == 1 {
        Metric::Count
    } else {
        Metric::Duration
    };
    if got != id || m != metric {
        return None;
    }
    let (t0, t1, n) = (r.f64()?, r.f64()?, usize::try_from(r.u64()?).ok()?);
    let (l, c) = (r.i32s()?, r.i32s()?);
    if l != lines || c != categories {
        return None;
    }
    let unmapped = r.u64()?;
    let cells = n.checked_mul(l.len())?.checked_mul(c.len())?;
    if r.0.len() != cells.checked_mul(8)? {
        return None;
    }
    let mut cube = Cube::zeros(Grid::new(t0, t1, n).ok()?, metric, l, c).ok()?;
    for (d, b) in cube.data_mut().iter_mut().zip(r.0.chunks_exact(8)) {
        *d = f64::from_le_bytes(b.try_into().ok()?);
    }
    cube.unmapped = unmapped;
    Some(cube)
}

/// The cube of `grid` from a finer cube over (at least) its range
/// (module docs); `true` when exact.
pub fn rebin(fine: &Cube, grid: Grid) -> Result<(Cube, bool)> {
    let mut out = Cube::zeros(
        grid,
        fine.metric,
        fine.lines.clone(),
        fine.categories.clone(),
    )?;
    let f = fine.grid;
    let row = fine.lines.len() * fine.categories.len();
    let eps = 1e-9 * f.width();
    let mut exact = true;
    // Where each requested edge falls among the cached slices.
    let pos = |t: f64| -> f64 {
        if t <= f.t0 {
            0.0
        } else if t >= f.t1 {
            f.n as f64
        } else {
            let k = f.slice_of(t).unwrap_or(0);
            k as f64 + (t - f.edge(k)) / f.width()
        }
    };
    let mut edges = Vec::with_capacity(grid.n + 1);
    for k in 0..=grid.n {
        let t = grid.edge(k);
        let mut x = pos(t);
        let near = x.round();
        if (x - near).abs() * f.width() <= eps {
            x = near;
        } else {
            exact = false;
        }
        edges.push(x);
    }
    if row == 0 {
        return Ok((out, exact));
    }
    let data = out.data_mut();
    for k in 0..grid.n {
        let (a, b) = (edges[k], edges[k + 1]);
        let dst = &mut data[k * row..(k + 1) * row];
        let mut s = a.floor() as usize;
        while (s as f64) < b && s < f.n {
            let lo = a.max(s as f64);
            let hi = b.min(s as f64 + 1.0);
            let frac = hi - lo;
            if frac > 0.0 {
                let src = fine.slice_row(s);
                if frac >= 1.0 {
                    for (d, v) in dst.iter_mut().zip(src) {
                        *d += v;
                    }
                } else {
                    for (d, v) in dst.iter_mut().zip(src) {
                        *d += v * frac;
                    }
                }
            }
            s += 1;
        }
    }
    out.unmapped = fine.unmapped;
    Ok((out, exact))
}
