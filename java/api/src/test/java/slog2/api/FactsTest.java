package slog2.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same facts as every other door: counts by the library's one
 * definition (equal to {@code slog2 info --json}), the moving window
 * ({@link WindowCursor}) equal to windows, and whole-file and time-range
 * scans ({@link Scan}) that give every drawable once, in batches.
 */
class FactsTest {
    static final String DATA = Cli.FIXTURES.resolve("trace-sample/data.slog2").toString();

    @Test
    void countsEqualInfoJson() throws Exception {
        Map<String, Object> info = Slog2ReaderTest.obj(Json.parse(Cli.ok("info", "--json", DATA)));
        Map<String, Object> want = Slog2ReaderTest.obj(info.get("counts"));
        try (Slog2Reader r = Slog2Reader.open(DATA)) {
            Counts c = r.counts();
            assertEquals("9 drawables (3 composites with 14 members), 20 primitives, 23 rows", c.toString());
            assertEquals((long) Slog2ReaderTest.num(want.get("drawables")), c.drawables);
            assertEquals((long) Slog2ReaderTest.num(want.get("members")), c.members);
            assertEquals((long) Slog2ReaderTest.num(want.get("rows")), c.rows);
            assertEquals(want.get("definition"), Counts.definition());
            for (Object o : Slog2ReaderTest.list(info.get("categories"))) {
                Map<String, Object> j = Slog2ReaderTest.obj(o);
                int k = c.indexOf(Slog2ReaderTest.inum(j.get("index")));
                assertTrue(k >= 0);
                assertEquals((long) Slog2ReaderTest.num(j.get("drawables")), c.categoryDrawables[k]);
                assertEquals((long) Slog2ReaderTest.num(j.get("members")), c.categoryMembers[k]);
                assertEquals((long) Slog2ReaderTest.num(j.get("count")), c.categoryStored[k]);
            }
            int uc = c.indexOf(183); // the composite category: counted 3, stored 0
            assertEquals(3, c.categoryDrawables[uc]);
            assertEquals(0, c.categoryStored[uc]);
            double[] tt = r.totalTime();
            Drawables all = r.window(tt[0], tt[1]);
            assertEquals(c.rows, all.n);
            int members = 0;
            for (int i = 0; i < all.n; i++) {
                members += all.parent[i] >= 0 ? 1 : 0;
            }
            assertEquals(c.members, members);
        }
    }

    /** Rows as sortable strings (drawing ties may come in another order from a cursor). */
    static List<String> rows(Drawables d) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < d.n; i++) {
            out.add(d.kind[i] + " " + d.category[i] + " " + d.start[i] + " " + d.end[i] + " " + d.time0[i] + " "
                    + d.time1[i] + " " + d.line0[i] + " " + d.line1[i] + " " + d.numReal[i] + " "
                    + (d.parent[i] < 0 ? -1 : d.parent[i] - i) + " " + Arrays.toString(d.infoOf(i)));
        }
        out.sort(null);
        return out;
    }

    @Test
    void cursorMovesEqualWindows(@TempDir Path tmp) throws Exception {
        Path big = tmp.resolve("big.slog2");
        Cli.ok("bench", "write", "200000", "-o", big.toString());
        try (Slog2Reader r = Slog2Reader.open(big.toString()); WindowCursor c = r.cursor()) {
            double[] tt = r.totalTime();
            double span = (tt[1] - tt[0]) / 300;
            long fresh = -1;
            List<Long> scrolls = new ArrayList<>();
            for (int k = 0; k < 14; k++) {
                double a = k < 12 ? tt[0] + (tt[1] - tt[0]) * 0.3 + k * span / 4 : tt[0] + (tt[1] - tt[0]) * 0.8;
                Drawables got = c.move(a, a + span);
                Drawables want = r.window(a, a + span);
                assertTrue(got.n > 0);
                assertEquals(rows(want), rows(got), "move " + k);
                if (k == 0) {
                    fresh = got.bytesRead;
                } else if (k < 12) {
                    scrolls.add(got.bytesRead);
                }
            }
            scrolls.sort(null);
            assertTrue(scrolls.get(scrolls.size() / 2) < fresh / 2, "a scroll decodes the entering rows: " + scrolls
                    + " vs " + fresh);
            assertThrows(Slog2Exception.class, () -> c.move(2, 1));
            assertThrows(Slog2Exception.class, () -> c.move(Double.NaN, 1));
        }
    }

    @Test
    void scanGivesEveryRowOnceInBatches() throws Exception {
        for (String f : new String[] {DATA, Cli.FIXTURES.resolve("clog2/big_stencil.slog2").toString()}) {
            try (Slog2Reader r = Slog2Reader.open(f)) {
                double[] tt = r.totalTime();
                Drawables all = r.window(tt[0], tt[1]);
                for (int batch : new int[] {1, 3, 1000, 1 << 16}) {
                    List<String> got = new ArrayList<>();
                    int batches = 0;
                    try (Scan s = r.scan(batch)) {
                        for (Drawables d : s) {
                            batches++;
                            // whole records: only a single record may exceed the batch
                            assertTrue(d.n <= batch || d.kind[0] == Drawables.KIND_COMPOSITE && d.n == d.numReal[0] + 1,
                                    f + " batch " + batch + ": " + d.n + " rows");
                            assertEquals(-1, d.parent[0], "a batch starts with a record");
                            got.addAll(rows(d));
                        }
                        assertNull(s.next(true));
                    }
                    got.sort(null);
                    assertEquals(rows(all), got, f + " batch " + batch);
                    assertTrue(batches >= Math.min(all.n, 2) / Math.max(1, batch), f);
                }
                // consecutive ranges (closed at both ends: cut between ends) cover the file once
                double mid = tt[0] + (tt[1] - tt[0]) / 2;
                List<String> got = new ArrayList<>();
                int n = 0;
                for (double[] w : new double[][] {{tt[0], mid}, {Math.nextUp(mid), tt[1]}}) {
                    try (Scan s = r.scan(7, w[0], w[1])) {
                        for (Drawables d : s) {
                            for (int i = 0; i < d.n; i++) {
                                if (d.parent[i] < 0) {
                                    assertTrue(d.end[i] >= w[0] && d.end[i] <= w[1]);
                                }
                            }
                            got.addAll(rows(d));
                            n += d.n;
                        }
                    }
                }
                assertEquals(all.n, n, f);
                got.sort(null);
                assertEquals(rows(all), got, f);
            }
        }
    }

    @Test
    void badArgumentsAndClosedReadersEndCursorsAndScans() throws Exception {
        Slog2Reader r = Slog2Reader.open(DATA);
        assertThrows(Slog2Exception.class, () -> r.scan(0));
        Slog2Exception e = assertThrows(Slog2Exception.class, () -> r.scan(10, Double.NaN, 1));
        assertTrue(e.getMessage().contains("not a number"), e.getMessage());
        assertThrows(Slog2Exception.class, () -> r.scan(10, 2, 1));
        WindowCursor c = r.cursor();
        Scan s = r.scan(2);
        assertTrue(s.next(true).n >= 1);
        r.close();
        Slog2Exception ce = assertThrows(Slog2Exception.class, () -> c.move(0, 1));
        assertTrue(ce.getMessage().contains("was closed"), ce.getMessage());
        Slog2Exception se = assertThrows(Slog2Exception.class, () -> s.next(true));
        assertTrue(se.getMessage().contains("was closed"), se.getMessage());
        c.close();
        s.close();
        s.close();
        assertThrows(Slog2Exception.class, () -> c.move(0, 1));
    }
}
