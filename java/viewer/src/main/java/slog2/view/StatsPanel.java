package slog2.view;

import java.awt.BorderLayout;
import java.awt.Color;
import java.awt.Component;
import java.awt.Dimension;
import java.awt.FlowLayout;
import java.awt.Graphics;
import java.awt.Graphics2D;
import java.awt.event.MouseAdapter;
import java.awt.event.MouseEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import javax.swing.BorderFactory;
import javax.swing.Icon;
import javax.swing.JCheckBox;
import javax.swing.JComboBox;
import javax.swing.JComponent;
import javax.swing.JLabel;
import javax.swing.JPanel;
import javax.swing.JScrollPane;
import javax.swing.JSplitPane;
import javax.swing.JTable;
import javax.swing.SwingWorker;
import javax.swing.Timer;
import javax.swing.table.AbstractTableModel;
import javax.swing.table.DefaultTableCellRenderer;
import slog2.api.Category;
import slog2.api.Slog2Reader;
import slog2.api.Stats;

/**
 * Statistics of the timeline's visible range, following it as the user zooms
 * and scrolls: the profile (count, inclusive and exclusive time, mean per
 * category; states clipped to the range) and the duration histogram of a
 * chosen state category. Clicking a bar blinks its instances on the timeline
 * ({@link BlinkLayer}); when none of them is in view the timeline first moves
 * to the earliest one. Everything is computed by the library
 * ({@code slog2.api.Stats}) off the event thread.
 */
final class StatsPanel extends JPanel {
    private static final long serialVersionUID = 1L;
    static final int BINS = 24;
    static final int INSTANCES = 500;

    private final transient TimelinePanel timeline;
    private final transient BlinkLayer blink;
    private final transient Slog2Reader reader;
    private final transient Model model;
    private final JLabel header = new JLabel(" ");
    private final JLabel histStatus = new JLabel(" ");
    private final ProfileModel table = new ProfileModel();
    private final JComboBox<String> category = new JComboBox<>();
    private final JCheckBox logBins = new JCheckBox("log bins", true);
    private final HistogramView hist = new HistogramView();
    private final transient List<Category> states = new ArrayList<>();
    private final Timer follow = new Timer(250, e -> poll());
    private double[] computed = {Double.NaN, Double.NaN};
    private String computedCat = "";
    private boolean busy;
    private transient Stats.Profile profile;
    private transient Stats.Histogram histogram;
    private int computations;

    StatsPanel(TimelinePanel timeline, BlinkLayer blink, Slog2Reader reader) {
        super(new BorderLayout());
        this.timeline = timeline;
        this.blink = blink;
        this.reader = reader;
        this.model = timeline.model();
        header.setBorder(BorderFactory.createEmptyBorder(4, 6, 4, 6));
        add(header, BorderLayout.NORTH);
        JTable t = new JTable(table);
        t.setAutoCreateRowSorter(true);
        t.getColumnModel().getColumn(0).setCellRenderer(new CategoryRenderer());
        t.getColumnModel().getColumn(0).setPreferredWidth(170);
        t.setDefaultRenderer(Double.class, new DefaultTableCellRenderer() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void setValue(Object v) {
                double x = (Double) v;
                setHorizontalAlignment(RIGHT);
                setText(Double.isNaN(x) ? "" : String.format(Locale.ROOT, "%.4g", x));
            }
        });
        JPanel bottom = new JPanel(new BorderLayout());
        JPanel controls = new JPanel(new FlowLayout(FlowLayout.LEFT, 6, 2));
        controls.add(new JLabel("Histogram of"));
        for (Category c : model.categories) {
            if (c.index >= 0 && c.topology == Category.STATE) {
                states.add(c);
                category.addItem(c.name);
            }
        }
        controls.add(category);
        controls.add(logBins);
        category.addActionListener(e -> request());
        logBins.addActionListener(e -> request());
        bottom.add(controls, BorderLayout.NORTH);
        bottom.add(hist, BorderLayout.CENTER);
        histStatus.setBorder(BorderFactory.createEmptyBorder(2, 6, 4, 6));
        bottom.add(histStatus, BorderLayout.SOUTH);
        JSplitPane split = new JSplitPane(JSplitPane.VERTICAL_SPLIT, new JScrollPane(t), bottom);
        split.setResizeWeight(0.55);
        add(split, BorderLayout.CENTER);
        setPreferredSize(new Dimension(560, 620));
        follow.start();
    }

    /**
     * Show the statistics window of {@code tl} (reusing {@code open} when it still
     * belongs to this timeline); an error dialog when the source is not a file.
     */
    static javax.swing.JDialog showDialog(javax.swing.JFrame owner, javax.swing.JDialog open, TimelinePanel tl,
            BlinkLayer blink) {
        if (open != null && open.isDisplayable() && open.getContentPane().getComponentCount() > 0
                && ((StatsPanel) open.getContentPane().getComponent(0)).timeline == tl) {
            open.setVisible(true);
            return open;
        }
        if (open != null) {
            open.dispose();
        }
        if (!(tl.model().source instanceof ReaderSource)) {
            javax.swing.JOptionPane.showMessageDialog(owner, "Statistics need an SLOG-2 file.");
            return null;
        }
        StatsPanel p = new StatsPanel(tl, blink, ((ReaderSource) tl.model().source).reader());
        javax.swing.JDialog d = new javax.swing.JDialog(owner, "Statistics of the visible range", false);
        d.getContentPane().add(p);
        d.pack();
        d.setLocation(owner.getX() + Math.max(0, owner.getWidth() - d.getWidth() - 40), owner.getY() + 60);
        d.addWindowListener(new java.awt.event.WindowAdapter() {
            @Override
            public void windowClosed(java.awt.event.WindowEvent e) {
                p.stop();
                blink.clear();
            }
        });
        d.setDefaultCloseOperation(javax.swing.WindowConstants.DISPOSE_ON_CLOSE);
        d.setVisible(true);
        return d;
    }

    /** Stop following the timeline (the window closed). */
    void stop() {
        follow.stop();
    }

    private void request() {
        computed = new double[] {Double.NaN, Double.NaN};
        poll();
    }

    private Category selected() {
        int i = category.getSelectedIndex();
        return i >= 0 && i < states.size() ? states.get(i) : null;
    }

    /** Recompute when the timeline's range (or the chosen category) changed. */
    private void poll() {
        double a = timeline.t0(), b = timeline.t1();
        Category c = selected();
        String key = (c == null ? "" : c.name) + logBins.isSelected();
        if (busy || (a == computed[0] && b == computed[1] && key.equals(computedCat))) {
            return;
        }
        busy = true;
        boolean log = logBins.isSelected();
        new SwingWorker<Object[], Void>() {
            @Override
            protected Object[] doInBackground() throws Exception {
                Stats.Profile p = Stats.profile(reader, a, b, false, false);
                Stats.Histogram h = c == null ? null
                        : Stats.histogram(reader, a, b, false, Stats.DURATION, c.index, BINS, log, Double.NaN,
                                Double.NaN);
                return new Object[] {p, h};
            }

            @Override
            protected void done() {
                busy = false;
                try {
                    Object[] r = get();
                    profile = (Stats.Profile) r[0];
                    histogram = (Stats.Histogram) r[1];
                    computed = new double[] {a, b};
                    computedCat = key;
                    computations++;
                    table.set(profile);
                    hist.set(histogram, c == null ? Color.GRAY : model.colour[slot(c)]);
                    header.setText(String.format(Locale.ROOT,
                            "Visible range [%.6g, %.6g] s (states clipped to it): %d categories", a, b,
                            profile.size()));
                    histStatus.setText(histogram == null || histogram.bins() == 0
                            ? "No " + (c == null ? "state" : c.name) + " in the visible range"
                            : String.format(Locale.ROOT, "%s: %d in view (outliers %d / %d); click a bar to blink it",
                                    c.name, total(histogram), histogram.below, histogram.above));
                } catch (Exception e) {
                    Throwable x = e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
                    header.setText("Statistics failed: " + x.getMessage());
                }
            }
        }.execute();
    }

    private int slot(Category c) {
        for (int s = 0; s < model.categories.length; s++) {
            if (model.categories[s].index == c.index) {
                return s;
            }
        }
        return 0;
    }

    private static long total(Stats.Histogram h) {
        long n = h.below + h.above;
        for (long c : h.counts) {
            n += c;
        }
        return n;
    }

    /** Blink the instances of bar {@code k} (as a click on it does). */
    void clickBar(int k) {
        Stats.Histogram h = histogram;
        if (h == null || k < 0 || k >= h.bins()) {
            return;
        }
        new SwingWorker<Stats.Instances, Void>() {
            @Override
            protected Stats.Instances doInBackground() throws Exception {
                return Stats.instances(reader, h, k, INSTANCES);
            }

            @Override
            protected void done() {
                try {
                    Stats.Instances in = get();
                    blink.blink(in);
                    if (in.size() > 0 && blink.visibleCount() == 0) {
                        double w = timeline.t1() - timeline.t0();
                        double mid = (in.start[0] + in.end[0]) / 2;
                        timeline.setWindow(mid - w / 2, mid + w / 2, true);
                    }
                    hist.select(k);
                    histStatus.setText(String.format(Locale.ROOT,
                            "Bar [%.4g, %.4g) s: %d instances, blinking %d", h.edges[k], h.edges[k + 1], in.total,
                            in.size()));
                } catch (Exception e) {
                    Throwable x = e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
                    histStatus.setText("Instances failed: " + x.getMessage());
                }
            }
        }.execute();
    }

    // for tests
    Stats.Profile profile() { return profile; }
    Stats.Histogram histogram() { return histogram; }
    double[] computedWindow() { return computed.clone(); }
    int computations() { return computations; }
    String computedCategory() { return computedCat; }
    boolean busy() { return busy; }
    HistogramView histogramView() { return hist; }
    void chooseCategory(String name) { category.setSelectedItem(name); }

    /** The profile as a table (by exclusive time, largest first). */
    private final class ProfileModel extends AbstractTableModel {
        private static final long serialVersionUID = 1L;
        private final String[] cols = {"Category", "Count", "Inclusive (s)", "Exclusive (s)", "Excl. %", "Mean (s)"};
        private transient Stats.Profile p;
        private Integer[] order = new Integer[0];
        private double stateTotal;

        void set(Stats.Profile p) {
            this.p = p;
            order = new Integer[p.size()];
            stateTotal = 0;
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
                if (isState(p.category[i])) {
                    stateTotal += Math.max(0, p.exclusive[i]);
                }
            }
            Arrays.sort(order, (x, y) -> Double.compare(p.exclusive[y], p.exclusive[x]));
            fireTableDataChanged();
        }

        private boolean isState(int cat) {
            for (Category c : model.categories) {
                if (c.index == cat) {
                    return c.topology == Category.STATE;
                }
            }
            return false;
        }

        @Override public int getRowCount() { return order.length; }
        @Override public int getColumnCount() { return cols.length; }
        @Override public String getColumnName(int c) { return cols[c]; }

        @Override
        public Class<?> getColumnClass(int c) {
            return c == 0 ? Integer.class : c == 1 ? Long.class : Double.class;
        }

        @Override
        public Object getValueAt(int r, int c) {
            int i = order[r];
            switch (c) {
                case 0: return p.category[i];
                case 1: return p.count[i];
                case 2: return p.inclusive[i];
                case 3: return p.exclusive[i];
                case 4: return isState(p.category[i]) && stateTotal > 0 ? 100 * p.exclusive[i] / stateTotal : Double.NaN;
                default: return p.mean[i];
            }
        }
    }

    /** A category cell: its colour and name. */
    private final class CategoryRenderer extends DefaultTableCellRenderer {
        private static final long serialVersionUID = 1L;

        @Override
        public Component getTableCellRendererComponent(JTable t, Object v, boolean sel, boolean focus, int row,
                int col) {
            super.getTableCellRendererComponent(t, v, sel, focus, row, col);
            int idx = (Integer) v;
            String name = "category " + idx;
            Color colour = Color.GRAY;
            for (int s = 0; s < model.categories.length; s++) {
                if (model.categories[s].index == idx) {
                    name = model.categories[s].name;
                    colour = model.colour[s];
                }
            }
            setText(name);
            Color fill = colour;
            setIcon(new Icon() {
                @Override public void paintIcon(Component c, Graphics g, int x, int y) {
                    g.setColor(fill);
                    g.fillRect(x, y, 12, 12);
                    g.setColor(Color.BLACK);
                    g.drawRect(x, y, 12, 12);
                }
                @Override public int getIconWidth() { return 14; }
                @Override public int getIconHeight() { return 13; }
            });
            return this;
        }
    }

    /** The bars of a histogram; a click picks a bar. */
    final class HistogramView extends JComponent {
        private static final long serialVersionUID = 1L;
        private transient Stats.Histogram h;
        private Color colour = Color.GRAY;
        private int selected = -1;

        HistogramView() {
            setPreferredSize(new Dimension(520, 220));
            addMouseListener(new MouseAdapter() {
                @Override
                public void mousePressed(MouseEvent e) {
                    int k = barAt(e.getX());
                    if (k >= 0) {
                        clickBar(k);
                    }
                }
            });
        }

        void set(Stats.Histogram h, Color c) {
            this.h = h;
            this.colour = c;
            this.selected = -1;
            repaint();
        }

        void select(int k) {
            selected = k;
            repaint();
        }

        int bins() {
            return h == null ? 0 : h.bins();
        }

        static final int PAD = 34;

        /** Pixel column range of bar {@code k}: {x0, x1}. */
        int[] barX(int k) {
            int n = bins();
            double w = (getWidth() - 2.0 * PAD) / Math.max(1, n);
            return new int[] {(int) Math.round(PAD + k * w), (int) Math.round(PAD + (k + 1) * w)};
        }

        int barAt(int x) {
            for (int k = 0; k < bins(); k++) {
                int[] b = barX(k);
                if (x >= b[0] && x < b[1]) {
                    return k;
                }
            }
            return -1;
        }

        @Override
        protected void paintComponent(Graphics g) {
            Graphics2D g2 = (Graphics2D) g;
            g2.setColor(Color.WHITE);
            g2.fillRect(0, 0, getWidth(), getHeight());
            if (h == null || h.bins() == 0) {
                return;
            }
            long max = 1;
            for (long c : h.counts) {
                max = Math.max(max, c);
            }
            int base = getHeight() - 22, top = 8;
            for (int k = 0; k < h.bins(); k++) {
                int[] b = barX(k);
                int y = base - (int) Math.round((double) h.counts[k] / max * (base - top));
                g2.setColor(k == selected ? BlinkLayer.OUTLINE : colour);
                g2.fillRect(b[0], y, Math.max(1, b[1] - b[0] - 1), base - y);
                g2.setColor(Color.BLACK);
                g2.drawRect(b[0], y, Math.max(1, b[1] - b[0] - 1), base - y);
            }
            g2.setColor(Color.BLACK);
            g2.drawLine(PAD, base, getWidth() - PAD, base);
            g2.drawString(String.format(Locale.ROOT, "%.3g s", h.edges[0]), PAD, base + 15);
            String hi = String.format(Locale.ROOT, "%.3g s", h.edges[h.bins()]);
            g2.drawString(hi, getWidth() - PAD - g2.getFontMetrics().stringWidth(hi), base + 15);
            g2.drawString(Long.toString(max), 2, top + 10);
        }
    }
}
