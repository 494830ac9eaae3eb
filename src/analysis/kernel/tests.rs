//! The kernels against their definitions computed by hand.

use super::*;

fn close(a: f64, b: f64, ulps: f64) -> bool {
    (a - b).abs() <= ulps * f64::EPSILON * b.abs().max(f64::MIN_POSITIVE)
}

#[test]
fn log2_is_within_a_few_ulp() {
    let mut x = 1e-310f64;
    let mut worst = 0.0f64;
    while x < 1e300 {
        for y in [
            x,
            x * 1.4143,
            x * 1.41422,
            x * 0.7072,
            x * 0.999_999_9,
            x * 1.000_000_1,
        ] {
            let want = y.log2();
            let got = log2_pos::<false>(y);
            let fgot = log2_pos::<true>(y);
            // Near 1 the logarithm is tiny: compare absolutely there.
            let tol = 4.0 * f64::EPSILON * want.abs().max(1.0);
            assert!((got - want).abs() <= tol, "log2({y}) = {got}, want {want}");
            assert!(
                (fgot - want).abs() <= tol,
                "fma log2({y}) = {fgot}, want {want}"
            );
            worst = worst.max((got - want).abs() / want.abs().max(1.0));
        }
        x *= 1.37;
    }
    assert!(worst < 4.0 * f64::EPSILON, "{worst}");
    for k in -1074..1024i64 {
        let y = if k >= -1022 {
            f64::from_bits(((k + 1023) as u64) << 52)
        } else {
            f64::from_bits(1u64 << (k + 1074))
        };
        assert_eq!(log2_pos::<false>(y), k as f64, "2^{k}");
    }
    assert_eq!(xlog2x(0.0), 0.0);
    assert_eq!(xlog2x(-3.0), 0.0);
    assert_eq!(xlog2x(f64::NAN), 0.0);
    assert_eq!(xlog2x(4.0), 8.0);
    assert!(close(xlog2x(3.0), 3.0 * 3f64.log2(), 4.0));
}

#[test]
fn interval_sums_match_brute_force_from_any_row() {
    let x = [0.0, 1.5, 0.0, 0.0, 2.25, 1e-3, 0.0, 7.0, 3.0];
    let n = x.len();
    let mut prefix = vec![0.0; n + 1];
    for t in 0..n {
        prefix[t + 1] = prefix[t] + x[t];
    }
    for j0 in 0..n {
        let mut out = vec![0.0; end_tri(n) - end_tri(j0)];
        let mut s = IntervalScratch::default();
        add_interval_xlog2x(&x, &prefix, j0, n, &mut out, &mut s);
        add_interval::<false>(&x, &prefix, j0, n, &mut out, &mut s);
        if j0 == 0 {
            // One slice, one cell: exactly the scalar function's value.
            let mut one = vec![0.0; 1];
            add_interval_xlog2x(&x[4..5], &[], 0, 1, &mut one, &mut s);
            assert_eq!(one[0], xlog2x(x[4]));
        }
        for j in j0..n {
            for i in 0..=j {
                let v: f64 = x[i..=j].iter().sum();
                let want = 2.0 * if v > 0.0 { v * v.log2() } else { 0.0 };
                let got = out[end_tri(j) - end_tri(j0) + i];
                assert!(
                    (got - want).abs() <= 1e-13 * want.abs().max(1.0),
                    "{i}..={j} from row {j0}: {got} vs {want}"
                );
            }
        }
    }
}

#[test]
fn segment_cols_is_the_pull_recurrence() {
    for n in 1..40usize {
        let np = n.div_ceil(TILE) * TILE;
        let tri = |i: usize, j: usize| i * (2 * n - i + 1) / 2 + (j - i);
        let tv: Vec<f64> = (0..n * (n + 1) / 2)
            .map(|k| (((k * 7919) % 23) as f64 - 11.0) * 0.25)
            .collect();
        let mut a = vec![f64::NEG_INFINITY; np * n];
        for j in 0..n {
            for i in 0..=j {
                a[j * np + i] = tv[tri(i, j)];
            }
        }
        let mut want = vec![0.0; tv.len()];
        for i in 0..n {
            for j in i..n {
                let mut m = tv[tri(i, j)];
                for c in i + 1..=j {
                    m = m.max(want[tri(i, c - 1)] + tv[tri(c, j)]);
                }
                want[tri(i, j)] = m;
            }
        }
        let tiles = n.div_ceil(TILE);
        for version in 0..3 {
            let mut val = vec![0.0; tiles * n * TILE];
            match version {
                0 => segment_cols(&a, n, np, &mut val),
                1 => {
                    segment_cols_impl(&a, n, np, &mut val, fold_scalar, fold2_scalar, |_, _, _| {})
                }
                // The AVX2 build where the dispatch picks AVX-512.
                #[cfg(target_arch = "x86_64")]
                _ if avx2() => {
                    // SAFETY: the CPU has AVX2 and FMA.
                    unsafe { segment_cols_avx2(&a, n, np, &mut val) }
                }
                _ => segment_cols(&a, n, np, &mut val),
            }
            for i in 0..np {
                for j in (i / TILE) * TILE..n {
                    let got = val[((i / TILE) * n + j) * TILE + i % TILE];
                    if i <= j {
                        assert_eq!(got, want[tri(i, j)], "{n} ({i}, {j})");
                    } else {
                        assert_eq!(got, f64::NEG_INFINITY, "{n} ({i}, {j})");
                    }
                }
            }
        }
    }
}

#[test]
fn block_square_segment_row_and_segment_leaf_match_brute_force() {
    for n in 1..40usize {
        let np = n.div_ceil(TILE) * TILE;
        let m = end_tri(n);
        let gain: Vec<f64> = (0..m + CHUNK)
            .map(|k| ((k * 7919) % 29) as f64 * 0.37)
            .collect();
        // Per slice values (their prefix sums) of a node 3 lines tall.
        let mut tot = vec![0.0; n + 1];
        for t in 0..n {
            tot[t + 1] = tot[t] + ((t * 104_729) % 31) as f64 * 0.21;
        }
        let size = 3.0;
        let loss = LossOf::new(tot.clone(), n, size);
        let (p, cost) = (0.375, 1e-3);
        let pqc = [p, 1.0 - p, cost];
        let v = |i: usize, j: usize| {
            let g = gain[end_tri(j) + i];
            let l = (size * (j + 1 - i) as f64).log2() * (tot[j + 1] - tot[i]) - g;
            assert_eq!(loss.loss(i, j, g), l);
            p * g - (1.0 - p) * l - cost
        };
        // The recurrence by hand, end-major.
        let mut want = vec![0.0; m];
        for j in 0..n {
            for i in (0..=j).rev() {
                let mut x = v(i, j);
                for c in i + 1..=j {
                    x = x.max(want[end_tri(c - 1) + i] + v(c, j));
                }
                want[end_tri(j) + i] = x;
            }
        }
        let tiles = n.div_ceil(TILE);
        for version in 0..2 {
            let mut a = vec![f64::NEG_INFINITY; np * n];
            if version == 0 {
                block_square(&mut a, &gain, &loss, n, np, pqc, false);
            } else {
                block_square_impl(&mut a, &gain, &loss, n, np, pqc, false, block_chunk_scalar);
            }
            for j in 0..n {
                for i in 0..np {
                    let got = a[j * np + i];
                    if i <= j {
                        assert_eq!(got, v(i, j), "{n} ({i}, {j})");
                    } else {
                        assert_eq!(got, f64::NEG_INFINITY, "{n} ({i}, {j})");
                    }
                }
            }
            // With children: the max with what is there.
            let mut b = a.clone();
            for (k, x) in b.iter_mut().enumerate() {
                if x.is_finite() && k % 3 == 0 {
                    *x += 5.0;
                }
            }
            let kids = b.clone();
            block_square(&mut b, &gain, &loss, n, np, pqc, true);
            for (k, (x, y)) in b.iter().zip(&kids).enumerate() {
                let one = a[k];
                assert_eq!(*x, if *y > one { *y } else { one }, "{n} {k}");
            }
            let mut val = vec![0.0; tiles * n * TILE];
            segment_cols(&a, n, np, &mut val);
            // A leaf's values summed into its parent's square twice (copied,
            // then added), its first row kept.
            let mut sum = vec![f64::NEG_INFINITY; np * n];
            let mut leaf_val = vec![0.0; tiles * n * TILE];
            let mut first_row = vec![0.0; n];
            segment_leaf(
                &a,
                n,
                np,
                &mut leaf_val,
                &mut sum,
                true,
                &mut first_row,
                &gain,
            );
            segment_leaf(
                &a,
                n,
                np,
                &mut leaf_val,
                &mut sum,
                false,
                &mut first_row,
                &[],
            );
            assert_eq!(leaf_val, val);
            let mut row = Vec::new();
            for i in 0..n {
                for j in i..n {
                    let w = want[end_tri(j) + i];
                    assert_eq!(val[((i / TILE) * n + j) * TILE + i % TILE], w);
                    assert_eq!(sum[j * np + i], w + w, "{n} ({i}, {j})");
                    if i == 0 {
                        assert_eq!(first_row[j], w, "row {n} (0, {j})");
                    }
                    segment_row(&gain, &loss, i, j, pqc, &mut row);
                    assert_eq!(row.len(), j + 1 - i);
                    assert_eq!(row[j - i], w, "row {n} ({i}, {j})");
                }
            }
        }
    }
}

#[test]
fn max_plus_of_any_length() {
    for n in 0..40 {
        let a: Vec<f64> = (0..n).map(|k| ((k * 7919) % 13) as f64 - 6.0).collect();
        let b: Vec<f64> = (0..n).map(|k| ((k * 104_729) % 17) as f64 * 0.5).collect();
        let want = a
            .iter()
            .zip(&b)
            .map(|(x, y)| x + y)
            .fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(max_plus(&a, &b), want, "{n}");
        assert_eq!(max_plus_impl(&a, &b), want, "{n}");
    }
}
