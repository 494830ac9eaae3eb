import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

import base.drawable.Composite;
import base.drawable.Drawable;
import base.drawable.Primitive;
import base.drawable.Shadow;
import base.drawable.TimeBoundingBox;

/**
 * The reference's half of the window comparison (BENCHMARKS.md, "Window
 * queries"): replays the plan that {@code slog2 bench plan} writes
 * ({@code W|J|S t0 t1} lines) through slog2sdk's viewer tree, line by line,
 * as {@code slog2 bench replay} replays it through our WindowCursor
 * (dev/src/replay.rs explains the method; this file mirrors it):
 *
 * <ul>
 * <li>one TreeTrunk, opened as Jumpshot opens it (RefTrunk), moved through
 *     every line in order with {@code updateTimeWindow(old, new)};
 * <li>the W lines first, untimed (the same warm-up as ours: JIT, caches);
 * <li>each J and S line timed: the update alone, or with {@code --pass} the
 *     update plus one pass over the window's drawables as Jumpshot's canvas
 *     iterates them ({@code iteratorOfAllDrawables}, nestable then nestless,
 *     composites whole), reading category, box start and end, first and
 *     last line of every drawable and of every composite member — the
 *     fields our pass reads from its columns;
 * <li>per kind: wall p50, p99, mean per line; the thread's CPU time per line
 *     (its CPU clock read where the kind of line changes, divided by the
 *     lines); rows touched, composites, and the checksum category + first
 *     line + last line that ours prints too.
 * </ul>
 *
 * Prints RESULT lines in the format of ours, and an INFO line (start depth,
 * shadows met, GC and JIT activity during the timed lines). Needs the
 * reference's jumpshot.jar (not part of this repository):
 * <pre>
 *   javac -cp jumpshot.jar -d OUT java/bench/reference/RefTrunk.java java/bench/reference/RefPlan.java
 *   java -cp jumpshot.jar:OUT RefPlan FILE.slog2 PLAN.txt [--pass]
 * </pre>
 */
public class RefPlan {
    static long touched, composites, shadows, sum;
    static double times;

    public static void main(String[] args) throws IOException {
        String path = args[0];
        boolean pass = args.length > 2 && args[2].equals("--pass");
        List<double[]> lines = new ArrayList<>();
        List<Character> kinds = new ArrayList<>();
        for (String l : Files.readAllLines(Paths.get(args[1]))) {
            String[] f = l.trim().split("\\s+");
            if (f.length == 1 && f[0].isEmpty()) {
                continue;
            }
            if (f.length != 3 || "WJS".indexOf(f[0]) < 0 || f[0].length() != 1) {
                throw new IllegalArgumentException(args[1] + ": expected `W|J|S t0 t1`, found " + l);
            }
            kinds.add(f[0].charAt(0));
            lines.add(new double[] {Double.parseDouble(f[1]), Double.parseDouble(f[2])});
        }
        RefTrunk t = new RefTrunk(path);
        TimeBoundingBox old = t.root;
        for (int i = 0; i < lines.size(); i++) {
            if (kinds.get(i) == 'W') {
                double[] p = lines.get(i);
                TimeBoundingBox w = RefTrunk.box(p[0], p[1]);
                t.trunk.updateTimeWindow(old, w);
                if (pass) {
                    touchAll(t, w);
                }
                old = w;
            }
        }
        touched = composites = shadows = sum = 0;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long gc0 = gcCount(), gcMs0 = gcMillis(), jit0 = jitMillis();
        double[][] us = {new double[lines.size()], new double[lines.size()]};
        int[] n = new int[2];
        long[] cpu = new long[2], rows = new long[2], comps = new long[2], sums = new long[2];
        int run = -1;
        long c0 = 0;
        for (int i = 0; i < lines.size(); i++) {
            char kc = kinds.get(i);
            if (kc == 'W') {
                continue;
            }
            int k = kc == 'S' ? 1 : 0;
            if (k != run) {
                long now = mx.getCurrentThreadCpuTime();
                if (run >= 0) {
                    cpu[run] += now - c0;
                }
                run = k;
                c0 = now;
            }
            double[] p = lines.get(i);
            long r0 = touched, m0 = composites, s0 = sum;
            long s = System.nanoTime();
            TimeBoundingBox w = RefTrunk.box(p[0], p[1]);
            t.trunk.updateTimeWindow(old, w);
            if (pass) {
                touchAll(t, w);
            }
            us[k][n[k]++] = (System.nanoTime() - s) / 1e3;
            old = w;
            rows[k] += touched - r0;
            comps[k] += composites - m0;
            sums[k] += sum - s0;
        }
        if (run >= 0) {
            cpu[run] += mx.getCurrentThreadCpuTime() - c0;
        }
        long gc = gcCount() - gc0, gcMs = gcMillis() - gcMs0, jit = jitMillis() - jit0;
        String[] names = {"jump", "scroll"};
        for (int k = 0; k < 2; k++) {
            double[] v = Arrays.copyOf(us[k], n[k]);
            Arrays.sort(v);
            double mean = Arrays.stream(v).sum() / Math.max(1, n[k]);
            String opt = pass ? "" : "-";
            System.out.printf(Locale.ROOT,
                "RESULT side=ref variant=%s kind=%s n=%d p50=%.2f p99=%.2f mean=%.2f cpu=%.2f rows=%s touched=%s composites=%s sum=%s%n",
                pass ? "pass" : "update", names[k], n[k], pct(v, 0.5), pct(v, 0.99), mean,
                cpu[k] / 1e3 / Math.max(1, n[k]),
                pass ? String.format(Locale.ROOT, "%.1f", rows[k] / (double) Math.max(1, n[k])) : "-",
                pass ? Long.toString(rows[k]) : opt, pass ? Long.toString(comps[k]) : opt,
                pass ? Long.toString(sums[k]) : opt);
        }
        System.out.printf(Locale.ROOT,
            "INFO side=ref depth_root=%d depth_init=%d lowest_depth=%d shadows=%d gc=%d gc_ms=%d jit_ms=%d times=%.6g%n",
            t.depthRoot, t.depthInit, t.trunk.getLowestDepth(), shadows, gc, gcMs, jit, times);
        t.close();
    }

    /** One pass over the window's drawables, as Jumpshot's canvas iterates them. */
    static void touchAll(RefTrunk t, TimeBoundingBox w) {
        for (boolean nestable : new boolean[] {true, false}) {
            Iterator it = t.trunk.iteratorOfAllDrawables(w, Drawable.INCRE_STARTTIME_ORDER, true, nestable);
            while (it.hasNext()) {
                Drawable d = (Drawable) it.next();
                if (d instanceof Shadow) {
                    shadows++;
                }
                touch(d);
                if (d instanceof Composite) {
                    composites++;
                    for (Primitive m : ((Composite) d).getPrimitives()) {
                        touch(m);
                    }
                }
            }
        }
    }

    static void touch(Drawable d) {
        touched++;
        sum += d.getCategoryIndex() + d.getStartVertex().lineID + d.getFinalVertex().lineID;
        times += d.getEarliestTime() + d.getLatestTime();
    }

    static double pct(double[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.round((sorted.length - 1) * q);
        return sorted[Math.min(i, sorted.length - 1)];
    }

    static long gcCount() {
        long c = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            c += Math.max(0, b.getCollectionCount());
        }
        return c;
    }

    static long gcMillis() {
        long c = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            c += Math.max(0, b.getCollectionTime());
        }
        return c;
    }

    static long jitMillis() {
        CompilationMXBean c = ManagementFactory.getCompilationMXBean();
        return c != null && c.isCompilationTimeMonitoringSupported() ? c.getTotalCompilationTime() : -1;
    }
}
