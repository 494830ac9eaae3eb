package slog2.view;

import java.awt.Color;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import slog2.api.Category;
import slog2.api.YMap;

/**
 * What stays fixed while the user navigates one file: the categories (colour,
 * topology, visibility and search flags), the y-axis rows from the chosen
 * y-map, the file's time span and tree depth, and the rule that picks the
 * preview depth for a time window.
 *
 * <p>Category indices are sparse (e.g. 0, 1, 181); they are mapped to dense
 * slots once here so the drawing loop does array lookups only.
 */
public final class Model {
    /** Jumpshot's {@code INIT_SLOG2_LEVEL_READ}: levels read at full view. */
    public static final int INIT_LEVELS_READ = 4;

    public final Source source;
    public final double tMin, tMax;
    public final int rootDepth;
    public final Category[] categories;
    private final Map<Integer, Integer> slotOf = new HashMap<>();
    private final int denseBase;
    private final int[] dense; // category index - denseBase -> slot, -1 none
    public final Color[] colour;
    public final boolean[] visible, searchable;
    public final YMap[] yMaps;
    private int yMapIndex;
    private int[] rowLines = new int[0];
    private String[] rowLabels = new String[0];
    private int lineBase;
    private int[] lineRow = new int[0]; // line - lineBase -> row, -1 unknown
    private Map<Integer, Integer> lineRowMap;

    public Model(Source source) throws IOException {
        this.source = source;
        double[] tt = source.totalTime();
        double a = tt[0], b = tt[1];
        if (!(b > a)) {
            b = a + 1e-9; // a file of one instant still gets a window
        }
        tMin = a;
        tMax = b;
        rootDepth = source.rootDepth();
        categories = source.categories();
        colour = new Color[categories.length];
        visible = new boolean[categories.length];
        searchable = new boolean[categories.length];
        int lo = Integer.MAX_VALUE, hi = Integer.MIN_VALUE;
        for (int s = 0; s < categories.length; s++) {
            Category c = categories[s];
            slotOf.put(c.index, s);
            colour[s] = new Color(c.red, c.green, c.blue);
            visible[s] = true;
            searchable[s] = true;
            lo = Math.min(lo, c.index);
            hi = Math.max(hi, c.index);
        }
        if (categories.length > 0 && (long) hi - lo < 1_000_000) {
            denseBase = lo;
            dense = new int[hi - lo + 1];
            Arrays.fill(dense, -1);
            for (int s = 0; s < categories.length; s++) {
                dense[categories[s].index - lo] = s;
            }
        } else {
            denseBase = 0;
            dense = null;
        }
        yMaps = source.yMaps();
        selectYMap(defaultYMap(yMaps));
    }

    /** The first map that is not the writer's identity map, else the first. */
    static int defaultYMap(YMap[] maps) {
        for (int i = 0; i < maps.length; i++) {
            if (maps[i].columnLabels.length > 0 && !"Identity Map".equals(maps[i].title)
                    && maps[i].rows() > 0) {
                return i;
            }
        }
        return 0;
    }

    /** Slot of category index {@code index} in {@link #categories}, or -1. */
    public int slot(int index) {
        if (dense != null) {
            int k = index - denseBase;
            return k >= 0 && k < dense.length ? dense[k] : -1;
        }
        Integer s = slotOf.get(index);
        return s == null ? -1 : s;
    }

    public int yMapIndex() {
        return yMapIndex;
    }

    /** Use y-map {@code i} for the rows: one row per line ID it lists, in its order. */
    public void selectYMap(int i) {
        yMapIndex = i;
        if (yMaps.length == 0) {
            setRows(new int[0], new String[0]);
            return;
        }
        YMap m = yMaps[Math.max(0, Math.min(i, yMaps.length - 1))];
        int n = m.rows();
        int[] lines = m.lineIDs.clone();
        String[] labels = new String[n];
        int cols = m.columnLabels.length;
        boolean identity = "Identity Map".equals(m.title) || cols == 0;
        for (int r = 0; r < n; r++) {
            if (identity) {
                labels[r] = Integer.toString(lines[r]);
            } else {
                StringBuilder sb = new StringBuilder();
                for (int c = 0; c < cols; c++) {
                    if (c > 0) {
                        sb.append(' ');
                    }
                    sb.append(m.columnLabels[c]).append(' ').append(m.value(r, c));
                }
                labels[r] = sb.toString();
            }
        }
        setRows(lines, labels);
    }

    /** Rows for the given line IDs (tests and files without y-maps). */
    public void setRows(int[] lines, String[] labels) {
        rowLines = lines;
        rowLabels = labels;
        int lo = Integer.MAX_VALUE, hi = Integer.MIN_VALUE;
        for (int l : lines) {
            lo = Math.min(lo, l);
            hi = Math.max(hi, l);
        }
        if (lines.length > 0 && (long) hi - lo < 1_000_000) {
            lineBase = lo;
            lineRow = new int[hi - lo + 1];
            Arrays.fill(lineRow, -1);
            for (int r = 0; r < lines.length; r++) {
                lineRow[lines[r] - lo] = r;
            }
            lineRowMap = null;
        } else {
            lineBase = 0;
            lineRow = new int[0];
            lineRowMap = new HashMap<>();
            for (int r = 0; r < lines.length; r++) {
                lineRowMap.put(lines[r], r);
            }
        }
    }

    /** Grow the rows to include line IDs seen in the data but missing from the map. */
    public void addLines(int[] lines) {
        int[] missing = Arrays.stream(lines).filter(l -> rowOf(l) < 0).distinct().sorted().toArray();
        if (missing.length == 0) {
            return;
        }
        int n = rowLines.length;
        int[] nl = Arrays.copyOf(rowLines, n + missing.length);
        String[] lb = Arrays.copyOf(rowLabels, n + missing.length);
        for (int i = 0; i < missing.length; i++) {
            nl[n + i] = missing[i];
            lb[n + i] = Integer.toString(missing[i]);
        }
        setRows(nl, lb);
    }

    public int rows() {
        return rowLines.length;
    }

    public String rowLabel(int r) {
        return rowLabels[r];
    }

    public int rowLine(int r) {
        return rowLines[r];
    }

    /** Row of line ID {@code line}, or -1 when the map does not list it. */
    public int rowOf(int line) {
        if (lineRowMap != null) {
            Integer r = lineRowMap.get(line);
            return r == null ? -1 : r;
        }
        int k = line - lineBase;
        return k >= 0 && k < lineRow.length ? lineRow[k] : -1;
    }

    /**
     * The preview depth for a window of {@code span} seconds, as Jumpshot-4
     * picks it: at full view it reads the top {@link #INIT_LEVELS_READ}
     * levels, and each zoom by the tree's fan-out (2, slog2's default
     * {@code -nc}) reads one level deeper ({@code TreeTrunk.zoomTimeWindowTo}).
     * Depth 0 is full detail.
     */
    public int depthFor(double span) {
        double full = tMax - tMin;
        int zoom = span >= full ? 0 : (int) Math.round(Math.log(full / span) / Math.log(2));
        int d = rootDepth - INIT_LEVELS_READ + 1 - zoom;
        return Math.max(0, Math.min(rootDepth, d));
    }
}
