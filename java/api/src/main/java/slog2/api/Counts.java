package slog2.api;

/**
 * What a file holds ({@link Slog2Reader#counts()}), by the library's one
 * definition ({@link #definition()}), the same numbers {@code slog2 info},
 * the C API ({@code SLOG2_Get_counts}) and Python ({@code File.counts()})
 * give:
 * <ul>
 * <li>{@link #drawables}: the file's top-level records, primitives (states,
 *     arrows, events) and composites;</li>
 * <li>{@link #composites}; {@link #members}: primitives inside composites,
 *     not drawables of their own;</li>
 * <li>{@link #primitives}: every primitive, members included;</li>
 * <li>{@link #rows}: drawables + members, the rows of every table of the
 *     whole file ({@link Drawables}: a member's row follows its composite's,
 *     with {@code parent} = that row).</li>
 * </ul>
 * Per category: {@link #categoryDrawables} and {@link #categoryMembers}
 * counted in the file, beside {@link #categoryStored}, the count of the
 * file's category block (the reference counts members there and stores 0
 * for composite categories; {@code -1}: an index used but not defined; it is
 * also {@link Category#count}).
 */
public final class Counts {
    public final long drawables, composites, members, primitives, rows;
    /** Category indices, ascending; the three arrays below are parallel to it. */
    public final int[] categoryIndex;
    public final long[] categoryDrawables, categoryMembers, categoryStored;

    Counts(long[] v) {
        drawables = v[0];
        composites = v[1];
        members = v[2];
        primitives = v[3];
        rows = v[4];
        int n = (v.length - 5) / 4;
        categoryIndex = new int[n];
        categoryDrawables = new long[n];
        categoryMembers = new long[n];
        categoryStored = new long[n];
        for (int k = 0; k < n; k++) {
            categoryIndex[k] = (int) v[5 + 4 * k];
            categoryDrawables[k] = v[6 + 4 * k];
            categoryMembers[k] = v[7 + 4 * k];
            categoryStored[k] = v[8 + 4 * k];
        }
    }

    /** Position of category {@code index} in the per-category arrays, or -1. */
    public int indexOf(int index) {
        int k = java.util.Arrays.binarySearch(categoryIndex, index);
        return k >= 0 ? k : -1;
    }

    /** The library's definition of these numbers, in words. */
    public static String definition() throws Slog2Exception {
        return Native.countDefinition();
    }

    /** {@code 9 drawables (3 composites with 14 members), 20 primitives, 23 rows}. */
    @Override
    public String toString() {
        return drawables + " drawables (" + composites + " composites with " + members + " members), "
                + primitives + " primitives, " + rows + " rows";
    }
}
