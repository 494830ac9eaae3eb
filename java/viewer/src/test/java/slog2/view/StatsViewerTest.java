package slog2.view;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.GraphicsEnvironment;
import java.awt.Rectangle;
import java.awt.Robot;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import javax.imageio.ImageIO;
import javax.swing.JDialog;
import org.junit.jupiter.api.Test;
import slog2.api.Slog2Reader;
import slog2.api.Stats;

/**
 * The statistics window on a real X server (xvfb-run): it shows the profile of
 * the visible range (equal to {@code Stats.profile} of that range) and follows
 * the timeline; a click on a histogram bar blinks that bar's instances on the
 * timeline (outline pixels on screen). Saves a screenshot of both windows
 * (java/build/viewer/stats-window.png) for a look.
 */
class StatsViewerTest {
    @Test
    void statisticsFollowTheTimelineAndBarsBlink() throws Exception {
        assertFalse(GraphicsEnvironment.isHeadless(), "needs a display (run under xvfb-run)");
        String path = Fx.fixtures() + "/clog2/big_stencil.slog2";
        MainWindow w = WindowSmokeTest.edt(() -> {
            MainWindow m = new MainWindow();
            m.setLocation(0, 0);
            m.setSize(1200, 620);
            m.setVisible(true);
            m.open(path);
            return m;
        });
        WindowSmokeTest.waitFor("first frame", () -> w.timeline() != null && w.timeline().frame() != null);
        TimelinePanel tl = w.timeline();
        Model m = tl.model();
        double a = m.tMin + (m.tMax - m.tMin) * 0.40, b = m.tMin + (m.tMax - m.tMin) * 0.43;
        WindowSmokeTest.edt(() -> {
            tl.setWindow(a, b, true);
            w.showStats();
            return null;
        });
        JDialog d = WindowSmokeTest.edt(w::statsDialog);
        assertNotNull(d);
        StatsPanel p = WindowSmokeTest.edt(() -> (StatsPanel) d.getContentPane().getComponent(0));
        WindowSmokeTest.waitFor("profile of the visible range",
                () -> p.profile() != null && p.computedWindow()[0] == tl.t0() && p.computedWindow()[1] == tl.t1());
        try (Slog2Reader r = Slog2Reader.open(path)) {
            double t0 = WindowSmokeTest.edt(tl::t0), t1 = WindowSmokeTest.edt(tl::t1);
            Stats.Profile want = Stats.profile(r, t0, t1, false, false);
            Stats.Profile got = WindowSmokeTest.edt(p::profile);
            assertArrayEquals(want.category, got.category);
            assertArrayEquals(want.count, got.count);
            assertArrayEquals(want.exclusive, got.exclusive, 1e-12);
        }
        // The histogram of MPI_Waitall in view; click its fullest bar.
        WindowSmokeTest.edt(() -> {
            p.chooseCategory("MPI_Waitall");
            return null;
        });
        WindowSmokeTest.waitFor("histogram", () -> !p.busy() && p.histogram() != null && p.histogram().bins() > 0
                && p.computedCategory().startsWith("MPI_Waitall"));
        int full = WindowSmokeTest.edt(() -> {
            Stats.Histogram h = p.histogram();
            int k = 0;
            for (int i = 0; i < h.bins(); i++) {
                k = h.counts[i] > h.counts[k] ? i : k;
            }
            p.clickBar(k);
            return k;
        });
        BlinkLayer blink = WindowSmokeTest.edt(w::blink);
        WindowSmokeTest.waitFor("blink", () -> blink.shown() != null && blink.visibleCount() > 0);
        long total = WindowSmokeTest.edt(() -> blink.shown().total);
        assertEquals(WindowSmokeTest.edt(() -> p.histogram().counts[full]), total);
        Thread.sleep(BlinkLayer.FLASHES * 240L + 300);
        WindowSmokeTest.waitFor("steady outline", blink::isOn);
        Robot robot = new Robot();
        robot.waitForIdle();
        Rectangle tlr = WindowSmokeTest.edt(() -> new Rectangle(tl.getLocationOnScreen(), tl.getSize()));
        BufferedImage shot = robot.createScreenCapture(tlr);
        int outline = 0;
        for (int y = 0; y < shot.getHeight(); y++) {
            for (int x = 0; x < shot.getWidth(); x++) {
                if ((shot.getRGB(x, y) & 0xFFFFFF) == (BlinkLayer.OUTLINE.getRGB() & 0xFFFFFF)) {
                    outline++;
                }
            }
        }
        assertTrue(outline > 40, "blink outline pixels on screen: " + outline);
        // A screenshot of both windows for a look.
        Rectangle all = WindowSmokeTest.edt(() -> w.getBounds().union(d.getBounds()));
        Path dir = Paths.get("java/build/viewer");
        File out = (Files.isDirectory(dir) ? dir : Files.createTempDirectory("slog2view")).resolve("stats-window.png")
                .toFile();
        ImageIO.write(robot.createScreenCapture(all), "png", out);
        System.out.println("statistics screenshot: " + out.getAbsolutePath());
        // Zooming the timeline recomputes for the new range.
        int before = WindowSmokeTest.edt(p::computations);
        WindowSmokeTest.edt(() -> {
            tl.zoom(0.5);
            return null;
        });
        WindowSmokeTest.waitFor("recomputed", () -> p.computations() > before
                && p.computedWindow()[0] == tl.t0() && p.computedWindow()[1] == tl.t1());
        WindowSmokeTest.edt(() -> {
            d.dispose();
            return null;
        });
        WindowSmokeTest.waitFor("blink cleared", () -> blink.shown() == null);
        WindowSmokeTest.edt(() -> {
            w.dispose();
            return null;
        });
    }
}
