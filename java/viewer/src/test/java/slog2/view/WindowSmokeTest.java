package slog2.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.GraphicsEnvironment;
import java.awt.Point;
import java.awt.Robot;
import java.awt.Window;
import java.awt.event.InputEvent;
import java.awt.event.KeyEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import javax.swing.JDialog;
import javax.swing.SwingUtilities;
import org.junit.jupiter.api.Test;
import slog2.api.Category;
import slog2.api.Drawables;

/**
 * A real window on the X server (build.sh runs the suite under xvfb-run):
 * open a file, zoom with the wheel, pan by dragging, click a state for its
 * popup, fit with Home, open a corrupt file (error dialog with the library's
 * message, window still usable), close. Fails when there is no display.
 */
class WindowSmokeTest {
    static <T> T edt(Callable<T> c) throws Exception {
        AtomicReference<T> r = new AtomicReference<>();
        AtomicReference<Exception> e = new AtomicReference<>();
        SwingUtilities.invokeAndWait(() -> {
            try {
                r.set(c.call());
            } catch (Exception x) {
                e.set(x);
            }
        });
        if (e.get() != null) {
            throw e.get();
        }
        return r.get();
    }

    static void waitFor(String what, Callable<Boolean> c) throws Exception {
        long end = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < end) {
            if (edt(c)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("timed out waiting for " + what);
    }

    @Test
    void openZoomPanClickClose() throws Exception {
        assertFalse(GraphicsEnvironment.isHeadless(), "the smoke test needs a display (run under xvfb-run)");
        Robot robot = new Robot();
        robot.setAutoDelay(30);
        MainWindow w = edt(() -> {
            MainWindow m = new MainWindow();
            m.setLocation(0, 0);
            m.setVisible(true);
            m.open(Fx.sample("data.slog2"));
            return m;
        });
        waitFor("first frame", () -> w.timeline() != null && w.timeline().frame() != null && w.timeline().isShowing());
        robot.waitForIdle();
        TimelinePanel tl = w.timeline();
        Model m = tl.model();
        double full = m.tMax - m.tMin;
        Point origin = edt(tl::getLocationOnScreen);
        int cw = edt(tl::getWidth), ch = edt(tl::getHeight);

        // wheel zoom around the cursor
        robot.mouseMove(origin.x + Renderer.LABEL_W + (cw - Renderer.LABEL_W) / 2, origin.y + ch / 3);
        robot.mouseWheel(-3);
        waitFor("wheel zoom", () -> tl.t1() - tl.t0() < full * 0.7);
        double span = edt(() -> tl.t1() - tl.t0());
        double t0 = edt(tl::t0);

        // drag to pan towards later times
        robot.mousePress(InputEvent.BUTTON1_DOWN_MASK);
        robot.mouseMove(origin.x + Renderer.LABEL_W + 40, origin.y + ch / 3);
        robot.mouseRelease(InputEvent.BUTTON1_DOWN_MASK);
        waitFor("pan", () -> tl.t0() != t0);
        assertEquals(span, edt(() -> tl.t1() - tl.t0()), span * 1e-9, "panning keeps the span");

        // Home fits, then click the middle of a wide state for its popup
        robot.keyPress(KeyEvent.VK_HOME);
        robot.keyRelease(KeyEvent.VK_HOME);
        waitFor("fit", () -> tl.t0() == m.tMin && tl.frame() != null && tl.frame().t0 == m.tMin);
        int[] target = edt(() -> {
            Frame f = tl.frame();
            Renderer.Layout l = tl.timeLayout();
            Drawables d = f.d;
            for (int i = 0; i < d.n; i++) {
                if (f.topo[i] == Category.STATE && f.nest[i] == 0 && d.kind[i] == Drawables.KIND_PRIMITIVE
                        && l.xOf(d.end[i]) - l.xOf(d.start[i]) > 30) {
                    int x = (l.xOf(d.start[i]) + l.xOf(d.end[i])) / 2;
                    int y = l.stateBox(f.row0[i], 0)[0] + 2;
                    if (Renderer.hit(m, f, l, x, y) == i) {
                        return new int[] {i, x, y};
                    }
                }
            }
            return null;
        });
        assertNotNull(target, "a clickable state");
        String want = edt(() -> Popup.describe(m, tl.frame(), target[0]));
        robot.mouseMove(origin.x + target[1], origin.y + target[2]);
        robot.mousePress(InputEvent.BUTTON1_DOWN_MASK);
        robot.mouseRelease(InputEvent.BUTTON1_DOWN_MASK);
        waitFor("popup", () -> want.equals(w.lastPopup()));
        assertEquals(target[0], (int) edt(tl::highlight));

        // find next of the legend's selected category (RECV) walks its drawables in start order
        int recv = edt(() -> {
            for (int sl = 0; sl < m.categories.length; sl++) {
                if (m.categories[sl].name.equals("RECV")) {
                    w.legend().select(sl);
                    return sl;
                }
            }
            return -1;
        });
        assertTrue(recv >= 0, "data.slog2 has RECV");
        double last = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < 2; k++) {
            int before = k;
            edt(() -> {
                w.find(true);
                return null;
            });
            double prev = last;
            waitFor("find next " + before, () -> {
                Frame f = tl.frame();
                int h = tl.highlight();
                return f != null && h >= 0 && f.slot[h] == recv && f.d.start[h] > prev;
            });
            last = edt(() -> tl.frame().d.start[tl.highlight()]);
        }
        double secondRecv = last;
        edt(() -> {
            w.find(false);
            return null;
        });
        waitFor("find previous", () -> {
            Frame f = tl.frame();
            int h = tl.highlight();
            return f != null && h >= 0 && f.slot[h] == recv && f.d.start[h] < secondRecv;
        });

        // export the view: PNG of the canvas size, SVG with the same drawables
        Path png = Files.createTempFile(Fx.scratch(), "view", ".png"), svg = Files.createTempFile(Fx.scratch(), "view", ".svg");
        edt(() -> {
            w.exportTo(png.toFile(), false);
            w.exportTo(svg.toFile(), true);
            return null;
        });
        java.awt.image.BufferedImage img = javax.imageio.ImageIO.read(png.toFile());
        assertEquals((int) edt(tl::getWidth), img.getWidth());
        assertTrue(Files.readString(svg).contains("fill=\"#00ff00\""), "RECV green in the SVG");

        // a corrupt file: error dialog with the library's message; the open file stays usable
        Path junk = Files.createTempFile(Fx.scratch(), "junk", ".slog2");
        Files.writeString(junk, "SLOG 2.0.6 but nothing else of a trace");
        String libMsg;
        try (Source s = ReaderSource.open(junk.toString())) {
            libMsg = null;
        } catch (java.io.IOException e) {
            libMsg = e.getMessage();
        }
        assertNotNull(libMsg);
        edt(() -> {
            w.open(junk.toString());
            return null;
        });
        waitFor("error dialog", () -> {
            for (Window win : Window.getWindows()) {
                if (win instanceof JDialog && win.isShowing() && w.lastError() != null) {
                    return true;
                }
            }
            return false;
        });
        assertEquals(libMsg, edt(w::lastError));
        robot.keyPress(KeyEvent.VK_ENTER);
        robot.keyRelease(KeyEvent.VK_ENTER);
        waitFor("dialog closed", () -> {
            for (Window win : Window.getWindows()) {
                if (win instanceof JDialog && win.isShowing() && ((JDialog) win).isModal()) {
                    return false;
                }
            }
            return true;
        });
        assertTrue(edt(() -> w.timeline() == tl), "the open file stays");
        edt(() -> {
            tl.zoom(0.25);
            return null;
        });
        waitFor("zoom after the error", () -> tl.frame() != null && tl.frame().t1 - tl.frame().t0 < full * 0.3);
        edt(() -> {
            w.dispose();
            return null;
        });
        waitFor("closed", () -> !w.isDisplayable());
    }
}
