import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Random;

import base.drawable.Drawable;
import base.drawable.TimeBoundingBox;
import logformat.slog2.input.TreeTrunk;

/**
 * The reference Java reader doing WindowBench's jumps: slog2sdk's
 * TreeTrunk.updateTimeWindow (what Jumpshot's CanvasTimeline calls on every
 * scroll/zoom), then iterating the drawables of the window as Jumpshot draws
 * them (nestable and nestless, composites). Compile and run against the
 * fetched jumpshot.jar (not in the repo):
 *
 *   javac -cp jumpshot.jar -d OUT RefTrunk.java RefWindowBench.java
 *   java -cp jumpshot.jar:OUT RefWindowBench FILE.slog2 NDRAWABLES [JUMPS] [SEED] [TARGET]
 *
 * Tree set-up as Jumpshot's, shared with RefPlan (RefTrunk).
 */
public class RefWindowBench {
    public static void main(String[] args) throws Exception {
        String path = args[0];
        long ndrawables = Long.parseLong(args[1]);
        int jumps = args.length > 2 ? Integer.parseInt(args[2]) : 10000;
        long seed = args.length > 3 ? Long.parseLong(args[3]) : 1;
        double target = args.length > 4 ? Double.parseDouble(args[4]) : 1000;
        // Opened as Jumpshot opens it (RefTrunk: the top four levels in memory).
        RefTrunk ref = new RefTrunk(path);
        TreeTrunk trunk = ref.trunk;
        TimeBoundingBox rootBox = ref.root;
        double t0 = rootBox.getEarliestTime(), t1 = rootBox.getLatestTime();
        double width = (t1 - t0) * target / ndrawables;
        TimeBoundingBox old = rootBox;
        Random warm = new Random(seed + 1000);
        for (int i = 0; i < 500; i++) {
            double a = t0 + warm.nextDouble() * (t1 - t0 - width);
            TimeBoundingBox w = box(a, a + width);
            trunk.updateTimeWindow(old, w);
            count(trunk, w);
            old = w;
        }
        Random rnd = new Random(seed);
        long[] upd = new long[jumps], all = new long[jumps], cpu = new long[jumps];
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long rows = 0;
        for (int i = 0; i < jumps; i++) {
            double a = t0 + rnd.nextDouble() * (t1 - t0 - width);
            TimeBoundingBox w = box(a, a + width);
            long c0 = mx.getCurrentThreadCpuTime();
            long s = System.nanoTime();
            trunk.updateTimeWindow(old, w);
            long m = System.nanoTime();
            rows += count(trunk, w);
            long e = System.nanoTime();
            cpu[i] = mx.getCurrentThreadCpuTime() - c0;
            upd[i] = m - s;
            all[i] = e - s;
            old = w;
        }
        Arrays.sort(upd);
        Arrays.sort(all);
        Arrays.sort(cpu);
        System.out.printf("reference TreeTrunk: %d jumps, width %.6g s, mean %.0f drawables%n",
                jumps, width, rows / (double) jumps);
        System.out.printf("updateTimeWindow only:   p50 %.3f ms  p99 %.3f ms%n", upd[jumps / 2] / 1e6, upd[jumps * 99 / 100] / 1e6);
        System.out.printf("update + iterate window: p50 %.3f ms  p99 %.3f ms%n", all[jumps / 2] / 1e6, all[jumps * 99 / 100] / 1e6);
        System.out.printf("update + iterate, cpu:    p50 %.3f ms  p99 %.3f ms%n", cpu[jumps / 2] / 1e6, cpu[jumps * 99 / 100] / 1e6);
        Runtime rt = Runtime.getRuntime();
        System.gc();
        System.out.printf("heap MB after GC at the end: %.1f%n", (rt.totalMemory() - rt.freeMemory()) / 1048576.0);
        ref.close();
    }

    static TimeBoundingBox box(double a, double b) {
        return RefTrunk.box(a, b);
    }

    /** Drawables Jumpshot would draw in the window (nestable, then nestless). */
    static long count(TreeTrunk trunk, TimeBoundingBox w) {
        long n = 0;
        for (boolean nestable : new boolean[] {true, false}) {
            Iterator it = trunk.iteratorOfAllDrawables(w, Drawable.INCRE_STARTTIME_ORDER, true, nestable);
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }
}
