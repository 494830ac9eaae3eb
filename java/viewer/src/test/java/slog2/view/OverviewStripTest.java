package slog2.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Color;
import java.awt.GraphicsEnvironment;
import java.awt.Point;
import java.awt.Rectangle;
import java.awt.Robot;
import java.awt.event.InputEvent;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import slog2.api.Overview;

/**
 * The overview strip in a real window (under xvfb-run): it shows the
 * overview of the timeline's range and follows it; its pixels are the
 * parts' layers (temporal) and modes (spatiotemporal, with striped or
 * crossed groups of lines thinner than a pixel), checked on screen through
 * the X server; the p slider re-aggregates (p = 1: one part); a click on a
 * part zooms the timeline to the part's range. Screenshots of both pictures
 * go to {@code java/build/viewer/overview-*.png}.
 */
class OverviewStripTest {
    static Path dir;
    static String many;

    /** A trace of 300 lines in 43 nodes of 7 (a NodeView y-map), four state categories in phases. */
    @BeforeAll
    static void trace() throws Exception {
        dir = Files.createTempDirectory("slog2view-overview");
        StringBuilder s = new StringBuilder();
        int[][] rgb = {{255, 0, 0}, {0, 160, 255}, {255, 200, 0}, {0, 200, 80}};
        for (int c = 0; c < 4; c++) {
            s.append(String.format(Locale.ROOT, "Category[ index=%d name=S%d topo=State color=(%d,%d,%d,255,true) width=1 ]%n",
                    c, c, rgb[c][0], rgb[c][1], rgb[c][2]));
        }
        List<double[]> prims = new ArrayList<>();
        long x = 12345;
        for (int l = 0; l < 300; l++) {
            double t = 0;
            while (t < 1.0) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                double d = 0.01 + ((x >>> 11) % 1000) / 1000.0 * 0.02;
                int phase = (int) (t * 4);
                int cat = (x >>> 40) % 10 < 8 ? (phase + l / 50) % 4 : (int) ((x >>> 50) % 4);
                prims.add(new double[] {t, t + d, cat, l});
                t += d;
            }
        }
        prims.sort((a, b) -> Double.compare(a[1], b[1]));
        for (double[] p : prims) {
            s.append(String.format(Locale.ROOT, "Primitive[ TimeBBox(%.6f,%.6f) Category=%d (%.6f, %d) (%.6f, %d) ]%n",
                    p[0], p[1], (int) p[2], p[0], (int) p[3], p[1], (int) p[3]));
        }
        s.append("YCoordMap[ Nrows=300 Ncolumns=3 Nmethods=0 title=NodeView colnames=< node core >");
        for (int l = 0; l < 300; l++) {
            s.append(String.format(Locale.ROOT, " ( %d %d %d )", l, l / 7, l % 7));
        }
        s.append(" ]\n");
        Path txt = dir.resolve("many.txt");
        Files.writeString(txt, s.toString(), StandardCharsets.UTF_8);
        many = dir.resolve("many.slog2").toString();
        Fx.run(List.of(Fx.cli(), "convert", txt.toString(), "-o", many), 0);
    }

    @AfterAll
    static void clean() throws Exception {
        try (var w = Files.walk(dir)) {
            w.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        }
    }

    static MainWindow window(String file) throws Exception {
        assertFalse(GraphicsEnvironment.isHeadless(), "needs a display (run under xvfb-run)");
        MainWindow w = WindowSmokeTest.edt(() -> {
            MainWindow m = new MainWindow();
            m.setLocation(0, 0);
            m.setVisible(true);
            m.open(file);
            return m;
        });
        WindowSmokeTest.waitFor("the first overview", () -> w.overview() != null && w.overview().view() != null
                && w.overview().idle() && w.overview().isShowing());
        return w;
    }

    /** The overview shown once the strip is idle with the timeline's range. */
    static OverviewStrip.View settled(MainWindow w) throws Exception {
        WindowSmokeTest.waitFor("the overview of the timeline's range", () -> {
            OverviewStrip s = w.overview();
            OverviewStrip.View v = s.view();
            TimelinePanel tl = w.timeline();
            return s.idle() && v != null && v.ov.t0 == tl.t0() && v.ov.t1 == tl.t1();
        });
        return WindowSmokeTest.edt(() -> w.overview().view());
    }

    /** What the canvas shows on screen (through the X server). */
    static BufferedImage screen(Robot robot, OverviewCanvas c) throws Exception {
        robot.waitForIdle();
        Point o = WindowSmokeTest.edt(c::getLocationOnScreen);
        return robot.createScreenCapture(new Rectangle(o.x, o.y, c.getWidth(), c.getHeight()));
    }

    static OverviewCanvas canvas(MainWindow w) throws Exception {
        return WindowSmokeTest.edt(() -> (OverviewCanvas) w.overview().getComponent(1));
    }

    static void shot(MainWindow w, Robot robot, String name) throws Exception {
        robot.waitForIdle();
        Rectangle r = WindowSmokeTest.edt(() -> new Rectangle(w.getLocationOnScreen(), w.getSize()));
        File out = new File(System.getProperty("slog2view.shots", dir.toString()), name);
        out.getParentFile().mkdirs();
        ImageIO.write(robot.createScreenCapture(r), "png", out);
    }

    /** A p of the view's curve whose partition has between {@code lo} and {@code hi} parts. */
    static double pWithParts(OverviewStrip.View v, int lo, int hi) {
        Overview.Curve c = v.ov.curve;
        for (int i = c.size() - 1; i >= 0; i--) {
            if (c.parts[i] >= lo && c.parts[i] <= hi) {
                return c.p[i];
            }
        }
        throw new AssertionError("no curve point with " + lo + ".." + hi + " parts");
    }

    static void setP(OverviewStrip strip, double p) throws Exception {
        WindowSmokeTest.edt(() -> {
            strip.setP(p);
            return null;
        });
        WindowSmokeTest.waitFor("p = " + p, () -> strip.idle() && strip.view().part.p == p);
    }

    static int rgb(Color c) {
        return c.getRGB() & 0xffffff;
    }

    @Test
    void temporalStripFollowsTheTimelineAndZoomsOnClick() throws Exception {
        Robot robot = new Robot();
        robot.setAutoDelay(20);
        MainWindow w = window(Fx.bigTrace());
        OverviewStrip strip = w.overview();
        TimelinePanel tl = w.timeline();
        Model m = tl.model();
        OverviewStrip.View v = settled(w);
        assertEquals(m.tMin, v.ov.t0);
        assertEquals(m.tMax, v.ov.t1);
        assertTrue(v.autoP && v.ov.curve.size() >= 2, "auto p on the curve");
        assertTrue(WindowSmokeTest.edt(strip::statusText).contains("temporal"));

        // A p of 4 to 30 parts (from the curve): on screen, each bar's bottom
        // pixel has the colour of its lowest layer, the gap after it is
        // background.
        double p = pWithParts(v, 4, 30);
        setP(strip, p);
        v = WindowSmokeTest.edt(strip::view);
        assertTrue(v.part.n >= 4, "parts at p = " + p + ": " + v.part.n);
        assertEquals(OverviewStrip.sliderOfP(0.02), 141);
        OverviewCanvas c = canvas(w);
        BufferedImage img = screen(robot, c);
        int w0 = img.getWidth(), h0 = img.getHeight();
        Renderer.Layout l = OverviewCanvas.layout(v.ov, w0, h0);
        double[] lay = OverviewCanvas.layers(v);
        int nc = v.ov.categories.length, checked = 0;
        for (int k = 0; k < v.part.n; k++) {
            int x0 = l.xOf(v.ov.sliceStart(v.part.first[k])), x1 = l.xOf(v.ov.sliceStart(v.part.last[k] + 1));
            if (x1 - x0 < 4) {
                continue;
            }
            int lowest = -1;
            for (int cc = 0; cc < nc && lowest < 0; cc++) {
                if (lay[k * nc + cc] > 0) {
                    lowest = cc;
                }
            }
            Color want = OverviewCanvas.colour(m, v.ov.categories[lowest]);
            assertEquals(rgb(want), img.getRGB((x0 + x1) / 2, h0 - 1) & 0xffffff, "bottom of bar " + k);
            assertEquals(rgb(Renderer.BACKGROUND), img.getRGB(x1 - 1, h0 - 1) & 0xffffff, "gap after bar " + k);
            checked++;
        }
        assertTrue(checked >= 3, "bars checked: " + checked);
        // The p mark on the curve plot.
        int px = OverviewCanvas.xOfP(v, p);
        assertEquals(rgb(OverviewCanvas.P_MARK), img.getRGB(px, h0 / 2) & 0xffffff, "p mark");
        shot(w, robot, "overview-temporal.png");

        // The slider: p = 1 is one part over the whole range.
        WindowSmokeTest.edt(() -> {
            strip.setP(1);
            return null;
        });
        WindowSmokeTest.waitFor("p = 1", () -> strip.idle() && strip.view().part.n == 1);

        // Click the middle part (at that p again): the timeline zooms to it,
        // and the overview follows the new range.
        setP(strip, p);
        OverviewStrip.View before = WindowSmokeTest.edt(strip::view);
        int k = before.part.n / 2;
        Renderer.Layout lb = OverviewCanvas.layout(before.ov, c.getWidth(), c.getHeight());
        int cx = (lb.xOf(before.ov.sliceStart(before.part.first[k])) + lb.xOf(before.ov.sliceStart(before.part.last[k] + 1))) / 2;
        double a = before.ov.sliceStart(before.part.first[k]), b = before.ov.sliceStart(before.part.last[k] + 1);
        Point o = WindowSmokeTest.edt(c::getLocationOnScreen);
        robot.mouseMove(o.x + cx, o.y + c.getHeight() - 3);
        robot.mousePress(InputEvent.BUTTON1_DOWN_MASK);
        robot.mouseRelease(InputEvent.BUTTON1_DOWN_MASK);
        WindowSmokeTest.waitFor("zoom to the part", () -> Math.abs(tl.t0() - a) < 1e-9 * (b - a) + 1e-12
                && Math.abs(tl.t1() - b) < 1e-9 * (b - a) + 1e-12);
        OverviewStrip.View after = settled(w);
        assertEquals(tl.t0(), after.ov.t0);
        assertEquals(p, after.part.p, "the fixed p carries over to the new range");

        // The timeline's own moves are followed too.
        double full = m.tMax - m.tMin;
        WindowSmokeTest.edt(() -> {
            tl.setWindow(m.tMin + full * 0.25, m.tMin + full * 0.5, true);
            return null;
        });
        OverviewStrip.View followed = settled(w);
        assertEquals(m.tMin + full * 0.25, followed.ov.t0, full * 1e-12);
        WindowSmokeTest.edt(() -> {
            strip.autoP();
            return null;
        });
        WindowSmokeTest.waitFor("auto p", () -> strip.idle() && strip.view().autoP);
        WindowSmokeTest.edt(() -> {
            w.dispose();
            return null;
        });
    }

    @Test
    void spatiotemporalStripDrawsModesAndThinGroups() throws Exception {
        Robot robot = new Robot();
        robot.setAutoDelay(20);
        MainWindow w = window(many);
        OverviewStrip strip = w.overview();
        assertEquals("NodeView", WindowSmokeTest.edt(strip::hierarchy), "the selected y-map has levels");
        WindowSmokeTest.edt(() -> {
            strip.setSpatiotemporal(true);
            return null;
        });
        WindowSmokeTest.waitFor("spatiotemporal", () -> strip.idle() && strip.view() != null
                && strip.view().rects != null);
        OverviewStrip.View v = WindowSmokeTest.edt(strip::view);
        assertEquals(OverviewStrip.SPATIAL_SLICES, v.ov.slices);
        Overview.Hierarchy hi = v.ov.hierarchy;
        assertEquals(300, hi.rowLine.length);
        assertEquals(1 + 43 + 300, hi.size(), "root, 43 nodes, 300 lines");
        // 300 lines in ~110 pixel rows: single lines are thinner than a row.
        assertTrue(v.minLines > 1, "lines per pixel row: " + v.minLines);
        int thin = 0;
        for (int k = 0; k < v.rects.size(); k++) {
            thin += v.rects.kind[k] != Overview.RECT_PLAIN ? 1 : 0;
        }
        assertTrue(thin > 0, "groups of thin parts are striped or crossed");
        shot(w, robot, "overview-spatiotemporal.png");
        // At a p of 100 to 400 parts (nodes of 7 lines over a few intervals)
        // each rectangle's middle pixel, on screen, has its mode's colour.
        setP(strip, pWithParts(v, 100, 400));
        v = WindowSmokeTest.edt(strip::view);
        OverviewCanvas c = canvas(w);
        BufferedImage img = screen(robot, c);
        int ww = img.getWidth(), hh = img.getHeight();
        Renderer.Layout l = OverviewCanvas.layout(v.ov, ww, hh);
        double rowH = hh / 300.0;
        int checked = 0;
        Model m = w.timeline().model();
        for (int k = 0; k < v.rects.size(); k++) {
            int node = v.rects.node[k];
            int x0 = l.xOf(v.ov.sliceStart(v.rects.first[k])), x1 = l.xOf(v.ov.sliceStart(v.rects.last[k] + 1));
            int y0 = (int) Math.round(hi.firstRow[node] * rowH);
            int y1 = (int) Math.round((hi.firstRow[node] + hi.lineCount(node)) * rowH);
            if (v.rects.kind[k] != Overview.RECT_PLAIN || x1 - x0 < 4 || y1 - y0 < 2) {
                continue;
            }
            int rw = x1 - x0 - OverviewCanvas.gap(x1 - x0), rh = y1 - y0 - OverviewCanvas.gap(y1 - y0);
            Color want = OverviewCanvas.colour(m, v.rects.mode[k]);
            assertEquals(rgb(want), img.getRGB(x0 + rw / 2, y0 + rh / 2) & 0xffffff, "mode colour of rect " + k);
            checked++;
        }
        assertTrue(checked >= 10, "rectangles checked: " + checked);
        shot(w, robot, "overview-spatiotemporal-coarse.png");
        // p = 1: one rectangle, the root, over everything.
        WindowSmokeTest.edt(() -> {
            strip.setP(1);
            return null;
        });
        WindowSmokeTest.waitFor("p = 1", () -> strip.idle() && strip.view().part.n == 1);
        v = WindowSmokeTest.edt(strip::view);
        assertEquals(1, v.rects.size());
        assertEquals(0, v.rects.node[0]);
        // A click on it zooms the timeline to the whole range it covers.
        double[] r = OverviewCanvas.rangeAt(v, c.getWidth(), c.getHeight(), c.getWidth() / 2, c.getHeight() / 2);
        assertNotNull(r);
        assertEquals(v.ov.t0, r[0]);
        assertEquals(v.ov.t1, r[1]);
        WindowSmokeTest.edt(() -> {
            w.dispose();
            return null;
        });
    }
}
