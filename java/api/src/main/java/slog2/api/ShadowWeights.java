package slog2.api;

/**
 * Per-category weights of the shadows of a preview, in column form: entry
 * {@code i} says that the shadow in row {@code row[i]} of its
 * {@link Drawables} summarises {@code count[i]} drawables of category
 * {@code category[i]} with inclusive/exclusive ratios {@code incl[i]},
 * {@code excl[i]}. Entries are grouped by row, ascending.
 */
public final class ShadowWeights {
    public final int[] row;
    public final int[] category;
    public final float[] incl;
    public final float[] excl;
    public final long[] count;

    ShadowWeights(int[] row, int[] category, float[] incl, float[] excl, long[] count) {
        this.row = row;
        this.category = category;
        this.incl = incl;
        this.excl = excl;
        this.count = count;
    }

    /** Number of entries. */
    public int size() {
        return row.length;
    }
}
