package slog2.api;

/**
 * A category (legend entry) of an SLOG-2 file: what a viewer needs to draw and
 * label the drawables of this index. Immutable.
 */
public final class Category {
    /** Topology codes (the SLOG-2 shape numbers). */
    public static final int EVENT = 0, STATE = 1, ARROW = 2;

    /** The category index drawables refer to ({@link Drawables#category}). */
    public final int index;
    /** The legend name. */
    public final String name;
    /** {@link #EVENT}, {@link #STATE} or {@link #ARROW}. */
    public final int topology;
    /** Colour components, 0–255. */
    public final int red, green, blue, alpha;
    /** Line width in pixels as stored in the file. */
    public final int width;
    /** The info label (e.g. {@code "msg_tag=%d, msg_size=%d"}), or null when the category has none. */
    public final String label;
    /** Method IDs (1 = connect composite states); empty when none. */
    public final int[] methods;
    /**
     * The count stored in the file's category block: the primitives of this
     * category, composite members included; 0 for a composite category in files
     * the reference wrote ({@link Counts} counts composites too).
     */
    public final long count;
    /** Inclusive and exclusive duration ratios over the whole file. */
    public final float inclRatio, exclRatio;

    Category(int index, String name, int topology, int argb, int width, String label,
             int[] methods, long count, float inclRatio, float exclRatio) {
        this.index = index;
        this.name = name;
        this.topology = topology;
        this.alpha = (argb >>> 24) & 0xff;
        this.red = (argb >>> 16) & 0xff;
        this.green = (argb >>> 8) & 0xff;
        this.blue = argb & 0xff;
        this.width = width;
        this.label = label;
        this.methods = methods;
        this.count = count;
        this.inclRatio = inclRatio;
        this.exclRatio = exclRatio;
    }

    /** The colour packed as 0xAARRGGBB (what {@code new java.awt.Color(argb, true)} takes). */
    public int argb() {
        return (alpha << 24) | (red << 16) | (green << 8) | blue;
    }

    @Override
    public String toString() {
        return "Category[" + index + " " + name + " topo=" + topology + "]";
    }
}
