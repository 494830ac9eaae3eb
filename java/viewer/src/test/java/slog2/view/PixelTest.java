package slog2.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Color;
import java.awt.image.BufferedImage;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import slog2.api.Category;
import slog2.api.Drawables;

/**
 * States are painted in their category's colour where they are: for every
 * outermost state of a fixture (and of a generated trace, zoomed in to full
 * detail), the pixel inside its box near the top edge — away from arrows and
 * composite outlines — has exactly the category's RGB.
 */
class PixelTest {
    static boolean nearArrow(Frame f, Renderer.Layout l, int x, int y) {
        Drawables d = f.d;
        for (int i = 0; i < d.n; i++) {
            if (f.topo[i] == Category.ARROW || f.topo[i] == Category.EVENT) {
                if (f.row0[i] < 0 || f.row1[i] < 0) {
                    continue;
                }
                double dist = Renderer.segDist(x, y, l.xOf(d.time0[i]), l.rowCenter(f.row0[i]), l.xOf(d.time1[i]),
                        f.topo[i] == Category.EVENT ? l.rowTop(f.row0[i]) : l.rowCenter(f.row1[i]));
                if (dist < 8) {
                    return true;
                }
            }
            if (d.kind[i] == Drawables.KIND_COMPOSITE) {
                if (Math.abs(x - l.xOf(d.start[i])) < 3 || Math.abs(x - l.xOf(d.end[i])) < 3) {
                    return true;
                }
            }
        }
        return false;
    }

    static int check(Model m, Frame f, BufferedImage img, int minChecks) {
        Renderer.Layout l = new Renderer.Layout(img.getWidth(), img.getHeight(), f.t0, f.t1, m.rows());
        Drawables d = f.d;
        int checked = 0;
        for (int i = 0; i < d.n; i++) {
            if (f.topo[i] != Category.STATE || d.kind[i] != Drawables.KIND_PRIMITIVE || f.nest[i] != 0
                    || f.row0[i] < 0) {
                continue;
            }
            int x0 = l.xOf(Math.max(d.start[i], f.t0)), x1 = l.xOf(Math.min(d.end[i], f.t1));
            if (x1 - x0 < 8) {
                continue;
            }
            int x = (x0 + x1) / 2;
            int[] box = l.stateBox(f.row0[i], 0);
            int y = box[0] + 2;
            if (nearArrow(f, l, x, y) || x <= l.left || x >= l.right) {
                continue;
            }
            // a later outermost state on the same row over this pixel would win; skip those
            boolean covered = false;
            for (int j = i + 1; j < d.n; j++) {
                if (j != i && f.topo[j] == Category.STATE && f.row0[j] == f.row0[i] && f.nest[j] == 0
                        && l.xOf(d.start[j]) <= x && l.xOf(d.end[j]) >= x) {
                    covered = true;
                }
            }
            if (covered) {
                continue;
            }
            Color want = m.colour[f.slot[i]];
            assertEquals(want.getRGB() & 0xffffff, img.getRGB(x, y) & 0xffffff,
                    "pixel (" + x + "," + y + ") of state " + i + " " + m.categories[f.slot[i]].name + " ["
                            + d.start[i] + "," + d.end[i] + "] line " + d.line0[i]);
            checked++;
        }
        assertTrue(checked >= minChecks, "only " + checked + " states checked");
        return checked;
    }

    @ParameterizedTest
    @ValueSource(strings = {"data.slog2", "barrier.slog2", "data.shipped.slog2", "onetimeline.slog2"})
    void fixtureStatesHaveTheirColours(String name) throws Exception {
        try (Source s = ReaderSource.open(Fx.sample(name))) {
            Model m = new Model(s);
            Frame f = Frame.load(m, m.tMin, m.tMax);
            BufferedImage img = Renderer.image(m, f, 1400, 500, -1);
            check(m, f, img, name.startsWith("onetimeline") ? 1 : 3);
        }
    }

    @org.junit.jupiter.api.Test
    void generatedTraceZoomedInHasColours() throws Exception {
        try (Source s = ReaderSource.open(Fx.bigTrace())) {
            Model m = new Model(s);
            double span = (m.tMax - m.tMin) / 20000;
            double a = m.tMin + (m.tMax - m.tMin) * 0.37;
            Frame f = Frame.load(m, a, a + span);
            assertEquals(0, f.depth, "zoomed in this far the view is at full detail");
            BufferedImage img = Renderer.image(m, f, 1600, 900, -1);
            check(m, f, img, 4);
        }
    }
}
