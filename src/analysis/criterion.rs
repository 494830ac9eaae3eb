//! The aggregation criterion shared by the temporal and spatiotemporal
//! aggregations (Lamarche-Perrin's best-partition problem, as Ocelotl and
//! lpaggreg use it), partitions, and the p-curve.
//!
//! For a part `X` with cell values `v_x`, total `V` and `|X|` cells:
//!
//! * `gain = V log2 V − Σ v log2 v` (the entropy reduction: how much
//!   simpler one value is than the cells);
//! * `loss = Σ v log2(|X| v / V) = V log2 |X| − gain` (the Kullback–Leibler
//!   divergence: the information lost by showing the mean);
//! * `pIC = p·gain − (1−p)·loss`, `p ∈ [0, 1]`.
//!
//! All three add up over the parts of a partition; the best partition for
//! `p` maximises Σ pIC. Gain and loss scale with the values (the metric's
//! unit does not matter) and are not normalised (Ocelotl's default).
//!
//! **Ties** go to the partition with fewer parts. Qualities are sums of
//! floating-point terms computed in different orders, so two partitions
//! that are equal in exact arithmetic differ by rounding; the dynamic
//! programmes therefore charge every part a tiny cost,
//! [`Criterion::part_cost`] = [`PART_COST`] × (gain + loss of the one-part
//! partition, the largest scale of the problem), and maximise
//! `Σ (pIC − part_cost)`. Between two partitions whose values differ by
//! less than the cost of their extra parts, the one with fewer parts wins;
//! the cost is 10⁴ times the rounding of the sums and far below any real
//! difference. Being a plain sum, the penalised criterion keeps the
//! programmes exact and their inner loops a plain `max` (vectorised,
//! `analysis::kernel`). Consequences: `p = 1` always gives one part (gain is
//! superadditive, so one part is optimal, and ties go to it); `p = 0` gives
//! the microscopic partition up to lossless merges (neighbours whose cells
//! are proportional lose nothing when merged, and the tie goes to the
//! merge).
//!
//! **The p-curve** ([`curve`]): the best partitions at `p = 0` and `p = 1`,
//! then bisection of `[p1, p2]` while the two ends' partitions differ and
//! `p2 − p1 > eps` (Ocelotl: `eps = 0.001`). It lists each distinct
//! partition once, at the smallest `p` sampled for it, in increasing `p`
//! (so decreasing parts). Partitions are told apart by their point (gain,
//! loss, parts; [`SAME_POINT`]): two partitions with the same point are
//! ties the curve cannot show apart, and since the best value is a convex
//! function of `p`, a partition best at both ends of `[p1, p2]` is best
//! throughout, so the bisection stops there. **`auto` p** ([`auto_p`]) is the point of the
//! curve where the normalised gain (`gain / gain(p=1)`) and normalised loss
//! (`loss / loss(p=1)`) are farthest apart, `ĝ − l̂` largest (ties: the
//! larger `p`, fewer parts): the knee past which aggregating further loses
//! much more than it simplifies. (Ocelotl offers several such policies; its
//! default picks the largest jump between consecutive points of the curve.)

/// The cost of one part, relative to the problem's scale (module docs).
pub const PART_COST: f64 = 1e-11;

/// The criterion at one `p`, with the part cost of a problem.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Criterion {
    pub p: f64,
    /// What each part costs (module docs: ties).
    pub part_cost: f64,
}

impl Criterion {
    /// `scale`: gain + loss of the one-part partition.
    pub fn new(p: f64, scale: f64) -> Criterion {
        Criterion {
            p,
            part_cost: PART_COST * scale.abs(),
        }
    }

    #[inline(always)]
    pub fn pic(&self, gain: f64, loss: f64) -> f64 {
        self.p * gain - (1.0 - self.p) * loss
    }

    /// What the programmes maximise per part: its pIC less the part cost.
    #[inline(always)]
    pub fn value(&self, gain: f64, loss: f64) -> f64 {
        self.pic(gain, loss) - self.part_cost
    }
}

/// One part of a partition: slices `first..=last` (0-based) of one
/// hierarchy node (spatiotemporal) or of every line (temporal: `node` is
/// `None`), with its gain and loss.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Part {
    pub node: Option<usize>,
    pub first: usize,
    pub last: usize,
    pub gain: f64,
    pub loss: f64,
}

/// A partition: its parts (temporal: in time order; spatiotemporal: the
/// hierarchy's depth-first order, each node's parts in time order), and
/// the sums of their gains and losses.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Partition {
    pub parts: Vec<Part>,
    pub gain: f64,
    pub loss: f64,
}

impl Partition {
    pub(crate) fn from_parts(parts: Vec<Part>) -> Partition {
        let gain = parts.iter().map(|p| p.gain).sum();
        let loss = parts.iter().map(|p| p.loss).sum();
        Partition { parts, gain, loss }
    }
}

/// One point of the p-curve: a distinct best partition and the smallest
/// sampled `p` that gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct CurvePoint {
    pub p: f64,
    pub gain: f64,
    pub loss: f64,
    pub parts: usize,
}

/// What the p-curve needs of a best partition: its sums and size.
pub(crate) trait CurveSample: Clone {
    fn gain(&self) -> f64;
    fn loss(&self) -> f64;
    fn parts(&self) -> usize;
}

/// Curve points closer than this share of the problem's scale (gain + loss
/// of the one-part partition) are the same point: the same partition, or
/// partitions of equal gain, loss and size (ties, indistinguishable on the
/// curve).
pub const SAME_POINT: f64 = 1e-10;

fn same_point<S: CurveSample>(a: &S, b: &S, tol: f64) -> bool {
    a.parts() == b.parts()
        && (a.gain() - b.gain()).abs() <= tol
        && (a.loss() - b.loss()).abs() <= tol
}

impl CurveSample for Partition {
    fn gain(&self) -> f64 {
        self.gain
    }
    fn loss(&self) -> f64 {
        self.loss
    }
    fn parts(&self) -> usize {
        self.parts.len()
    }
}

/// The p-curve of an aggregation whose best partition at `p` is `best(p)`
/// (module docs). `eps` must be positive.
pub fn curve(eps: f64, best: impl FnMut(f64) -> Partition) -> Vec<CurvePoint> {
    curve_of(eps, best)
}

/// [`curve`] over any summary of the best partitions.
pub(crate) fn curve_of<S: CurveSample>(
    eps: f64,
    mut best: impl FnMut(f64) -> S,
) -> Vec<CurvePoint> {
    let eps = threshold(eps);
    let lo = best(0.0);
    let hi = best(1.0);
    let tol = SAME_POINT * (hi.gain() + hi.loss()).abs();
    let mut out: Vec<(f64, S)> = vec![(0.0, lo.clone())];
    bisect(0.0, 1.0, &lo, &hi, eps, tol, &mut best, &mut out);
    out.push((1.0, hi));
    points(out, tol)
}

/// The samples, in increasing `p`, as curve points: each distinct point
/// once, at its smallest `p`.
fn points<S: CurveSample>(out: Vec<(f64, S)>, tol: f64) -> Vec<CurvePoint> {
    let mut pts: Vec<(f64, S)> = Vec::with_capacity(out.len());
    for (p, part) in out {
        if pts.last().is_some_and(|(_, q)| same_point(q, &part, tol)) {
            continue;
        }
        pts.push((p, part));
    }
    pts.into_iter()
        .map(|(p, q)| CurvePoint {
            p,
            gain: q.gain(),
            loss: q.loss(),
            parts: q.parts(),
        })
        .collect()
}

/// `eps` if it is a usable threshold, else Ocelotl's 0.001.
fn threshold(eps: f64) -> f64 {
    if eps.is_finite() && eps > 0.0 {
        eps
    } else {
        1e-3
    }
}

#[allow(clippy::too_many_arguments)]
fn bisect<S: CurveSample>(
    p1: f64,
    p2: f64,
    a: &S,
    b: &S,
    eps: f64,
    tol: f64,
    best: &mut impl FnMut(f64) -> S,
    out: &mut Vec<(f64, S)>,
) {
    if same_point(a, b, tol) || p2 - p1 <= eps {
        return;
    }
    let p = p1 + (p2 - p1) / 2.0;
    let m = best(p);
    bisect(p1, p, a, &m, eps, tol, best, out);
    out.push((p, m.clone()));
    bisect(p, p2, &m, b, eps, tol, best, out);
}

/// A best partition's point on the curve, without its parts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Summary {
    pub gain: f64,
    pub loss: f64,
    pub parts: usize,
}

impl Summary {
    pub(crate) fn of(p: &Partition) -> Summary {
        Summary {
            gain: p.gain,
            loss: p.loss,
            parts: p.parts.len(),
        }
    }
}

impl CurveSample for Summary {
    fn gain(&self) -> f64 {
        self.gain
    }
    fn loss(&self) -> f64 {
        self.loss
    }
    fn parts(&self) -> usize {
        self.parts
    }
}

/// [`curve_of`] sampled round by round: every open interval's midpoint
/// of one round is asked of `best_many` at once (in increasing `p`), so
/// that independent programmes can run side by side. Each interval's fate
/// depends only on its two ends, so the samples, and the curve, are those
/// of the depth-first bisection.
pub(crate) fn curve_batched<S: CurveSample>(
    eps: f64,
    mut best_many: impl FnMut(&[f64]) -> Vec<S>,
) -> Vec<CurvePoint> {
    let eps = threshold(eps);
    let mut ends = best_many(&[0.0, 1.0]).into_iter();
    let (Some(lo), Some(hi)) = (ends.next(), ends.next()) else {
        return Vec::new();
    };
    let tol = SAME_POINT * (hi.gain() + hi.loss()).abs();
    let mut out: Vec<(f64, S)> = vec![(0.0, lo.clone()), (1.0, hi.clone())];
    let mut open = vec![(0.0, 1.0, lo, hi)];
    loop {
        open.retain(|(p1, p2, a, b)| !(same_point(a, b, tol) || p2 - p1 <= eps));
        if open.is_empty() {
            break;
        }
        let ps: Vec<f64> = open
            .iter()
            .map(|(p1, p2, ..)| p1 + (p2 - p1) / 2.0)
            .collect();
        let ms = best_many(&ps);
        let mut next = Vec::with_capacity(2 * open.len());
        for ((p1, p2, a, b), (p, m)) in open.into_iter().zip(ps.into_iter().zip(ms)) {
            out.push((p, m.clone()));
            next.push((p1, p, a, m.clone()));
            next.push((p, p2, m, b));
        }
        open = next;
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    points(out, tol)
}

/// The `auto` p of a curve (module docs); 1 for an empty curve.
pub fn auto_p(curve: &[CurvePoint]) -> f64 {
    let (g1, l1) = curve.last().map_or((0.0, 0.0), |c| (c.gain, c.loss));
    let mut best: Option<(f64, f64)> = None;
    for c in curve {
        let g = if g1 > 0.0 { c.gain / g1 } else { 0.0 };
        let l = if l1 > 0.0 { c.loss / l1 } else { 0.0 };
        let d = g - l;
        if best.is_none_or(|(bd, _)| d >= bd - 1e-9) {
            best = Some((d, c.p));
        }
    }
    best.map_or(1.0, |b| b.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(first: usize, last: usize, g: f64, l: f64) -> Part {
        Part {
            node: None,
            first,
            last,
            gain: g,
            loss: l,
        }
    }

    #[test]
    fn curve_lists_distinct_partitions_by_increasing_p() {
        // Three regimes: 4 parts below 0.3, 2 parts below 0.7, 1 part above.
        let best = |p: f64| {
            if p < 0.3 {
                Partition::from_parts((0..4).map(|i| part(i, i, 0.0, 0.0)).collect())
            } else if p < 0.7 {
                Partition::from_parts(vec![part(0, 1, 1.0, 0.5), part(2, 3, 1.0, 0.5)])
            } else {
                Partition::from_parts(vec![part(0, 3, 3.0, 2.0)])
            }
        };
        let c = curve(0.001, best);
        assert_eq!(c.iter().map(|c| c.parts).collect::<Vec<_>>(), vec![4, 2, 1]);
        assert_eq!(c[0].p, 0.0);
        assert!((c[1].p - 0.3).abs() < 0.002, "{c:?}");
        assert!((c[2].p - 0.7).abs() < 0.002, "{c:?}");
        assert_eq!((c[1].gain, c[1].loss), (2.0, 1.0));
        // Normalised: (0,0), (2/3, 1/2), (1, 1): the middle point is the knee.
        assert_eq!(auto_p(&c), c[1].p);
        assert_eq!(auto_p(&[]), 1.0);
    }

    #[test]
    fn batched_curve_samples_what_the_recursion_samples() {
        // A convex best value with many breakpoints: parts k best on
        // [k/40, (k+1)/40) with irregular gains, plus a flat stretch.
        let best = |p: f64| {
            let k = ((p * 40.0) as usize).min(39);
            let k = if (10..14).contains(&k) { 10 } else { k };
            let n = 40 - k;
            Partition::from_parts(
                (0..n)
                    .map(|i| part(i, i, (k * k) as f64 * 0.37 + i as f64, k as f64 * 0.11))
                    .collect(),
            )
        };
        for eps in [0.1, 0.01, 0.001, 1e-5] {
            let mut asked = Vec::new();
            let batched = curve_batched(eps, |ps| {
                asked.extend_from_slice(ps);
                ps.iter().map(|&p| Summary::of(&best(p))).collect()
            });
            let mut want_asked = Vec::new();
            let want = curve(eps, |p| {
                want_asked.push(p);
                best(p)
            });
            assert_eq!(batched, want, "{eps}");
            asked.sort_by(f64::total_cmp);
            want_asked.sort_by(f64::total_cmp);
            assert_eq!(asked, want_asked, "{eps}");
        }
    }

    #[test]
    fn parts_cost_a_tiny_share_of_the_scale() {
        let c = Criterion::new(0.25, -10.0);
        assert!((c.part_cost - 1e-10).abs() < 1e-24);
        assert_eq!(c.pic(4.0, 2.0), 1.0 - 1.5);
        assert_eq!(c.value(4.0, 2.0), -0.5 - c.part_cost);
    }
}
