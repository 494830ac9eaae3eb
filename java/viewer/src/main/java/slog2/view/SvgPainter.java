package slog2.view;

import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.image.BufferedImage;

/** {@link Painter} that writes an SVG document (one element per operation). */
public final class SvgPainter implements Painter {
    private final StringBuilder sb = new StringBuilder(1 << 16);
    private final FontMetrics fm;
    private String fill = "#000000";
    private int clipId;
    private boolean clipped;

    public SvgPainter(int width, int height) {
        BufferedImage scratch = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB);
        fm = scratch.createGraphics().getFontMetrics(G2Painter.FONT);
        sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
                .append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width)
                .append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(width).append(' ')
                .append(height).append("\" shape-rendering=\"crispEdges\" font-family=\"sans-serif\" font-size=\"11\">\n");
    }

    @Override
    public void color(Color c) {
        fill = String.format("#%02x%02x%02x", c.getRed(), c.getGreen(), c.getBlue());
    }

    @Override
    public void fillRect(int x, int y, int w, int h) {
        sb.append("<rect x=\"").append(x).append("\" y=\"").append(y).append("\" width=\"").append(w)
                .append("\" height=\"").append(h).append("\" fill=\"").append(fill).append("\"/>\n");
    }

    @Override
    public void line(int x0, int y0, int x1, int y1, float w) {
        sb.append("<line x1=\"").append(x0).append("\" y1=\"").append(y0).append("\" x2=\"").append(x1)
                .append("\" y2=\"").append(y1).append("\" stroke=\"").append(fill).append("\" stroke-width=\"")
                .append(w).append("\"/>\n");
    }

    @Override
    public void fillPolygon(int[] xs, int[] ys, int n) {
        sb.append("<polygon points=\"");
        for (int i = 0; i < n; i++) {
            sb.append(xs[i]).append(',').append(ys[i]).append(' ');
        }
        sb.append("\" fill=\"").append(fill).append("\"/>\n");
    }

    @Override
    public void text(String s, int x, int y) {
        sb.append("<text x=\"").append(x).append("\" y=\"").append(y).append("\" fill=\"").append(fill)
                .append("\">").append(escape(s)).append("</text>\n");
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    @Override public int textWidth(String s) { return fm.stringWidth(s); }

    @Override
    public void clip(int x, int y, int w, int h) {
        unclip();
        clipId++;
        sb.append("<clipPath id=\"c").append(clipId).append("\"><rect x=\"").append(x).append("\" y=\"").append(y)
                .append("\" width=\"").append(w).append("\" height=\"").append(h).append("\"/></clipPath>\n")
                .append("<g clip-path=\"url(#c").append(clipId).append(")\">\n");
        clipped = true;
    }

    @Override
    public void unclip() {
        if (clipped) {
            sb.append("</g>\n");
            clipped = false;
        }
    }

    /** The finished document. */
    public String finish() {
        unclip();
        return sb.toString() + "</svg>\n";
    }

    static Font font() {
        return G2Painter.FONT;
    }
}
