import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Random;

import slog2.api.Drawables;
import slog2.api.Slog2Reader;

/**
 * Random window jumps through the slog2.api Java API (one JNI call per jump),
 * the same jumps as reference/RefWindowBench.java makes through slog2sdk's
 * TreeTrunk.updateTimeWindow. Usage:
 *
 *   java -cp slog2.jar:. WindowBench FILE.slog2 NDRAWABLES [JUMPS=10000] [SEED=1] [TARGET=1000]
 *
 * Window width = total time * TARGET / NDRAWABLES (about TARGET drawables);
 * start uniformly random. Prints p50/p99 latency of each jump (query + all
 * columns in Java arrays), wall clock and the thread's CPU time (the CPU
 * figure is immune to waiting in a loaded machine's run queue), and the Java
 * heap after GC every 1000 jumps.
 */
public class WindowBench {
    public static void main(String[] args) throws Exception {
        String path = args[0];
        long ndrawables = Long.parseLong(args[1]);
        int jumps = args.length > 2 ? Integer.parseInt(args[2]) : 10000;
        long seed = args.length > 3 ? Long.parseLong(args[3]) : 1;
        double target = args.length > 4 ? Double.parseDouble(args[4]) : 1000;
        try (Slog2Reader r = Slog2Reader.open(path)) {
            double[] tt = r.totalTime();
            double width = (tt[1] - tt[0]) * target / ndrawables;
            Random rnd = new Random(seed);
            // Warm-up (JIT, page cache): 500 jumps with another seed.
            Random warm = new Random(seed + 1000);
            for (int i = 0; i < 500; i++) {
                double a = tt[0] + warm.nextDouble() * (tt[1] - tt[0] - width);
                r.window(a, a + width);
            }
            Runtime rt = Runtime.getRuntime();
            long[] ns = new long[jumps];
            long[] cpu = new long[jumps];
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long rows = 0, nodes = 0;
            StringBuilder heap = new StringBuilder();
            for (int i = 0; i < jumps; i++) {
                if (i % 1000 == 0) {
                    System.gc();
                    heap.append(String.format(" %d:%.1f", i, (rt.totalMemory() - rt.freeMemory()) / 1048576.0));
                }
                double a = tt[0] + rnd.nextDouble() * (tt[1] - tt[0] - width);
                long c0 = mx.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                Drawables d = r.window(a, a + width);
                ns[i] = System.nanoTime() - t0;
                cpu[i] = mx.getCurrentThreadCpuTime() - c0;
                rows += d.n;
                nodes += d.nodesRead;
            }
            System.gc();
            heap.append(String.format(" %d:%.1f", jumps, (rt.totalMemory() - rt.freeMemory()) / 1048576.0));
            Arrays.sort(ns);
            Arrays.sort(cpu);
            System.out.printf("slog2.api window: %d jumps, width %.6g s, mean %.0f rows, %.1f nodes/jump%n",
                    jumps, width, rows / (double) jumps, nodes / (double) jumps);
            System.out.printf("wall p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms%n",
                    ns[jumps / 2] / 1e6, ns[jumps * 9 / 10] / 1e6, ns[jumps * 99 / 100] / 1e6, ns[jumps - 1] / 1e6);
            System.out.printf("cpu p50 %.3f ms  p90 %.3f ms  p99 %.3f ms%n",
                    cpu[jumps / 2] / 1e6, cpu[jumps * 9 / 10] / 1e6, cpu[jumps * 99 / 100] / 1e6);
            System.out.println("heap MB after GC (jump:MB):" + heap);
        }
    }
}
