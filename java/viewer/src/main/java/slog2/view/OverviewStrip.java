package slog2.view;

import java.awt.BorderLayout;
import java.awt.FlowLayout;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import javax.swing.BorderFactory;
import javax.swing.JButton;
import javax.swing.JComboBox;
import javax.swing.JComponent;
import javax.swing.JLabel;
import javax.swing.JPanel;
import javax.swing.JSlider;
import javax.swing.SwingUtilities;
import slog2.api.Overview;
import slog2.api.YMap;

/**
 * The overview strip above the timeline: Ocelotl's aggregated overview of
 * the timeline's range (the library's {@code Overview}), with a p slider and
 * the p-curve. It follows the timeline: every new range gets a new overview
 * (answered from the file's cube cache, so in milliseconds once the cache
 * exists); a click on a part zooms the timeline to it.
 *
 * <p>Controls: the aggregation (temporal: stacked bars, one per part;
 * spatiotemporal: a rectangle per part of the lines' hierarchy — the
 * selected y-map when it has columns, else groups of 8 lines), the p slider
 * (quadratic: finer near 0, where the partitions change most; moving it
 * re-aggregates the same qualities, one dynamic programme, and fixes p for
 * the next ranges), "Auto p" (the knee of the gain/loss curves, the
 * default). The curve itself is drawn left of the picture, where the
 * timeline has its row labels; clicking or dragging there sets p too.
 *
 * <p>All library calls run on one worker thread, newest request first
 * (older ones are skipped, their answers dropped, as in {@link Loader}); the
 * canvas paints the newest answer it has.
 */
public final class OverviewStrip extends JPanel {
    private static final long serialVersionUID = 1L;
    /** Slices of a temporal and of a spatiotemporal overview (the DP grows as slices³). */
    static final int TEMPORAL_SLICES = 100, SPATIAL_SLICES = 40;

    /** What the canvas draws: one overview and its current partition (immutable). */
    static final class View {
        final Overview ov;
        final Overview.Partition part;
        /** Spatiotemporal rectangles (null for temporal), for {@link #minLines}. */
        final Overview.Rects rects;
        final double minLines;
        final boolean autoP;

        View(Overview ov, Overview.Partition part, Overview.Rects rects, double minLines, boolean autoP) {
            this.ov = ov;
            this.part = part;
            this.rects = rects;
            this.minLines = minLines;
            this.autoP = autoP;
        }
    }

    private final Model model;
    private final TimelinePanel timeline;
    private final OverviewCanvas canvas;
    private final JComboBox<String> kind = new JComboBox<>(new String[] {"Temporal", "Spatiotemporal"});
    private final JSlider slider = new JSlider(0, 1000, 0);
    private final JLabel status = new JLabel(" ");
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "slog2view-overview");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong generation = new AtomicLong();
    private volatile View view;
    /** The newest range asked for and the settings it was asked with. */
    private double wantT0 = Double.NaN, wantT1 = Double.NaN;
    private boolean spatial;
    /** The hierarchy the newest spatiotemporal overview was asked with (the y-map may change). */
    private String askedHierarchy;
    private double fixedP = -1; // < 0: auto
    private boolean adjusting;
    /** A new overview is being computed (a p change then recomputes it, so the range is not lost). */
    private boolean recomputing;
    private volatile boolean busy;
    private volatile String error;

    public OverviewStrip(Model model, TimelinePanel timeline) {
        super(new BorderLayout());
        this.model = model;
        this.timeline = timeline;
        this.canvas = new OverviewCanvas(this);
        JPanel controls = new JPanel(new FlowLayout(FlowLayout.LEFT, 4, 0));
        controls.add(new JLabel("Overview:"));
        kind.setFocusable(false);
        kind.addActionListener(e -> setSpatiotemporal(kind.getSelectedIndex() == 1));
        controls.add(kind);
        controls.add(new JLabel("  p"));
        slider.setFocusable(false);
        slider.setPreferredSize(new java.awt.Dimension(220, slider.getPreferredSize().height));
        slider.addChangeListener(e -> {
            if (!adjusting) {
                setP(pOfSlider(slider.getValue()));
            }
        });
        controls.add(slider);
        JButton auto = new JButton("Auto p");
        auto.setFocusable(false);
        auto.addActionListener(e -> autoP());
        controls.add(auto);
        JPanel top = new JPanel(new BorderLayout(6, 0));
        top.add(controls, BorderLayout.WEST);
        top.add(status, BorderLayout.CENTER);
        add(top, BorderLayout.NORTH);
        add(canvas, BorderLayout.CENTER);
        setBorder(BorderFactory.createMatteBorder(0, 0, 2, 0, Renderer.GUTTER));
    }

    /**
     * A panel with this strip above {@code center}, the timeline or a layer
     * around it (both the same width, so their time axes align).
     */
    public JComponent wrap(JComponent center) {
        JPanel p = new JPanel(new BorderLayout());
        p.add(this, BorderLayout.NORTH);
        p.add(center, BorderLayout.CENTER);
        return p;
    }

    static double pOfSlider(int v) {
        double x = v / 1000.0;
        return x * x;
    }

    static int sliderOfP(double p) {
        return (int) Math.round(Math.sqrt(Math.max(0, Math.min(1, p))) * 1000);
    }

    View view() {
        return view;
    }

    TimelinePanel timeline() {
        return timeline;
    }

    Model model() {
        return model;
    }

    /** Whether no request is waiting or running. */
    boolean idle() {
        return !busy;
    }

    String error() {
        return error;
    }

    String statusText() {
        return status.getText();
    }

    /** Show the overview of {@code [t0, t1]} (the timeline's range); nothing when already shown or asked. */
    public void follow(double t0, double t1) {
        if (t0 == wantT0 && t1 == wantT1 && !(spatial && !java.util.Objects.equals(hierarchy(), askedHierarchy))) {
            return;
        }
        wantT0 = t0;
        wantT1 = t1;
        recompute();
    }

    /** Temporal or spatiotemporal aggregation. */
    public void setSpatiotemporal(boolean on) {
        if (kind.getSelectedIndex() != (on ? 1 : 0)) {
            kind.setSelectedIndex(on ? 1 : 0); // comes back here through the listener
            return;
        }
        if (spatial != on) {
            spatial = on;
            recompute();
        }
    }

    /** Aggregate at {@code p} (one dynamic programme on the shown overview), and keep it for the next ranges. */
    public void setP(double p) {
        fixedP = p;
        syncSlider(p);
        View v = view;
        if (v == null || recomputing) {
            recompute();
            return;
        }
        submit(() -> {
            Overview.Partition part = v.ov.setP(p);
            Overview.Rects r = v.rects == null ? null : v.ov.rects(v.minLines);
            return new View(v.ov, part, r, v.minLines, false);
        });
    }

    /** Back to the automatic p (the knee of the curve). */
    public void autoP() {
        fixedP = -1;
        recompute();
    }

    private void syncSlider(double p) {
        adjusting = true;
        slider.setValue(sliderOfP(p));
        adjusting = false;
    }

    /** The hierarchy of a spatiotemporal overview: the selected y-map when it has levels, else fanout:8. */
    String hierarchy() {
        YMap[] maps = model.yMaps;
        int i = model.yMapIndex();
        if (i >= 0 && i < maps.length && maps[i].columnLabels.length > 0 && maps[i].rows() > 0) {
            return maps[i].title;
        }
        return null;
    }

    private void recompute() {
        if (Double.isNaN(wantT0)) {
            return;
        }
        Overview.Spec spec = new Overview.Spec().range(wantT0, wantT1).bisect(0.001);
        if (spatial) {
            askedHierarchy = hierarchy();
            spec.slices(SPATIAL_SLICES).spatiotemporal(askedHierarchy);
        } else {
            spec.slices(TEMPORAL_SLICES);
        }
        recomputing = true;
        boolean auto = fixedP < 0;
        if (!auto) {
            spec.p(fixedP);
        }
        int height = Math.max(20, canvas.getHeight() > 0 ? canvas.getHeight() : OverviewCanvas.HEIGHT);
        submit(() -> {
            Overview ov = model.source.overview(spec);
            Overview.Rects r = null;
            double minLines = 0;
            if (ov.hierarchy != null) {
                minLines = ov.hierarchy.rowLine.length / (double) height;
                r = ov.rects(minLines);
            }
            return new View(ov, ov.partition(), r, minLines, auto);
        });
    }

    private interface Job {
        View run() throws Exception;
    }

    /** Run {@code job} on the worker, newest first; publish its view on the EDT. */
    private void submit(Job job) {
        long g = generation.incrementAndGet();
        busy = true;
        worker.execute(() -> {
            if (generation.get() != g) {
                return;
            }
            View v;
            try {
                v = job.run();
            } catch (Exception e) {
                SwingUtilities.invokeLater(() -> {
                    if (generation.get() == g) {
                        recomputing = false;
                        error = e.getMessage() != null ? e.getMessage() : e.toString();
                        status.setText("overview: " + error);
                        busy = false;
                        canvas.repaint();
                    }
                });
                return;
            }
            SwingUtilities.invokeLater(() -> publish(g, v));
        });
    }

    private void publish(long g, View v) {
        View old = view;
        if (generation.get() != g) {
            if (v.ov != (old == null ? null : old.ov)) {
                worker.execute(v.ov::close);
            }
            return;
        }
        view = v;
        error = null;
        busy = false;
        recomputing = false;
        if (old != null && old.ov != v.ov) {
            worker.execute(old.ov::close); // after any job still using it
        }
        syncSlider(v.part.p);
        Overview o = v.ov;
        status.setText(String.format(Locale.ROOT, "%s, %d slices, p = %.4f%s: %d parts%s", o.hierarchy == null
                ? "temporal" : "spatiotemporal (" + (o.hierarchy.size()) + " nodes)", o.slices, v.part.p,
                v.autoP ? " (auto)" : "", v.part.n, o.exact ? "" : ", approximate (cache)"));
        canvas.repaint();
    }

    /** Zoom the timeline to {@code [a, b]} (a click on a part). */
    void zoomTo(double a, double b) {
        if (b > a) {
            timeline.setWindow(a, b, true);
        }
    }

    /** Stop the worker and free the overview. */
    public void close() {
        generation.incrementAndGet();
        View v = view;
        view = null;
        if (v != null) {
            worker.execute(v.ov::close);
        }
        worker.shutdown();
    }
}
