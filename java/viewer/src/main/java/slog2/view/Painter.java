package slog2.view;

import java.awt.Color;

/**
 * The few drawing operations the timeline uses, so that the same
 * {@link Renderer} code paints the screen ({@link G2Painter}) and writes SVG
 * ({@link SvgPainter}): an export is exactly what the window shows.
 */
public interface Painter {
    void color(Color c);

    void fillRect(int x, int y, int w, int h);

    void line(int x0, int y0, int x1, int y1, float width);

    void fillPolygon(int[] xs, int[] ys, int n);

    void text(String s, int x, int y);

    /** Width of {@code s} in pixels in the label font. */
    int textWidth(String s);

    /** Restrict drawing to a rectangle (null: no clip). */
    void clip(int x, int y, int w, int h);

    void unclip();
}
