package slog2.view;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Dimension;
import java.awt.Font;
import java.awt.Graphics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Shape;
import java.awt.event.MouseAdapter;
import java.awt.event.MouseEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.swing.JComponent;
import javax.swing.ToolTipManager;
import slog2.api.Overview;

/**
 * Draws an {@link OverviewStrip.View} as Ocelotl does, on the timeline's time
 * axis (the picture starts at {@link Renderer#LABEL_W} like the timeline's
 * drawables, so a part sits above the drawables it sums):
 *
 * <ul>
 * <li><b>temporal</b>: one stacked bar per part, as wide as its slices, each
 * category a layer whose height is the part's mean per slice of the lines'
 * sum (for durations: the mean number of lines in that state); parts are
 * separated by a one-pixel gap;
 * <li><b>spatiotemporal</b>: each part a rectangle over its hierarchy node's
 * rows (the lines in the hierarchy's picture order) and its slices, filled
 * with the colour of its mode; parts of nodes thinner than a pixel row are
 * drawn as their group ({@code Overview.rects}): striped when the group's
 * parts share one time partition, crossed otherwise.
 * </ul>
 *
 * Left of the picture, where the timeline has its row labels, the p-curve:
 * the normalised gain (green) and loss (red) of each distinct partition
 * against p (quadratic, as the slider, from 0 to half again past the
 * curve's last point), and the current p (yellow).
 */
final class OverviewCanvas extends JComponent {
    private static final long serialVersionUID = 1L;
    static final int HEIGHT = 110;
    static final Color GAIN = new Color(0x40, 0xd0, 0x40);
    static final Color LOSS = new Color(0xff, 0x50, 0x50);
    static final Color P_MARK = new Color(0xff, 0xe0, 0x40);
    static final Color CURVE_BG = new Color(0x18, 0x18, 0x18);
    /** A part whose values are all 0. */
    static final Color EMPTY = new Color(0x40, 0x40, 0x40);
    /** Width of the curve plot (the timeline's label column, less a gap). */
    static final int CURVE_W = Renderer.LABEL_W - 4;

    private final OverviewStrip strip;

    OverviewCanvas(OverviewStrip strip) {
        this.strip = strip;
        setPreferredSize(new Dimension(600, HEIGHT));
        setOpaque(true);
        ToolTipManager.sharedInstance().registerComponent(this);
        MouseAdapter ma = new MouseAdapter() {
            @Override
            public void mousePressed(MouseEvent e) {
                OverviewStrip.View v = strip.view();
                if (e.getX() < CURVE_W && v != null) {
                    strip.setP(pAt(v, e.getX()));
                }
            }

            @Override
            public void mouseDragged(MouseEvent e) {
                mousePressed(e);
            }

            @Override
            public void mouseClicked(MouseEvent e) {
                OverviewStrip.View v = strip.view();
                double[] r = rangeAt(v, getWidth(), getHeight(), e.getX(), e.getY());
                if (r != null) {
                    strip.zoomTo(r[0], r[1]);
                }
            }
        };
        addMouseListener(ma);
        addMouseMotionListener(ma);
    }

    /**
     * The largest p of the curve plot: past the curve's last point (where one
     * part appears) nothing changes, so the plot shows up to half as far
     * again, and at least the current p.
     */
    static double pMax(OverviewStrip.View v) {
        Overview.Curve c = v.ov.curve;
        double last = c.size() >= 2 ? c.p[c.size() - 1] : 1;
        return Math.min(1, Math.max(Math.max(last * 1.5, v.part.p * 1.1), 1e-3));
    }

    /** The p of column {@code x} of the curve plot (quadratic, as the slider, up to {@link #pMax}). */
    static double pAt(OverviewStrip.View v, int x) {
        double f = Math.max(0, Math.min(1, x / (double) (CURVE_W - 1)));
        return Math.min(1, f * f * pMax(v));
    }

    static int xOfP(OverviewStrip.View v, double p) {
        double f = Math.sqrt(Math.max(0, Math.min(1, p / pMax(v))));
        return (int) Math.round(f * (CURVE_W - 1));
    }

    /** The timeline's time axis over a picture {@code w} wide and {@code h} tall. */
    static Renderer.Layout layout(Overview ov, int w, int h) {
        return new Renderer.Layout(w, h + Renderer.RULER_H, ov.t0, ov.t1, 1);
    }

    static Color colour(Model m, int category) {
        int s = category < 0 ? -1 : m.slot(category);
        return s < 0 ? EMPTY : m.colour[s];
    }

    @Override
    protected void paintComponent(Graphics g) {
        Graphics2D g2 = (Graphics2D) g.create();
        paint(g2, strip.model(), strip.view(), strip.error(), getWidth(), getHeight());
        g2.dispose();
    }

    /** Draw {@code v} (or {@code message} while there is none) on a {@code w} x {@code h} canvas. */
    static void paint(Graphics2D g, Model m, OverviewStrip.View v, String message, int w, int h) {
        g.setColor(Renderer.BACKGROUND);
        g.fillRect(0, 0, w, h);
        g.setColor(CURVE_BG);
        g.fillRect(0, 0, CURVE_W, h);
        g.setFont(g.getFont().deriveFont(Font.PLAIN, 10f));
        if (v == null) {
            g.setColor(Renderer.TEXT);
            g.drawString(message != null ? message : "computing the overview…", Renderer.LABEL_W + 8, h / 2);
            return;
        }
        paintCurve(g, v, h);
        Shape clip = g.getClip();
        g.clipRect(Renderer.LABEL_W, 0, w - Renderer.LABEL_W, h);
        if (v.rects == null) {
            paintBars(g, m, v, w, h);
        } else {
            paintRects(g, m, v, w, h);
        }
        g.setClip(clip);
    }

    /** Per part, each category's layer height in the bar's unit (lines in state, or drawables). */
    static double[] layers(OverviewStrip.View v) {
        Overview ov = v.ov;
        int nc = ov.categories.length;
        double div = ov.metric == Overview.DURATION ? (ov.t1 - ov.t0) / ov.slices : 1;
        double[] out = new double[v.part.n * nc];
        for (int i = 0; i < out.length; i++) {
            out[i] = Math.max(0, v.part.values[i] / div);
        }
        return out;
    }

    private static void paintBars(Graphics2D g, Model m, OverviewStrip.View v, int w, int h) {
        Overview ov = v.ov;
        Overview.Partition p = v.part;
        int nc = ov.categories.length;
        double[] lay = layers(v);
        double max = 0;
        for (int k = 0; k < p.n; k++) {
            double s = 0;
            for (int c = 0; c < nc; c++) {
                s += lay[k * nc + c];
            }
            max = Math.max(max, s);
        }
        Renderer.Layout l = layout(ov, w, h);
        int top = 4;
        double scale = max > 0 ? (h - top) / max : 0;
        for (int k = 0; k < p.n; k++) {
            int x0 = l.xOf(ov.sliceStart(p.first[k]));
            int x1 = l.xOf(ov.sliceStart(p.last[k] + 1));
            int bw = Math.max(1, x1 - x0 - 1); // a one-pixel gap between parts
            double cum = 0;
            int yPrev = h;
            for (int c = 0; c < nc; c++) {
                cum += lay[k * nc + c];
                int y = (int) Math.round(h - cum * scale);
                if (y < yPrev) {
                    g.setColor(colour(m, ov.categories[c]));
                    g.fillRect(x0, y, bw, yPrev - y);
                    yPrev = y;
                }
            }
        }
    }

    private static void paintRects(Graphics2D g, Model m, OverviewStrip.View v, int w, int h) {
        Overview ov = v.ov;
        Overview.Hierarchy hi = ov.hierarchy;
        Overview.Rects r = v.rects;
        Renderer.Layout l = layout(ov, w, h);
        double rowH = h / (double) Math.max(1, hi.rowLine.length);
        Object aa = g.getRenderingHint(RenderingHints.KEY_ANTIALIASING);
        for (int k = 0; k < r.size(); k++) {
            int x0 = l.xOf(ov.sliceStart(r.first[k]));
            int x1 = l.xOf(ov.sliceStart(r.last[k] + 1));
            int y0 = (int) Math.round(hi.firstRow[r.node[k]] * rowH);
            int y1 = (int) Math.round((hi.firstRow[r.node[k]] + hi.lineCount(r.node[k])) * rowH);
            // One-pixel gaps between rectangles large enough to keep them.
            int rw = Math.max(1, x1 - x0 - gap(x1 - x0)), rh = Math.max(1, y1 - y0 - gap(y1 - y0));
            Color c = colour(m, r.mode[k]);
            g.setColor(c);
            g.fillRect(x0, y0, rw, rh);
            if (r.kind[k] == Overview.RECT_PLAIN) {
                continue;
            }
            Shape clip = g.getClip();
            g.clipRect(x0, y0, rw, rh);
            Color ink = contrast(c);
            g.setColor(new Color(ink.getRed(), ink.getGreen(), ink.getBlue(), 110));
            g.setStroke(new BasicStroke(1f));
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            if (r.kind[k] == Overview.RECT_STRIPED) {
                for (int d = -rh; d < rw; d += 6) {
                    g.drawLine(x0 + d, y0 + rh, x0 + d + rh, y0);
                }
            } else {
                g.drawLine(x0, y0, x0 + rw, y0 + rh);
                g.drawLine(x0, y0 + rh, x0 + rw, y0);
            }
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, aa);
            g.setClip(clip);
        }
    }

    /** The gap after a rectangle {@code size} pixels long: 1, or 0 when it is too small to spare one. */
    static int gap(int size) {
        return size >= 4 ? 1 : 0;
    }

    /** Black or white, whichever stands out on {@code c}. */
    static Color contrast(Color c) {
        double y = 0.299 * c.getRed() + 0.587 * c.getGreen() + 0.114 * c.getBlue();
        return y > 140 ? Color.BLACK : Color.WHITE;
    }

    private static void paintCurve(Graphics2D g, OverviewStrip.View v, int h) {
        Overview.Curve cv = v.ov.curve;
        int top = 4, bottom = h - 14;
        int n = cv.size();
        if (n >= 2) {
            double g1 = cv.gain[n - 1], l1 = cv.loss[n - 1];
            for (int which = 0; which < 2; which++) {
                double[] y = which == 0 ? cv.gain : cv.loss;
                double norm = which == 0 ? g1 : l1;
                g.setColor(which == 0 ? GAIN : LOSS);
                int px = -1, py = -1;
                for (int i = 0; i < n; i++) {
                    double f = norm > 0 ? y[i] / norm : 0;
                    int x = xOfP(v, cv.p[i]);
                    int yy = (int) Math.round(bottom - Math.max(0, Math.min(1, f)) * (bottom - top));
                    if (px >= 0) {
                        g.drawLine(px, py, x, py); // a partition holds until the next one
                        g.drawLine(x, py, x, yy);
                    }
                    px = x;
                    py = yy;
                }
                g.drawLine(px, py, CURVE_W - 1, py);
            }
        }
        g.setColor(P_MARK);
        int x = xOfP(v, v.part.p);
        g.drawLine(x, top, x, bottom);
        g.setColor(Renderer.TEXT);
        g.drawString(String.format(Locale.ROOT, "p %.3g", v.part.p), 2, h - 3);
    }

    /** The time range of the part under {@code (x, y)}, or null. */
    static double[] rangeAt(OverviewStrip.View v, int w, int h, int x, int y) {
        int k = partAt(v, w, h, x, y);
        if (k < 0) {
            return null;
        }
        Overview ov = v.ov;
        int first = v.rects == null ? v.part.first[k] : v.rects.first[k];
        int last = v.rects == null ? v.part.last[k] : v.rects.last[k];
        return new double[] {ov.sliceStart(first), ov.sliceStart(last + 1)};
    }

    /** The part (temporal) or rectangle (spatiotemporal) under {@code (x, y)}, or -1. */
    static int partAt(OverviewStrip.View v, int w, int h, int x, int y) {
        if (v == null || x < Renderer.LABEL_W || y < 0 || y >= h) {
            return -1;
        }
        Overview ov = v.ov;
        double t = layout(ov, w, h).timeOf(x);
        if (t < ov.t0 || t > ov.t1) {
            return -1;
        }
        int slice = Math.min(ov.slices - 1, (int) ((t - ov.t0) / ((ov.t1 - ov.t0) / ov.slices)));
        if (v.rects == null) {
            for (int k = 0; k < v.part.n; k++) {
                if (v.part.first[k] <= slice && slice <= v.part.last[k]) {
                    return k;
                }
            }
            return -1;
        }
        Overview.Hierarchy hi = ov.hierarchy;
        int row = (int) (y / (h / (double) Math.max(1, hi.rowLine.length)));
        Overview.Rects r = v.rects;
        for (int k = 0; k < r.size(); k++) {
            int f = hi.firstRow[r.node[k]];
            if (r.first[k] <= slice && slice <= r.last[k] && f <= row && row < f + hi.lineCount(r.node[k])) {
                return k;
            }
        }
        return -1;
    }

    @Override
    public String getToolTipText(MouseEvent e) {
        OverviewStrip.View v = strip.view();
        if (e.getX() < CURVE_W) {
            return v == null ? null : "p-curve: normalised gain (green) and loss (red); click to set p";
        }
        int k = partAt(v, getWidth(), getHeight(), e.getX(), e.getY());
        return k < 0 ? null : describe(strip.model(), v, k);
    }

    /** What a part is: its range, node, and its largest categories. */
    static String describe(Model m, OverviewStrip.View v, int k) {
        Overview ov = v.ov;
        int first = v.rects == null ? v.part.first[k] : v.rects.first[k];
        int last = v.rects == null ? v.part.last[k] : v.rects.last[k];
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "[%.9g, %.9g] slices %d-%d",
                ov.sliceStart(first), ov.sliceStart(last + 1), first, last));
        if (v.rects != null) {
            int node = v.rects.node[k];
            s.append(", ").append(ov.hierarchy.label[node]).append(" (").append(ov.hierarchy.lineCount(node))
                    .append(" lines)");
            if (v.rects.kind[k] != Overview.RECT_PLAIN) {
                s.append(v.rects.kind[k] == Overview.RECT_STRIPED ? ", thinner parts (striped)"
                        : ", thinner parts (crossed)");
            }
            int mode = v.rects.mode[k];
            s.append(": mostly ").append(mode < 0 ? "nothing" : name(m, mode));
            return s.toString();
        }
        int nc = ov.categories.length;
        double sum = 0;
        List<Integer> order = new ArrayList<>();
        for (int c = 0; c < nc; c++) {
            sum += v.part.values[k * nc + c];
            if (v.part.values[k * nc + c] > 0) {
                order.add(c);
            }
        }
        order.sort((a, b) -> Double.compare(v.part.values[k * nc + b], v.part.values[k * nc + a]));
        s.append(":");
        for (int i = 0; i < Math.min(3, order.size()); i++) {
            int c = order.get(i);
            s.append(String.format(Locale.ROOT, " %s %.0f%%", name(m, ov.categories[c]),
                    100 * v.part.values[k * nc + c] / sum));
        }
        if (order.isEmpty()) {
            s.append(" (empty)");
        }
        return s.toString();
    }

    static String name(Model m, int category) {
        int s = m.slot(category);
        return s < 0 ? "category " + category : m.categories[s].name;
    }
}
