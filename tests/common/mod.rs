//! Helpers shared by the tests: where the shared fixtures are, the
//! text-reader tests' drains and generators, and random drawables
//! ([`drawables`]). (Each test file uses a part.)
#![allow(dead_code)]

pub mod drawables;

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use slog2::trace::{Record, TraceSource};

/// The shared fixtures, `../shared/fixtures` beside the repository (never
/// copied into it); `fixture(rel)` is one of them.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures")
}

/// `../shared/fixtures/REL`.
pub fn fixture(rel: &str) -> PathBuf {
    fixtures().join(rel)
}

/// Records with their locations, then the error that ended the stream.
pub type Outcome = (Vec<(Record, String)>, Option<String>);

/// Everything `s` yields, one record at a time (`next_record`).
#[allow(dead_code)]
pub fn drain_single(s: &mut dyn TraceSource) -> Outcome {
    let mut out = Vec::new();
    loop {
        match s.next_record() {
            Ok(Some(r)) => out.push((r, s.location())),
            Ok(None) => return (out, None),
            Err(e) => return (out, Some(e.to_string())),
        }
    }
}

/// Everything `s` yields, in batches (`next_records`).
pub fn drain_batches(s: &mut dyn TraceSource) -> Outcome {
    let mut out = Vec::new();
    let mut batch = Vec::new();
    loop {
        match s.next_records(&mut batch) {
            Ok(()) if batch.is_empty() => return (out, None),
            Ok(()) => {
                for (i, r) in batch.drain(..).enumerate() {
                    let loc = s.location_of(i);
                    out.push((r, loc));
                }
            }
            Err(e) => return (out, Some(e.to_string())),
        }
    }
}

/// Random traces: `header`, then up to `max_lines` of `line`, with `\r\n` or
/// `\n` line ends and with or without a final line end.
pub fn traces(
    header: String,
    line: impl Strategy<Value = String>,
    max_lines: usize,
) -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(line, 0..max_lines),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(move |(lines, crlf, last_nl)| {
            let sep = if crlf { "\r\n" } else { "\n" };
            let mut s = header.replace('\n', sep);
            s.push_str(&lines.join(sep));
            if last_nl {
                s.push_str(sep);
            }
            s.into_bytes()
        })
}

/// Write `n` synthetic drawables (`slog2_dev::synth`, 6 lines) with `opts`.
pub fn write_synthetic(
    path: &Path,
    n: u64,
    seed: u64,
    opts: slog2::WriterOptions,
) -> slog2::WriteSummary {
    let mut w = slog2::Slog2Writer::create(path, opts).unwrap();
    for c in slog2_dev::synth::categories() {
        w.add_category(c).unwrap();
    }
    for d in slog2_dev::synth::Synthetic::new(n, 6, seed) {
        w.add_drawable(d).unwrap();
    }
    w.finish().unwrap()
}

/// A compressed file of 3,000 synthetic drawables in small leaves (many
/// nodes), for damaging.
pub fn compressed_synthetic(dir: &Path) -> PathBuf {
    let z = dir.join("z.slog2");
    write_synthetic(
        &z,
        3000,
        1,
        slog2::WriterOptions {
            leaf_bytesize: 4096,
            compress: Some(6),
            ..Default::default()
        },
    );
    z
}

/// Write `ds` (sorted here by end time) with `cats` and a "Node" y-map of
/// six lines (two per node), in leaves of `leaf` bytes and `nc` children
/// per node: the files of the analysis property tests.
pub fn write_on_six_lines(
    mut ds: Vec<slog2::Drawable>,
    cats: Vec<slog2::Category>,
    leaf: i32,
    nc: i16,
) -> (tempfile::TempDir, PathBuf) {
    ds.sort_by(|a, b| a.time_box().end.total_cmp(&b.time_box().end));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.slog2");
    let mut w = slog2::Slog2Writer::create(
        &path,
        slog2::WriterOptions {
            children_per_node: nc,
            leaf_bytesize: leaf,
            ..Default::default()
        },
    )
    .unwrap();
    for c in cats {
        w.add_category(c).unwrap();
    }
    w.add_ycoordmap(slog2::YCoordMap {
        title: "Node".into(),
        column_labels: vec!["node".into()],
        rows: (0..6).map(|l| (l, vec![l / 2])).collect(),
        methods: vec![],
    })
    .unwrap();
    for d in ds {
        w.add_drawable(d).unwrap();
    }
    w.finish().unwrap();
    (dir, path)
}
