package slog2.view;

import java.awt.BorderLayout;
import java.awt.event.KeyEvent;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Locale;
import javax.imageio.ImageIO;
import javax.swing.BorderFactory;
import javax.swing.JButton;
import javax.swing.JComboBox;
import javax.swing.JDialog;
import javax.swing.JFileChooser;
import javax.swing.JFrame;
import javax.swing.JLabel;
import javax.swing.JMenu;
import javax.swing.JMenuBar;
import javax.swing.JMenuItem;
import javax.swing.JOptionPane;
import javax.swing.JPanel;
import javax.swing.JScrollPane;
import javax.swing.JSplitPane;
import javax.swing.JTextArea;
import javax.swing.JToolBar;
import javax.swing.KeyStroke;
import javax.swing.SwingUtilities;
import javax.swing.SwingWorker;
import javax.swing.WindowConstants;
import slog2.api.YMap;

/**
 * The application window: toolbar, timeline, legend, status line. Opening a
 * file happens off the event thread; a file the library refuses shows its
 * message in an error dialog and leaves the window as it was.
 */
public final class MainWindow extends JFrame {
    private static final long serialVersionUID = 1L;
    private final JLabel status = new JLabel(" ");
    private final JPanel content = new JPanel(new BorderLayout());
    private JDialog popupDialog;
    private JTextArea popupText;
    private TimelinePanel timeline;
    private LegendPanel legend;
    private OverviewStrip overview;
    private Loader loader;
    private Model model;
    private String lastPopup;
    private String lastError;
    private volatile long openStartNanos;
    private BlinkLayer blink;
    private JDialog statsDialog;

    public MainWindow() {
        super("slog2view");
        setDefaultCloseOperation(WindowConstants.DISPOSE_ON_CLOSE);
        setJMenuBar(menus());
        getContentPane().add(content, BorderLayout.CENTER);
        status.setBorder(BorderFactory.createEmptyBorder(2, 6, 2, 6));
        getContentPane().add(status, BorderLayout.SOUTH);
        content.add(new JLabel("  File > Open… (Ctrl-O) to view an SLOG-2 file"), BorderLayout.CENTER);
        setSize(1400, 700);
        Thread warm = new Thread(Main::warmUp, "slog2view-warmup");
        warm.setDaemon(true);
        warm.start();
        addWindowListener(new java.awt.event.WindowAdapter() {
            @Override
            public void windowClosed(java.awt.event.WindowEvent e) {
                closeSession();
            }
        });
    }

    private JMenuItem item(String name, int key, int mods, Runnable r) {
        JMenuItem i = new JMenuItem(name);
        if (key != 0) {
            i.setAccelerator(KeyStroke.getKeyStroke(key, mods));
        }
        i.addActionListener(e -> r.run());
        return i;
    }

    private JMenuBar menus() {
        JMenuBar bar = new JMenuBar();
        JMenu file = new JMenu("File");
        int ctrl = java.awt.event.InputEvent.CTRL_DOWN_MASK;
        file.add(item("Open…", KeyEvent.VK_O, ctrl, this::chooseAndOpen));
        file.add(item("Export PNG…", KeyEvent.VK_E, ctrl, () -> export(false)));
        file.add(item("Export SVG…", 0, 0, () -> export(true)));
        file.addSeparator();
        file.add(item("Close", KeyEvent.VK_W, ctrl, this::dispose));
        bar.add(file);
        JMenu view = new JMenu("View");
        view.add(item("Zoom in", KeyEvent.VK_I, ctrl, () -> tl(t -> t.zoom(0.5))));
        view.add(item("Zoom out", KeyEvent.VK_U, ctrl, () -> tl(t -> t.zoom(2))));
        view.add(item("Fit all", KeyEvent.VK_F, ctrl, () -> tl(TimelinePanel::fit)));
        view.add(item("Back", KeyEvent.VK_OPEN_BRACKET, ctrl, () -> tl(TimelinePanel::back)));
        view.add(item("Forward", KeyEvent.VK_CLOSE_BRACKET, ctrl, () -> tl(TimelinePanel::forward)));
        view.add(item("Find next", KeyEvent.VK_N, ctrl, () -> find(true)));
        view.add(item("Find previous", KeyEvent.VK_P, ctrl, () -> find(false)));
        view.add(item("Statistics…", KeyEvent.VK_T, ctrl, this::showStats));
        bar.add(view);
        return bar;
    }

    private void tl(java.util.function.Consumer<TimelinePanel> c) {
        if (timeline != null) {
            c.accept(timeline);
        }
    }

    private void chooseAndOpen() {
        JFileChooser fc = new JFileChooser(".");
        if (fc.showOpenDialog(this) == JFileChooser.APPROVE_OPTION) {
            open(fc.getSelectedFile().getPath());
        }
    }

    /** Open {@code path} in the background; on failure an error dialog with the library's message. */
    public void open(String path) {
        openStartNanos = System.nanoTime();
        status.setText("Opening " + path + " …");
        new SwingWorker<Object[], Void>() {
            @Override
            protected Object[] doInBackground() throws Exception {
                Source s = ReaderSource.open(path);
                try {
                    Model m = new Model(s);
                    // the first frame is queried here, while the window is being built
                    return new Object[] {m, Frame.load(m, m.tMin, m.tMax)};
                } catch (IOException | RuntimeException e) {
                    s.close();
                    throw e;
                }
            }

            @Override
            protected void done() {
                try {
                    Object[] got = get();
                    timing("model and first frame ready");
                    install((Model) got[0], (Frame) got[1]);
                    timing("window installed");
                } catch (Exception e) {
                    Throwable c = e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
                    showError("Cannot open " + path, c);
                    status.setText("Cannot open " + path);
                }
            }
        }.execute();
    }

    private void timing(String what) {
        if (Boolean.getBoolean("slog2view.timing")) {
            System.err.printf(Locale.ROOT, "slog2view: %s %.1f ms after open%n", what,
                    (System.nanoTime() - openStartNanos) / 1e6);
        }
    }

    void showError(String title, Throwable e) {
        String msg = e.getMessage() != null ? e.getMessage() : e.toString();
        lastError = msg;
        JOptionPane.showMessageDialog(this, msg, title, JOptionPane.ERROR_MESSAGE);
    }

    /** The statistics of the visible range, in a window of their own ({@link StatsPanel}). */
    public void showStats() {
        if (timeline != null) {
            statsDialog = StatsPanel.showDialog(this, statsDialog, timeline, blink);
        }
    }

    private void closeSession() {
        if (statsDialog != null) {
            statsDialog.dispose();
            statsDialog = null;
        }
        if (loader != null) {
            loader.shutdown();
        }
        if (overview != null) {
            overview.close();
        }
        if (model != null) {
            model.source.close();
        }
    }

    private void install(Model m, Frame first) {
        closeSession();
        model = m;
        loader = new Loader();
        timeline = new TimelinePanel(m, loader);
        timeline.setOpenNanos(openStartNanos);
        timeline.onPopup(this::showPopup);
        timeline.onError(e -> {
            // the status line names the failure of the window shown now (never a stale frame's numbers)
            status.setText(timeline.failure() != null ? timeline.failure() : "query failed: " + e.getMessage());
            showError("Query failed", e);
        });
        timeline.onFrame(() -> {
            if (timeline.frame() != null && timeline.firstPaintNanos() == 0) {
                timing("first frame answered");
            }
            updateStatus();
            overview.follow(timeline.t0(), timeline.t1());
        });
        overview = new OverviewStrip(m, timeline);
        content.removeAll();
        JPanel left = new JPanel(new BorderLayout());
        left.add(toolbar(m), BorderLayout.NORTH);
        blink = new BlinkLayer();
        left.add(overview.wrap(blink.wrap(timeline)), BorderLayout.CENTER);
        JSplitPane split = new JSplitPane(JSplitPane.HORIZONTAL_SPLIT, left, new JPanel());
        split.setResizeWeight(1.0);
        split.setDividerLocation(Math.max(400, getWidth() - 420));
        content.add(split, BorderLayout.CENTER);
        setTitle("slog2view — " + m.source.name());
        timeline.show(first);
        // -Dslog2view.window=T0:T1 goes to that window after the first frame (scripted screenshots)
        String win = System.getProperty("slog2view.window");
        if (win != null && win.contains(":")) {
            try {
                double a = Double.parseDouble(win.substring(0, win.indexOf(':')));
                double b = Double.parseDouble(win.substring(win.indexOf(':') + 1));
                if (b > a) {
                    SwingUtilities.invokeLater(() -> timeline.setWindow(a, b, true));
                }
            } catch (NumberFormatException e) {
                System.err.println("slog2view: ignoring -Dslog2view.window=" + win + " (want T0:T1)");
            }
        }
        content.revalidate();
        content.repaint();
        timeline.requestFocusInWindow();
        // the legend (a table: the slowest component to build) comes right after the first paint
        SwingUtilities.invokeLater(() -> {
            if (model != m) {
                return;
            }
            legend = new LegendPanel(m, () -> timeline.repaint());
            int at = split.getDividerLocation();
            split.setRightComponent(legend);
            split.setDividerLocation(at);
        });
    }

    private JToolBar toolbar(Model m) {
        JToolBar tb = new JToolBar();
        tb.setFloatable(false);
        tb.add(button("Back", () -> timeline.back()));
        tb.add(button("Forward", () -> timeline.forward()));
        tb.add(button("Fit", () -> timeline.fit()));
        tb.add(button("Zoom in", () -> timeline.zoom(0.5)));
        tb.add(button("Zoom out", () -> timeline.zoom(2)));
        tb.addSeparator();
        tb.add(button("Find prev", () -> find(false)));
        tb.add(button("Find next", () -> find(true)));
        tb.addSeparator();
        if (m.yMaps.length > 1) {
            String[] names = new String[m.yMaps.length];
            for (int i = 0; i < names.length; i++) {
                YMap y = m.yMaps[i];
                names[i] = y.title;
            }
            JComboBox<String> maps = new JComboBox<>(names);
            maps.setSelectedIndex(m.yMapIndex());
            maps.addActionListener(e -> {
                m.selectYMap(maps.getSelectedIndex());
                timeline.relayoutRows(); // the frame on screen, laid out on the new tree
                timeline.request();
            });
            tb.add(new JLabel("Y-axis: "));
            tb.add(maps);
        }
        // Jumpshot's y-axis tree buttons: open or close one level of the map's tree
        tb.add(button("Expand", () -> timeline.changeLevel(true)));
        tb.add(button("Collapse", () -> timeline.changeLevel(false)));
        tb.add(button("PNG…", () -> export(false)));
        tb.add(button("SVG…", () -> export(true)));
        return tb;
    }

    private JButton button(String name, Runnable r) {
        JButton b = new JButton(name);
        b.setFocusable(false);
        b.addActionListener(e -> r.run());
        return b;
    }

    private void updateStatus() {
        Frame f = timeline.frame();
        if (f == null) {
            if (timeline.failure() != null) {
                status.setText(timeline.failure());
            }
            return;
        }
        status.setText(String.format(Locale.ROOT,
                "[%.9g, %.9g]  depth %d/%d  drawables %d  nodes %d  query %.1f ms", f.t0, f.t1, f.depth,
                model.rootDepth, f.d.n, f.d.nodesRead, f.queryNanos / 1e6));
    }

    private void showPopup(String text) {
        lastPopup = text;
        if (popupDialog == null) {
            popupDialog = new JDialog(this, "Drawable", false);
            popupText = new JTextArea(10, 50);
            popupText.setEditable(false);
            popupDialog.getContentPane().add(new JScrollPane(popupText));
            popupDialog.pack();
            popupDialog.setLocationRelativeTo(this);
        }
        popupText.setText(text);
        popupDialog.setVisible(true);
    }

    /** Find the next/previous drawable of the legend's selected category (any searchable one if none). */
    public void find(boolean forwardDir) {
        if (timeline == null) {
            return;
        }
        Model m = model;
        int slot = legend == null ? -1 : legend.selectedSlot();
        Frame f = timeline.frame();
        int h = timeline.highlight();
        double from = f != null && h >= 0 ? f.d.start[h] : (forwardDir ? timeline.t0() : timeline.t1());
        double span = timeline.t1() - timeline.t0();
        timeline.requestJob(() -> {
            Find.Hit hit = Find.find(m, from, slot, forwardDir, span);
            if (hit == null) {
                SwingUtilities.invokeLater(() -> status.setText("No more drawables found"));
                return Frame.load(m, timeline.t0(), timeline.t1());
            }
            double len = Math.max(hit.end() - hit.start(), 0);
            double w = Math.max(span, len * 1.2);
            double a = (hit.start() + hit.end()) / 2 - w / 2;
            double b = a + w;
            SwingUtilities.invokeLater(() -> timeline.setWindowQuiet(a, b));
            timeline.setHighlightKey(new double[] {hit.start(), hit.line(), hit.category()});
            return Frame.load(m, a, b);
        });
    }

    private void export(boolean svg) {
        if (timeline == null) {
            return;
        }
        JFileChooser fc = new JFileChooser(".");
        fc.setSelectedFile(new File(svg ? "view.svg" : "view.png"));
        if (fc.showSaveDialog(this) != JFileChooser.APPROVE_OPTION) {
            return;
        }
        try {
            exportTo(fc.getSelectedFile(), svg);
        } catch (IOException e) {
            showError("Export failed", e);
        }
    }

    /** Write the current view at the canvas size. */
    public void exportTo(File out, boolean svg) throws IOException {
        Frame f = timeline.frame();
        int w = Math.max(200, timeline.getWidth()), h = Math.max(100, timeline.getHeight());
        Renderer.Layout l = new Renderer.Layout(w, h, timeline.t0(), timeline.t1(), model.rows());
        if (svg) {
            SvgPainter p = new SvgPainter(w, h);
            Renderer.paint(p, model, f, l, timeline.highlight());
            Files.writeString(out.toPath(), p.finish(), StandardCharsets.UTF_8);
        } else {
            java.awt.image.BufferedImage img = new java.awt.image.BufferedImage(w, h,
                    java.awt.image.BufferedImage.TYPE_INT_RGB);
            java.awt.Graphics2D g = img.createGraphics();
            Renderer.paint(new G2Painter(g), model, f, l, timeline.highlight());
            g.dispose();
            ImageIO.write(img, "png", out);
        }
    }

    // for the smoke test
    TimelinePanel timeline() { return timeline; }
    JDialog statsDialog() { return statsDialog; }
    BlinkLayer blink() { return blink; }
    LegendPanel legend() { return legend; }
    OverviewStrip overview() { return overview; }
    String lastPopup() { return lastPopup; }
    String lastError() { return lastError; }
    long openStartNanos() { return openStartNanos; }
}
