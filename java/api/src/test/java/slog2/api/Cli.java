package slog2.api;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Runs the `slog2` command-line tool (the Rust core's own answer) for the tests. */
final class Cli {
    static final String EXE = required("slog2.cli");
    static final Path FIXTURES = Paths.get(required("slog2.fixtures"));

    private static String required(String prop) {
        String v = System.getProperty(prop);
        if (v == null || v.isEmpty()) {
            throw new IllegalStateException("system property " + prop + " is not set (run java/build.sh)");
        }
        return v;
    }

    static final class Result {
        final int status;
        final String out;
        final String err;

        Result(int status, String out, String err) {
            this.status = status;
            this.out = out;
            this.err = err;
        }
    }

    static Result run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(EXE);
        cmd.addAll(Arrays.asList(args));
        Process p = new ProcessBuilder(cmd).start();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread t = new Thread(() -> copy(p.getErrorStream(), err));
        t.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        copy(p.getInputStream(), out);
        int status = p.waitFor();
        t.join();
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** stdout of a command that must succeed. */
    static String ok(String... args) throws IOException, InterruptedException {
        Result r = run(args);
        if (r.status != 0) {
            throw new AssertionError("slog2 " + String.join(" ", args) + " failed: " + r.err);
        }
        return r.out;
    }

    private static void copy(InputStream in, ByteArrayOutputStream out) {
        try (in) {
            in.transferTo(out);
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /** Every .slog2 file under the fixtures, sorted. */
    static List<Path> slog2Fixtures() throws IOException {
        List<Path> l = new ArrayList<>();
        try (var s = Files.walk(FIXTURES)) {
            s.filter(p -> p.toString().endsWith(".slog2")).sorted().forEach(l::add);
        }
        if (l.isEmpty()) {
            throw new IllegalStateException("no .slog2 fixtures under " + FIXTURES);
        }
        return l;
    }
}
