package slog2.api;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Ocelotl's overview of a time range (Dosimont et al. 2014), computed by the
 * library ({@code slog2::analysis::overview}): the range cut into equal
 * slices, the cube {@code v[line][slice][category]} (time in each state
 * category, or drawables starting in each slice), aggregated into the fewest
 * parts that lose the least information under a parameter {@code p}
 * (0: every slice, 1: one part). Temporal parts are intervals of slices;
 * spatiotemporal parts are a node of a hierarchy over the lines times an
 * interval.
 *
 * <pre>{@code
 * try (Slog2Reader r = Slog2Reader.open("run.slog2");
 *      Overview ov = r.overview(new Overview.Spec().slices(100))) {
 *     Overview.Partition parts = ov.partition();
 *     for (int k = 0; k < parts.n; k++)
 *         System.out.println(ov.sliceStart(parts.first[k]) + " " + parts.mode[k]);
 *     parts = ov.setP(0.2);   // another p: no pass over the drawables
 * }
 * }</pre>
 *
 * <p>Each query is one native call filling arrays (no object per part or
 * cell). An overview holds native memory (the cube and the qualities of
 * every interval) until {@link #close()}. Thread-safe: {@link #setP} and the
 * getters may run on any thread; each {@link Partition} is an immutable
 * snapshot.
 *
 * <p><b>Cache.</b> By default (as in every binding of the library) the cube is
 * rebinned from the file's cube cache ({@code $SLOG2_CACHE_DIR},
 * {@code $XDG_CACHE_HOME/slog2} or {@code ~/.cache/slog2}), built by the first
 * overview of the file; {@link #exact} says whether the slice edges fell on
 * cached ones. Slices finer than the cached ones read the drawables.
 * {@link Spec#cache(boolean) cache(false)} always reads the drawables.
 */
public final class Overview implements AutoCloseable {
    /** Time in each state category per slice (states only). */
    public static final int DURATION = 0;
    /** Drawables starting in each slice (every category). */
    public static final int COUNT = 1;

    /** What to compute. Defaults: the file's whole range, 100 slices, duration, temporal, auto p, cache. */
    public static final class Spec {
        double t0 = Double.NaN, t1 = Double.NaN;
        int slices = 100;
        int metric = DURATION;
        boolean spatiotemporal;
        String hierarchy;
        double p = -1;
        double bisect;
        boolean cache = true;

        /** The range {@code [t0, t1]} (default: the file's whole time range). */
        public Spec range(double t0, double t1) {
            this.t0 = t0;
            this.t1 = t1;
            return this;
        }

        /** Number of equal slices (at least 1). */
        public Spec slices(int n) {
            this.slices = n;
            return this;
        }

        /** {@link #DURATION} or {@link #COUNT}. */
        public Spec metric(int m) {
            this.metric = m;
            return this;
        }

        /** Temporal aggregation: parts are intervals of slices (the default). */
        public Spec temporal() {
            this.spatiotemporal = false;
            this.hierarchy = null;
            return this;
        }

        /**
         * Spatiotemporal aggregation under {@code hierarchy}: a y-map title of the
         * file (its columns are the levels), {@code "fanout:K"}, or null for
         * {@code "fanout:8"}.
         */
        public Spec spatiotemporal(String hierarchy) {
            this.spatiotemporal = true;
            this.hierarchy = hierarchy;
            return this;
        }

        /** {@code p} in {@code [0, 1]}. */
        public Spec p(double p) {
            this.p = p;
            return this;
        }

        /** {@code p} chosen on the p-curve (its knee; the default). */
        public Spec autoP() {
            this.p = -1;
            return this;
        }

        /** Compute the p-curve by bisection down to {@code eps} (e.g. 0.001); 0: only for auto p. */
        public Spec bisect(double eps) {
            this.bisect = eps;
            return this;
        }

        /** Answer from the cube cache (true, the default) or read the drawables (false). */
        public Spec cache(boolean on) {
            this.cache = on;
            return this;
        }
    }

    /**
     * A partition (the parts at one {@code p}), in column form: part {@code k}
     * covers slices {@code first[k]..last[k]} (inclusive) of every line
     * (temporal: {@code node[k] == -1}) or of the lines of hierarchy node
     * {@code node[k]}. Immutable.
     */
    public static final class Partition {
        /** The p of this partition. */
        public final double p;
        /** Sums of the parts' gains and losses. */
        public final double gain, loss;
        /** Number of parts. */
        public final int n;
        /** Hierarchy node of each part; -1 for temporal parts. */
        public final int[] node;
        /** First and last slice of each part. */
        public final int[] first, last;
        /** Category index with the largest value in each part; -1 when all are 0. */
        public final int[] mode;
        /** Gain and loss of each part. */
        public final double[] partGain, partLoss;
        /**
         * Per part, per category (cube order, {@code values[k * categories + c]}): the
         * mean over the part of the lines' sum per slice (temporal: the height of
         * the category's layer in the part's bar) or of the value per line and
         * slice (spatiotemporal).
         */
        public final double[] values;

        Partition(double p, double gain, double loss, int[] node, int[] first, int[] last, int[] mode,
                double[] partGain, double[] partLoss, double[] values) {
            this.p = p;
            this.gain = gain;
            this.loss = loss;
            this.n = first.length;
            this.node = node;
            this.first = first;
            this.last = last;
            this.mode = mode;
            this.partGain = partGain;
            this.partLoss = partLoss;
            this.values = values;
        }
    }

    /** The p-curve: the distinct best partitions by increasing p (columns). */
    public static final class Curve {
        /** Smallest sampled p giving each partition. */
        public final double[] p;
        /** Its gain and loss sums. */
        public final double[] gain, loss;
        /** Its number of parts. */
        public final int[] parts;

        Curve(double[] cols) {
            int n = cols.length / 4;
            p = java.util.Arrays.copyOfRange(cols, 0, n);
            gain = java.util.Arrays.copyOfRange(cols, n, 2 * n);
            loss = java.util.Arrays.copyOfRange(cols, 2 * n, 3 * n);
            parts = new int[n];
            for (int i = 0; i < n; i++) {
                parts[i] = (int) cols[3 * n + i];
            }
        }

        /** Number of points (0 unless computed: auto p or {@link Spec#bisect}). */
        public int size() {
            return p.length;
        }
    }

    /**
     * The hierarchy of a spatiotemporal overview. Node 0 is the root; nodes are
     * in depth-first pre-order. {@link #rowLine} is the picture order of the
     * lines (the leaves depth-first), in which every node's lines are the run
     * {@code firstRow[h] .. firstRow[h] + lineCount(h)}.
     */
    public static final class Hierarchy {
        /** Parent of each node; -1 for the root. */
        public final int[] parent;
        /** What each node stands for ({@code label=value} of a y-map column, {@code line N}, {@code group}). */
        public final String[] label;
        /** Line IDs under node {@code h}: {@code lines[lineOffset[h] .. lineOffset[h + 1])}. */
        public final int[] lines, lineOffset;
        /** Line ID of each row of the picture; each node's first row. */
        public final int[] rowLine, firstRow;

        Hierarchy(int[] parent, String[] label, int[] count, int[] lines, int[] rowLine, int[] firstRow) {
            this.parent = parent;
            this.label = label;
            this.lines = lines;
            this.lineOffset = new int[count.length + 1];
            for (int h = 0; h < count.length; h++) {
                lineOffset[h + 1] = lineOffset[h] + count[h];
            }
            this.rowLine = rowLine;
            this.firstRow = firstRow;
        }

        /** Number of nodes. */
        public int size() {
            return parent.length;
        }

        /** Number of lines under node {@code h}. */
        public int lineCount(int h) {
            return lineOffset[h + 1] - lineOffset[h];
        }
    }

    /** How a rectangle of the spatiotemporal picture is drawn. */
    public static final int RECT_PLAIN = 0, RECT_STRIPED = 1, RECT_CROSSED = 2;

    /**
     * The rectangles of the spatiotemporal picture (columns): node {@code node[k]}'s
     * rows over slices {@code first[k]..last[k]}, coloured by category {@code mode[k]}
     * (-1: empty), drawn {@link #RECT_PLAIN}, {@link #RECT_STRIPED} (parts of
     * thinner nodes sharing one time partition) or {@link #RECT_CROSSED} (thinner
     * parts with different time partitions).
     */
    public static final class Rects {
        public final int[] node, first, last, mode, kind;

        Rects(int[] cols) {
            int n = cols.length / 5;
            node = java.util.Arrays.copyOfRange(cols, 0, n);
            first = java.util.Arrays.copyOfRange(cols, n, 2 * n);
            last = java.util.Arrays.copyOfRange(cols, 2 * n, 3 * n);
            mode = java.util.Arrays.copyOfRange(cols, 3 * n, 4 * n);
            kind = java.util.Arrays.copyOfRange(cols, 4 * n, 5 * n);
        }

        /** Number of rectangles. */
        public int size() {
            return node.length;
        }
    }

    private final long handle;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The range and its slicing. */
    public final double t0, t1;
    public final int slices;
    /** {@link #DURATION} or {@link #COUNT}. */
    public final int metric;
    /** Whether the cube is exact (read from the drawables, or rebinned on cached edges). */
    public final boolean exact;
    /** Whether the cube came from the cache file. */
    public final boolean fromCache;
    /** Primitives of the range on a line or in a category the cube does not hold. */
    public final long unmapped;
    /** Line IDs and category indices in cube order. */
    public final int[] lines, categories;
    /** The hierarchy (spatiotemporal), else null. */
    public final Hierarchy hierarchy;
    /** The p-curve (empty unless computed). */
    public final Curve curve;
    /** Wall seconds of the stages: cube, qualities, curve, best partition. */
    public final double[] timings;
    private volatile Partition partition;
    private volatile double[] cube;

    private Overview(long handle) throws Slog2Exception {
        this.handle = handle;
        try {
            double[] info = info(handle);
            t0 = info[0];
            t1 = info[1];
            slices = (int) info[2];
            metric = (int) info[3];
            exact = info[4] != 0;
            fromCache = info[5] != 0;
            unmapped = (long) info[6];
            timings = java.util.Arrays.copyOfRange(info, 8, 12);
            lines = axis(handle, 0);
            categories = axis(handle, 1);
            hierarchy = info[7] > 0
                    ? new Hierarchy(hierarchy(handle, 0), labels(handle), hierarchy(handle, 1),
                            hierarchy(handle, 2), hierarchy(handle, 3), hierarchy(handle, 4))
                    : null;
            curve = new Curve(curve(handle));
            partition = partition(handle);
        } catch (Slog2Exception | RuntimeException e) {
            close(handle);
            throw e;
        }
    }

    static Overview open(long file, Spec s) throws Slog2Exception {
        if (s == null) {
            throw new NullPointerException("spec");
        }
        return new Overview(open(file, s.t0, s.t1, s.slices, s.metric, s.spatiotemporal, s.hierarchy, s.p,
                s.bisect, s.cache));
    }

    /** The current partition (at {@link Partition#p}). */
    public Partition partition() {
        return partition;
    }

    /**
     * Re-aggregate at another {@code p} in {@code [0, 1]}: one dynamic programme
     * over the kept qualities, no pass over the drawables (a viewer's p slider).
     *
     * @throws Slog2Exception if {@code p} is outside {@code [0, 1]} or the overview is closed
     */
    public Partition setP(double p) throws Slog2Exception {
        Partition q = setP(handle, p);
        partition = q;
        return q;
    }

    /** The cube, line-major: {@code v[line][slice][category]} at {@code (l * slices + t) * categories.length + c}. */
    public double[] cube() throws Slog2Exception {
        double[] c = cube;
        if (c == null) {
            c = cube(handle);
            cube = c;
        }
        return c;
    }

    /**
     * The rectangles of the spatiotemporal picture when a node needs at least
     * {@code minLines} lines to be drawn alone (e.g. lines per pixel row): parts
     * of thinner nodes are drawn as their nearest ancestor tall enough. Empty for
     * a temporal overview.
     */
    public Rects rects(double minLines) throws Slog2Exception {
        return new Rects(rects(handle, minLines));
    }

    /** Start of slice {@code k} ({@code sliceStart(slices) == t1}). */
    public double sliceStart(int k) {
        return k >= slices ? t1 : t0 + k * ((t1 - t0) / slices);
    }

    /** Position of category index {@code index} in cube order, or -1. */
    public int categoryPosition(int index) {
        for (int c = 0; c < categories.length; c++) {
            if (categories[c] == index) {
                return c;
            }
        }
        return -1;
    }

    /** Release the native overview. Idempotent; later native calls throw {@link Slog2Exception}. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            close(handle);
        }
    }

    private static native long open(long file, double t0, double t1, int slices, int metric, boolean spatiotemporal,
            String hierarchy, double p, double bisect, boolean cache) throws Slog2Exception;

    private static native void close(long h);

    /** t0, t1, slices, metric, exact, fromCache, unmapped, nodes, then the four timings. */
    private static native double[] info(long h) throws Slog2Exception;

    /** 0: line IDs, 1: category indices. */
    private static native int[] axis(long h, int which) throws Slog2Exception;

    private static native double[] cube(long h) throws Slog2Exception;

    private static native Partition partition(long h) throws Slog2Exception;

    private static native Partition setP(long h, double p) throws Slog2Exception;

    /** 0: parents, 1: line counts, 2: lines (flat), 3: line of each row, 4: first row of each node. */
    private static native int[] hierarchy(long h, int which) throws Slog2Exception;

    private static native String[] labels(long h) throws Slog2Exception;

    /** Columns p, gain, loss, parts. */
    private static native double[] curve(long h) throws Slog2Exception;

    /** Columns node, first, last, mode (category index or -1), kind. */
    private static native int[] rects(long h, double minLines) throws Slog2Exception;
}
