package slog2.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import slog2.api.Category;
import slog2.api.Drawables;

/**
 * Zoomed out over a large generated trace, the view is a preview: the frame
 * holds shadows, and the pixels of the canvas carry the state categories in
 * the proportions of the data: each leaf state category's share of the
 * pixels of leaf state categories is within 0.05 of its share of their
 * exclusive durations. (A "container" category, whose states enclose others —
 * inclusive ratio well above exclusive — shows as the rim around its nested
 * states, so its pixels do not measure its time; it must still be there.)
 */
class ShadowTest {
    static boolean leaf(Category c) {
        return c.exclRatio >= 0.9 * c.inclRatio;
    }

    @Test
    void fullViewShowsShadowsWithTheDataMix() throws Exception {
        try (Source s = ReaderSource.open(Fx.bigTrace())) {
            Model m = new Model(s);
            Frame f = Frame.load(m, m.tMin, m.tMax);
            assertTrue(f.depth > 0, "full view of a 200k trace is a preview, depth " + f.depth);
            int shadows = 0;
            for (int i = 0; i < f.d.n; i++) {
                if (f.d.kind[i] == Drawables.KIND_SHADOW) {
                    shadows++;
                }
            }
            assertTrue(shadows > 0, "shadows in the full view");
            assertTrue(f.d.n < 200000 / 4, "a preview reads a fraction of the drawables: " + f.d.n);
            // the legend's visibility toggles: arrows and events off, as a user would to study the states
            for (int sl = 0; sl < m.categories.length; sl++) {
                m.visible[sl] = m.categories[sl].topology == Category.STATE;
            }
            BufferedImage img = Renderer.image(m, f, 1600, 900, -1);
            Renderer.Layout l = new Renderer.Layout(1600, 900, f.t0, f.t1, m.rows());
            Map<Integer, Integer> slotOfRgb = new HashMap<>();
            double totalExcl = 0;
            for (int sl = 0; sl < m.categories.length; sl++) {
                if (m.categories[sl].topology == Category.STATE && m.categories[sl].index >= 0) {
                    slotOfRgb.put(m.colour[sl].getRGB() & 0xffffff, sl);
                    if (leaf(m.categories[sl])) {
                        totalExcl += m.categories[sl].exclRatio;
                    }
                }
            }
            long[] px = new long[m.categories.length];
            long all = 0;
            for (int y = l.top; y < l.bottom; y++) {
                for (int x = l.left; x < l.right; x++) {
                    Integer sl = slotOfRgb.get(img.getRGB(x, y) & 0xffffff);
                    if (sl != null) {
                        px[sl]++;
                        if (leaf(m.categories[sl])) {
                            all++;
                        }
                    }
                }
            }
            assertTrue(all > 0.2 * (l.bottom - l.top) * (l.right - l.left), "state pixels cover the canvas: " + all);
            StringBuilder report = new StringBuilder();
            int seen = 0;
            for (int sl = 0; sl < m.categories.length; sl++) {
                Category c = m.categories[sl];
                if (c.topology != Category.STATE || c.index < 0) {
                    continue;
                }
                double want = leaf(c) ? c.exclRatio / totalExcl : 0, got = (double) px[sl] / all;
                report.append(String.format("%s want %.3f got %.3f; ", c.name, want, got));
                if (want > 0.02) {
                    assertTrue(px[sl] > 0, c.name + " missing from the preview: " + report);
                    seen++;
                }
                if (leaf(c)) {
                    assertEquals(want, got, 0.05, c.name + ": " + report);
                } else {
                    assertTrue(px[sl] > 0, c.name + " (container) missing: " + report);
                }
            }
            assertTrue(seen >= 3, "at least two state categories in the mix: " + report);
        }
    }
}
