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
 * topology, visibility and search flags), the y-axis from the chosen y-map
 * (a {@link YTree}: rows, merged lines, expansion), the file's time span and
 * tree depth, and the rule that picks the preview depth for a time window.
 *
 * <p>Category indices are sparse (e.g. 0, 1, 181); they are mapped to dense
 * slots once here so the drawing loop does array lookups only.
 */
public final class Model {
    /** Jumpshot's {@code INIT_SLOG2_LEVEL_READ}: levels read at full view. */
    public static final int INIT_LEVELS_READ = 4;

    public final Source source;
    /**
     * Full-detail windows go through the source's window cursor (default; the
     * system property {@code slog2view.cursor=false} turns it off, for the
     * frame benchmark's comparison).
     */
    public volatile boolean useCursor = !"false".equals(System.getProperty("slog2view.cursor"));
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
    private YTree tree;

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

    /**
     * Use y-map {@code i} for the rows: its tree ({@link YTree}), in
     * Jumpshot's initial state (root expanded, the first column's nodes
     * collapsed), then {@code expandLevels} more levels opened.
     */
    public synchronized void selectYMap(int i, int expandLevels) {
        yMapIndex = i;
        YTree t = new YTree(yMaps.length == 0 ? null : yMaps[Math.max(0, Math.min(i, yMaps.length - 1))]);
        t.expandLevels(expandLevels);
        tree = t;
    }

    public void selectYMap(int i) {
        selectYMap(i, 0);
    }

    /** The y-map titled {@code name} (or numbered {@code name}), or -1. */
    public int yMapNamed(String name) {
        for (int k = 0; k < yMaps.length; k++) {
            if (yMaps[k].title.equals(name)) {
                return k;
            }
        }
        try {
            int k = Integer.parseInt(name);
            return k >= 0 && k < yMaps.length ? k : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Rows for the given line IDs, one leaf each (tests and files without y-maps). */
    public synchronized void setRows(int[] lines, String[] labels) {
        tree = new YTree(lines, labels);
    }

    /** The y-axis tree (rows, labels, expansion). Replaced, never mutated, while frames use it. */
    public synchronized YTree tree() {
        return tree;
    }

    /** Open or close the node of row {@code r} (a new tree: frames keep the one they were made with). */
    public synchronized boolean toggleRow(int r) {
        YTree t = tree.copy();
        if (!t.toggle(r)) {
            return false;
        }
        tree = t;
        return true;
    }

    /** Jumpshot's expand (grow = true) or collapse of one tree level; false when nothing changed. */
    public synchronized boolean changeLevel(boolean grow) {
        YTree t = tree.copy();
        if (!(grow ? t.expandLevel() : t.collapseLevel())) {
            return false;
        }
        tree = t;
        return true;
    }

    public int rows() {
        return tree().rows();
    }

    public String rowLabel(int r) {
        return tree().label(r);
    }

    /** Row of line ID {@code line}, or -1 when the map does not list it. */
    public int rowOf(int line) {
        return tree().rowOf(line);
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
