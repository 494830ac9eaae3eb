package slog2.view;

import java.awt.BasicStroke;
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
    private float width = -1;

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

    @Override
    public void line(int x0, int y0, int x1, int y1, float w) {
        if (w != width) {
            g.setStroke(new BasicStroke(w));
            width = w;
        }
        g.drawLine(x0, y0, x1, y1);
    }

    @Override public void fillPolygon(int[] xs, int[] ys, int n) { g.fillPolygon(xs, ys, n); }
    @Override public void text(String s, int x, int y) { g.drawString(s, x, y); }
    @Override public int textWidth(String s) { return fm.stringWidth(s); }
    @Override public void clip(int x, int y, int w, int h) { g.setClip(baseClip); g.clipRect(x, y, w, h); }
    @Override public void unclip() { g.setClip(baseClip); }
}
