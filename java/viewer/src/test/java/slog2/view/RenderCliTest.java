package slog2.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code java -jar slog2view.jar --render …}: a PNG of the asked size, or a non-zero exit with the library's message. */
class RenderCliTest {
    static List<String> cmd(String... args) {
        String jar = System.getProperty("slog2view.jar");
        assertTrue(jar != null && new File(jar).isFile(), "-Dslog2view.jar");
        List<String> c = new ArrayList<>(List.of("java", "-Djava.awt.headless=true",
                "-Djava.library.path=" + System.getProperty("java.library.path"), "-jar", jar));
        c.addAll(List.of(args));
        return c;
    }

    @Test
    void rendersThePictureTheWindowShows(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("data.png");
        Fx.run(cmd("--render", Fx.sample("data.slog2"), "--from", "0.0005", "--to", "0.0085", "--size", "1200x400", "-o",
                out.toString(), "--svg", dir.resolve("data.svg").toString()), 0);
        BufferedImage img = ImageIO.read(out.toFile());
        assertEquals(1200, img.getWidth());
        assertEquals(400, img.getHeight());
        try (Source s = ReaderSource.open(Fx.sample("data.slog2"))) {
            Model m = new Model(s);
            Frame f = Frame.load(m, 0.0005, 0.0085);
            BufferedImage mine = Renderer.image(m, f, 1200, 400, -1);
            int diff = 0;
            for (int y = 0; y < 400; y++) {
                for (int x = Renderer.LABEL_W; x < 1200; x++) {
                    if (mine.getRGB(x, y) != img.getRGB(x, y)) {
                        diff++;
                    }
                }
            }
            assertEquals(0, diff, "the CLI draws the same canvas as the viewer");
            PixelTest.check(m, f, img, 3);
        }
        String svg = Files.readString(dir.resolve("data.svg"));
        assertTrue(svg.startsWith("<?xml") && svg.trim().endsWith("</svg>"));
        assertTrue(svg.contains("fill=\"#00ff00\""), "RECV (green) states in the SVG");
        assertTrue(svg.contains("<polygon"), "arrow heads in the SVG");
    }

    @Test
    void badFilesExitNonZeroWithTheLibraryMessage(@TempDir Path dir) throws Exception {
        Path junk = dir.resolve("junk.slog2");
        Files.writeString(junk, "this is not a trace");
        Path trunc = dir.resolve("trunc.slog2");
        byte[] all = Files.readAllBytes(Path.of(Fx.sample("barrier.slog2")));
        Files.write(trunc, java.util.Arrays.copyOf(all, all.length / 2));
        for (Path p : List.of(junk, trunc, dir.resolve("missing.slog2"))) {
            Path out = dir.resolve("o.png");
            String err = Fx.run(cmd("--render", p.toString(), "--from", "0", "--to", "1", "--size", "400x200", "-o",
                    out.toString()), 1);
            assertTrue(err.contains(p.toString()), err);
            String lib;
            try (Source s = ReaderSource.open(p.toString())) {
                lib = "opened";
            } catch (java.io.IOException e) {
                lib = e.getMessage();
            }
            if (!lib.equals("opened")) { // a truncated file may open and fail on its first query
                assertTrue(err.contains(lib.length() > 60 ? lib.substring(0, 60) : lib), "library message in: " + err);
            }
            assertFalse(Files.exists(out), "no picture on failure");
        }
        Fx.run(cmd("--render", Fx.sample("data.slog2"), "--from", "1", "--to", "0", "--size", "400x200", "-o",
                dir.resolve("x.png").toString()), 2);
    }

    /**
     * {@code --bench --plan-out}: one "Z|P T0 T1" line per step, every window inside the file's
     * time range, a pan keeping the span of the step before it (the plan other viewers replay).
     */
    @Test
    void benchWritesItsPlan(@TempDir Path dir) throws Exception {
        Path plan = dir.resolve("plan.txt");
        String out = Fx.run(cmd("--bench", Fx.bigTrace(), "--steps", "40", "--size", "400x200", "--plan-out",
                plan.toString()), 0);
        assertTrue(out.contains("40 steps at 400x200"), out);
        List<String> lines = Files.readAllLines(plan);
        Files.delete(plan);
        assertEquals(40, lines.size());
        double lo, hi;
        try (Source s = ReaderSource.open(Fx.bigTrace())) {
            Model m = new Model(s);
            lo = m.tMin;
            hi = m.tMax;
        }
        double prevSpan = hi - lo;
        int zooms = 0;
        for (String l : lines) {
            String[] f = l.split(" ");
            assertEquals(3, f.length, l);
            assertTrue(f[0].equals("Z") || f[0].equals("P"), l);
            double a = Double.parseDouble(f[1]), b = Double.parseDouble(f[2]);
            assertTrue(a >= lo && b <= hi + 1e-9 * (hi - lo) && b > a, l);
            if (f[0].equals("P")) {
                assertEquals(prevSpan, b - a, 1e-9 * (hi - lo), l);
            } else {
                zooms++;
            }
            prevSpan = b - a;
        }
        assertTrue(zooms > 5 && zooms < 35, "a mix of zooms and pans: " + zooms);
    }

    /** Without --from/--to the whole file, without --size 1600x900; an empty window says so. */
    @Test
    void defaultsAndTheEmptyWindowNote(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("whole.png");
        String err = Fx.run(cmd("--render", Fx.sample("data.slog2"), "-o", out.toString()), 0, true);
        assertFalse(err.contains("no drawables"), err);
        BufferedImage img = ImageIO.read(out.toFile());
        assertEquals(1600, img.getWidth());
        assertEquals(900, img.getHeight());
        try (Source s = ReaderSource.open(Fx.sample("data.slog2"))) {
            Model m = new Model(s);
            BufferedImage mine = Renderer.image(m, Frame.load(m, m.tMin, m.tMax), 1600, 900, -1);
            for (int y = 0; y < 900; y += 7) {
                for (int x = 0; x < 1600; x += 7) {
                    assertEquals(mine.getRGB(x, y), img.getRGB(x, y), "the whole file at (" + x + ", " + y + ")");
                }
            }
        }
        err = Fx.run(cmd("--render", Fx.sample("data.slog2"), "--from", "0.1", "--to", "0.2", "-o",
                dir.resolve("empty.png").toString()), 0, true);
        assertTrue(err.contains("no drawables in the window [0.1, 0.2]; the file spans [5.0E-4, 0.008] s"), err);
    }

    /** Every usage error names the argument and the value at fault (exit 2, no picture). */
    @Test
    void errorsNameTheBadArgument(@TempDir Path dir) throws Exception {
        String data = Fx.sample("data.slog2");
        String out = dir.resolve("x.png").toString();
        String[][] cases = {
            {"--from NaN: not a finite number", "--render", data, "--from", "NaN", "-o", out},
            {"--to abc: not a number", "--render", data, "--to", "abc", "-o", out},
            {"--from Infinity: not a finite number", "--render", data, "--from", "Infinity", "-o", out},
            {"--to 0.001 must be greater than --from 0.002", "--render", data, "--from", "0.002", "--to", "0.001", "-o", out},
            {"--size 10x10: at least", "--render", data, "--size", "10x10", "-o", out},
            {"--size big: want WIDTHxHEIGHT", "--render", data, "--size", "big", "-o", out},
            {"--render needs -o OUT.png", "--render", data},
            {"--render needs FILE", "--render", "-o", out},
            {"--ymap Nope: the file's y-maps are \"ThreadView\", \"ConnectedThreadView\", \"ProcessorView\", "
                    + "\"Identity Map\"", "--render", data, "--ymap", "Nope", "-o", out},
            {"--expand x: want a whole number", "--render", data, "--expand", "x", "-o", out},
            {"--render: unknown option --frm", "--render", data, "--frm", "1", "-o", out},
            {"-o needs a value", "--render", data, "-o"},
        };
        for (String[] c : cases) {
            String err = Fx.run(cmd(java.util.Arrays.copyOfRange(c, 1, c.length)), 2);
            assertTrue(err.contains("slog2view: " + c[0]), "want \"" + c[0] + "\" in: " + err);
            assertFalse(Files.exists(Path.of(out)), "no picture after a usage error");
        }
    }

    /** {@code --legend}: the categories' colours in a strip right of the canvas, which narrows to make room. */
    @Test
    void legendShowsTheCategoryColours(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("legend.png");
        Fx.run(cmd("--render", Fx.mpeTrace(), "--legend", "--size", "1200x500", "-o", out.toString()), 0);
        BufferedImage img = ImageIO.read(out.toFile());
        Renderer.Layout l = Renderer.layout(1200, 500, 0, 1, 5, true);
        assertTrue(l.right < 1200 - 100, "room for the legend");
        java.util.Set<Integer> strip = new java.util.HashSet<>();
        for (int y = 0; y < 500; y++) {
            for (int x = l.right; x < 1200; x++) {
                strip.add(img.getRGB(x, y) & 0xffffff);
            }
        }
        for (int c : new int[] {Fx.GREY, Fx.RED, Fx.BLUE, Fx.GREEN}) {
            assertTrue(strip.contains(c), String.format("legend swatch #%06x", c));
        }
    }

    /** {@code --ymap} and {@code --expand}: the rows and their labels come from the chosen map's tree. */
    @Test
    void rowsAreLabelledFromTheChosenYMap(@TempDir Path dir) throws Exception {
        Path svg = dir.resolve("v.svg");
        Fx.run(cmd("--render", Fx.mpeTrace(), "-o", dir.resolve("v.png").toString(), "--svg", svg.toString()), 0);
        String s = Files.readString(svg);
        assertTrue(s.contains(">ProcessView<") && s.contains(">rank 3<") && !s.contains("thread"), "ProcessView rows");
        Fx.run(cmd("--render", Fx.mpeTrace(), "--ymap", "ThreadView", "--expand", "1", "-o",
                dir.resolve("v.png").toString(), "--svg", svg.toString()), 0);
        s = Files.readString(svg);
        assertTrue(s.contains(">ThreadView<") && s.contains(">rank 2<") && s.contains(">thread 1<"), "ThreadView rows");
        Fx.run(cmd("--render", Fx.mpeTrace(), "--ymap", "1", "-o", dir.resolve("v.png").toString(), "--svg",
                svg.toString()), 0);
        s = Files.readString(svg);
        assertTrue(s.contains(">ThreadView<") && !s.contains("thread 1"), "a map by number, its first level closed");
    }

    /** {@code slog2 view FILE} finds this jar beside the CLI's build and hands over to it (no display here: exit 2). */
    @Test
    void slog2ViewExecsTheViewer() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Fx.cli(), "view", Fx.sample("data.slog2")).redirectErrorStream(true);
        pb.environment().remove("DISPLAY");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(2, p.waitFor(), out);
        assertTrue(out.contains("slog2view: no display"), "the viewer itself answered: " + out);
    }
}
