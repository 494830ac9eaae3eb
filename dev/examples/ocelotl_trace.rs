//! A synthetic trace shaped like Ocelotl's test cases, for the overview
//! benchmarks (BENCHMARKS.md, "Overview"): `RANKS` lines in nodes of 7
//! cores (a "NodeView" y-map: node, core — 100 nodes for 700 ranks gives
//! the paper's 801-node hierarchy), `CATS` state categories, and phases
//! whose category mix changes along the run, so the aggregation has
//! structure to find. Each rank runs back-to-back states of 1–20 µs.
//!
//!     cargo run --release -p slog2-dev --example ocelotl_trace -- N RANKS CATS OUT [LEVEL]
//!
//! `LEVEL` (1–12) writes the file compressed (README, "Compressed files"):
//! the 218M-drawable case is 21 GB plain, more than this machine's page
//! cache holds, and about a third of that compressed.
use slog2::*;

fn main() -> Result<()> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 5 && a.len() != 6 {
        eprintln!("usage: ocelotl_trace N RANKS CATS OUT.slog2 [LEVEL]");
        std::process::exit(2);
    }
    let n: u64 = a[1].parse().expect("N");
    let ranks: i32 = a[2].parse().expect("RANKS");
    let cats: i32 = a[3].parse().expect("CATS");
    let t = std::time::Instant::now();
    let options = WriterOptions {
        compress: a.get(5).map(|l| l.parse().expect("LEVEL")),
        ..WriterOptions::default()
    };
    let mut w = Slog2Writer::create(&a[4], options)?;
    for c in 0..cats {
        let h = (c as u32).wrapping_mul(2654435761);
        w.add_category(Category::new(
            c,
            format!("State{c}"),
            Topology::State,
            Color::rgba(h as u8, (h >> 8) as u8, (h >> 16) as u8, 255),
            1,
        ))?;
    }
    w.add_ycoordmap(YCoordMap {
        title: "NodeView".into(),
        column_labels: vec!["node".into(), "core".into()],
        rows: (0..ranks).map(|r| (r, vec![r / 7, r % 7])).collect(),
        methods: vec![],
    })?;
    // Per rank: the end of its last state. The next rank to run is the one
    // whose last state ended first (a heap), so end times never decrease.
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, i32)>> = (0..ranks)
        .map(|r| std::cmp::Reverse((r as u64, r)))
        .collect();
    let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    // Time in ns; a phase every ~ N / (ranks · 8) states per rank.
    let per_rank = (n / ranks.max(1) as u64).max(1);
    let phase_len = (per_rank * 10_000 / 8).max(1);
    let mut prev_end = 0u64;
    for _ in 0..n {
        let std::cmp::Reverse((start, r)) = heap.pop().expect("ranks");
        let phase = start / phase_len;
        let x = next();
        // In phase k, categories k % cats and (k + rank) % cats dominate.
        let c = match x % 4 {
            0 | 1 => (phase % cats as u64) as i32,
            2 => ((phase + r as u64 / 7) % cats as u64) as i32,
            _ => ((x >> 8) % cats as u64) as i32,
        };
        let dur = 1_000 + (x >> 20) % 19_000;
        let end = (start + dur).max(prev_end);
        prev_end = end;
        w.add_drawable(Drawable::Primitive(Primitive::state(
            c,
            r,
            start as f64 * 1e-9,
            end as f64 * 1e-9,
        )))?;
        heap.push(std::cmp::Reverse((end, r)));
    }
    let s = w.finish()?;
    println!(
        "wrote {} drawables on {ranks} ranks, {cats} categories in {:.1} s: {} bytes",
        s.drawables,
        t.elapsed().as_secs_f64(),
        s.bytes
    );
    Ok(())
}
