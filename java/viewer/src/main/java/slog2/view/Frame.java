package slog2.view;

import java.io.IOException;
import slog2.api.Category;
import slog2.api.Drawables;

/**
 * One query's answer for a time window, with what drawing needs derived
 * once: each row's y-axis row (from the {@link YTree} current when the frame
 * was made, kept in {@link #tree}) and, for states and state shadows, their
 * nesting level on that row (0 outermost), computed as Jumpshot-4's
 * {@code NestingStacks} do: real states and state shadows together, in
 * increasing start time, each nested one level below the nearest state or
 * shadow on its row that <em>covers</em> its time box (others are popped),
 * so a preview's shadows inside an enclosing state (an MPE trace's
 * {@code Main}) sit inside it, one level down, instead of under it.
 */
public final class Frame {
    public final double t0, t1;
    public final int depth;
    public final Drawables d;
    /** The y-axis rows this frame was laid out on. */
    public final YTree tree;
    /** Y-axis row of the first / last vertex of each drawable row (-1: not on the axis). */
    public final int[] row0, row1;
    /** Nesting level of states and state shadows (0 for everything else). */
    public final int[] nest;
    /** Topology of each drawable row (Category.EVENT/STATE/ARROW), -1 unknown. */
    public final byte[] topo;
    /** Category slot of each row (shadows: their preview category's slot; -1 unknown). */
    public final int[] slot;
    /** Nanoseconds spent in the native query. */
    public final long queryNanos;
    /** The query went through the model's window cursor. */
    public final boolean viaCursor;

    private Frame(double t0, double t1, int depth, Drawables d, Model m, YTree tree, long queryNanos,
                  boolean viaCursor) {
        this.t0 = t0;
        this.t1 = t1;
        this.depth = depth;
        this.d = d;
        this.tree = tree;
        this.queryNanos = queryNanos;
        this.viaCursor = viaCursor;
        int n = d.n;
        row0 = new int[n];
        row1 = new int[n];
        nest = new int[n];
        topo = new byte[n];
        slot = new int[n];
        // the nestable rows, in three lists each in (start asc, end desc) order:
        // top-level real states (drawing order), composite members (sorted here), state shadows
        int[] real = new int[n], members = new int[n], shadows = new int[n];
        int nr = 0, nm = 0, ns = 0;
        for (int i = 0; i < n; i++) {
            row0[i] = tree.rowOf(d.line0[i]);
            row1[i] = tree.rowOf(d.line1[i]);
            int c = d.category[i];
            byte t;
            if (d.kind[i] == Drawables.KIND_SHADOW) {
                slot[i] = m.slot(c); // the preview category (-1, -2, -3) when the file lists it
                t = (byte) (c == -1 ? Category.EVENT : c == -2 ? Category.ARROW : Category.STATE);
            } else if (d.kind[i] == Drawables.KIND_COMPOSITE) {
                slot[i] = m.slot(c);
                t = -1;
            } else {
                int s = m.slot(c);
                slot[i] = s;
                t = s < 0 ? -1 : (byte) m.categories[s].topology;
            }
            topo[i] = t;
            if (t == Category.STATE && row0[i] >= 0) {
                if (d.kind[i] == Drawables.KIND_SHADOW) {
                    shadows[ns++] = i;
                } else if (d.parent[i] >= 0) {
                    members[nm++] = i;
                } else if (d.kind[i] == Drawables.KIND_PRIMITIVE) {
                    real[nr++] = i;
                }
            }
        }
        if (nm > 1) {
            Integer[] b = new Integer[nm];
            for (int k = 0; k < nm; k++) {
                b[k] = members[k];
            }
            java.util.Arrays.sort(b, (a, c) -> before(d, a, c) ? -1 : before(d, c, a) ? 1 : 0);
            for (int k = 0; k < nm; k++) {
                members[k] = b[k];
            }
        }
        // Jumpshot's nesting stacks, one per row, over the merged lists
        int rows = tree.rows();
        int[][] stacks = new int[rows][];
        int[] sizes = new int[rows];
        int a = 0, b = 0, c = 0;
        while (a < nr || b < nm || c < ns) {
            int i = -1;
            if (a < nr) {
                i = real[a];
            }
            if (b < nm && (i < 0 || before(d, members[b], i))) {
                i = members[b];
            }
            if (c < ns && (i < 0 || before(d, shadows[c], i))) {
                i = shadows[c];
            }
            if (a < nr && i == real[a]) {
                a++;
            } else if (b < nm && i == members[b]) {
                b++;
            } else {
                c++;
            }
            int r = row0[i];
            int[] st = stacks[r];
            if (st == null) {
                st = stacks[r] = new int[8];
            }
            int sz = sizes[r];
            while (sz > 0 && !covers(d, st[sz - 1], i)) {
                sz--;
            }
            nest[i] = sz == 0 ? 0 : nest[st[sz - 1]] + 1;
            if (sz == st.length) {
                st = stacks[r] = java.util.Arrays.copyOf(st, sz * 2);
            }
            st[sz++] = i;
            sizes[r] = sz;
        }
    }

    /** Row {@code i} comes before row {@code j} in the nesting order: start, then longer first, then real first. */
    private static boolean before(Drawables d, int i, int j) {
        if (d.start[i] != d.start[j]) {
            return d.start[i] < d.start[j];
        }
        if (d.end[i] != d.end[j]) {
            return d.end[i] > d.end[j];
        }
        return d.kind[i] != Drawables.KIND_SHADOW && d.kind[j] == Drawables.KIND_SHADOW;
    }

    /** Jumpshot's {@code TimeBoundingBox.covers}: the box of {@code outer} holds that of {@code inner}. */
    private static boolean covers(Drawables d, int outer, int inner) {
        return d.start[outer] <= d.start[inner] && d.end[inner] <= d.end[outer];
    }

    /** Query {@code [t0, t1]} at the depth the model picks for its span. */
    public static Frame load(Model m, double t0, double t1) throws IOException {
        return load(m, t0, t1, m.depthFor(t1 - t0));
    }

    /**
     * Query {@code [t0, t1]} at {@code depth}: a preview for depth &gt; 0, else
     * the full window through the model's window cursor (a pan decodes only
     * the drawables entering the screen; {@link Model#useCursor}).
     */
    public static Frame load(Model m, double t0, double t1, int depth) throws IOException {
        YTree tree = m.tree();
        long q0 = System.nanoTime();
        boolean cursor = depth <= 0 && m.useCursor;
        Drawables d = depth > 0 ? m.source.preview(t0, t1, depth) : cursor ? m.source.move(t0, t1)
                : m.source.window(t0, t1);
        long q = System.nanoTime() - q0;
        return new Frame(t0, t1, depth, d, m, tree, q, cursor);
    }

    /** Wrap an existing answer (tests). */
    public static Frame of(Model m, double t0, double t1, int depth, Drawables d) {
        return new Frame(t0, t1, depth, d, m, m.tree(), 0, false);
    }

    /** The same answer laid out on the model's current y-axis (after a node was opened or closed). */
    public Frame relayout(Model m) {
        return new Frame(t0, t1, depth, d, m, m.tree(), queryNanos, viaCursor);
    }
}
