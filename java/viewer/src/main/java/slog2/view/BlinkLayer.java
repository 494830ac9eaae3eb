package slog2.view;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics;
import java.awt.Graphics2D;
import javax.swing.JComponent;
import javax.swing.JLayer;
import javax.swing.Timer;
import javax.swing.plaf.LayerUI;
import slog2.api.Stats;

/**
 * Blinks drawables over the timeline — Jumpshot's "blink" of search hits, here
 * the instances behind a histogram bar ({@link StatsPanel}): a layer over the
 * {@link TimelinePanel} outlines each instance in the visible window (a box
 * around a state or an event's instant, a line for an arrow) and flashes them
 * {@link #FLASHES} times before they stay outlined, until the next blink or
 * {@link #clear()}. Drawing only: the layer never touches the timeline's frame.
 */
final class BlinkLayer extends LayerUI<TimelinePanel> {
    private static final long serialVersionUID = 1L;
    /** On/off switches of a blink (then it stays on). */
    static final int FLASHES = 8;
    static final Color OUTLINE = new Color(0xFF, 0x20, 0xFF);

    private transient JLayer<TimelinePanel> layer;
    private transient Stats.Instances shown;
    private boolean on;
    private int ticks;
    private final Timer timer = new Timer(220, e -> tick());

    /** The timeline wrapped in this layer (add the result where the timeline went). */
    JLayer<TimelinePanel> wrap(TimelinePanel tl) {
        layer = new JLayer<>(tl, this);
        return layer;
    }

    /** Start blinking {@code in} (null clears). */
    void blink(Stats.Instances in) {
        shown = in;
        ticks = 0;
        on = in != null;
        if (in != null) {
            timer.restart();
        } else {
            timer.stop();
        }
        repaint();
    }

    void clear() {
        blink(null);
    }

    Stats.Instances shown() {
        return shown;
    }

    boolean isOn() {
        return on;
    }

    private void tick() {
        ticks++;
        on = ticks >= FLASHES || ticks % 2 == 0;
        if (ticks >= FLASHES) {
            timer.stop();
        }
        repaint();
    }

    private void repaint() {
        if (layer != null) {
            layer.repaint();
        }
    }

    /** How many of the instances intersect the timeline's window. */
    int visibleCount() {
        Stats.Instances in = shown;
        if (in == null || layer == null) {
            return 0;
        }
        TimelinePanel tl = layer.getView();
        int n = 0;
        for (int i = 0; i < in.size(); i++) {
            if (in.end[i] >= tl.t0() && in.start[i] <= tl.t1()) {
                n++;
            }
        }
        return n;
    }

    @Override
    public void paint(Graphics g, JComponent c) {
        super.paint(g, c);
        Stats.Instances in = shown;
        if (in == null || !on || layer == null) {
            return;
        }
        TimelinePanel tl = layer.getView();
        Model m = tl.model();
        Renderer.Layout l = tl.timeLayout();
        Graphics2D g2 = (Graphics2D) g.create();
        g2.clipRect(l.left, l.top, l.right - l.left, l.bottom - l.top);
        g2.setStroke(new BasicStroke(2.5f));
        for (int i = 0; i < in.size(); i++) {
            if (in.end[i] < tl.t0() || in.start[i] > tl.t1()) {
                continue;
            }
            int r0 = m.rowOf(in.line0[i]), r1 = m.rowOf(in.line1[i]);
            if (r0 < 0) {
                continue;
            }
            int x0 = l.xOf(in.start[i]), x1 = Math.max(l.xOf(in.end[i]), x0 + 1);
            if (r1 >= 0 && r1 != r0) {
                g2.setColor(OUTLINE);
                g2.drawLine(x0, l.rowCenter(r0), x1, l.rowCenter(r1));
                continue;
            }
            int[] box = l.stateBox(r0, 0);
            g2.setColor(Color.BLACK);
            g2.drawRect(x0 - 4, box[0] - 4, x1 - x0 + 8, box[1] + 8);
            g2.setColor(OUTLINE);
            g2.drawRect(x0 - 3, box[0] - 3, x1 - x0 + 6, box[1] + 6);
        }
        g2.dispose();
    }
}
