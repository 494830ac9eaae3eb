package slog2.api;

/**
 * The answer of one window or preview query, in column form: row {@code i} of
 * every array describes the same drawable. Filled by one native call; the
 * arrays are owned by this object and never change.
 *
 * <p>One row per drawable and one per composite member (the library's one
 * definition, {@link Counts#definition()}): a composite row
 * ({@link #KIND_COMPOSITE}) is followed immediately by its members, primitive
 * rows whose {@link #parent} is the composite's row ({@code -1} for every
 * other row). Windows, previews and cursor moves are in drawing order; scan
 * batches in the file's node order. A preview lists shadows
 * ({@link #KIND_SHADOW}, the summaries standing in for the levels not read)
 * after the drawables.
 */
public final class Drawables {
    /** A primitive: state, arrow or event (top level, or a composite's member). */
    public static final byte KIND_PRIMITIVE = 0;
    /** A composite; its members follow it. */
    public static final byte KIND_COMPOSITE = 1;
    /** A preview shadow: category -1 event, -2 arrow, -3 state. */
    public static final byte KIND_SHADOW = 2;

    /** Number of rows. */
    public final int n;
    /** {@link #KIND_PRIMITIVE}, {@link #KIND_COMPOSITE} or {@link #KIND_SHADOW}. */
    public final byte[] kind;
    /** Category index ({@link Category#index}; negative for shadows). */
    public final int[] category;
    /** Time box: earliest and latest time of the drawable. */
    public final double[] start, end;
    /**
     * Time of the first and of the last vertex. For an arrow drawn backwards
     * in time {@code time0 > time1}; draw from (time0, line0) to (time1, line1).
     */
    public final double[] time0, time1;
    /** Line ID (y coordinate) of the first and of the last vertex. */
    public final int[] line0, line1;
    /** Row of the composite a member belongs to, else -1. */
    public final int[] parent;
    /** 1 for a primitive, member count for a composite, drawables summarised for a shadow. */
    public final long[] numReal;
    /** {@code n + 1} offsets: row {@code i}'s info bytes are {@code info[infoOffset[i] .. infoOffset[i+1])}. */
    public final int[] infoOffset;
    /** Info bytes of all rows, concatenated. */
    public final byte[] info;
    /** Per-category weights of the shadow rows (empty for a window). */
    public final ShadowWeights weights;
    /** Tree nodes decoded to answer the query. */
    public final int nodesRead;
    /** Bytes of those nodes. */
    public final long bytesRead;

    Drawables(int n, byte[] kind, int[] category, double[] start, double[] end,
              double[] time0, double[] time1, int[] line0, int[] line1, int[] parent,
              long[] numReal, int[] infoOffset, byte[] info, ShadowWeights weights,
              int nodesRead, long bytesRead) {
        this.n = n;
        this.kind = kind;
        this.category = category;
        this.start = start;
        this.end = end;
        this.time0 = time0;
        this.time1 = time1;
        this.line0 = line0;
        this.line1 = line1;
        this.parent = parent;
        this.numReal = numReal;
        this.infoOffset = infoOffset;
        this.info = info;
        this.weights = weights;
        this.nodesRead = nodesRead;
        this.bytesRead = bytesRead;
    }

    /** Number of rows (same as {@link #n}). */
    public int size() {
        return n;
    }

    /** A copy of row {@code row}'s info bytes. */
    public byte[] infoOf(int row) {
        return java.util.Arrays.copyOfRange(info, infoOffset[row], infoOffset[row + 1]);
    }
}
