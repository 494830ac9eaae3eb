package slog2.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A native call that panics (a bug in the library) is thrown as
 * {@link Error}, and its handle is retired: the object behind it may be
 * half-updated, so later calls on that handle throw {@link ClosedException}
 * saying so instead of using it (jni/src/lib.rs {@code call_on}, the rule of
 * the C ABI's handles). Other handles, even of the same file, keep working.
 */
class RetiredHandleTest {
    @Test
    void aHandleWhoseCallPanickedIsRetired() throws Exception {
        String path = Cli.FIXTURES.resolve("trace-sample/data.slog2").toString();
        long a = Native.open(path);
        long b = Native.open(path);
        try {
            double[] before = Native.totalTime(a);
            Error e = assertThrows(Error.class, () -> Native.panicForTest(a));
            assertTrue(e.getMessage().contains("panic"), e.getMessage());
            assertTrue(e.getMessage().contains("test hook"), e.getMessage());
            // Every kind of call on the retired handle is refused, with the reason.
            ClosedException c = assertThrows(ClosedException.class, () -> Native.totalTime(a));
            assertTrue(c.getMessage().contains("retired"), c.getMessage());
            assertTrue(c.getMessage().contains("internal error"), c.getMessage());
            assertThrows(ClosedException.class, () -> Native.window(a, before[0], before[1]));
            assertThrows(ClosedException.class, () -> Native.categories(a));
            assertThrows(ClosedException.class, () -> Native.panicForTest(a));
            // A closed handle is still told apart from a retired one.
            Native.close(b);
            ClosedException closed = assertThrows(ClosedException.class, () -> Native.totalTime(b));
            assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
            assertTrue(!closed.getMessage().contains("retired"), closed.getMessage());
        } finally {
            Native.close(a);
            Native.close(b);
        }
        // Another open of the same file works, with the same answers.
        try (Slog2Reader r = Slog2Reader.open(path)) {
            long h = Native.open(path);
            try {
                assertEquals(r.window(r.totalTime()[0], r.totalTime()[1]).n,
                    Native.window(h, r.totalTime()[0], r.totalTime()[1]).n);
            } finally {
                Native.close(h);
            }
        }
    }

    @Test
    void aReaderWhoseCallPanickedThrowsClosedException() throws Exception {
        String path = Cli.FIXTURES.resolve("trace-sample/data.slog2").toString();
        try (Slog2Reader r = Slog2Reader.open(path)) {
            long other = Native.open(path);
            try {
                double[] tt = r.totalTime();
                int n = r.window(tt[0], tt[1]).n;
                assertTrue(n > 0);
                // The hook on the reader's own handle (its only field of that type).
                java.lang.reflect.Field f = Slog2Reader.class.getDeclaredField("handle");
                f.setAccessible(true);
                long h = f.getLong(r);
                assertThrows(Error.class, () -> Native.panicForTest(h));
                ClosedException c = assertThrows(ClosedException.class, () -> r.window(tt[0], tt[1]));
                assertTrue(c.getMessage().contains("retired"), c.getMessage());
                assertEquals(n, Native.window(other, tt[0], tt[1]).n, "other handles are untouched");
            } finally {
                Native.close(other);
            }
        }
    }
}
