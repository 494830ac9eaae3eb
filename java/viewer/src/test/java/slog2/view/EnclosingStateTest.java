package slog2.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import org.junit.jupiter.api.Test;
import slog2.api.Drawables;

/**
 * The whole-file view of an MPE-style trace, whose every line sits inside
 * one grey {@code Main} state ({@link Fx#mpeTrace()}): as in Jumpshot-4, the
 * preview's shadows nest inside Main (one level down) and are painted after
 * it, so the picture shows the category mix (red, blue, green bars in the
 * proportions of the data), with grey only as Main's rim. The old order
 * (shadows first, real states over them) painted the rows grey.
 */
class EnclosingStateTest {
    @Test
    void wholeFileViewShowsTheCategoryMixInsideMain() throws Exception {
        try (Source s = ReaderSource.open(Fx.mpeTrace())) {
            Model m = new Model(s);
            // one line per row (ThreadView, ranks opened): one Main per row
            m.selectYMap(m.yMapNamed("ThreadView"), 1);
            Frame f = Frame.load(m, m.tMin, m.tMax);
            assertTrue(f.depth > 0, "the whole-file view is a preview (depth " + f.depth + ")");
            int mains = 0, shadows = 0;
            for (int i = 0; i < f.d.n; i++) {
                if (f.d.kind[i] == Drawables.KIND_SHADOW && f.topo[i] == slog2.api.Category.STATE) {
                    assertEquals(1, f.nest[i], "a shadow inside Main nests one level down");
                    shadows++;
                } else if (f.d.kind[i] == Drawables.KIND_PRIMITIVE && f.d.category[i] == 0) {
                    assertEquals(0, f.nest[i], "Main is the outermost state");
                    mains++;
                }
            }
            assertEquals(8, mains, "every line's Main is a real drawable of the upper levels");
            assertTrue(shadows > 8, "shadows summarise the rest: " + shadows);
            int w = 1600, h = 900;
            BufferedImage img = Renderer.image(m, f, w, h, -1);
            Renderer.Layout l = new Renderer.Layout(w, h, f.t0, f.t1, m.rows());
            long grey = 0, red = 0, blue = 0, green = 0;
            for (int y = l.top; y < l.bottom; y++) {
                for (int x = l.left; x < l.right; x++) {
                    switch (img.getRGB(x, y) & 0xffffff) {
                        case Fx.GREY -> grey++;
                        case Fx.RED -> red++;
                        case Fx.BLUE -> blue++;
                        case Fx.GREEN -> green++;
                        default -> { }
                    }
                }
            }
            double mix = red + blue + green;
            String report = String.format("grey %d red %d blue %d green %d", grey, red, blue, green);
            assertTrue(mix > 2 * grey, "the mix, not grey, fills the rows: " + report);
            assertTrue(grey > 0, "Main still shows as the rim: " + report);
            assertEquals(Fx.SHARES[0], red / mix, 0.05, "Compute's share: " + report);
            assertEquals(Fx.SHARES[1], blue / mix, 0.05, "MPI_Send's share: " + report);
            assertEquals(Fx.SHARES[2], green / mix, 0.05, "MPI_Recv's share: " + report);
            // along the middle of every rank's row: the largest category (red, at the bottom of
            // the centred stack), never Main's grey
            YTree t = f.tree;
            int rowsChecked = 0;
            for (int r = 0; r < t.rows(); r++) {
                if (t.expanded(r)) {
                    continue;
                }
                rowsChecked++;
                int y = l.rowCenter(r);
                int redCols = 0, greyCols = 0;
                for (int x = l.left + 10; x < l.right - 10; x++) {
                    int c = img.getRGB(x, y) & 0xffffff;
                    redCols += c == Fx.RED ? 1 : 0;
                    greyCols += c == Fx.GREY ? 1 : 0;
                }
                assertTrue(redCols > 0.9 * (l.right - l.left - 20), "row " + t.label(r) + ": red " + redCols);
                // Main shows only between shadows (Jumpshot's 3-pixel shadow insets)
                assertTrue(greyCols < 0.08 * (l.right - l.left - 20), "row " + t.label(r) + ": grey " + greyCols);
            }
            assertEquals(8, rowsChecked, "ThreadView opened: one row per thread");
        }
    }

    /**
     * Jumpshot's Process View merges a rank's two threads into one row: both
     * Mains nest there (the second one level down), the shadows one more; the
     * mix still fills the middle of every rank's row.
     */
    @Test
    void mergedRowsNestBothMainsAndStillShowTheMix() throws Exception {
        try (Source s = ReaderSource.open(Fx.mpeTrace())) {
            Model m = new Model(s);
            Frame f = Frame.load(m, m.tMin, m.tMax);
            for (int i = 0; i < f.d.n; i++) {
                if (f.d.kind[i] == Drawables.KIND_SHADOW && f.topo[i] == slog2.api.Category.STATE) {
                    assertTrue(f.nest[i] >= 2, "inside both Mains of the row (and the other line's shadows)");
                } else if (f.d.kind[i] == Drawables.KIND_PRIMITIVE && f.d.category[i] == 0) {
                    assertTrue(f.nest[i] <= 1, "Mains at levels 0 and 1");
                }
            }
            BufferedImage img = Renderer.image(m, f, 1600, 900, -1);
            Renderer.Layout l = new Renderer.Layout(1600, 900, f.t0, f.t1, m.rows());
            int rows = 0;
            for (int r = 0; r < f.tree.rows(); r++) {
                if (f.tree.expanded(r)) {
                    continue;
                }
                rows++;
                int y = l.rowCenter(r), redCols = 0;
                for (int x = l.left + 10; x < l.right - 10; x++) {
                    redCols += (img.getRGB(x, y) & 0xffffff) == Fx.RED ? 1 : 0;
                }
                assertTrue(redCols > 0.9 * (l.right - l.left - 20), "rank row " + r + ": red " + redCols);
            }
            assertEquals(4, rows, "ProcessView: one row per rank (its 2 threads merged)");
        }
    }
}
