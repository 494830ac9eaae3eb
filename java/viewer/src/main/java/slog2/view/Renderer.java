package slog2.view;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.util.Arrays;
import slog2.api.Category;
import slog2.api.Drawables;

/**
 * Draws a {@link Frame} the way Jumpshot-4's timeline window does
 * ({@code CanvasTimeline.drawOneOffImage}): black canvas, one row per y-axis
 * row with its label on the left (the y-map's tree, indented, with a
 * +/&minus; handle on nodes that open), then, in Jumpshot's order, the real
 * states (nested ones lower and thinner), the state shadows of a preview
 * (nested like states, so a shadow inside an enclosing state is drawn inside
 * it, on top), composites outlined, and last arrows and events (real and
 * summarised). States are filled boxes in their category colour; a shadow is
 * a box of per-category bars stacked by exclusive ratio and centred
 * (Jumpshot's default "cumulative exclusion ratio" display); arrows go from
 * the first vertex to the last with the head at the last (receive) end,
 * events are a line with a triangle; a time ruler runs along the bottom and,
 * on request, a legend along the right.
 *
 * <p><b>Culling.</b> Off-screen drawables are skipped by their time box. On
 * each row and nesting level, a state whose pixel span lies inside the span
 * of the state last drawn there is not drawn (Jumpshot's DrawnBox rule), so a
 * pixel column gets at most a few fills per row however many states fall
 * into it; arrows and events are culled the same way per pixel.
 */
public final class Renderer {
    public static final int LABEL_W = 130;
    public static final int RULER_H = 26;
    static final float STATE_HEIGHT = 0.90f, NESTING = 0.80f;
    static final int ARROW_LEN = 12, ARROW_W = 10, EVENT_W = 8;
    static final Color BACKGROUND = Color.BLACK;
    static final Color GUTTER = new Color(0x30, 0x30, 0x30);
    static final Color TEXT = new Color(0xe0, 0xe0, 0xe0);
    static final Color SHADOW_BORDER = new Color(0xb0, 0xb0, 0xb0);
    static final Color HIGHLIGHT = Color.WHITE;
    static final Color HEADER_ROW = new Color(0x14, 0x14, 0x1c);
    /** Jumpshot's PREVIEW_STATE_BORDER_W: a shadow's bars are inset this much on each side. */
    static final int SHADOW_INSET = 3;
    static final int MAX_LEVELS = 64;

    /** Pixel geometry of one picture: where times and rows land. */
    public static final class Layout {
        public final int width, height, left, top, right, bottom;
        public final double t0, t1;
        public final int rows;
        public final double rowH;

        public Layout(int width, int height, double t0, double t1, int rows) {
            this(width, height, t0, t1, rows, 0);
        }

        /** A layout leaving {@code rightMargin} pixels on the right (for a legend). */
        public Layout(int width, int height, double t0, double t1, int rows, int rightMargin) {
            this.width = width;
            this.height = height;
            this.left = LABEL_W;
            this.top = 0;
            this.right = Math.max(LABEL_W + 10, width - rightMargin);
            this.bottom = Math.max(1, height - RULER_H);
            this.t0 = t0;
            this.t1 = t1;
            this.rows = Math.max(1, rows);
            this.rowH = (double) (bottom - top) / this.rows;
        }

        public double xOfExact(double t) {
            return left + (t - t0) / (t1 - t0) * (right - left);
        }

        /** Pixel column of time {@code t}, clamped a little outside the canvas. */
        public int xOf(double t) {
            double x = Math.floor(xOfExact(t));
            return (int) Math.max(left - 20, Math.min(right + 20, x));
        }

        public double timeOf(int x) {
            return t0 + (x - left) * (t1 - t0) / (right - left);
        }

        public int rowTop(int r) {
            return top + (int) Math.round(r * rowH);
        }

        public int rowCenter(int r) {
            return top + (int) Math.round((r + 0.5) * rowH);
        }

        /** Row under pixel {@code y}, or -1. */
        public int rowAt(int y) {
            if (y < top || y >= bottom) {
                return -1;
            }
            int r = (int) ((y - top) / rowH);
            return r < rows ? r : -1;
        }

        /** Top and height of a state box at nesting {@code level} on row {@code r}. */
        public int[] stateBox(int r, int level) {
            double h = rowH * STATE_HEIGHT * Math.pow(NESTING, level);
            double c = top + (r + 0.5) * rowH;
            int y0 = (int) Math.round(c - h / 2);
            int hh = Math.max(1, (int) Math.round(h));
            return new int[] {y0, hh};
        }
    }

    private Renderer() {
    }

    /** Render a frame into a new RGB image of the given size. */
    public static BufferedImage image(Model m, Frame f, int width, int height, int highlight) {
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        paint(new G2Painter(g), m, f, new Layout(width, height, f.t0, f.t1, m.rows()), highlight);
        g.dispose();
        return img;
    }

    /** Width of the legend of {@code --render --legend}. */
    public static final int LEGEND_W = 190;

    /** The layout of a picture, with room for a legend on the right when asked. */
    public static Layout layout(int width, int height, double t0, double t1, int rows, boolean legend) {
        return new Layout(width, height, t0, t1, rows, legend ? Math.min(LEGEND_W, width / 3) : 0);
    }

    /** Paint everything, and a legend of the categories right of the canvas when asked. */
    public static void paint(Painter p, Model m, Frame f, Layout l, int highlight, boolean legend) {
        paint(p, m, f, l, highlight);
        if (legend) {
            drawLegend(p, m, l);
        }
    }

    /**
     * The categories of the file (preview categories left out) with their
     * colour and shape, states first, then arrows, then events, each by name
     * (Jumpshot's legend order), in the strip right of the canvas.
     */
    private static void drawLegend(Painter p, Model m, Layout l) {
        p.color(GUTTER);
        p.fillRect(l.right, 0, l.width - l.right, l.height);
        Integer[] order = new Integer[m.categories.length];
        for (int k = 0; k < order.length; k++) {
            order[k] = k;
        }
        int[] rank = {2, 0, 1}; // EVENT, STATE, ARROW -> states, arrows, events
        Arrays.sort(order, (a, b) -> {
            Category x = m.categories[a], y = m.categories[b];
            int c = Integer.compare(rank[Math.max(0, Math.min(2, x.topology))], rank[Math.max(0, Math.min(2, y.topology))]);
            return c != 0 ? c : x.name.compareTo(y.name);
        });
        int x = l.right + 8, y = 8, line = 16;
        p.color(TEXT);
        p.text("Legend", x, y + 11);
        y += line + 4;
        int left = 0;
        for (int k : order) {
            Category c = m.categories[k];
            if (c.index < 0 || !m.visible[k]) {
                continue;
            }
            if (y + line > l.height - line) {
                left++;
                continue;
            }
            p.color(m.colour[k]);
            if (c.topology == Category.STATE) {
                p.fillRect(x, y + 2, 22, 10);
            } else if (c.topology == Category.ARROW) {
                p.fillRect(x, y + 6, 16, 2);
                p.fillPolygon(new int[] {x + 14, x + 22, x + 14}, new int[] {y + 3, y + 7, y + 11}, 3);
            } else {
                p.fillRect(x + 10, y + 4, 2, 10);
                p.fillPolygon(new int[] {x + 6, x + 16, x + 11}, new int[] {y + 1, y + 1, y + 6}, 3);
            }
            p.color(TEXT);
            String s = c.name;
            while (s.length() > 1 && p.textWidth(s) > l.width - x - 34) {
                s = s.substring(0, s.length() - 1);
            }
            p.text(s, x + 28, y + 11);
            y += line;
        }
        if (left > 0) {
            p.color(TEXT);
            p.text("… " + left + " more", x, y + 11);
        }
    }

    /** Paint everything: canvas, drawables, labels, ruler. */
    public static void paint(Painter p, Model m, Frame f, Layout l, int highlight) {
        p.color(BACKGROUND);
        p.fillRect(0, 0, l.width, l.height);
        p.clip(l.left, l.top, l.right - l.left, l.bottom - l.top);
        // faint row separators, as Jumpshot's time lines; an expanded node's row (a
        // header: its lines have rows of their own below it) is shaded
        YTree tree = f != null ? f.tree : m.tree();
        for (int r = 0; r < l.rows && r < tree.rows(); r++) {
            if (tree.expanded(r)) {
                p.color(HEADER_ROW);
                p.fillRect(l.left, l.rowTop(r), l.right - l.left, l.rowTop(r + 1) - l.rowTop(r));
            }
        }
        p.color(new Color(0x20, 0x20, 0x20));
        for (int r = 1; r < l.rows; r++) {
            p.fillRect(l.left, l.rowTop(r), l.right - l.left, 1);
        }
        if (f != null) {
            drawStates(p, m, f, l);
            drawShadowStates(p, m, f, l);
            drawComposites(p, m, f, l);
            drawArrowsAndEvents(p, m, f, l);
            if (highlight >= 0 && highlight < f.d.n) {
                drawHighlight(p, f, l, highlight);
            }
        }
        p.unclip();
        drawLabels(p, f != null ? f.tree : m.tree(), l);
        drawRuler(p, l);
    }

    private static boolean visible(Model m, Frame f, int i, Layout l) {
        Drawables d = f.d;
        if (d.end[i] < l.t0 || d.start[i] > l.t1) {
            return false;
        }
        int s = f.slot[i];
        return s < 0 || m.visible[s];
    }

    private static void drawStates(Painter p, Model m, Frame f, Layout l) {
        Drawables d = f.d;
        int rows = l.rows;
        int[] lastX0 = new int[rows * 4];
        int[] lastX1 = new int[rows * 4];
        Arrays.fill(lastX0, Integer.MAX_VALUE);
        Arrays.fill(lastX1, Integer.MIN_VALUE);
        int[][] boxes = new int[MAX_LEVELS][];
        for (int i = 0; i < d.n; i++) {
            if (f.topo[i] != Category.STATE || d.kind[i] != Drawables.KIND_PRIMITIVE) {
                continue;
            }
            int r = f.row0[i];
            if (r < 0 || r >= rows || !visible(m, f, i, l)) {
                continue;
            }
            int x0 = l.xOf(d.start[i]);
            int x1 = l.xOf(d.end[i]);
            int lv = Math.min(f.nest[i], MAX_LEVELS - 1);
            if (lv < 4) {
                int k = r * 4 + lv;
                if (x0 >= lastX0[k] && x1 <= lastX1[k]) {
                    continue; // inside the pixels of the last state drawn here
                }
                lastX0[k] = x0;
                lastX1[k] = x1;
            }
            int[] box = boxes[lv];
            if (box == null) {
                box = boxes[lv] = l.stateBox(0, lv);
            }
            int y0 = box[0] + l.rowTop(r) - l.top;
            int hh = box[1];
            int w = Math.max(1, x1 - x0 + 1);
            p.color(m.colour[f.slot[i]]);
            p.fillRect(x0, y0, w, hh);
            if (w >= 6 && hh >= 6) {
                // raised border, as Jumpshot's STATE_BORDER default
                Color c = m.colour[f.slot[i]];
                p.color(c.brighter());
                p.fillRect(x0, y0, w, 1);
                p.fillRect(x0, y0, 1, hh);
                p.color(c.darker());
                p.fillRect(x0, y0 + hh - 1, w, 1);
                p.fillRect(x0 + w - 1, y0, 1, hh);
            }
        }
    }

    /** Start index in the weight columns of each shadow row. */
    private static int[] weightStarts(Drawables d) {
        int[] ws = new int[d.n + 1];
        Arrays.fill(ws, -1);
        int[] wr = d.weights.row;
        for (int k = wr.length - 1; k >= 0; k--) {
            if (wr[k] >= 0 && wr[k] < d.n) {
                ws[wr[k]] = k;
            }
        }
        return ws;
    }

    private static void drawShadowStates(Painter p, Model m, Frame f, Layout l) {
        Drawables d = f.d;
        if (d.weights == null || d.weights.size() == 0) {
            return;
        }
        int[] ws = weightStarts(d);
        int[] wr = d.weights.row;
        int[] idx = new int[64];
        int rows = l.rows;
        int[] lastX0 = new int[rows], lastX1 = new int[rows];
        Arrays.fill(lastX0, Integer.MAX_VALUE);
        Arrays.fill(lastX1, Integer.MIN_VALUE);
        for (int i = 0; i < d.n; i++) {
            if (d.kind[i] != Drawables.KIND_SHADOW || f.topo[i] != Category.STATE) {
                continue;
            }
            int r = f.row0[i];
            if (r < 0 || r >= l.rows || !visible(m, f, i, l) || ws[i] < 0) {
                continue;
            }
            int x0 = l.xOf(d.start[i]);
            int x1 = l.xOf(d.end[i]);
            // Jumpshot's DrawnBox rule for shadows: one per row and pixel span
            if (x0 >= lastX0[r] && x1 <= lastX1[r]) {
                continue;
            }
            lastX0[r] = x0;
            lastX1[r] = x1;
            if (x1 - x0 > 2 * SHADOW_INSET + 1) {
                x0 += SHADOW_INSET;
                x1 -= SHADOW_INSET;
            }
            int w = Math.max(1, x1 - x0 + 1);
            // nested as a state: inside the state (or shadow) that covers it
            int[] box = l.stateBox(r, Math.min(f.nest[i], MAX_LEVELS - 1));
            int y0 = box[0], hh = box[1];
            // this shadow's entries, sorted by exclusive ratio, largest at the bottom
            int n = 0;
            for (int k = ws[i]; k < wr.length && wr[k] == i; k++) {
                if (n == idx.length) {
                    idx = Arrays.copyOf(idx, n * 2);
                }
                idx[n++] = k;
            }
            sortByExcl(idx, n, d.weights.excl);
            int[] hs = new int[n];
            int total = 0;
            for (int j = 0; j < n; j++) {
                int k = idx[j];
                int s = m.slot(d.weights.category[k]);
                if (s < 0 || !m.visible[s]) {
                    continue;
                }
                float ratio = Math.max(0f, Math.min(1f, d.weights.excl[k]));
                int h = Math.min(Math.round(hh * ratio), hh - total);
                hs[j] = Math.max(0, h);
                total += hs[j];
            }
            // Jumpshot's CUMULATIVE_EXCLUSION: the stack is centred in the box
            int bottom = y0 + hh - (hh - total) / 2;
            for (int j = 0; j < n; j++) {
                if (hs[j] <= 0) {
                    continue;
                }
                p.color(m.colour[m.slot(d.weights.category[idx[j]])]);
                p.fillRect(x0, bottom - hs[j], w, hs[j]);
                bottom -= hs[j];
            }
            if (total > 0 && w >= 3) {
                p.color(SHADOW_BORDER);
                p.fillRect(x0, y0, 1, hh);
                p.fillRect(x0 + w - 1, y0, 1, hh);
            }
        }
    }

    private static void sortByExcl(int[] idx, int n, float[] excl) {
        for (int a = 1; a < n; a++) {
            int v = idx[a];
            int b = a - 1;
            while (b >= 0 && excl[idx[b]] < excl[v]) {
                idx[b + 1] = idx[b];
                b--;
            }
            idx[b + 1] = v;
        }
    }

    /** Slot of the category with the largest count in shadow {@code i}'s weights, or -1. */
    private static int dominant(Model m, Drawables d, int[] ws, int i) {
        int best = -1;
        long bc = -1;
        for (int k = ws[i]; k >= 0 && k < d.weights.row.length && d.weights.row[k] == i; k++) {
            int s = m.slot(d.weights.category[k]);
            if (s >= 0 && m.visible[s] && d.weights.count[k] > bc) {
                bc = d.weights.count[k];
                best = s;
            }
        }
        return best;
    }

    private static void drawComposites(Painter p, Model m, Frame f, Layout l) {
        Drawables d = f.d;
        for (int i = 0; i < d.n; i++) {
            if (d.kind[i] != Drawables.KIND_COMPOSITE || !visible(m, f, i, l)) {
                continue;
            }
            int rmin = Integer.MAX_VALUE, rmax = -1;
            for (int j = i + 1; j < d.n && d.parent[j] == i; j++) {
                for (int r : new int[] {f.row0[j], f.row1[j]}) {
                    if (r >= 0) {
                        rmin = Math.min(rmin, r);
                        rmax = Math.max(rmax, r);
                    }
                }
            }
            if (rmax < 0) {
                continue;
            }
            int x0 = l.xOf(d.start[i]);
            int x1 = l.xOf(d.end[i]);
            int y0 = l.rowTop(rmin) + 1;
            int y1 = l.rowTop(rmax + 1) - 2;
            p.color(f.slot[i] >= 0 ? m.colour[f.slot[i]] : Color.GRAY);
            p.line(x0, y0, x1, y0, 1f);
            p.line(x0, y1, x1, y1, 1f);
            p.line(x0, y0, x0, y1, 1f);
            p.line(x1, y0, x1, y1, 1f);
        }
    }

    private static void drawArrowsAndEvents(Painter p, Model m, Frame f, Layout l) {
        Drawables d = f.d;
        int[] ws = null;
        int[] hx = new int[3], hy = new int[3];
        int rows = l.rows;
        LongSet drawnArrows = new LongSet(1024);
        int[] lastEvent = new int[rows];
        Arrays.fill(lastEvent, Integer.MIN_VALUE);
        // many arrows on screen: draw them one pixel wide (Jumpshot's widths are for close-ups)
        int arrows = 0;
        for (int i = 0; i < d.n; i++) {
            if (f.topo[i] == Category.ARROW) {
                arrows++;
            }
        }
        boolean thin = arrows > 1000;
        for (int i = 0; i < d.n; i++) {
            byte t = f.topo[i];
            if ((t != Category.ARROW && t != Category.EVENT) || d.kind[i] == Drawables.KIND_COMPOSITE) {
                continue;
            }
            int r0 = f.row0[i], r1 = f.row1[i];
            if (r0 < 0 || r1 < 0 || r0 >= rows || r1 >= rows || !visible(m, f, i, l)) {
                continue;
            }
            Color c;
            float width;
            boolean shadow = d.kind[i] == Drawables.KIND_SHADOW;
            if (shadow) {
                if (ws == null) {
                    ws = weightStarts(d);
                }
                // Jumpshot draws arrow and event summaries in the preview category's colour;
                // without one, the colour of the category with the most drawables
                int s = f.slot[i] >= 0 ? f.slot[i] : dominant(m, d, ws, i);
                if (s < 0) {
                    continue;
                }
                c = m.colour[s];
                // Jumpshot: preview arrow width grows with log base 5 of the count (capped here at 3 px so
                // that arrow summaries do not hide the state shadows under them)
                width = Math.min(3f, 1f + (float) (Math.log(Math.max(1, d.numReal[i])) / Math.log(5)) / 2);
            } else {
                c = m.colour[f.slot[i]];
                width = Math.max(1, Math.min(5, m.categories[f.slot[i]].width));
            }
            int x0 = l.xOf(d.time0[i]);
            int x1 = l.xOf(d.time1[i]);
            int y0 = l.rowCenter(r0);
            int y1 = l.rowCenter(r1);
            if (t == Category.EVENT) {
                if (lastEvent[r0] == x0) {
                    continue;
                }
                lastEvent[r0] = x0;
                int top = l.rowTop(r0) + 2;
                p.color(c);
                p.line(x0, y0, x0, top + 4, width);
                hx[0] = x0 - EVENT_W / 2;
                hx[1] = x0 + EVENT_W / 2;
                hx[2] = x0;
                hy[0] = top;
                hy[1] = top;
                hy[2] = top + EVENT_W / 2;
                p.fillPolygon(hx, hy, 3);
                continue;
            }
            // an arrow whose ends fall in the same 2-pixel cells of the same rows as one
            // already drawn adds nothing visible
            // (4-pixel cells when more than 1000 arrows are on screen)
            int cell = thin ? 2 : 1;
            long key = (((long) (x0 >> cell) & 0xffffL) << 48) | (((long) r0 & 0xffffL) << 32)
                    | (((long) (x1 >> cell) & 0xffffL) << 16) | ((long) r1 & 0xffffL);
            if (!drawnArrows.add(key)) {
                continue;
            }
            p.color(c);
            p.line(x0, y0, x1, y1, thin ? 1f : width);
            arrowHead(x0, y0, x1, y1, hx, hy);
            if (thin) {
                // crowded: the head as two strokes (a polygon fill costs several times more)
                p.line(hx[0], hy[0], hx[1], hy[1], 1f);
                p.line(hx[0], hy[0], hx[2], hy[2], 1f);
            } else {
                p.fillPolygon(hx, hy, 3);
            }
        }
    }

    /** A set of longs (open addressing, no boxing) for the arrow cull. */
    static final class LongSet {
        private long[] keys;
        private boolean[] used;
        private int size;

        LongSet(int cap) {
            keys = new long[cap];
            used = new boolean[cap];
        }

        /** Add {@code k}; false if it was there. */
        boolean add(long k) {
            if (size * 2 >= keys.length) {
                long[] ok = keys;
                boolean[] ou = used;
                keys = new long[ok.length * 2];
                used = new boolean[ok.length * 2];
                size = 0;
                for (int i = 0; i < ok.length; i++) {
                    if (ou[i]) {
                        add(ok[i]);
                    }
                }
            }
            int mask = keys.length - 1;
            int h = (int) ((k * 0x9E3779B97F4A7C15L) >>> 40) & mask;
            while (used[h]) {
                if (keys[h] == k) {
                    return false;
                }
                h = (h + 1) & mask;
            }
            used[h] = true;
            keys[h] = k;
            size++;
            return true;
        }
    }

    /** Triangle of the head at (x1, y1), pointing away from (x0, y0). */
    static void arrowHead(int x0, int y0, int x1, int y1, int[] hx, int[] hy) {
        double dx = x1 - x0, dy = y1 - y0;
        double len = Math.hypot(dx, dy);
        if (len < 1e-9) {
            dx = 0;
            dy = -1; // a zero-length arrow points up, as in Jumpshot
            len = 1;
        }
        double ux = dx / len, uy = dy / len;
        double bx = x1 - ux * ARROW_LEN, by = y1 - uy * ARROW_LEN;
        double px = -uy * ARROW_W / 2.0, py = ux * ARROW_W / 2.0;
        hx[0] = x1;
        hy[0] = y1;
        hx[1] = (int) Math.round(bx + px);
        hy[1] = (int) Math.round(by + py);
        hx[2] = (int) Math.round(bx - px);
        hy[2] = (int) Math.round(by - py);
    }

    private static void drawHighlight(Painter p, Frame f, Layout l, int i) {
        Drawables d = f.d;
        p.color(HIGHLIGHT);
        int x0 = l.xOf(d.start[i]) - 2, x1 = l.xOf(d.end[i]) + 2;
        int ra = Math.max(0, Math.min(f.row0[i], f.row1[i]));
        int rb = Math.max(f.row0[i], f.row1[i]);
        int y0 = l.rowTop(ra), y1 = l.rowTop(rb + 1) - 1;
        p.line(x0, y0, x1, y0, 2f);
        p.line(x0, y1, x1, y1, 2f);
        p.line(x0, y0, x0, y1, 2f);
        p.line(x1, y0, x1, y1, 2f);
    }

    /** Width of one indentation step of the y-axis tree. */
    static final int INDENT = 10;

    private static void drawLabels(Painter p, YTree tree, Layout l) {
        p.color(GUTTER);
        p.fillRect(0, 0, l.left, l.bottom);
        p.color(TEXT);
        int stride = Math.max(1, (int) Math.ceil(12 / Math.max(0.01, l.rowH)));
        for (int r = 0; r < tree.rows(); r += stride) {
            int x = 4 + tree.depth(r) * INDENT;
            int yc = l.rowCenter(r);
            if (tree.expandable(r)) {
                // Jumpshot's tree handle: a box with minus (open) or plus (closed)
                p.fillRect(x, yc - 4, 7, 1);
                p.fillRect(x, yc + 2, 7, 1);
                p.fillRect(x, yc - 4, 1, 7);
                p.fillRect(x + 6, yc - 4, 1, 7);
                p.fillRect(x + 2, yc - 1, 3, 1);
                if (!tree.expanded(r)) {
                    p.fillRect(x + 3, yc - 2, 1, 3);
                }
            }
            x += 10;
            String s = tree.label(r);
            while (s.length() > 1 && p.textWidth(s) > l.left - x - 2) {
                s = s.substring(0, s.length() - 1);
            }
            p.text(s, x, yc + 4);
        }
    }

    /** The row whose tree handle (or label) is at gutter pixel (x, y), or -1. */
    static int labelRowAt(YTree tree, Layout l, int x, int y) {
        if (x < 0 || x >= l.left) {
            return -1;
        }
        int r = l.rowAt(y);
        return r >= 0 && r < tree.rows() ? r : -1;
    }

    /** Tick step: 1, 2 or 5 times a power of ten, about {@code px} pixels apart. */
    static double tickStep(double span, int pixels, int px) {
        double raw = span * px / Math.max(1, pixels);
        double e = Math.pow(10, Math.floor(Math.log10(raw)));
        double f = raw / e;
        return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * e;
    }

    static String tickLabel(double t, double step) {
        int decimals = (int) Math.max(0, Math.ceil(-Math.log10(step) - 1e-9));
        return String.format(java.util.Locale.ROOT, "%." + Math.min(12, decimals) + "f", t);
    }

    private static void drawRuler(Painter p, Layout l) {
        p.color(GUTTER);
        p.fillRect(0, l.bottom, l.width, l.height - l.bottom);
        double span = l.t1 - l.t0;
        if (!(span > 0)) {
            return;
        }
        double step = tickStep(span, l.right - l.left, 100);
        p.color(TEXT);
        double first = Math.ceil(l.t0 / step) * step;
        for (int k = 0; k < 1000; k++) {
            double t = first + k * step;
            if (t > l.t1) {
                break;
            }
            int x = (int) Math.floor(l.xOfExact(t));
            p.fillRect(x, l.bottom, 1, 6);
            String s = tickLabel(t, step);
            int w = p.textWidth(s);
            p.text(s, Math.max(l.left, Math.min(l.right - w, x - w / 2)), l.bottom + 18);
        }
    }

    /**
     * The drawable row under pixel (x, y) as drawn: arrows and events first
     * (they are on top), then the innermost state, then a shadow; -1 if none.
     */
    public static int hit(Model m, Frame f, Layout l, int x, int y) {
        Drawables d = f.d;
        int best = -1;
        double bestDist = 4;
        for (int i = d.n - 1; i >= 0; i--) {
            byte t = f.topo[i];
            if ((t != Category.ARROW && t != Category.EVENT) || d.kind[i] == Drawables.KIND_COMPOSITE
                    || !visible(m, f, i, l) || f.row0[i] < 0 || f.row1[i] < 0) {
                continue;
            }
            double x0 = l.xOf(d.time0[i]), y0 = l.rowCenter(f.row0[i]);
            double x1 = l.xOf(d.time1[i]), y1 = t == Category.EVENT ? l.rowTop(f.row0[i]) : l.rowCenter(f.row1[i]);
            double dist = segDist(x, y, x0, y0, x1, y1);
            if (dist < bestDist) {
                bestDist = dist;
                best = i;
            }
        }
        if (best >= 0) {
            return best;
        }
        int r = l.rowAt(y);
        if (r < 0) {
            return -1;
        }
        int bestLevel = -1;
        for (int i = 0; i < d.n; i++) {
            if (f.topo[i] != Category.STATE || f.row0[i] != r || !visible(m, f, i, l)) {
                continue;
            }
            int x0 = l.xOf(d.start[i]), x1 = l.xOf(d.end[i]);
            if (x < x0 || x > Math.max(x0, x1)) {
                continue;
            }
            int lv = d.kind[i] == Drawables.KIND_SHADOW ? -1 : f.nest[i];
            int[] box = l.stateBox(r, Math.max(0, lv));
            if (y < box[0] || y >= box[0] + box[1]) {
                continue;
            }
            if (lv > bestLevel || best < 0) {
                best = i;
                bestLevel = lv;
            }
        }
        return best;
    }

    static double segDist(double px, double py, double x0, double y0, double x1, double y1) {
        double dx = x1 - x0, dy = y1 - y0;
        double len2 = dx * dx + dy * dy;
        double u = len2 == 0 ? 0 : Math.max(0, Math.min(1, ((px - x0) * dx + (py - y0) * dy) / len2));
        return Math.hypot(px - (x0 + u * dx), py - (y0 + u * dy));
    }
}
