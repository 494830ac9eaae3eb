import java.awt.Color;
import java.awt.Container;
import java.awt.Dimension;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import javax.swing.JFrame;
import javax.swing.JViewport;
import javax.swing.SwingUtilities;

import viewer.timelines.TimelineFrame;
import viewer.timelines.TimelinePanel;
import viewer.zoomable.ModelTime;

/**
 * Jumpshot-4's own timeline window driven through slog2view's benchmark steps
 * (issue #14): the same file, the same 500 zoom/pan windows (the plan written by
 * {@code slog2view --bench FILE --plan-out PLAN.txt}), and per step the same
 * work as ours -- bring the view to the new window, then paint the timeline
 * canvas into a 1600x900 image.
 *
 * How it is driven: exactly as Jumpshot's own {@code TimelineFrame.main} (InputLog,
 * isSLOG2, getCompatibleHeader, initialize, Parameters from the default set-up,
 * {@code new TimelineFrame(log, 0)}, visible, {@code init()}), with the window sized
 * so that the canvas viewport is WIDTHxHEIGHT. A zoom step calls
 * {@code ModelTime.zoomRapidly(t0, t1 - t0)} (what its rubber-band zoom calls), a pan
 * step {@code ModelTime.scroll(dt)} (what dragging and the scroll bar call); both fire
 * Jumpshot's listeners synchronously on the event thread: the canvas and the ruler
 * re-read the tree ({@code TreeTrunk.updateTimeWindow}) and redraw the off-screen
 * images they need (on a zoom all three, each two viewports wide; on a pan only those
 * scrolled past, none when the new window is inside them). Then the canvas viewport
 * is painted into a WIDTHxHEIGHT {@code BufferedImage} (the blit of its off-screen
 * images). The step's time is both together, on the event thread, wall and CPU.
 *
 * Needs the reference's jumpshot.jar (not part of this repository), and a display
 * (Xvfb):
 * <pre>
 *   javac -cp /work/slog2sdk/lib/jumpshot.jar -d /tmp/jsteps java/bench/reference/JumpshotSteps.java
 *   java -Djava.library.path=target/release -jar java/build/slog2view.jar --bench F.slog2 --steps 500 --plan-out /tmp/plan.txt
 *   xvfb-run -a -s '-screen 0 2400x1500x24' java -cp /work/slog2sdk/lib/jumpshot.jar:/tmp/jsteps \
 *       JumpshotSteps F.slog2 /tmp/plan.txt [WIDTHxHEIGHT]
 * </pre>
 */
public class JumpshotSteps {
    public static void main(String[] args) throws Exception {
        String path = args[0];
        boolean shot = args[1].equals("--shot");
        List<String[]> plan = new ArrayList<>();
        for (String l : shot ? List.<String>of() : Files.readAllLines(Paths.get(args[1]))) {
            if (!l.isBlank()) {
                plan.add(l.trim().split("\\s+"));
            }
        }
        int w = 1600, h = 900;
        if (args.length > 2 && !shot) {
            String[] p = args[2].split("x");
            w = Integer.parseInt(p[0]);
            h = Integer.parseInt(p[1]);
        }
        final int W = w, H = h;

        // Jumpshot itself, as `java -jar jumpshot.jar FILE` starts it: its first window
        // opens the file and then its timeline window.
        long t0 = System.nanoTime();
        viewer.first.FirstFrame.main(new String[] {path});
        JFrame tl = null;
        for (int i = 0; i < 60000 && tl == null; i++) {
            JFrame[] f = new JFrame[1];
            SwingUtilities.invokeAndWait(() -> f[0] = viewer.common.TopWindow.Timeline.getWindow());
            if (f[0] instanceof TimelineFrame && f[0].isShowing()) {
                tl = f[0];
            } else {
                Thread.sleep(5);
            }
        }
        if (tl == null) {
            throw new IllegalStateException("Jumpshot's timeline window did not open");
        }
        TimelineFrame frame = (TimelineFrame) tl;
        TimelinePanel panel = (TimelinePanel) frame.getContentPane();
        ModelTime model = (ModelTime) get(panel, "time_model");
        JViewport vport = (JViewport) get(panel, "time_canvas_vport");
        // First frame: the canvas viewport paints drawn content (state colours).
        BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        long tFirst = 0;
        for (int i = 0; i < 6000 && tFirst == 0; i++) {
            int[] colours = new int[1];
            SwingUtilities.invokeAndWait(() -> colours[0] = paintAndCount(vport, img, true));
            if (colours[0] > 4) {
                tFirst = System.nanoTime();
            } else {
                Thread.sleep(5);
            }
        }
        Dimension v0 = vport.getExtentSize();
        System.out.printf(Locale.ROOT, "jumpshot: start to first painted timeline %.1f ms (its own window size, canvas"
                + " viewport %dx%d)%n", (tFirst - t0) / 1e6, v0.width, v0.height);
        // Size the window so that the canvas viewport is W x H (Jumpshot redraws on resize),
        // then back to the full view.
        for (int i = 0; i < 5; i++) {
            SwingUtilities.invokeAndWait(() -> {
                Dimension v = vport.getExtentSize();
                Dimension f = frame.getSize();
                frame.setSize(f.width + W - v.width, f.height + H - v.height);
                frame.validate();
            });
            Thread.sleep(300);
        }
        SwingUtilities.invokeAndWait(() -> {
            model.zoomHome();
            paintAndCount(vport, img, false);
        });
        Dimension v = vport.getExtentSize();
        System.out.printf(Locale.ROOT, "jumpshot: canvas viewport %dx%d; window %.9g..%.9g%n", v.width, v.height,
                model.getTimeViewPosition(), model.getTimeViewPosition() + model.getTimeViewExtent());
        if (v.width != W || v.height != H) {
            System.out.println("jumpshot: WARNING: viewport is not " + W + "x" + H);
        }

        if (shot) {
            // screenshots of the whole timeline window: full view, then the window T0..T1
            Thread.sleep(2000);
            windowShot(frame, args[2] + "-full.png");
            double a = Double.parseDouble(args[3]), b = Double.parseDouble(args[4]);
            SwingUtilities.invokeAndWait(() -> model.zoomRapidly(a, b - a));
            Thread.sleep(2000);
            windowShot(frame, args[2] + "-zoom.png");
            System.exit(0);
        }
        int n = plan.size();
        double[] ms = new double[n], cpu = new double[n];
        double[] zoomMs = new double[n], panMs = new double[n];
        int nz = 0, np = 0;
        double maxDev = 0;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (int k = 0; k < n; k++) {
            String[] s = plan.get(k);
            boolean zoom = s[0].equals("Z");
            double a = Double.parseDouble(s[1]), b = Double.parseDouble(s[2]);
            double[] r = new double[3];
            SwingUtilities.invokeAndWait(() -> {
                long c0 = mx.getCurrentThreadCpuTime();
                long s0 = System.nanoTime();
                if (zoom) {
                    model.zoomRapidly(a, b - a);
                } else {
                    model.scroll(a - model.getTimeViewPosition());
                }
                paintAndCount(vport, img, false);
                r[0] = (System.nanoTime() - s0) / 1e6;
                r[1] = (mx.getCurrentThreadCpuTime() - c0) / 1e6;
                double ext = model.getTimeViewExtent();
                r[2] = Math.max(Math.abs(model.getTimeViewPosition() - a), Math.abs(model.getTimeViewPosition() + ext - b))
                        / (b - a);
            });
            ms[k] = r[0];
            cpu[k] = r[1];
            maxDev = Math.max(maxDev, r[2]);
            if (zoom) {
                zoomMs[nz++] = r[0];
            } else {
                panMs[np++] = r[0];
            }
        }
        Arrays.sort(ms);
        Arrays.sort(cpu);
        double[] z = Arrays.copyOf(zoomMs, nz), p = Arrays.copyOf(panMs, np);
        Arrays.sort(z);
        Arrays.sort(p);
        System.out.printf(Locale.ROOT, "jumpshot: frame CPU time (event thread): median %.2f ms, p99 %.2f ms%n",
                pct(cpu, 50), pct(cpu, 99));
        System.out.printf(Locale.ROOT, "jumpshot: %d steps at %dx%d: frame (update + draw + paint) median %.2f ms,"
                + " p99 %.2f ms, max %.2f ms; zoom steps (%d) median %.2f p99 %.2f; pan steps (%d) median %.2f p99 %.2f;"
                + " largest window deviation from the plan %.2g of its span (scroll-bar rounding)%n", n, W, H,
                pct(ms, 50), pct(ms, 99), ms[n - 1], nz, pct(z, 50), pct(z, 99), np, pct(p, 50), pct(p, 99), maxDev);
        javax.imageio.ImageIO.write(img, "png", new java.io.File(System.getProperty("jsteps.last", "/tmp/jsteps-last.png")));
        System.exit(0);
    }

    /** Paint the canvas viewport into img; the number of distinct colours (capped) in a sample of it. */
    static int paintAndCount(JViewport vport, BufferedImage img, boolean count) {
        Graphics2D g = img.createGraphics();
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, img.getWidth(), img.getHeight());
        g.setClip(0, 0, Math.min(img.getWidth(), vport.getWidth()), Math.min(img.getHeight(), vport.getHeight()));
        vport.paint(g);
        g.dispose();
        if (!count) {
            return 0;
        }
        java.util.HashSet<Integer> seen = new java.util.HashSet<>();
        for (int y = 0; y < img.getHeight() && seen.size() < 8; y += 7) {
            for (int x = 0; x < img.getWidth() && seen.size() < 8; x += 7) {
                seen.add(img.getRGB(x, y));
            }
        }
        return seen.size();
    }

    static void windowShot(JFrame frame, String out) throws Exception {
        BufferedImage[] im = new BufferedImage[1];
        SwingUtilities.invokeAndWait(() -> {
            im[0] = new BufferedImage(frame.getWidth(), frame.getHeight(), BufferedImage.TYPE_INT_RGB);
            Graphics2D g = im[0].createGraphics();
            frame.paint(g);
            g.dispose();
        });
        javax.imageio.ImageIO.write(im[0], "png", new java.io.File(out));
        System.out.println("jumpshot: wrote " + out);
    }

    static Object get(Object o, String name) throws ReflectiveOperationException {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    static double pct(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
