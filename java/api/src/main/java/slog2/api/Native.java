package slog2.api;

/**
 * The natives of libslog2jni. Handles are registry keys (never pointers); a
 * key that is not open raises {@link Slog2Exception}. Every method may be
 * called from any thread.
 */
final class Native {
    static {
        String lib = System.getProperty("slog2.library");
        if (lib != null && !lib.isEmpty()) {
            System.load(lib);
        } else {
            System.loadLibrary("slog2jni");
        }
    }

    private Native() {
    }

    static native long open(String path) throws Slog2Exception;

    static native void close(long h);

    static native double[] totalTime(long h) throws Slog2Exception;

    static native int rootDepth(long h) throws Slog2Exception;

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
}
