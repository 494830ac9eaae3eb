package slog2.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * {@link Overview} against the CLI's JSON of the same overview (the core's own
 * answer, `slog2 overview --format json`): cube, parts, hierarchy, curve, for a
 * temporal and a multi-level spatiotemporal overview; setP, the picture's rows
 * and rectangles, the cache (its directory is set by java/build.sh), errors.
 */
class OverviewTest {
    static final Path DEMO = Cli.FIXTURES.resolve("trace-sample/data.slog2");
    static final Path THREADS = Cli.FIXTURES.resolve("clog2/threads.slog2");

    static Map<String, Object> cli(Path file, String... args) throws Exception {
        List<String> a = new ArrayList<>(List.of("overview", file.toString(), "--format", "json", "--no-cache"));
        a.addAll(List.of(args));
        return Slog2ReaderTest.obj(Json.parse(Cli.ok(a.toArray(new String[0]))));
    }

    static int[] intList(Object o) {
        return Slog2ReaderTest.list(o).stream().mapToInt(Slog2ReaderTest::inum).toArray();
    }

    static void close(double want, double got, String at) {
        assertTrue(Math.abs(want - got) <= 1e-9 * (1 + Math.abs(want)), at + ": " + want + " vs " + got);
    }

    /** The overview's answers equal the JSON's, field by field. */
    static void same(Map<String, Object> j, Overview ov) throws Exception {
        assertEquals((double) (Double) j.get("t0"), ov.t0);
        assertEquals((double) (Double) j.get("t1"), ov.t1);
        assertEquals(Slog2ReaderTest.inum(j.get("slices")), ov.slices);
        assertArrayEquals(intList(j.get("lines")), ov.lines);
        assertArrayEquals(intList(j.get("categories")), ov.categories);
        assertEquals(j.get("exact"), ov.exact);
        // The cube, [line][slice][category].
        double[] cube = ov.cube();
        int k = 0;
        for (Object line : Slog2ReaderTest.list(j.get("cube"))) {
            for (Object slice : Slog2ReaderTest.list(line)) {
                for (Object v : Slog2ReaderTest.list(slice)) {
                    close(Slog2ReaderTest.num(v), cube[k], "cube cell " + k);
                    k++;
                }
            }
        }
        assertEquals(cube.length, k);
        // The parts.
        Overview.Partition p = ov.partition();
        List<Object> parts = Slog2ReaderTest.list(j.get("parts"));
        assertEquals(parts.size(), p.n);
        close((Double) j.get("p"), p.p, "p");
        close((Double) j.get("gain"), p.gain, "gain");
        close((Double) j.get("loss"), p.loss, "loss");
        int nc = ov.categories.length;
        for (int i = 0; i < p.n; i++) {
            Map<String, Object> q = Slog2ReaderTest.obj(parts.get(i));
            assertEquals(Slog2ReaderTest.inum(q.get("first")), p.first[i], "first of part " + i);
            assertEquals(Slog2ReaderTest.inum(q.get("last")), p.last[i], "last of part " + i);
            assertEquals(q.containsKey("node") ? Slog2ReaderTest.inum(q.get("node")) : -1, p.node[i]);
            assertEquals(q.get("mode") == null ? -1 : Slog2ReaderTest.inum(q.get("mode")), p.mode[i]);
            close((Double) q.get("gain"), p.partGain[i], "gain of part " + i);
            close((Double) q.get("loss"), p.partLoss[i], "loss of part " + i);
            List<Object> vals = Slog2ReaderTest.list(q.get("values"));
            for (int c = 0; c < nc; c++) {
                close(Slog2ReaderTest.num(vals.get(c)), p.values[i * nc + c], "value " + c + " of part " + i);
            }
            close((Double) q.get("t0"), ov.sliceStart(p.first[i]), "t0 of part " + i);
            close((Double) q.get("t1"), ov.sliceStart(p.last[i] + 1), "t1 of part " + i);
        }
        // The curve.
        List<Object> curve = j.containsKey("curve") ? Slog2ReaderTest.list(j.get("curve")) : List.of();
        assertEquals(curve.size(), ov.curve.size());
        for (int i = 0; i < curve.size(); i++) {
            Map<String, Object> c = Slog2ReaderTest.obj(curve.get(i));
            assertEquals((double) (Double) c.get("p"), ov.curve.p[i]);
            assertEquals(Slog2ReaderTest.inum(c.get("parts")), ov.curve.parts[i]);
            close((Double) c.get("gain"), ov.curve.gain[i], "curve gain " + i);
            close((Double) c.get("loss"), ov.curve.loss[i], "curve loss " + i);
        }
        // The hierarchy.
        if (!j.containsKey("hierarchy")) {
            assertNull(ov.hierarchy);
            return;
        }
        List<Object> h = Slog2ReaderTest.list(j.get("hierarchy"));
        Overview.Hierarchy oh = ov.hierarchy;
        assertEquals(h.size(), oh.size());
        for (int i = 0; i < h.size(); i++) {
            Map<String, Object> node = Slog2ReaderTest.obj(h.get(i));
            Object par = node.get("parent");
            assertEquals(par == null ? -1 : Slog2ReaderTest.inum(par), oh.parent[i]);
            assertEquals(node.get("label"), oh.label[i]);
            int[] want = intList(node.get("lines"));
            int[] got = java.util.Arrays.copyOfRange(oh.lines, oh.lineOffset[i], oh.lineOffset[i + 1]);
            assertArrayEquals(want, got, "lines of node " + i);
            // Picture rows: the node's lines are one run.
            int[] run = java.util.Arrays.copyOfRange(oh.rowLine, oh.firstRow[i], oh.firstRow[i] + want.length);
            java.util.Arrays.sort(run);
            int[] sorted = want.clone();
            java.util.Arrays.sort(sorted);
            assertArrayEquals(sorted, run, "rows of node " + i);
        }
    }

    @Test
    void temporalEqualsTheCli() throws Exception {
        try (Slog2Reader r = Slog2Reader.open(DEMO.toString());
                Overview ov = r.overview(new Overview.Spec().slices(12).bisect(0.001).cache(false))) {
            same(cli(DEMO, "--slices", "12", "--bisect", "0.001", "--cube"), ov);
            assertTrue(ov.curve.size() >= 2);
            assertEquals(0, ov.rects(1).size(), "a temporal overview has no rectangles");
            // Another p: what the CLI says at that p, without re-reading.
            ov.setP(0.2);
            Map<String, Object> at = cli(DEMO, "--slices", "12", "--p", "0.2", "--cube");
            assertEquals(Slog2ReaderTest.list(at.get("parts")).size(), ov.partition().n);
            assertEquals(1, ov.setP(1).n);
            assertEquals(12, ov.setP(0).n, "the demo's 12 slices all differ");
        }
        try (Slog2Reader r = Slog2Reader.open(DEMO.toString());
                Overview ov = r.overview(new Overview.Spec().slices(8).metric(Overview.COUNT).p(0.4)
                        .range(0.001, 0.006).cache(false))) {
            same(cli(DEMO, "--slices", "8", "--metric", "count", "--p", "0.4", "--from", "0.001", "--to", "0.006",
                    "--cube"), ov);
            assertEquals(Overview.COUNT, ov.metric);
        }
    }

    @Test
    void spatiotemporalEqualsTheCli() throws Exception {
        String map = "Process-Thread View";
        try (Slog2Reader r = Slog2Reader.open(THREADS.toString());
                Overview ov = r.overview(new Overview.Spec().slices(10).spatiotemporal(map).p(0.3).cache(false))) {
            same(cli(THREADS, "--slices", "10", "--spatiotemporal", "--hierarchy", map, "--p", "0.3", "--cube"), ov);
            Overview.Hierarchy h = ov.hierarchy;
            assertEquals(-1, h.parent[0]);
            assertEquals(ov.lines.length, h.lineCount(0));
            assertTrue(h.size() > ov.lines.length + 1, "a multi-level hierarchy");
            // Rectangles at full resolution are the parts; coarser ones cover
            // every line x slice exactly once as well.
            for (double minLines : new double[] {1, 2.5, 1e9}) {
                Overview.Rects rc = ov.rects(minLines);
                Overview.Partition p = ov.partition();
                if (minLines == 1) {
                    assertEquals(p.n, rc.size());
                }
                int[][] cover = new int[ov.lines.length][ov.slices];
                for (int k = 0; k < rc.size(); k++) {
                    int n = rc.node[k];
                    assertTrue(rc.kind[k] >= Overview.RECT_PLAIN && rc.kind[k] <= Overview.RECT_CROSSED);
                    assertTrue(rc.mode[k] == -1 || ov.categoryPosition(rc.mode[k]) >= 0);
                    for (int row = h.firstRow[n]; row < h.firstRow[n] + h.lineCount(n); row++) {
                        for (int t = rc.first[k]; t <= rc.last[k]; t++) {
                            cover[row][t]++;
                        }
                    }
                }
                for (int[] row : cover) {
                    for (int c : row) {
                        assertEquals(1, c, "rectangles at " + minLines + " lines tile the picture");
                    }
                }
            }
            Overview.Partition one = ov.setP(1);
            assertEquals(1, one.n);
            assertEquals(0, one.node[0]);
        }
    }

    @Test
    void theCacheIsTheDefault() throws Exception {
        String dir = System.getenv("SLOG2_CACHE_DIR");
        assertTrue(dir != null && dir.contains("java"), "java/build.sh points the cache into its build tree");
        try (Slog2Reader r = Slog2Reader.open(THREADS.toString())) {
            try (Overview a = r.overview(new Overview.Spec().slices(10))) {
                assertTrue(a.exact, "10 slices of 1,000 cached");
            }
            try (Overview b = r.overview(new Overview.Spec().slices(10));
                    Overview c = r.overview(new Overview.Spec().slices(10).cache(false))) {
                assertTrue(b.fromCache);
                assertFalse(c.fromCache);
                double[] x = b.cube(), y = c.cube();
                for (int k = 0; k < x.length; k++) {
                    close(y[k], x[k], "cached cube cell " + k);
                }
            }
            try (Overview d = r.overview(new Overview.Spec().slices(7))) {
                assertFalse(d.exact, "7 slices split cached ones");
            }
        }
    }

    @Test
    void errorsAreExceptionsWithTheLibrarysMessage() throws Exception {
        Slog2Reader r = Slog2Reader.open(DEMO.toString());
        Slog2Exception e = assertThrows(Slog2Exception.class,
                () -> r.overview(new Overview.Spec().spatiotemporal("no such map")));
        assertTrue(e.getMessage().contains("no such map"), e.getMessage());
        assertThrows(Slog2Exception.class, () -> r.overview(new Overview.Spec().slices(0)));
        assertThrows(Slog2Exception.class, () -> r.overview(new Overview.Spec().metric(7)));
        assertThrows(Slog2Exception.class, () -> r.overview(new Overview.Spec().range(1, 0)));
        assertThrows(NullPointerException.class, () -> r.overview(null));
        Overview ov = r.overview(new Overview.Spec().slices(4).cache(false));
        e = assertThrows(Slog2Exception.class, () -> ov.setP(1.5));
        assertTrue(e.getMessage().contains("1.5"), e.getMessage());
        ov.close();
        ov.close();
        assertThrows(Slog2Exception.class, () -> ov.setP(0.5));
        assertThrows(Slog2Exception.class, () -> ov.rects(1));
        r.close();
        assertThrows(Slog2Exception.class, () -> r.overview(new Overview.Spec()));
    }
}
