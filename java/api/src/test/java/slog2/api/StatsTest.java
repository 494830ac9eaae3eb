package slog2.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * {@link Stats} against the Rust core's own answers ({@code slog2 stats ...
 * --format json}, {@code slog2 diff}) on every .slog2 fixture: profile per
 * category and per line, matrix, idle time, imbalance, a histogram and the
 * instances of its fullest bar, the time profile; and the errors.
 */
class StatsTest {
    static final double NAN = Double.NaN;

    static List<Map<String, Object>> rows(String... args) throws Exception {
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--format";
        all[args.length + 1] = "json";
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object o : Slog2ReaderTest.list(Slog2ReaderTest.obj(Json.parse(Cli.ok(all))).get("rows"))) {
            out.add(Slog2ReaderTest.obj(o));
        }
        return out;
    }

    static void near(Object json, double got, String at) {
        double want = json instanceof String ? Double.parseDouble(((String) json).replace("inf", "Infinity"))
                : Slog2ReaderTest.num(json);
        if (Double.isNaN(want) || Double.isNaN(got)) {
            assertEquals(Double.isNaN(want), Double.isNaN(got), at);
            return;
        }
        assertTrue(Math.abs(want - got) <= 1e-9 * (1 + Math.abs(want)), at + ": " + want + " vs " + got);
    }

    static long lng(Object json) {
        return Math.round((Double) json);
    }

    @TestFactory
    List<DynamicTest> everyFixtureEqualsTheCli() throws Exception {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path p : Cli.slog2Fixtures()) {
            tests.add(DynamicTest.dynamicTest(Cli.FIXTURES.relativize(p).toString(), () -> check(p.toString())));
        }
        return tests;
    }

    static void check(String path) throws Exception {
        try (Slog2Reader r = Slog2Reader.open(path)) {
            for (boolean byLine : new boolean[] {false, true}) {
                Stats.Profile p = Stats.profile(r, NAN, NAN, false, byLine);
                List<Map<String, Object>> want = byLine ? rows("stats", path, "profile", "--by-line")
                        : rows("stats", path, "profile");
                assertEquals(want.size(), p.size(), "profile rows");
                for (int i = 0; i < p.size(); i++) {
                    Map<String, Object> j = want.get(i);
                    assertEquals(lng(j.get("category")), p.category[i]);
                    assertEquals(lng(j.get("count")), p.count[i]);
                    if (byLine) {
                        assertEquals(lng(j.get("line")), p.line[i]);
                    }
                    near(j.get("inclusive"), p.inclusive[i], "inclusive");
                    near(j.get("exclusive"), p.exclusive[i], "exclusive");
                    near(j.get("min"), p.min[i], "min");
                    near(j.get("mean"), p.mean[i], "mean");
                    near(j.get("max"), p.max[i], "max");
                }
            }
            Stats.CommMatrix m = Stats.comm(r, NAN, NAN, false);
            List<Map<String, Object>> want = rows("stats", path, "comm");
            assertEquals(want.size(), m.size());
            for (int i = 0; i < m.size(); i++) {
                Map<String, Object> j = want.get(i);
                assertEquals(lng(j.get("from_line")), m.fromLine[i]);
                assertEquals(lng(j.get("to_line")), m.toLine[i]);
                assertEquals(lng(j.get("count")), m.count[i]);
                assertEquals(j.get("bytes") == null ? -1 : lng(j.get("bytes")), m.bytes[i]);
            }
            Stats.IdleTime idle = Stats.idle(r, NAN, NAN, "MPI_W*");
            want = rows("stats", path, "idle", "--wait", "MPI_W*");
            assertEquals(want.size(), idle.size());
            for (int i = 0; i < idle.size(); i++) {
                near(want.get(i).get("idle"), idle.idle[i], "idle");
                near(want.get(i).get("no_state"), idle.noState[i], "no_state");
            }
            Stats.LoadImbalance imb = Stats.imbalance(r, NAN, NAN, false, 2);
            want = rows("stats", path, "imbalance", "--top", "2");
            assertEquals(want.size(), imb.size());
            for (int i = 0; i < imb.size(); i++) {
                near(want.get(i).get("ratio"), imb.ratio[i], "ratio");
                List<Object> worst = Slog2ReaderTest.list(want.get(i).get("worst"));
                for (int k = 0; k < worst.size(); k++) {
                    assertEquals(lng(Slog2ReaderTest.obj(worst.get(k)).get("line")), imb.worstLine[i * 2 + k]);
                }
            }
            Stats.TimeProfile tp = Stats.timeProfile(r, NAN, NAN, 6);
            want = rows("stats", path, "timeprofile", "--slices", "6");
            assertEquals(want.size(), tp.values.length);
            for (int i = 0; i < want.size(); i++) {
                near(want.get(i).get("time"), tp.values[i], "time profile");
            }
            // A histogram of the category with the most time, and its fullest bar.
            if (p0(r) >= 0) {
                int cat = p0(r);
                Stats.Histogram h = Stats.histogram(r, NAN, NAN, false, Stats.DURATION, cat, 7, false, NAN, NAN);
                want = rows("stats", path, "hist", Integer.toString(cat), "--bins", "7");
                assertEquals(want.size(), h.bins() + 2);
                int full = 0;
                for (int k = 0; k < h.bins(); k++) {
                    assertEquals(lng(want.get(k + 1).get("count")), h.counts[k]);
                    near(want.get(k + 1).get("lo"), h.edges[k], "edge");
                    if (h.counts[k] > h.counts[full]) {
                        full = k;
                    }
                }
                Stats.Instances in = Stats.instances(r, h, full, 4);
                assertEquals(h.counts[full], in.total);
                List<Map<String, Object>> wi = rows("stats", path, "hist", Integer.toString(cat), "--bins", "7",
                        "--bin", Integer.toString(full), "--limit", "4");
                assertEquals(wi.size(), in.size());
                for (int i = 0; i < in.size(); i++) {
                    near(wi.get(i).get("start"), in.start[i], "instance start");
                    assertEquals(wi.get(i).get("text"), in.text[i]);
                    assertTrue(in.value[i] >= h.edges[full]);
                }
            }
        }
    }

    /** The state category with the most inclusive time, or -1. */
    static int p0(Slog2Reader r) throws Slog2Exception {
        Stats.Profile p = Stats.profile(r, NAN, NAN, false, false);
        int best = -1;
        double t = 0;
        for (int i = 0; i < p.size(); i++) {
            boolean state = false;
            for (Category c : r.categories()) {
                state |= c.index == p.category[i] && c.topology == Category.STATE;
            }
            if (state && p.inclusive[i] > t) {
                t = p.inclusive[i];
                best = p.category[i];
            }
        }
        return best;
    }

    @Test
    void compareAndWindowsAndErrors() throws Exception {
        String a = Cli.FIXTURES.resolve("clog2/big_stencil.slog2").toString();
        String b = Cli.FIXTURES.resolve("clog2/threads.slog2").toString();
        try (Slog2Reader ra = Slog2Reader.open(a); Slog2Reader rb = Slog2Reader.open(b)) {
            Stats.Comparison c = Stats.compare(ra, rb, NAN, NAN, false);
            List<Map<String, Object>> want = rows("diff", a, b);
            assertEquals(want.size(), c.size());
            for (int i = 0; i < c.size(); i++) {
                assertEquals(want.get(i).get("name"), c.name[i]);
                near(want.get(i).get("exclusive_rel"), c.exclusiveRel[i], "rel");
                assertEquals(lng(want.get(i).get("count_b")), c.countB[i]);
            }
            // Clipped windows hold less time than whole states.
            double[] tt = ra.totalTime();
            double m = (tt[0] + tt[1]) / 2;
            Stats.Profile clip = Stats.profile(ra, m, m + 0.01, false, false);
            Stats.Profile whole = Stats.profile(ra, m, m + 0.01, true, false);
            double ci = 0, wi = 0;
            for (int i = 0; i < clip.size(); i++) {
                ci += clip.inclusive[i];
                wi += whole.inclusive[i];
            }
            assertTrue(ci < wi && ci > 0);
            Stats.Histogram sizes = Stats.histogram(ra, NAN, NAN, false, Stats.MESSAGE_SIZE, -1, 4, false, NAN, NAN);
            assertEquals(4, sizes.bins());
            Slog2Exception e = assertThrows(Slog2Exception.class, () -> Stats.profile(ra, 2, 1, false, false));
            assertTrue(e.getMessage().contains("empty"), e.getMessage());
            assertThrows(Slog2Exception.class,
                    () -> Stats.histogram(ra, NAN, NAN, false, Stats.DURATION, 107, 0, false, NAN, NAN));
            assertThrows(Slog2Exception.class, () -> Stats.instances(ra, sizes, 9, 1));
        }
        Slog2Reader closed = Slog2Reader.open(a);
        closed.close();
        assertThrows(Slog2Exception.class, () -> Stats.comm(closed, NAN, NAN, false));
    }
}
