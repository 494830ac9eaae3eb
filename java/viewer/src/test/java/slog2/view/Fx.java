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

    /** Run a command, return stdout; asserts exit status {@code want}. */
    static String run(List<String> cmd, int want) throws IOException, InterruptedException {
        Path err = Files.createTempFile("slog2view", ".err");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = p.waitFor();
        String e = Files.readString(err);
        Files.delete(err);
        assertEquals(want, rc, "exit status of " + cmd + "; stderr: " + e);
        return out + (want != 0 ? e : "");
    }

    private static String big;

    /** A generated 200,000-drawable trace (16 ranks) written by {@code slog2 bench write}. */
    static synchronized String bigTrace() throws IOException, InterruptedException {
        if (big == null) {
            Path dir = Files.createTempDirectory("slog2view-test");
            dir.toFile().deleteOnExit();
            Path f = dir.resolve("big.slog2");
            run(List.of(cli(), "bench", "write", "200000", "-o", f.toString()), 0);
            f.toFile().deleteOnExit();
            big = f.toString();
        }
        return big;
    }
}
