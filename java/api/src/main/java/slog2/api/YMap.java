package slog2.api;

/**
 * A y-coordinate map of an SLOG-2 file: for each line ID, one value per
 * labelled column (e.g. process and thread of a timeline). Immutable.
 */
public final class YMap {
    /** The map's title. */
    public final String title;
    /** Labels of the value columns (the line-ID column is not included). */
    public final String[] columnLabels;
    /** Line ID of each row. */
    public final int[] lineIDs;
    /** Row-major values: row {@code r}, column {@code c} is {@code values[r * columnLabels.length + c]}. */
    public final int[] values;
    /** Method IDs of the map; empty when none. */
    public final int[] methods;

    YMap(String title, String[] columnLabels, int[] lineIDs, int[] values, int[] methods) {
        this.title = title;
        this.columnLabels = columnLabels;
        this.lineIDs = lineIDs;
        this.values = values;
        this.methods = methods;
    }

    /** Number of rows. */
    public int rows() {
        return lineIDs.length;
    }

    /** The value of row {@code row}, column {@code col}. */
    public int value(int row, int col) {
        return values[row * columnLabels.length + col];
    }
}
