package slog2.api;

/**
 * Statistics of a window of a trace, computed by the library (issue #30):
 * profile per category or per line (count, inclusive and exclusive time,
 * min/mean/max duration), communication matrix (messages and bytes per pair
 * of lines), idle time per line, load imbalance, duration and message-size
 * histograms with the drawables behind a bar, time profile, and the
 * comparison of two runs by category name.
 *
 * <pre>{@code
 * try (Slog2Reader r = Slog2Reader.open("run.slog2")) {
 *     Stats.Profile p = Stats.profile(r, Double.NaN, Double.NaN, false, false);
 *     for (int i = 0; i < p.size(); i++)
 *         System.out.println(p.category[i] + " " + p.exclusive[i]);
 * }
 * }</pre>
 *
 * <p>A window is {@code [t0, t1]}; {@code Double.NaN} stands for the file's
 * start or end. States crossing the window count only their part inside it
 * unless {@code whole}. Exclusive time is inclusive time minus the states
 * nested directly inside, on the same line. Message bytes come from the
 * arrows' payloads when their category's label has a size field
 * ({@code msg_size=%d}, {@code size=%l}); -1 when there is none. Each method is
 * one native call; results are immutable column arrays. Thread-safe like
 * {@link Slog2Reader}.
 */
public final class Stats {
    private Stats() {
    }

    /** Durations of a category's drawables ({@link #histogram}). */
    public static final int DURATION = 0;
    /** Message sizes in bytes ({@link #histogram}). */
    public static final int MESSAGE_SIZE = 1;

    /** A profile: one row per category (or per line × category). */
    public static final class Profile {
        /** Line of each row ({@code -1} for per-category rows). */
        public final int[] line;
        public final int[] category;
        public final long[] count;
        public final double[] inclusive;
        public final double[] exclusive;
        /** Of the primitives' durations; NaN when there is none. */
        public final double[] min;
        public final double[] mean;
        public final double[] max;

        Profile(Object[] c) {
            line = (int[]) c[0];
            category = (int[]) c[1];
            count = (long[]) c[2];
            inclusive = (double[]) c[3];
            exclusive = (double[]) c[4];
            min = (double[]) c[5];
            mean = (double[]) c[6];
            max = (double[]) c[7];
        }

        public int size() {
            return category.length;
        }
    }

    /** The communication matrix: one row per (from line, to line, category). */
    public static final class CommMatrix {
        public final int[] fromLine;
        public final int[] toLine;
        public final int[] category;
        public final long[] count;
        /** Bytes; -1 when no message of the row had a size. */
        public final long[] bytes;

        CommMatrix(Object[] c) {
            fromLine = (int[]) c[0];
            toLine = (int[]) c[1];
            category = (int[]) c[2];
            count = (long[]) c[3];
            bytes = (long[]) c[4];
        }

        public int size() {
            return category.length;
        }
    }

    /** Idle time per line. */
    public static final class IdleTime {
        public final int[] line;
        /** Time in the wait categories when given, else in no state. */
        public final double[] idle;
        public final double[] fraction;
        public final double[] noState;
        public final double[] wait;

        IdleTime(Object[] c) {
            line = (int[]) c[0];
            idle = (double[]) c[1];
            fraction = (double[]) c[2];
            noState = (double[]) c[3];
            wait = (double[]) c[4];
        }

        public int size() {
            return line.length;
        }
    }

    /** Load imbalance per state category. */
    public static final class LoadImbalance {
        public final int[] category;
        public final int[] lines;
        public final double[] mean;
        public final double[] max;
        /** max / mean. */
        public final double[] ratio;
        /** Worst lines of row {@code i}: entries {@code [i * top, (i + 1) * top)}, -1 / NaN padded. */
        public final int[] worstLine;
        public final double[] worstValue;
        public final int top;

        LoadImbalance(Object[] c, int top) {
            category = (int[]) c[0];
            lines = (int[]) c[1];
            mean = (double[]) c[2];
            max = (double[]) c[3];
            ratio = (double[]) c[4];
            worstLine = (int[]) c[5];
            worstValue = (double[]) c[6];
            this.top = top;
        }

        public int size() {
            return category.length;
        }
    }

    /** A histogram: bin {@code k} is {@code [edges[k], edges[k + 1])} (the last one closed). */
    public static final class Histogram {
        public final double[] edges;
        public final long[] counts;
        public final double[] sums;
        /** Values below the first edge / above the last (outliers). */
        public final long below;
        public final long above;
        /** Arrows without a size (message sizes). */
        public final long noSize;
        final int measure;
        final int category;
        final double t0;
        final double t1;
        final boolean whole;

        Histogram(Object[] c, int measure, int category, double t0, double t1, boolean whole) {
            edges = (double[]) c[0];
            counts = (long[]) c[1];
            sums = (double[]) c[2];
            long[] o = (long[]) c[3];
            below = o[0];
            above = o[1];
            noSize = o[2];
            this.measure = measure;
            this.category = category;
            this.t0 = t0;
            this.t1 = t1;
            this.whole = whole;
        }

        /** Number of bins (0 when there was nothing to bin). */
        public int bins() {
            return counts.length;
        }
    }

    /** The drawables behind a histogram bar, by start time. */
    public static final class Instances {
        public final double[] start;
        public final double[] end;
        public final int[] line0;
        public final int[] line1;
        public final int[] category;
        /** The measured value (duration or bytes). */
        public final double[] value;
        /** Popup text. */
        public final String[] text;
        /** Instances in the bar (the rows are the first ones). */
        public final long total;

        Instances(Object[] c) {
            start = (double[]) c[0];
            end = (double[]) c[1];
            line0 = (int[]) c[2];
            line1 = (int[]) c[3];
            category = (int[]) c[4];
            value = (double[]) c[5];
            text = (String[]) c[6];
            total = ((long[]) c[7])[0];
        }

        public int size() {
            return start.length;
        }
    }

    /** State time per category per slice, summed over lines. */
    public static final class TimeProfile {
        public final int[] categories;
        /** {@code values[k * categories.length + c]}: slice k, category column c. */
        public final double[] values;
        public final double t0;
        public final double t1;

        TimeProfile(Object[] c) {
            categories = (int[]) c[0];
            values = (double[]) c[1];
            double[] r = (double[]) c[2];
            t0 = r[0];
            t1 = r[1];
        }

        public int slices() {
            return categories.length == 0 ? 0 : values.length / categories.length;
        }

        public double get(int slice, int column) {
            return values[slice * categories.length + column];
        }
    }

    /** Two runs' profiles aligned by category name. */
    public static final class Comparison {
        public final String[] name;
        public final long[] countA;
        public final long[] countB;
        public final double[] inclusiveA;
        public final double[] inclusiveB;
        public final double[] inclusiveDiff;
        /** (b - a) / a; NaN when a is 0. */
        public final double[] inclusiveRel;
        public final double[] exclusiveA;
        public final double[] exclusiveB;
        public final double[] exclusiveDiff;
        public final double[] exclusiveRel;

        Comparison(Object[] c) {
            name = (String[]) c[0];
            countA = (long[]) c[1];
            countB = (long[]) c[2];
            inclusiveA = (double[]) c[3];
            inclusiveB = (double[]) c[4];
            inclusiveDiff = (double[]) c[5];
            inclusiveRel = (double[]) c[6];
            exclusiveA = (double[]) c[7];
            exclusiveB = (double[]) c[8];
            exclusiveDiff = (double[]) c[9];
            exclusiveRel = (double[]) c[10];
        }

        public int size() {
            return name.length;
        }
    }

    /** Profile of {@code [t0, t1]}, per category or per line × category. */
    public static Profile profile(Slog2Reader r, double t0, double t1, boolean whole, boolean byLine)
            throws Slog2Exception {
        return new Profile(StatsNative.profile(r.handle(), t0, t1, whole, byLine));
    }

    /** Communication matrix of {@code [t0, t1]}. */
    public static CommMatrix comm(Slog2Reader r, double t0, double t1, boolean whole) throws Slog2Exception {
        return new CommMatrix(StatsNative.comm(r.handle(), t0, t1, whole));
    }

    /**
     * Idle time per line: time in no state, or with {@code wait} category names
     * (wildcards {@code *}, {@code ?}; may be null) the time in those states.
     */
    public static IdleTime idle(Slog2Reader r, double t0, double t1, String... wait) throws Slog2Exception {
        return new IdleTime(StatsNative.idle(r.handle(), t0, t1, wait));
    }

    /** Load imbalance of exclusive (or inclusive) time, with the {@code top} worst lines. */
    public static LoadImbalance imbalance(Slog2Reader r, double t0, double t1, boolean inclusive, int top)
            throws Slog2Exception {
        return new LoadImbalance(StatsNative.imbalance(r.handle(), t0, t1, inclusive, top), top);
    }

    /**
     * Histogram of {@code measure} ({@link #DURATION} of {@code category}, or
     * {@link #MESSAGE_SIZE} of an arrow category, -1 for all) in {@code bins}
     * linear or {@code log} bins between the cut-offs {@code lo}, {@code hi}
     * (NaN: the smallest and largest value); values outside are outliers.
     */
    public static Histogram histogram(Slog2Reader r, double t0, double t1, boolean whole, int measure,
            int category, int bins, boolean log, double lo, double hi) throws Slog2Exception {
        return new Histogram(StatsNative.histogram(r.handle(), t0, t1, whole, measure, category, bins, log, lo, hi),
                measure, category, t0, t1, whole);
    }

    /**
     * The drawables in bar {@code bin} of {@code h} (-1: the outliers below,
     * {@code h.bins()}: those above), the first {@code limit} by start time.
     */
    public static Instances instances(Slog2Reader r, Histogram h, int bin, int limit) throws Slog2Exception {
        return new Instances(StatsNative.instances(r.handle(), h.t0, h.t1, h.whole, h.measure, h.category, h.edges,
                bin, limit));
    }

    /** Time profile of {@code [t0, t1]} in {@code slices} equal slices. */
    public static TimeProfile timeProfile(Slog2Reader r, double t0, double t1, int slices) throws Slog2Exception {
        return new TimeProfile(StatsNative.timeProfile(r.handle(), t0, t1, slices));
    }

    /** Profiles of two runs (same window bounds, NaN: each file's) aligned by category name. */
    public static Comparison compare(Slog2Reader a, Slog2Reader b, double t0, double t1, boolean whole)
            throws Slog2Exception {
        return new Comparison(StatsNative.compare(a.handle(), b.handle(), t0, t1, whole));
    }
}
