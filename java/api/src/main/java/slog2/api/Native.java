package slog2.api;

/**
 * The natives of libslog2jni. Handles are registry keys (never pointers); a
 * key that is not open raises {@link Slog2Exception}. Every method may be
 * called from any thread.
 */
final class Native {
    static {
        String lib = System.getProperty("slog2.library");
        try {
            if (lib != null && !lib.isEmpty()) {
                System.load(lib);
            } else {
                System.loadLibrary("slog2jni");
            }
        } catch (UnsatisfiedLinkError e) {
            // Say where it was looked for and how to point at it (a bare "no slog2jni in
            // java.library.path" leaves a new user guessing).
            UnsatisfiedLinkError u = new UnsatisfiedLinkError(lib != null && !lib.isEmpty()
                    ? "slog2: cannot load -Dslog2.library=" + lib + ": " + e.getMessage()
                    : "slog2: libslog2jni.so is not on java.library.path ("
                            + System.getProperty("java.library.path") + "); build it with `cargo build --release` "
                            + "and run java with -Dslog2.library=/path/to/target/release/libslog2jni.so "
                            + "(or -Djava.library.path=/path/to/target/release)");
            u.initCause(e);
            throw u;
        }
    }

    private Native() {
    }

    static native long open(String path) throws Slog2Exception;

    static native void close(long h);

    static native double[] totalTime(long h) throws Slog2Exception;

    static native int rootDepth(long h) throws Slog2Exception;

    static native boolean compressed(long h) throws Slog2Exception;

    static native Category[] categories(long h) throws Slog2Exception;

    static native YMap[] yMaps(long h) throws Slog2Exception;

    static native Drawables window(long h, double t0, double t1) throws Slog2Exception;

    static native Drawables preview(long h, double t0, double t1, int depth) throws Slog2Exception;

    static native String popupText(long h, int category, byte[] info, int off, int len)
            throws Slog2Exception;

    /**
     * Test hook, not API: a panic inside a call on handle {@code h}, thrown
     * here as {@link Error}. The handle is retired by the rule every native
     * follows (later calls throw {@link ClosedException} saying "retired"),
     * so this can do no more than {@link #close(long)}.
     */
    static native void panicForTest(long h);

    static native long cursorOpen(long h) throws Slog2Exception;

    static native Drawables cursorMove(long c, double t0, double t1) throws Slog2Exception;

    static native void cursorClose(long c);

    static native long scanOpen(long h, boolean range, double t0, double t1) throws Slog2Exception;

    /** The next batch, or null at the end. */
    static native Drawables scanNext(long s, int maxRows) throws Slog2Exception;

    static native void scanClose(long s);

    /** Totals, then index/drawables/members/stored per category (see Counts). */
    static native long[] counts(long h) throws Slog2Exception;

    static native String countDefinition() throws Slog2Exception;
}
