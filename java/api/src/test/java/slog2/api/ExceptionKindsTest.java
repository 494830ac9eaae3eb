package slog2.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One exception class per kind of library error (the core's ErrorKind,
 * mapped exhaustively in jni/src/lib.rs; a Rust test there checks that every
 * kind has a class in these sources). Here: every class is a distinct
 * Slog2Exception carrying its message, and the kinds a reader can meet
 * arrive as their own class.
 */
class ExceptionKindsTest {
    static final List<Class<? extends Slog2Exception>> KINDS = List.of(
        ClosedException.class, FormatException.class, Slog2IOException.class,
        InvalidArgumentException.class, OrderException.class, ParseException.class,
        InvalidDrawableException.class, SourceException.class, UnsupportedException.class,
        StateException.class, NoDrawablesException.class);

    @Test
    void everyKindIsItsOwnSlog2Exception() throws Exception {
        Set<Class<?>> seen = new HashSet<>();
        for (Class<? extends Slog2Exception> c : KINDS) {
            assertTrue(seen.add(c), c.getName());
            assertEquals(Slog2Exception.class, c.getSuperclass(), c.getName());
            Slog2Exception e = c.getConstructor(String.class).newInstance("the library's words");
            assertEquals("the library's words", e.getMessage());
            for (Class<? extends Slog2Exception> other : KINDS) {
                assertEquals(c == other, other.isInstance(e), c + " vs " + other);
            }
        }
        assertEquals(11, seen.size());
    }

    @Test
    void aReaderMeetsEachKindAsItsClass(@TempDir Path tmp) throws Exception {
        Path good = Cli.FIXTURES.resolve("trace-sample/data.slog2");
        // A missing file: an operating-system error.
        Slog2IOException io = assertThrows(Slog2IOException.class,
            () -> Slog2Reader.open(tmp.resolve("missing.slog2").toString()));
        assertTrue(io.getMessage().contains("No such file"), io.getMessage());
        // A file that is not SLOG-2, and one cut short: damaged bytes.
        Path garbage = tmp.resolve("garbage.slog2");
        Files.write(garbage, "hello world, not a trace\n".getBytes());
        assertThrows(FormatException.class, () -> Slog2Reader.open(garbage.toString()));
        Path cut = tmp.resolve("cut.slog2");
        Files.write(cut, Arrays.copyOf(Files.readAllBytes(good), 500));
        assertThrows(FormatException.class, () -> Slog2Reader.open(cut.toString()));
        // Bad arguments, and a closed reader.
        Slog2Reader r = Slog2Reader.open(good.toString());
        assertThrows(InvalidArgumentException.class, () -> r.window(2, 1));
        assertThrows(InvalidArgumentException.class, () -> r.preview(Double.NaN, 1, 1));
        r.close();
        ClosedException closed = assertThrows(ClosedException.class, r::totalTime);
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
        assertThrows(ClosedException.class, () -> r.window(0, 1));
    }
}
