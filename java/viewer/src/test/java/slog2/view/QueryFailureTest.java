package slog2.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import slog2.api.Drawables;

/**
 * Pans through the window cursor, and what a failed query leaves: a file
 * whose whole-file view works but one leaf is damaged; zooming onto that
 * leaf fails, and the canvas then holds no frame (never the previous one on
 * the new axis) and names the window and the library's message; going back
 * to a good window shows a frame again.
 */
class QueryFailureTest {
    @Test
    void aFailedQueryDropsTheOldFrameAndSaysWhy(@TempDir Path dir) throws Exception {
        Path txt = dir.resolve("t.txt");
        Files.writeString(txt, Fx.mpeText(2, 1, 3000));
        Path good = dir.resolve("good.slog2");
        Fx.run(List.of(Fx.cli(), "convert", "-q", txt.toString(), "-o", good.toString(), "--ls", "4k"), 0);
        // a leaf in the middle of the tree directory (slog2 print lists it with its box and bytes)
        Matcher mt = Pattern.compile("ID\\(0,(\\d+)\\) -> DirVal\\[ TimeBBox\\(([^,]+),([^)]+)\\), FBinfo\\((\\d+) @ (\\d+)\\)")
                .matcher(Fx.run(List.of(Fx.cli(), "print", good.toString()), 0));
        List<double[]> leaves = new ArrayList<>();
        while (mt.find()) {
            leaves.add(new double[] {Double.parseDouble(mt.group(2)), Double.parseDouble(mt.group(3)),
                Long.parseLong(mt.group(5))});
        }
        assertTrue(leaves.size() > 8, "leaves: " + leaves.size());
        double[] leaf = leaves.get(leaves.size() / 2);
        byte[] b = Files.readAllBytes(good);
        for (int k = 30; k < 40; k++) {
            b[(int) leaf[2] + k] = 0x7f;
        }
        Path bad = dir.resolve("bad.slog2");
        Files.write(bad, b);
        try (Source s = ReaderSource.open(bad.toString())) {
            Model m = new Model(s);
            Frame first = Frame.load(m, m.tMin, m.tMax);
            assertTrue(first.depth > 0 && first.d.n > 0, "the whole-file view reads no leaf");
            Loader loader = new Loader();
            AtomicReference<Exception> reported = new AtomicReference<>();
            TimelinePanel tl = WindowSmokeTest.edt(() -> {
                TimelinePanel p = new TimelinePanel(m, loader);
                p.onError(reported::set);
                p.show(first);
                return p;
            });
            double mid = (leaf[0] + leaf[1]) / 2, w = (leaf[1] - leaf[0]) / 4;
            WindowSmokeTest.edt(() -> {
                tl.setWindow(mid - w, mid + w, true);
                return null;
            });
            WindowSmokeTest.waitFor("the failure", () -> tl.failure() != null);
            assertNull(tl.frame(), "no old frame stretched onto the new axis");
            assertTrue(tl.failure().startsWith("query of ["), tl.failure());
            assertTrue(tl.failure().contains("malformed") || tl.failure().contains("truncated"), tl.failure());
            assertNotNull(reported.get(), "the window was told (status line, dialog)");
            WindowSmokeTest.edt(() -> {
                tl.fit();
                return null;
            });
            WindowSmokeTest.waitFor("a frame again", () -> tl.frame() != null);
            assertNull(tl.failure());
            loader.shutdown();
        }
    }

    @Test
    void fullDetailPansGoThroughTheWindowCursor() throws Exception {
        try (Source s = ReaderSource.open(Fx.bigTrace())) {
            Model m = new Model(s);
            double span = m.tMax - m.tMin;
            while (m.depthFor(span) > 0) {
                span /= 2;
            }
            for (int k = 0; k < 6; k++) {
                double a = m.tMin + (m.tMax - m.tMin) * 0.4 + k * span / 10;
                Frame f = Frame.load(m, a, a + span);
                assertEquals(0, f.depth);
                assertTrue(f.viaCursor, "a full-detail window goes through the cursor");
                Drawables want = s.window(a, a + span);
                assertEquals(sorted(want), sorted(f.d), "the cursor's rows are the window's");
                if (k > 0) {
                    assertTrue(f.d.bytesRead < 0.5 * want.bytesRead, "a pan decodes the entering drawables: "
                            + f.d.bytesRead + " of " + want.bytesRead);
                }
            }
            Frame p = Frame.load(m, m.tMin, m.tMax);
            assertTrue(p.depth > 0 && !p.viaCursor, "previews are fresh queries");
            m.useCursor = false;
            assertTrue(!Frame.load(m, m.tMin, m.tMin + span).viaCursor);
        }
    }

    static List<String> sorted(Drawables d) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < d.n; i++) {
            out.add(d.kind[i] + " " + d.category[i] + " " + d.start[i] + " " + d.end[i] + " " + d.line0[i] + " "
                    + d.line1[i] + " " + d.time0[i] + " " + d.time1[i]);
        }
        out.sort(null);
        return out;
    }
}
