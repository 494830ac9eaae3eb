package slog2.view;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;

/**
 * {@code slog2view --bench FILE --scroll N}: what the window cursor buys a
 * viewer that pans. The widest window the viewer shows at full detail
 * (Jumpshot's depth rule gives depth 0) is scrolled right by a tenth of its
 * width N times, as the Right key does; each step is a whole frame as the
 * window makes it: the query through the JNI reader, the {@link Frame} (rows,
 * nesting) and the drawing into a WxH image. The same steps run with the
 * model's cursor on and off ({@link Model#useCursor}), in alternating blocks
 * of 50 steps, so that load drifting on the machine hits both alike; both
 * sides do the same work besides the query (same windows, same rows
 * returned, same drawing). Prints medians, p99 and the CPU time of the
 * drawing thread (immune to other processes' load) per side.
 */
final class ScrollBench {
    private ScrollBench() {
    }

    static int run(String file, int[] sz, int steps) {
        try (Source s = ReaderSource.open(file)) {
            Main.warmUp();
            Model m = new Model(s);
            double full = m.tMax - m.tMin;
            double span = full;
            while (m.depthFor(span) > 0) {
                span /= 2;
            }
            BufferedImage img = new BufferedImage(sz[0], sz[1], BufferedImage.TYPE_INT_RGB);
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            // [mode][step]: frame ms, query ms, cpu ms, rows
            double[][] frame = new double[2][steps], query = new double[2][steps], cpu = new double[2][steps];
            long[][] rows = new long[2][steps];
            int block = 50;
            double start = m.tMin + 0.05 * full;
            // warm both paths
            for (int mode = 0; mode < 2; mode++) {
                m.useCursor = mode == 1;
                for (int k = 0; k < 60; k++) {
                    double a = start + k * span / 10;
                    Frame f = Frame.load(m, a, a + span);
                    Renderer.paint(new G2Painter(img.createGraphics()), m, f,
                            new Renderer.Layout(sz[0], sz[1], a, a + span, m.rows()), -1);
                }
            }
            for (int b0 = 0; b0 < steps; b0 += block) {
                for (int mode = 0; mode < 2; mode++) {
                    m.useCursor = mode == 1;
                    for (int k = b0; k < Math.min(steps, b0 + block); k++) {
                        // the block's first window is a jump for the cursor (its previous window is
                        // elsewhere): it is timed like every step, as a user's first pan after a jump
                        double a = start + (k % Math.max(1, (int) (0.9 * full / (span / 10)))) * span / 10;
                        long c0 = mx.getCurrentThreadCpuTime();
                        long t0 = System.nanoTime();
                        Frame f = Frame.load(m, a, a + span);
                        long t1 = System.nanoTime();
                        Renderer.paint(new G2Painter(img.createGraphics()), m, f,
                                new Renderer.Layout(sz[0], sz[1], a, a + span, m.rows()), -1);
                        long t2 = System.nanoTime();
                        frame[mode][k] = (t2 - t0) / 1e6;
                        query[mode][k] = (t1 - t0) / 1e6;
                        cpu[mode][k] = (mx.getCurrentThreadCpuTime() - c0) / 1e6;
                        rows[mode][k] = f.d.n;
                        if (f.depth != 0 || f.viaCursor != (mode == 1)) {
                            throw new IllegalStateException("step " + k + " at depth " + f.depth);
                        }
                    }
                }
            }
            if (!Arrays.equals(rows[0], rows[1])) {
                throw new IllegalStateException("cursor and window returned different row counts");
            }
            double meanRows = Arrays.stream(rows[0]).average().orElse(0);
            System.out.printf(Locale.ROOT, "%d scroll steps of a tenth of a %.6g s window at full detail "
                    + "(%.0f rows per frame on average, %dx%d), cursor and fresh windows alternating in blocks "
                    + "of %d:%n", steps, span, meanRows, sz[0], sz[1], block);
            String[] names = {"fresh window (SLOG2 window query)", "window cursor"};
            for (int mode = 0; mode < 2; mode++) {
                double[] fr = sorted(frame[mode]), q = sorted(query[mode]), c = sorted(cpu[mode]);
                System.out.printf(Locale.ROOT, "  %-34s frame median %.3f ms p99 %.3f ms mean %.3f ms; query median "
                        + "%.3f ms p99 %.3f ms; frame CPU median %.3f ms mean %.3f ms%n", names[mode], Main.pct(fr, 50),
                        Main.pct(fr, 99), mean(fr), Main.pct(q, 50), Main.pct(q, 99), Main.pct(c, 50), mean(c));
            }
            System.out.printf(Locale.ROOT, "  cursor / fresh: frame median %.3f, frame CPU mean %.3f, query median %.3f%n",
                    Main.pct(sorted(frame[1]), 50) / Main.pct(sorted(frame[0]), 50),
                    mean(cpu[1]) / mean(cpu[0]),
                    Main.pct(sorted(query[1]), 50) / Main.pct(sorted(query[0]), 50));
            return 0;
        } catch (IOException | RuntimeException | LinkageError e) {
            System.err.println("slog2view: " + file + ": " + e.getMessage());
            return 1;
        }
    }

    static double[] sorted(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c;
    }

    static double mean(double[] v) {
        return Arrays.stream(v).average().orElse(Double.NaN);
    }
}
