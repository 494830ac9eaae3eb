import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Paths;
import slog2.api.Drawables;
import slog2.api.Scan;
import slog2.api.Slog2Reader;

/**
 * Whole-file scan through the Java API (BENCHMARKS.md, "Java whole-file scan"):
 *
 *   java -Djava.library.path=target/release -cp java/build/slog2.jar:OUT ScanBench FILE [BATCH=65536] [window]
 *
 * Reads every drawable of FILE in batches ({@code Slog2Reader.scan}) and sums
 * end - start over every row (so each row's columns are touched, as
 * {@code python/bench/bench.py FILE --scan-only --touch} does); with
 * {@code window}, one window over the whole file instead (what a Java tool had
 * to do before). Prints rows, wall and CPU seconds, and the process's peak RSS.
 */
public final class ScanBench {
    public static void main(String[] a) throws Exception {
        String file = a[0];
        int batch = a.length > 1 ? Integer.parseInt(a[1]) : 1 << 16;
        boolean window = a.length > 2 && a[2].equals("window");
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long c0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        long rows = 0, batches = 0;
        double sum = 0;
        try (Slog2Reader r = Slog2Reader.open(file)) {
            if (window) {
                double[] tt = r.totalTime();
                Drawables d = r.window(tt[0], tt[1]);
                for (int i = 0; i < d.n; i++) {
                    sum += d.end[i] - d.start[i];
                }
                rows = d.n;
                batches = 1;
            } else {
                try (Scan s = r.scan(batch)) {
                    for (Drawables d : s) {
                        for (int i = 0; i < d.n; i++) {
                            sum += d.end[i] - d.start[i];
                        }
                        rows += d.n;
                        batches++;
                    }
                }
            }
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        double cpu = (os.getProcessCpuTime() - c0) / 1e9;
        String hwm = "?";
        for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
                hwm = line.substring(6).trim();
            }
        }
        System.out.printf(java.util.Locale.ROOT,
                "%s: %d rows in %d batches, %.3f s wall = %.2f M rows/s; CPU %.3f s (all JVM threads); "
                        + "sum of durations %.6g; peak RSS %s%n",
                window ? "one window over the file" : "scan of " + batch + "-row batches", rows, batches, secs,
                rows / secs / 1e6, cpu, sum, hwm);
    }
}
