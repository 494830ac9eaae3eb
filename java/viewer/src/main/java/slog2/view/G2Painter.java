package slog2.view;

import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Shape;

/** {@link Painter} on a Graphics2D (screen or image); fills are never antialiased. */
public final class G2Painter implements Painter {
    static final Font FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 11);
    private final Graphics2D g;
    private final FontMetrics fm;
    private final Shape baseClip;

    public G2Painter(Graphics2D g) {
        this.g = g;
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_OFF);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setFont(FONT);
        fm = g.getFontMetrics();
        baseClip = g.getClip();
    }

    @Override public void color(Color c) { g.setColor(c); }
    @Override public void fillRect(int x, int y, int w, int h) { g.fillRect(x, y, w, h); }

    /**
     * A line {@code w} pixels wide as that many parallel one-pixel lines
     * (offset across the line's major direction): Java2D's one-pixel line
     * is a fast path, a wide stroke is a shape fill about 20 times slower.
     */
    @Override
    public void line(int x0, int y0, int x1, int y1, float w) {
        int n = Math.max(1, Math.round(w));
        if (n == 1) {
            g.drawLine(x0, y0, x1, y1);
            return;
        }
        boolean shallow = Math.abs(x1 - x0) >= Math.abs(y1 - y0);
        for (int k = 0; k < n; k++) {
            int o = k - (n - 1) / 2;
            if (shallow) {
                g.drawLine(x0, y0 + o, x1, y1 + o);
            } else {
                g.drawLine(x0 + o, y0, x1 + o, y1);
            }
        }
    }

    @Override public void fillPolygon(int[] xs, int[] ys, int n) { g.fillPolygon(xs, ys, n); }
    @Override public void text(String s, int x, int y) { g.drawString(s, x, y); }
    @Override public int textWidth(String s) { return fm.stringWidth(s); }
    @Override public void clip(int x, int y, int w, int h) { g.setClip(baseClip); g.clipRect(x, y, w, h); }
    @Override public void unclip() { g.setClip(baseClip); }
}
