package slog2.api;

/**
 * The natives of {@link Stats} in libslog2jni (jni/src/stats.rs). Each returns
 * one result as an {@code Object[]} of column arrays that {@link Stats} wraps.
 * Windows: NaN bounds are the file's start / end.
 */
final class StatsNative {
    static {
        String lib = System.getProperty("slog2.library");
        if (lib != null && !lib.isEmpty()) {
            System.load(lib);
        } else {
            System.loadLibrary("slog2jni");
        }
    }

    private StatsNative() {
    }

    static native Object[] profile(long h, double t0, double t1, boolean whole, boolean byLine)
            throws Slog2Exception;

    static native Object[] comm(long h, double t0, double t1, boolean whole) throws Slog2Exception;

    static native Object[] idle(long h, double t0, double t1, String[] wait) throws Slog2Exception;

    static native Object[] imbalance(long h, double t0, double t1, boolean inclusive, int top)
            throws Slog2Exception;

    static native Object[] histogram(long h, double t0, double t1, boolean whole, int measure, int category,
            int bins, boolean log, double lo, double hi) throws Slog2Exception;

    static native Object[] instances(long h, double t0, double t1, boolean whole, int measure, int category,
            double[] edges, int bin, int limit) throws Slog2Exception;

    static native Object[] timeProfile(long h, double t0, double t1, int slices) throws Slog2Exception;

    static native Object[] compare(long a, long b, double t0, double t1, boolean whole) throws Slog2Exception;
}
