package slog2.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Test helpers: fixture paths, the CLI, generated traces. Missing pieces fail (never skip). */
final class Fx {
    private Fx() {
    }

    static String fixtures() {
        String f = System.getProperty("slog2.fixtures");
        assertNotNull(f, "-Dslog2.fixtures not set");
        assertTrue(new File(f).isDirectory(), "fixtures dir missing: " + f);
        return f;
    }

    static String sample(String name) {
        return fixtures() + "/trace-sample/" + name;
    }

    static String cli() {
        String c = System.getProperty("slog2.cli");
        assertNotNull(c, "-Dslog2.cli not set");
        assertTrue(new File(c).canExecute(), "CLI missing: " + c);
        return c;
    }

    /** Run a command, return stdout (and, when it must fail, stderr); asserts exit status {@code want}. */
    static String run(List<String> cmd, int want) throws IOException, InterruptedException {
        return run(cmd, want, true);
    }

    /** Run a command; {@code withErr}: append stderr to the result whatever the status. */
    static String run(List<String> cmd, int want, boolean withErr) throws IOException, InterruptedException {
        Path err = Files.createTempFile(scratch(), "cmd", ".err");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = p.waitFor();
        String e = Files.readString(err);
        Files.delete(err);
        assertEquals(want, rc, "exit status of " + cmd + "; stderr: " + e);
        return out + (want != 0 || withErr && !e.isEmpty() ? e : "");
    }

    private static Path scratch;

    /**
     * This test run's own scratch directory (under {@code java.io.tmpdir}),
     * removed with everything in it when the JVM exits: the suite leaves
     * nothing behind in /tmp.
     */
    static synchronized Path scratch() throws IOException {
        if (scratch == null) {
            scratch = Files.createTempDirectory("slog2view-test");
            Path dir = scratch;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try (java.util.stream.Stream<Path> all = Files.walk(dir)) {
                    all.sorted(java.util.Comparator.reverseOrder()).forEach(q -> q.toFile().delete());
                } catch (IOException e) {
                    // best effort at exit
                }
            }));
        }
        return scratch;
    }

    private static String big, mpe;

    /** A generated 200,000-drawable trace (16 ranks) written by {@code slog2 bench write}. */
    static synchronized String bigTrace() throws IOException, InterruptedException {
        if (big == null) {
            Path f = scratch().resolve("big.slog2");
            run(List.of(cli(), "bench", "write", "200000", "-o", f.toString()), 0);
            big = f.toString();
        }
        return big;
    }

    /** Colours of {@link #mpeTrace()}'s categories: Main (grey), Compute, MPI_Send, MPI_Recv. */
    static final int GREY = 0x969696, RED = 0xff0000, BLUE = 0x0000ff, GREEN = 0x00ff00;
    /** Shares of each cycle of {@link #mpeTrace()}: Compute, MPI_Send, MPI_Recv. */
    static final double[] SHARES = {0.6, 0.25, 0.15};

    /**
     * An MPE-style trace: 4 ranks of 2 threads (8 line IDs), each line inside
     * one grey {@code Main} state from start to end, and in it 2000 cycles of
     * Compute (red, 60 % of each cycle), MPI_Send (blue, 25 %) and MPI_Recv
     * (green, 15 %); y-maps "ProcessView" (rank) and "ThreadView" (rank,
     * thread). 48,008 states in a tree deep enough that the whole-file view
     * is a preview. The same file as {@code java/viewer/build.sh}'s
     * screenshot notes describe (BENCHMARKS.md, README "slog2view").
     */
    static synchronized String mpeTrace() throws IOException, InterruptedException {
        if (mpe == null) {
            Path txt = scratch().resolve("mpe.txt");
            Files.writeString(txt, mpeText(4, 2, 2000));
            Path f = scratch().resolve("mpe.slog2");
            run(List.of(cli(), "convert", "-q", txt.toString(), "-o", f.toString(), "--ls", "16k"), 0);
            mpe = f.toString();
        }
        return mpe;
    }

    static String mpeText(int ranks, int threads, int cycles) {
        StringBuilder b = new StringBuilder();
        b.append("Category[ index=0 name=Main topo=State color=(150,150,150,255,true) width=1 ]\n");
        b.append("Category[ index=1 name=Compute topo=State color=(255,0,0,255,true) width=1 ]\n");
        b.append("Category[ index=2 name=MPI_Send topo=State color=(0,0,255,255,true) width=1 ]\n");
        b.append("Category[ index=3 name=MPI_Recv topo=State color=(0,255,0,255,true) width=1 ]\n");
        int lines = ranks * threads;
        double cyc = 1e-3;
        for (int c = 0; c < cycles; c++) {
            double t = c * cyc;
            double[] cut = {t, t + SHARES[0] * cyc, t + (SHARES[0] + SHARES[1]) * cyc, t + cyc};
            for (int k = 0; k < 3; k++) {
                for (int l = 0; l < lines; l++) {
                    b.append(String.format(java.util.Locale.ROOT,
                            "Primitive[ TimeBBox(%.7f,%.7f) Category=%d (%.7f, %d) (%.7f, %d) ]%n", cut[k], cut[k + 1],
                            k + 1, cut[k], l, cut[k + 1], l));
                }
            }
        }
        for (int l = 0; l < lines; l++) {
            b.append(String.format(java.util.Locale.ROOT,
                    "Primitive[ TimeBBox(0.0000000,%.7f) Category=0 (0.0000000, %d) (%.7f, %d) ]%n", cycles * cyc, l,
                    cycles * cyc, l));
        }
        b.append("YCoordMap[ Nrows=").append(lines).append(" Ncolumns=2 Nmethods=0 title=ProcessView colnames=< rank > ");
        for (int l = 0; l < lines; l++) {
            b.append("( ").append(l).append(' ').append(l / threads).append(" ) ");
        }
        b.append("]\n");
        b.append("YCoordMap[ Nrows=").append(lines).append(" Ncolumns=3 Nmethods=0 title=ThreadView colnames=< rank thread > ");
        for (int l = 0; l < lines; l++) {
            b.append("( ").append(l).append(' ').append(l / threads).append(' ').append(l % threads).append(" ) ");
        }
        b.append("]\n");
        return b.toString();
    }
}
