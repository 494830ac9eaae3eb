package slog2.api;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #27 class 2: a file truncated under an open reader crashed the JVM
 * (SIGBUS in libslog2jni.so, an hs_err file). Now the query throws and the JVM
 * goes on.
 */
class ChangedFileTest {

    @Test
    void truncatedUnderTheReaderThrows(@TempDir Path tmp) throws Exception {
        Path p = tmp.resolve("big.slog2");
        Cli.ok("bench", "write", "200000", "-o", p.toString());
        long size = Files.size(p);
        assertTrue(size > 4L << 20, "file of " + size + " bytes");
        try (Slog2Reader r = Slog2Reader.open(p.toString())) {
            double[] tb = r.totalTime();
            try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
                f.setLength(size / 10);
            }
            Slog2Exception e = assertThrows(Slog2Exception.class, () -> r.window(tb[0], tb[1]));
            assertTrue(e.getMessage().contains("changed while it was open"), e.getMessage());
            assertThrows(Slog2Exception.class, () -> r.preview(tb[0], tb[1], 2));
        }
        // The JVM and the library go on.
        try (Slog2Reader r = Slog2Reader.open(Cli.FIXTURES.resolve("trace-sample/data.slog2").toString())) {
            double[] tb = r.totalTime();
            assertTrue(r.window(tb[0], tb[1]).n > 0);
        }
    }
}
