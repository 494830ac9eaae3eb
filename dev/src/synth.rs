//! Synthetic traces for benchmarks and tests.
//!
//! A deterministic stream of drawables in non-decreasing end time that looks
//! like an MPI run: states on every rank (some nested, some run-long),
//! messages between ranks with `msg_tag=%d, msg_size=%d` payloads, a few
//! events. Used by the criterion benches, `slog2 bench`, and tests, so that
//! performance numbers do not depend on parsing a text file.

use crate::model::*;

/// Categories used by [`Synthetic`].
pub fn categories() -> Vec<Category> {
    let mut v = Vec::new();
    let mut state = |i: i32, n: &str, r, g, b| {
        v.push(Category::new(
            i,
            n,
            Topology::State,
            Color::rgba(r, g, b, 255),
            1,
        ));
    };
    state(1, "Compute", 255, 165, 0);
    state(2, "MPI_Send", 0, 0, 255);
    state(3, "MPI_Recv", 0, 255, 0);
    state(4, "MPI_Barrier", 255, 255, 0);
    state(5, "Phase", 160, 32, 240);
    let mut msg = Category::new(
        0,
        "message",
        Topology::Arrow,
        Color::rgba(255, 255, 255, 255),
        3,
    );
    msg.info = InfoFormat::parse("msg_tag=%d, msg_size=%d").unwrap_or_default();
    v.push(msg);
    let mut ev = Category::new(
        6,
        "Checkpoint",
        Topology::Event,
        Color::rgba(255, 0, 0, 255),
        5,
    );
    ev.info = InfoFormat::parse("step=%d").unwrap_or_default();
    v.push(ev);
    v
}

/// Iterator of `n` synthetic drawables over `ranks` timelines.
pub struct Synthetic {
    n: u64,
    i: u64,
    ranks: i32,
    rng: u64,
    /// Start of the open run-long "Phase" state per rank.
    phase_start: Vec<f64>,
}

impl Synthetic {
    pub fn new(n: u64, ranks: i32, seed: u64) -> Self {
        Synthetic {
            n,
            i: 0,
            ranks: ranks.max(2),
            rng: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            phase_start: vec![0.0; ranks.max(2) as usize],
        }
    }

    fn next_u64(&mut self) -> u64 {
        // xorshift64*
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl Iterator for Synthetic {
    type Item = Drawable;

    fn next(&mut self) -> Option<Drawable> {
        if self.i >= self.n {
            return None;
        }
        self.i += 1;
        // End times advance by 1 µs per drawable: non-decreasing by construction.
        let t = self.i as f64 * 1e-6;
        let rank = (self.i % self.ranks as u64) as i32;
        let r = self.next_u64() % 100;
        let d = if r < 55 {
            let cat = 1 + (self.next_u64() % 4) as i32;
            let dur = 1e-6 * (1.0 + 40.0 * self.unit());
            Primitive::state(cat, rank, t - dur, t)
        } else if r < 90 {
            let to = (rank + 1 + (self.next_u64() % (self.ranks as u64 - 1)) as i32) % self.ranks;
            let lat = 1e-6 * (0.5 + 10.0 * self.unit());
            let mut p = Primitive::arrow(0, rank, to, t - lat, t);
            let tag = (self.next_u64() % 64) as i32;
            let size = (self.next_u64() % 65536) as i32;
            p.info.extend_from_slice(&tag.to_be_bytes());
            p.info.extend_from_slice(&size.to_be_bytes());
            p
        } else if r < 98 {
            // A state nested in the recent past of this rank.
            let dur = 1e-6 * (1.0 + 5.0 * self.unit());
            Primitive::state(2 + (self.next_u64() % 2) as i32, rank, t - dur, t)
        } else if r < 99 {
            let mut p = Primitive::event(6, rank, t);
            p.info.extend_from_slice(&(self.i as i32).to_be_bytes());
            p
        } else {
            // Run-long state: from the rank's previous phase end to now.
            let start = self.phase_start[rank as usize];
            self.phase_start[rank as usize] = t;
            Primitive::state(5, rank, start, t)
        };
        Some(Drawable::Primitive(d))
    }
}
