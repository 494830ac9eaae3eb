package slog2.view;

import java.io.IOException;
import slog2.api.Category;
import slog2.api.Drawables;

/**
 * One query's answer for a time window, with what drawing needs derived
 * once: each row's y-axis row and, for states, its nesting level on that
 * row (0 outermost), computed as Jumpshot's NestingStacks do.
 */
public final class Frame {
    public final double t0, t1;
    public final int depth;
    public final Drawables d;
    /** Y-axis row of the first / last vertex of each drawable row (-1: not on the axis). */
    public final int[] row0, row1;
    /** Nesting level of state rows (0 for everything else). */
    public final int[] nest;
    /** Topology of each drawable row (Category.EVENT/STATE/ARROW), -1 unknown. */
    public final byte[] topo;
    /** Category slot of each row (shadows: their preview category's slot; -1 unknown). */
    public final int[] slot;
    /** Nanoseconds spent in the native query. */
    public final long queryNanos;

    private Frame(double t0, double t1, int depth, Drawables d, Model m, long queryNanos) {
        this.t0 = t0;
        this.t1 = t1;
        this.depth = depth;
        this.d = d;
        this.queryNanos = queryNanos;
        int n = d.n;
        row0 = new int[n];
        row1 = new int[n];
        nest = new int[n];
        topo = new byte[n];
        slot = new int[n];
        int rows = m.rows();
        double[][] stacks = new double[rows][];
        int[] sizes = new int[rows];
        for (int i = 0; i < n; i++) {
            row0[i] = m.rowOf(d.line0[i]);
            row1[i] = m.rowOf(d.line1[i]);
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
            if (t == Category.STATE && d.kind[i] == Drawables.KIND_PRIMITIVE && row0[i] >= 0) {
                int r = row0[i];
                double[] st = stacks[r];
                if (st == null) {
                    st = stacks[r] = new double[8];
                }
                int sz = sizes[r];
                double s0 = d.start[i];
                while (sz > 0 && st[sz - 1] <= s0) {
                    sz--;
                }
                nest[i] = sz;
                if (sz == st.length) {
                    st = stacks[r] = java.util.Arrays.copyOf(st, sz * 2);
                }
                st[sz++] = d.end[i];
                sizes[r] = sz;
            }
        }
    }

    /** Query {@code [t0, t1]} at the depth the model picks for its span. */
    public static Frame load(Model m, double t0, double t1) throws IOException {
        return load(m, t0, t1, m.depthFor(t1 - t0));
    }

    public static Frame load(Model m, double t0, double t1, int depth) throws IOException {
        long q0 = System.nanoTime();
        Drawables d = depth <= 0 ? m.source.window(t0, t1) : m.source.preview(t0, t1, depth);
        long q = System.nanoTime() - q0;
        return new Frame(t0, t1, depth, d, m, q);
    }

    /** Wrap an existing answer (tests). */
    public static Frame of(Model m, double t0, double t1, int depth, Drawables d) {
        return new Frame(t0, t1, depth, d, m, 0);
    }
}
