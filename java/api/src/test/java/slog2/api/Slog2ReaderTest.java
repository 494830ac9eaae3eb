package slog2.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java API against the Rust core's own answers: for every .slog2 fixture,
 * categories ({@code slog2 info --json}), y-maps and popup texts
 * ({@code slog2 print}), windows and previews ({@code slog2 query --format json}),
 * drawable for drawable.
 */
class Slog2ReaderTest {

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> obj(Object o) {
        return (Map<String, Object>) o;
    }

    /** A JSON number; the CLI writes NaN and infinities as null. */
    static double num(Object o) {
        return o == null ? Double.NaN : (Double) o;
    }

    static void sameNumber(Object json, double got, String at) {
        if (json == null) {
            assertTrue(!Double.isFinite(got), at + ": JSON null, API " + got);
        } else {
            assertEquals((double) (Double) json, got, at);
        }
    }

    static void sameFloat(Object json, float got, String at) {
        if (json == null) {
            assertTrue(!Float.isFinite(got), at + ": JSON null, API " + got);
        } else {
            assertEquals((float) (double) (Double) json, got, at);
        }
    }

    static int inum(Object o) {
        return (int) (double) (Double) o;
    }

    @TestFactory
    Stream<DynamicTest> everyFixture() throws Exception {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path p : Cli.slog2Fixtures()) {
            String name = Cli.FIXTURES.relativize(p).toString();
            tests.add(DynamicTest.dynamicTest(name + ": categories", () -> checkCategories(p)));
            tests.add(DynamicTest.dynamicTest(name + ": y-maps", () -> checkMaps(p)));
            tests.add(DynamicTest.dynamicTest(name + ": windows and previews", () -> checkQueries(p)));
            tests.add(DynamicTest.dynamicTest(name + ": popup texts", () -> checkPopups(p)));
        }
        return tests.stream();
    }

    static void checkCategories(Path p) throws Exception {
        Map<String, Object> info = obj(Json.parse(Cli.ok("info", "--json", p.toString())));
        List<Object> want = list(info.get("categories"));
        try (Slog2Reader r = Slog2Reader.open(p.toString())) {
            Category[] got = r.categories();
            assertEquals(want.size(), got.length, "category count");
            for (int i = 0; i < got.length; i++) {
                Map<String, Object> w = obj(want.get(i));
                Category c = got[i];
                String at = p.getFileName() + " category #" + i;
                assertEquals(inum(w.get("index")), c.index, at);
                assertEquals(w.get("name"), c.name, at);
                int topo = Arrays.asList("Event", "State", "Arrow").indexOf((String) w.get("topology"));
                assertEquals(topo, c.topology, at);
                List<Object> col = list(w.get("color"));
                assertArrayEquals(new int[] {inum(col.get(0)), inum(col.get(1)), inum(col.get(2)), inum(col.get(3))},
                        new int[] {c.red, c.green, c.blue, c.alpha}, at);
                assertEquals(inum(w.get("width")), c.width, at);
                String label = (String) w.get("label");
                assertEquals(label.isEmpty() ? null : label, c.label, at);
                assertArrayEquals(list(w.get("methods")).stream().mapToInt(Slog2ReaderTest::inum).toArray(),
                        c.methods, at);
                assertEquals((long) num(w.get("count")), c.count, at);
                sameFloat(w.get("incl_ratio"), c.inclRatio, at);
                sameFloat(w.get("excl_ratio"), c.exclRatio, at);
            }
            assertEquals(inum(info.get("max_depth")), r.rootDepth());
            double[] tt = r.totalTime();
            assertEquals(num(info.get("start")), tt[0]);
            assertEquals(num(info.get("end")), tt[1]);
        }
    }

    /** Y-maps as `slog2 print` lists them ("LineIDMapList"). */
    static void checkMaps(Path p) throws Exception {
        String print = Cli.ok("print", p.toString());
        int at = print.indexOf("LineIDMapList:");
        assertTrue(at >= 0, "print has a LineIDMapList");
        String[] lines = print.substring(at).split("\n");
        List<String> titles = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        List<List<int[]>> rows = new ArrayList<>();
        List<Integer> nmethods = new ArrayList<>();
        Pattern row = Pattern.compile("^\\d+, (-?\\d+):((?: +-?\\d+)*) *$");
        for (String l : lines) {
            if (l.startsWith("Title: ")) {
                titles.add(l.substring(7));
                rows.add(new ArrayList<>());
                nmethods.add(0);
            } else if (l.startsWith("Column Labels: LineID -> ")) {
                labels.add(l.substring(25).trim());
            } else if (l.startsWith("methods=< ")) {
                nmethods.set(nmethods.size() - 1, l.substring(10, l.length() - 2).trim().split(" +").length);
            } else {
                Matcher m = row.matcher(l);
                if (m.matches() && !rows.isEmpty()) {
                    String[] v = m.group(2).trim().split(" +");
                    int[] r = new int[v.length + 1];
                    r[0] = Integer.parseInt(m.group(1));
                    for (int k = 0; k < v.length; k++) {
                        r[k + 1] = v[k].isEmpty() ? 0 : Integer.parseInt(v[k]);
                    }
                    rows.get(rows.size() - 1).add(r);
                }
            }
        }
        try (Slog2Reader r = Slog2Reader.open(p.toString())) {
            YMap[] maps = r.yMaps();
            assertEquals(titles.size(), maps.length, "map count");
            for (int i = 0; i < maps.length; i++) {
                YMap m = maps[i];
                assertEquals(titles.get(i), m.title);
                assertEquals(labels.get(i), String.join(" ", m.columnLabels));
                assertEquals(nmethods.get(i).intValue(), m.methods.length, m.title + " methods");
                List<int[]> want = rows.get(i);
                assertEquals(want.size(), m.rows(), m.title + " rows");
                for (int k = 0; k < m.rows(); k++) {
                    int[] got = new int[m.columnLabels.length + 1];
                    got[0] = m.lineIDs[k];
                    for (int c = 0; c < m.columnLabels.length; c++) {
                        got[c + 1] = m.value(k, c);
                    }
                    assertArrayEquals(want.get(k), got, m.title + " row " + k);
                }
            }
        }
    }

    /** The windows and previews every fixture is queried with. */
    static List<double[]> windows(double a, double b) {
        List<double[]> w = new ArrayList<>();
        w.add(new double[] {a, b});
        for (int k = 0; k < 4; k++) {
            w.add(new double[] {a + k * (b - a) / 4, a + (k + 1) * (b - a) / 4});
        }
        double mid = (a + b) / 2;
        w.add(new double[] {mid, mid});
        w.add(new double[] {a + (b - a) * 0.37, a + (b - a) * 0.41});
        return w;
    }

    static void checkQueries(Path p) throws Exception {
        try (Slog2Reader r = Slog2Reader.open(p.toString())) {
            double[] tt = r.totalTime();
            int depth = r.rootDepth();
            for (double[] w : windows(tt[0], tt[1])) {
                String from = "--from=" + w[0], to = "--to=" + w[1];
                String json = Cli.ok("query", "--format", "json", from, to, p.toString());
                compare(r, r.window(w[0], w[1]), list(Json.parse(json)), p + " window " + Arrays.toString(w));
                for (int d = 0; d <= depth + 1; d++) {
                    json = Cli.ok("query", "--format", "json", from, to, "--depth=" + d, p.toString());
                    compare(r, r.preview(w[0], w[1], d), list(Json.parse(json)),
                            p + " preview depth " + d + " " + Arrays.toString(w));
                }
            }
        }
    }

    static void compare(Slog2Reader r, Drawables d, List<Object> want, String what) throws Exception {
        int row = 0;
        int w = 0;
        for (Object o : want) {
            Map<String, Object> x = obj(o);
            String at = what + " item " + w++ + " row " + row;
            String kind = (String) x.get("kind");
            assertTrue(row < d.n, at + ": missing rows (" + d.n + ")");
            assertEquals(inum(x.get("category")), d.category[row], at);
            assertEquals(num(x.get("start")), d.start[row], at);
            assertEquals(num(x.get("end")), d.end[row], at);
            if (kind.equals("shadow")) {
                assertEquals(Drawables.KIND_SHADOW, d.kind[row], at);
                assertEquals((long) num(x.get("num_real")), d.numReal[row], at);
                assertEquals(-1, d.parent[row], at);
                assertEquals(d.start[row], d.time0[row], at);
                assertEquals(d.end[row], d.time1[row], at);
                List<Object> v = list(x.get("vertices"));
                assertEquals(inum(list(v.get(0)).get(1)), d.line0[row], at);
                assertEquals(inum(list(v.get(v.size() - 1)).get(1)), d.line1[row], at);
                List<Object> ws = list(x.get("weights"));
                List<Integer> mine = new ArrayList<>();
                for (int k = 0; k < d.weights.size(); k++) {
                    if (d.weights.row[k] == row) {
                        mine.add(k);
                    }
                }
                assertEquals(ws.size(), mine.size(), at + " weights");
                for (int k = 0; k < ws.size(); k++) {
                    Map<String, Object> wt = obj(ws.get(k));
                    int e = mine.get(k);
                    assertEquals(inum(wt.get("category")), d.weights.category[e], at);
                    assertEquals((long) num(wt.get("count")), d.weights.count[e], at);
                    sameFloat(wt.get("incl"), d.weights.incl[e], at);
                    sameFloat(wt.get("excl"), d.weights.excl[e], at);
                }
                row++;
            } else if (kind.equals("composite")) {
                assertEquals(Drawables.KIND_COMPOSITE, d.kind[row], at);
                assertEquals(x.get("info"), r.popupText(d, row), at);
                List<Object> members = list(x.get("members"));
                assertEquals(members.size(), d.numReal[row], at);
                assertEquals(-1, d.parent[row], at);
                int comp = row++;
                for (Object mo : members) {
                    Map<String, Object> m = obj(mo);
                    String mat = at + " member row " + row;
                    assertEquals(Drawables.KIND_PRIMITIVE, d.kind[row], mat);
                    assertEquals(comp, d.parent[row], mat);
                    assertEquals(inum(m.get("category")), d.category[row], mat);
                    vertices(d, row, list(m.get("vertices")), mat);
                    row++;
                }
            } else {
                assertEquals(Drawables.KIND_PRIMITIVE, d.kind[row], at);
                assertEquals(-1, d.parent[row], at);
                assertEquals(1L, d.numReal[row], at);
                assertEquals(x.get("info"), r.popupText(d, row), at);
                vertices(d, row, list(x.get("vertices")), at);
                row++;
            }
        }
        assertEquals(row, d.n, what + ": row count");
        assertEquals(d.n + 1, d.infoOffset.length, what);
        assertEquals(d.info.length, d.infoOffset[d.n], what);
        assertTrue(d.n == 0 || d.nodesRead > 0, what + ": nodes read");
    }

    static void vertices(Drawables d, int row, List<Object> v, String at) {
        List<Object> first = list(v.get(0)), last = list(v.get(v.size() - 1));
        assertEquals(num(first.get(0)), d.time0[row], at + " time0");
        assertEquals(inum(first.get(1)), d.line0[row], at + " line0");
        assertEquals(num(last.get(0)), d.time1[row], at + " time1");
        assertEquals(inum(last.get(1)), d.line1[row], at + " line1");
    }

    /**
     * Every drawable {@code slog2 print} lists (composite members included) has
     * the same popup text through the API: print entries are keyed by category
     * and time box and must all be found among the full window's rows with the
     * same text. (The reference-style dump leaves out drawables that end
     * exactly at the file's end; those rows must be the only ones it lacks.)
     */
    static void checkPopups(Path p) throws Exception {
        String print = Cli.ok("print", p.toString());
        Map<String, Integer> want = new TreeMap<>();
        Matcher m = Pattern.compile(
                "TimeBBox\\(([^,]+),([^)]+)\\) Category=Category\\[ index=(-?\\d+), .*? count=-?\\d+ \\]: (.*?)\\] (?=\\(|Primitive\\[)",
                Pattern.DOTALL).matcher(print);
        while (m.find()) {
            String key = m.group(3) + " " + Double.parseDouble(m.group(1)) + " " + Double.parseDouble(m.group(2));
            want.merge(key + " | " + m.group(4), 1, Integer::sum);
        }
        assertTrue(!want.isEmpty(), "print lists drawables");
        Map<String, Integer> got = new TreeMap<>();
        double fileEnd;
        try (Slog2Reader r = Slog2Reader.open(p.toString())) {
            double[] tt = r.totalTime();
            fileEnd = tt[1];
            Drawables d = r.window(tt[0], tt[1]);
            for (int i = 0; i < d.n; i++) {
                String key = d.category[i] + " " + d.start[i] + " " + d.end[i];
                got.merge(key + " | " + r.popupText(d, i), 1, Integer::sum);
            }
        }
        for (Map.Entry<String, Integer> e : want.entrySet()) {
            int have = got.getOrDefault(e.getKey(), 0);
            assertTrue(have >= e.getValue(), p + ": print shows " + e.getValue() + " x [" + e.getKey()
                    + "], the API " + have);
            got.put(e.getKey(), have - e.getValue());
        }
        for (Map.Entry<String, Integer> e : got.entrySet()) {
            if (e.getValue() > 0) {
                String[] k = e.getKey().split(" ", 4);
                assertEquals(fileEnd, Double.parseDouble(k[2]), p + ": the API has [" + e.getKey()
                        + "] that print does not show");
            }
        }
    }

    // ---- errors ---------------------------------------------------------------

    /** The CLI's error message for a file (what `slog2 query` prints after "slog2: error: "). */
    static String cliError(String path) throws Exception {
        Cli.Result res = Cli.run("query", path);
        assertTrue(res.status != 0, "the CLI rejects " + path);
        String e = res.err.trim();
        String prefix = "slog2: error: ";
        assertTrue(e.startsWith(prefix), e);
        return withoutFile(path, e.substring(prefix.length()));
    }

    /** The CLI names the file in front of a library message that does not already name it. */
    static String withoutFile(String path, String cliMessage) {
        String named = path + ": ";
        return cliMessage.startsWith(named) ? cliMessage.substring(named.length()) : cliMessage;
    }

    static String javaError(String path) {
        Slog2Exception e = assertThrows(Slog2Exception.class, () -> {
            try (Slog2Reader r = Slog2Reader.open(path)) {
                double[] tt = r.totalTime();
                r.window(tt[0], tt[1]);
            }
        });
        return e.getMessage();
    }

    /** A compressed file (SLOG 2.0.Z, `slog2 convert --compress`) reads through JNI as the CLI reads it. */
    @Test
    void compressedFile(@TempDir Path tmp) throws Exception {
        Path z = tmp.resolve("fpilog-z.slog2");
        Cli.ok("convert", "-q", "--compress", Cli.FIXTURES.resolve("slog2/fpilog.slog2").toString(),
                "-o", z.toString());
        assertTrue(Cli.ok("info", z.toString()).contains("compressed"));
        try (Slog2Reader r = Slog2Reader.open(z.toString());
             Slog2Reader p = Slog2Reader.open(Cli.FIXTURES.resolve("slog2/fpilog.slog2").toString())) {
            assertTrue(r.isCompressed());
            assertFalse(p.isCompressed());
        }
        checkCategories(z);
        checkMaps(z);
        checkQueries(z);
        checkPopups(z);
        // The analyses walk unpacked nodes: the statistics and an overview as the CLI gives them.
        StatsTest.check(z.toString());
        try (Slog2Reader r = Slog2Reader.open(z.toString());
                Overview ov = r.overview(new Overview.Spec().slices(10).p(0.3).cache(false))) {
            OverviewTest.same(OverviewTest.cli(z, "--slices", "10", "--p", "0.3", "--cube"), ov);
        }
    }

    @Test
    void missingFile() throws Exception {
        String path = "/nonexistent/dir/missing.slog2";
        assertEquals(cliError(path), javaError(path));
        assertTrue(javaError(path).contains("No such file"));
    }

    @Test
    void corruptFiles(@TempDir Path tmp) throws Exception {
        byte[] good = Files.readAllBytes(Cli.FIXTURES.resolve("trace-sample/data.slog2"));
        Path garbage = tmp.resolve("garbage.slog2");
        Files.write(garbage, "hello world, not a trace\n".getBytes());
        Path truncated = tmp.resolve("truncated.slog2");
        Files.write(truncated, Arrays.copyOf(good, 500));
        Path badNode = tmp.resolve("badnode.slog2");
        byte[] b = good.clone();
        // A count inside the tree root node (the file opens; the window query fails).
        for (int i = 140; i < 144; i++) {
            b[i] = (byte) 0x7f;
        }
        Files.write(badNode, b);
        for (Path p : new Path[] {garbage, truncated, badNode}) {
            String want = cliError(p.toString());
            assertEquals(want, javaError(p.toString()), p.toString());
        }
        assertTrue(javaError(garbage.toString()).contains("not an SLOG-2 2.0.6 file"));
        assertTrue(javaError(badNode.toString()).contains("malformed tree node"));
        try (Slog2Reader r = Slog2Reader.open(badNode.toString())) {
            assertEquals(1, r.categories().length > 0 ? 1 : 0, "opens: only the node is bad");
        }
    }

    @Test
    void badArgumentsAndClosedReader() throws Exception {
        String path = Cli.FIXTURES.resolve("trace-sample/data.slog2").toString();
        Slog2Reader r = Slog2Reader.open(path);
        Slog2Exception e = assertThrows(Slog2Exception.class, () -> r.window(2, 1));
        assertEquals(cliError2(path), e.getMessage());
        assertThrows(Slog2Exception.class, () -> r.preview(Double.NaN, 1, 1));
        Drawables d = r.window(0, 1);
        r.close();
        r.close(); // idempotent
        for (ThrowingRunnable t : new ThrowingRunnable[] {
            () -> r.window(0, 1), () -> r.preview(0, 1, 1), r::totalTime, r::rootDepth,
            r::categories, r::yMaps, () -> r.popupText(d, 0)}) {
            Slog2Exception c = assertThrows(Slog2Exception.class, t::run);
            assertTrue(c.getMessage().contains("is closed or invalid"), c.getMessage());
        }
        assertThrows(IndexOutOfBoundsException.class, () -> Slog2Reader.open(path).popupText(d, d.n));
    }

    static String cliError2(String path) throws Exception {
        Cli.Result res = Cli.run("query", "--from=2", "--to=1", path);
        return withoutFile(path, res.err.trim().substring("slog2: error: ".length()));
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    // ---- threads --------------------------------------------------------------

    @Test
    void eightThreadsAgreeWithOne() throws Exception {
        String path = Cli.FIXTURES.resolve("clog2/big_stencil.slog2").toString();
        try (Slog2Reader r = Slog2Reader.open(path)) {
            double[] tt = r.totalTime();
            List<double[]> ws = new ArrayList<>();
            java.util.Random rnd = new java.util.Random(42);
            for (int i = 0; i < 64; i++) {
                double a = tt[0] + rnd.nextDouble() * (tt[1] - tt[0]);
                ws.add(new double[] {a, a + rnd.nextDouble() * (tt[1] - a), rnd.nextInt(r.rootDepth() + 2)});
            }
            List<String> single = new ArrayList<>();
            for (double[] w : ws) {
                single.add(digest(r, w));
            }
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<List<String>>> fs = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    final int shift = t;
                    fs.add(pool.submit(() -> {
                        String[] out = new String[ws.size()];
                        for (int rep = 0; rep < 4; rep++) {
                            for (int k = 0; k < ws.size(); k++) {
                                int i = (k + shift * 7) % ws.size();
                                out[i] = digest(r, ws.get(i));
                            }
                        }
                        return Arrays.asList(out);
                    }));
                }
                for (Future<List<String>> f : fs) {
                    assertEquals(single, f.get());
                }
            } finally {
                pool.shutdown();
            }
        }
    }

    /** Every column of a query, as text. */
    static String digest(Slog2Reader r, double[] w) throws Slog2Exception {
        Drawables d = (w[2] == 0) ? r.window(w[0], w[1]) : r.preview(w[0], w[1], (int) w[2]);
        StringBuilder b = new StringBuilder();
        b.append(d.n).append(Arrays.toString(d.kind)).append(Arrays.toString(d.category))
                .append(Arrays.toString(d.start)).append(Arrays.toString(d.end))
                .append(Arrays.toString(d.time0)).append(Arrays.toString(d.time1))
                .append(Arrays.toString(d.line0)).append(Arrays.toString(d.line1))
                .append(Arrays.toString(d.parent)).append(Arrays.toString(d.numReal))
                .append(Arrays.toString(d.infoOffset)).append(Arrays.toString(d.info))
                .append(Arrays.toString(d.weights.row)).append(Arrays.toString(d.weights.category))
                .append(Arrays.toString(d.weights.incl)).append(Arrays.toString(d.weights.excl))
                .append(Arrays.toString(d.weights.count)).append(d.nodesRead).append(' ').append(d.bytesRead);
        return b.toString();
    }
}
