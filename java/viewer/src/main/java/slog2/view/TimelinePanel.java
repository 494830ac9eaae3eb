package slog2.view;

import java.awt.Color;
import java.awt.Dimension;
import java.awt.Graphics;
import java.awt.Graphics2D;
import java.awt.event.InputEvent;
import java.awt.event.KeyAdapter;
import java.awt.event.KeyEvent;
import java.awt.event.MouseAdapter;
import java.awt.event.MouseEvent;
import java.awt.event.MouseWheelEvent;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Consumer;
import javax.swing.JComponent;
import slog2.api.Drawables;

/**
 * The timeline canvas. It always paints the newest frame it has for the
 * window the user is looking at now (so panning and zooming answer at once
 * with the last data, then sharpen when the query returns), and asks the
 * {@link Loader} for a new frame after every change.
 *
 * <p>Mouse: wheel zooms around the cursor, left drag pans, shift-drag or
 * right drag draws a rubber band to zoom into, a click shows the popup of
 * the drawable under the cursor; a click on a y-axis label opens or closes
 * that node of the y-map's tree. Keys: +/= and - zoom, left/right arrows
 * scroll, Home fits, Backspace or Alt-Left goes back, Alt-Right forward.
 *
 * <p>A query that fails leaves no picture behind: the canvas shows the
 * library's message for the window asked for (and the status line says it),
 * never the previous window's drawables stretched onto the new axis.
 */
public final class TimelinePanel extends JComponent {
    private static final long serialVersionUID = 1L;
    private final Model model;
    private final Loader loader;
    private double t0, t1;
    private Frame frame;
    /** The message of the failed query for the window shown, or null. */
    private String failure;
    private final Deque<double[]> back = new ArrayDeque<>(), forward = new ArrayDeque<>();
    private long lastHistoryPush;
    private int highlight = -1;
    private double[] highlightKey; // start, line0, category of the highlighted drawable
    private int dragX = -1, dragY, bandX0 = -1, bandX1;
    private boolean banding, moved;
    private Consumer<String> onPopup = s -> { };
    private Consumer<Exception> onError = e -> { };
    private Runnable onFrame = () -> { };
    private volatile long firstPaintNanos;
    private int paints;
    private long openNanos;

    /** When the file was asked for (for the first-frame timing). */
    void setOpenNanos(long t) {
        openNanos = t;
    }

    public TimelinePanel(Model model, Loader loader) {
        this.model = model;
        this.loader = loader;
        this.t0 = model.tMin;
        this.t1 = model.tMax;
        setPreferredSize(new Dimension(1200, Math.max(300, Math.min(800, 40 * model.rows() + Renderer.RULER_H))));
        setFocusable(true);
        setOpaque(true);
        MouseAdapter ma = new MouseAdapter() {
            @Override
            public void mousePressed(MouseEvent e) {
                requestFocusInWindow();
                dragX = e.getX();
                dragY = e.getY();
                moved = false;
                banding = e.isShiftDown() || (e.getModifiersEx() & InputEvent.BUTTON3_DOWN_MASK) != 0;
                if (banding) {
                    bandX0 = bandX1 = e.getX();
                } else {
                    pushHistory(true);
                }
            }

            @Override
            public void mouseDragged(MouseEvent e) {
                if (dragX < 0) {
                    return;
                }
                if (Math.abs(e.getX() - dragX) + Math.abs(e.getY() - dragY) > 3) {
                    moved = true;
                }
                if (banding) {
                    bandX1 = e.getX();
                    repaint();
                    return;
                }
                Renderer.Layout l = timeLayout();
                double dt = (e.getX() - dragX) * (t1 - t0) / (l.right - l.left);
                dragX = e.getX();
                setWindow(t0 - dt, t1 - dt, false);
            }

            @Override
            public void mouseReleased(MouseEvent e) {
                if (banding) {
                    banding = false;
                    int a = Math.min(bandX0, bandX1), b = Math.max(bandX0, bandX1);
                    bandX0 = -1;
                    if (b - a >= 4) {
                        Renderer.Layout l = timeLayout();
                        setWindow(l.timeOf(a), l.timeOf(b), true);
                    } else {
                        repaint();
                    }
                } else if (!moved) {
                    click(e.getX(), e.getY());
                }
                dragX = -1;
            }

            @Override
            public void mouseWheelMoved(MouseWheelEvent e) {
                double f = Math.pow(1.25, e.getPreciseWheelRotation());
                zoomAround(timeLayout().timeOf(e.getX()), f);
            }
        };
        addMouseListener(ma);
        addMouseMotionListener(ma);
        addMouseWheelListener(ma);
        addKeyListener(new KeyAdapter() {
            @Override
            public void keyPressed(KeyEvent e) {
                boolean alt = e.isAltDown();
                switch (e.getKeyCode()) {
                    case KeyEvent.VK_PLUS, KeyEvent.VK_EQUALS, KeyEvent.VK_ADD, KeyEvent.VK_UP -> zoom(0.5);
                    case KeyEvent.VK_MINUS, KeyEvent.VK_SUBTRACT, KeyEvent.VK_DOWN -> zoom(2);
                    case KeyEvent.VK_LEFT -> {
                        if (alt) {
                            back();
                        } else {
                            scroll(-0.1);
                        }
                    }
                    case KeyEvent.VK_RIGHT -> {
                        if (alt) {
                            forward();
                        } else {
                            scroll(0.1);
                        }
                    }
                    case KeyEvent.VK_PAGE_UP -> scroll(-0.9);
                    case KeyEvent.VK_PAGE_DOWN -> scroll(0.9);
                    case KeyEvent.VK_HOME -> fit();
                    case KeyEvent.VK_BACK_SPACE -> back();
                    default -> { }
                }
            }
        });
    }

    public void onPopup(Consumer<String> c) { onPopup = c; }
    public void onError(Consumer<Exception> c) { onError = c; }
    public void onFrame(Runnable r) { onFrame = r; }
    public Frame frame() { return frame; }
    /** The failed query's message for the current window, or null. */
    public String failure() { return failure; }
    public double t0() { return t0; }
    public double t1() { return t1; }
    public Model model() { return model; }
    public int highlight() { return highlight; }
    public long firstPaintNanos() { return firstPaintNanos; }

    Renderer.Layout timeLayout() {
        return new Renderer.Layout(Math.max(Renderer.LABEL_W + 10, getWidth()), Math.max(Renderer.RULER_H + 10,
                getHeight()), t0, t1, model.rows());
    }

    private void pushHistory(boolean force) {
        long now = System.nanoTime();
        if (force || now - lastHistoryPush > 600_000_000L) {
            double[] cur = {t0, t1};
            double[] top = back.peek();
            if (top == null || top[0] != t0 || top[1] != t1) {
                back.push(cur);
                while (back.size() > 200) {
                    back.removeLast();
                }
            }
            forward.clear();
        }
        lastHistoryPush = now;
    }

    /** Show [a, b] (clamped to the file, never narrower than 1e-12 of it); {@code history}: remember the old one. */
    public void setWindow(double a, double b, boolean history) {
        double full = model.tMax - model.tMin;
        double span = Math.max(b - a, full * 1e-12);
        span = Math.min(span, full);
        double c0 = Math.max(model.tMin, Math.min(model.tMax - span, a));
        if (history) {
            pushHistory(true);
        }
        t0 = c0;
        t1 = c0 + span;
        request();
        repaint();
    }

    public void zoom(double factor) {
        zoomAround((t0 + t1) / 2, factor);
    }

    public void zoomAround(double t, double factor) {
        pushHistory(false);
        double a = t - (t - t0) * factor;
        double b = t + (t1 - t) * factor;
        setWindow(a, b, false);
    }

    public void scroll(double fraction) {
        pushHistory(false);
        double dt = (t1 - t0) * fraction;
        setWindow(t0 + dt, t1 + dt, false);
    }

    public void fit() {
        setWindow(model.tMin, model.tMax, true);
    }

    public boolean back() {
        double[] w = back.poll();
        if (w == null) {
            return false;
        }
        forward.push(new double[] {t0, t1});
        t0 = w[0];
        t1 = w[1];
        request();
        repaint();
        return true;
    }

    public boolean forward() {
        double[] w = forward.poll();
        if (w == null) {
            return false;
        }
        back.push(new double[] {t0, t1});
        t0 = w[0];
        t1 = w[1];
        request();
        repaint();
        return true;
    }

    /** Ask for a frame of the current window. */
    public void request() {
        final double a = t0, b = t1;
        loader.submit(() -> Frame.load(model, a, b), this::accept, this::failed);
    }

    /** Run a job (find) whose frame becomes current, highlighting the drawable keyed {@code key}. */
    void requestJob(Loader.Job job) {
        loader.submit(job, this::accept, this::failed);
    }

    /** The newest query failed: drop the old picture, say why on the canvas and to the window. */
    private void failed(Exception e) {
        frame = null;
        highlight = -1;
        String msg = e.getMessage() != null ? e.getMessage() : e.toString();
        failure = String.format(java.util.Locale.ROOT, "query of [%.9g, %.9g] failed: %s", t0, t1, msg);
        repaint();
        onError.accept(e);
    }

    /** Open or close the y-axis node of row {@code r}, keeping the drawables on screen. */
    public boolean toggleRow(int r) {
        if (!model.toggleRow(r)) {
            return false;
        }
        relayout();
        return true;
    }

    /** Jumpshot's expand / collapse of one level of the y-axis tree. */
    public boolean changeLevel(boolean grow) {
        if (!model.changeLevel(grow)) {
            return false;
        }
        relayout();
        return true;
    }

    /** Lay the frame on screen out on the model's current y-axis (another y-map was chosen). */
    public void relayoutRows() {
        relayout();
    }

    private void relayout() {
        if (frame != null) {
            frame = frame.relayout(model);
        }
        revalidate();
        repaint();
        onFrame.run();
    }

    void setHighlightKey(double[] key) {
        highlightKey = key;
    }

    void setWindowQuiet(double a, double b) {
        pushHistory(true);
        t0 = a;
        t1 = b;
    }

    /** Show a frame already queried for the current window (the first one, on open). */
    void show(Frame f) {
        accept(f);
    }

    private void accept(Frame f) {
        frame = f.tree == model.tree() ? f : f.relayout(model);
        failure = null;
        highlight = -1;
        if (highlightKey != null) {
            Drawables d = f.d;
            for (int i = 0; i < d.n; i++) {
                if (d.kind[i] != Drawables.KIND_SHADOW && d.start[i] == highlightKey[0]
                        && d.line0[i] == (int) highlightKey[1] && d.category[i] == (int) highlightKey[2]) {
                    highlight = i;
                    break;
                }
            }
        }
        repaint();
        onFrame.run();
    }

    private void click(int x, int y) {
        Renderer.Layout l = timeLayout();
        int row = Renderer.labelRowAt(model.tree(), l, x, y);
        if (row >= 0) {
            toggleRow(row);
            return;
        }
        Frame f = frame;
        if (f == null) {
            return;
        }
        int i = Renderer.hit(model, f, l, x, y);
        if (i < 0) {
            return;
        }
        highlight = i;
        Drawables d = f.d;
        highlightKey = new double[] {d.start[i], d.line0[i], d.category[i]};
        repaint();
        try {
            onPopup.accept(Popup.describe(model, f, i));
        } catch (Exception e) {
            onError.accept(e);
        }
    }

    @Override
    protected void paintComponent(Graphics g) {
        Graphics2D g2 = (Graphics2D) g.create();
        Renderer.Layout l = timeLayout();
        Frame f = frame;
        Renderer.paint(new G2Painter(g2), model, f, l, f == null ? -1 : highlight);
        if (f == null && failure != null) {
            g2.setColor(new Color(0xff, 0x80, 0x80));
            g2.drawString(failure, l.left + 10, Math.max(20, l.bottom / 2));
        }
        if (bandX0 >= 0) {
            int a = Math.min(bandX0, bandX1), b = Math.max(bandX0, bandX1);
            g2.setColor(new Color(255, 255, 255, 60));
            g2.fillRect(a, 0, b - a, l.bottom);
            g2.setColor(Color.WHITE);
            g2.drawRect(a, 0, b - a, l.bottom - 1);
        }
        g2.dispose();
        if (f != null && paints++ == 0) {
            firstPaintNanos = System.nanoTime();
            if (Boolean.getBoolean("slog2view.timing")) {
                System.err.printf(java.util.Locale.ROOT, "slog2view: first frame painted %.1f ms after open%n",
                        (firstPaintNanos - openNanos) / 1e6);
            }
            if (Boolean.getBoolean("slog2view.exitAfterFirstFrame")) {
                // install check (scripts/viewer-install-check.sh): which jar and native library
                // this run used, then quit once the first frame with data is on screen
                String lib = System.getProperty("slog2.library");
                System.out.println("slog2view: first frame painted; jar " + Main.canonical(Main.jarPath()) + "; library "
                        + (lib == null ? "(java.library.path)" : Main.canonical(new java.io.File(lib))));
                System.exit(0);
            }
        }
    }
}
