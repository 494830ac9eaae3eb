package slog2.view;

import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import javax.imageio.ImageIO;
import javax.swing.SwingUtilities;

/**
 * Entry point.
 *
 * <pre>
 * java -jar slog2view.jar [FILE]                      the viewer window
 * java -jar slog2view.jar --render FILE -o OUT.png [--from T0] [--to T1] [--size WxH] [--svg OUT.svg]
 *                         [--legend] [--ymap NAME|INDEX] [--expand LEVELS]
 * java -jar slog2view.jar --bench FILE [--size WxH] [--steps N] [--seed S] [--plan-out PLAN.txt]
 * java -jar slog2view.jar --bench FILE --scroll N [--size WxH]   pans at full detail (cursor on/off)
 * </pre>
 *
 * The native library is found on {@code java.library.path} or named by the
 * {@code slog2.library} system property (see {@code slog2.api.Slog2Reader}).
 */
public final class Main {
    private Main() {
    }

    static final String USAGE = "usage: slog2view [FILE]\n"
            + "       slog2view --render FILE -o OUT.png [--from T0] [--to T1] [--size WIDTHxHEIGHT] [--svg OUT.svg]\n"
            + "                 [--legend] [--ymap NAME|INDEX] [--expand LEVELS]\n"
            + "         (defaults: the whole file, 1600x900, the first y-map that is not the identity map,\n"
            + "          its tree as Jumpshot opens it; --expand opens LEVELS more levels, --legend adds the\n"
            + "          categories' colours on the right)\n"
            + "       slog2view --bench FILE [--size WIDTHxHEIGHT] [--steps N] [--seed S] [--plan-out PLAN.txt]\n"
            + "       slog2view --bench FILE --scroll N [--size WIDTHxHEIGHT]\n";

    public static void main(String[] args) {
        findLibrary();
        try {
            int rc = run(args);
            if (rc != Integer.MIN_VALUE) {
                System.exit(rc);
            }
        } catch (UsageError e) {
            System.err.print("slog2view: " + e.getMessage() + "\n" + USAGE);
            System.exit(2);
        }
    }

    /**
     * When neither {@code slog2.library} nor {@code java.library.path} names
     * the native library, look for it where the repository's build or the
     * install step puts it relative to this jar: {@code target/release/} two
     * levels above {@code java/build/slog2view.jar}, or {@code lib/} of the
     * prefix of an installed {@code PREFIX/share/java/slog2view.jar}
     * ({@code scripts/install.sh}).
     */
    static void findLibrary() {
        if (System.getProperty("slog2.library") != null) {
            return;
        }
        for (String dir : System.getProperty("java.library.path", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && new File(dir, System.mapLibraryName("slog2jni")).isFile()) {
                return;
            }
        }
        File jar = jarPath();
        if (jar == null) {
            return; // leave it to the default lookup, which reports what is missing
        }
        for (String rel : new String[] {"../../target/release/", "../../lib/"}) {
            File lib = new File(jar.getParentFile(), rel + System.mapLibraryName("slog2jni"));
            if (lib.isFile()) {
                try {
                    System.setProperty("slog2.library", lib.getCanonicalPath());
                } catch (IOException e) {
                    System.setProperty("slog2.library", lib.getAbsolutePath());
                }
                return;
            }
        }
    }

    /** The canonical path of f (its absolute path if that fails, "?" for null). */
    static String canonical(File f) {
        if (f == null) {
            return "?";
        }
        try {
            return f.getCanonicalPath();
        } catch (IOException e) {
            return f.getAbsolutePath();
        }
    }

    /** This jar (or class folder), or null when it cannot be told. */
    static File jarPath() {
        try {
            return new File(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (Exception e) {
            return null;
        }
    }

    static final class UsageError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageError(String m) {
            super(m);
        }
    }

    static String need(String[] a, int i) {
        if (i >= a.length) {
            throw new UsageError(a[i - 1] + " needs a value");
        }
        return a[i];
    }

    /** A finite number for option {@code what}; the error names the option and the text given. */
    static double num(String s, String what) {
        double v;
        try {
            v = Double.parseDouble(s.trim());
        } catch (NumberFormatException e) {
            throw new UsageError(what + " " + s + ": not a number");
        }
        if (!Double.isFinite(v)) {
            throw new UsageError(what + " " + s + ": not a finite number");
        }
        return v;
    }

    /** A whole number in [lo, hi] for option {@code what}. */
    static int integer(String s, String what, int lo, int hi) {
        try {
            int v = Integer.parseInt(s.trim());
            if (v >= lo && v <= hi) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageError(what + " " + s + ": want a whole number from " + lo + " to " + hi);
    }

    static int[] size(String s) {
        String[] p = s.toLowerCase(Locale.ROOT).split("x");
        try {
            int w = Integer.parseInt(p[0]), h = Integer.parseInt(p[1]);
            if (p.length != 2 || w < Renderer.LABEL_W + 10 || h < Renderer.RULER_H + 10 || w > 20000 || h > 20000) {
                throw new UsageError("--size " + s + ": at least " + (Renderer.LABEL_W + 10) + "x"
                        + (Renderer.RULER_H + 10) + ", at most 20000x20000");
            }
            return new int[] {w, h};
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            throw new UsageError("--size " + s + ": want WIDTHxHEIGHT, e.g. 1600x900");
        }
    }

    static int run(String[] args) {
        if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.print(USAGE);
            return 0;
        }
        if (args.length > 0 && args[0].equals("--render")) {
            return render(args);
        }
        if (args.length > 0 && args[0].equals("--bench")) {
            return bench(args);
        }
        if (args.length > 1 || (args.length == 1 && args[0].startsWith("-"))) {
            throw new UsageError("unknown arguments: " + String.join(" ", args));
        }
        String file = args.length == 1 ? args[0] : null;
        if (java.awt.GraphicsEnvironment.isHeadless()) {
            System.err.println("slog2view: no display (set DISPLAY, or use --render for pictures without one)");
            return 2;
        }
        SwingUtilities.invokeLater(() -> {
            MainWindow w = new MainWindow();
            w.setVisible(true);
            if (file != null) {
                // -Dslog2view.openDelay=MS opens the file MS ms after the window is up, as a user
                // choosing it from File > Open would (used to time open -> first frame in a ready window)
                int delay = Integer.getInteger("slog2view.openDelay", 0);
                if (delay > 0) {
                    javax.swing.Timer t = new javax.swing.Timer(delay, e -> w.open(file));
                    t.setRepeats(false);
                    t.start();
                } else {
                    w.open(file);
                }
            }
        });
        return Integer.MIN_VALUE; // keep running
    }

    static int render(String[] a) {
        String file = null, out = null, svg = null, ymap = null;
        Double from = null, to = null;
        int[] sz = {1600, 900};
        int expand = 0;
        boolean legend = false;
        for (int i = 1; i < a.length; i++) {
            switch (a[i]) {
                case "--from" -> from = num(need(a, ++i), "--from");
                case "--to" -> to = num(need(a, ++i), "--to");
                case "--size" -> sz = size(need(a, ++i));
                case "-o" -> out = need(a, ++i);
                case "--svg" -> svg = need(a, ++i);
                case "--legend" -> legend = true;
                case "--ymap" -> ymap = need(a, ++i);
                case "--expand" -> expand = integer(need(a, ++i), "--expand", 0, 100);
                default -> {
                    if (a[i].startsWith("-") && !a[i].matches("-[0-9.].*")) {
                        throw new UsageError("--render: unknown option " + a[i]);
                    }
                    if (file != null) {
                        throw new UsageError("--render: one FILE, but got " + file + " and " + a[i]);
                    }
                    file = a[i];
                }
            }
        }
        if (file == null) {
            throw new UsageError("--render needs FILE");
        }
        if (out == null) {
            throw new UsageError("--render needs -o OUT.png");
        }
        if (from != null && to != null && !(to > from)) {
            throw new UsageError("--to " + to + " must be greater than --from " + from);
        }
        try (Source s = ReaderSource.open(file)) {
            Model m = new Model(s);
            if (ymap != null) {
                int k = m.yMapNamed(ymap);
                if (k < 0) {
                    StringBuilder names = new StringBuilder();
                    for (slog2.api.YMap y : m.yMaps) {
                        names.append(names.length() == 0 ? "" : ", ").append('"').append(y.title).append('"');
                    }
                    throw new UsageError("--ymap " + ymap + ": the file's y-maps are " + names);
                }
                m.selectYMap(k, expand);
            } else if (expand > 0) {
                m.selectYMap(m.yMapIndex(), expand);
            }
            double t0 = from != null ? from : m.tMin, t1 = to != null ? to : m.tMax;
            if (!(t1 > t0)) {
                throw new UsageError("--to " + t1 + " must be greater than --from " + t0
                        + (from == null ? " (the file starts at " + m.tMin + ")" : "")
                        + (to == null ? " (the file ends at " + m.tMax + ")" : ""));
            }
            Frame f = Frame.load(m, t0, t1);
            if (f.d.n == 0) {
                System.err.printf(Locale.ROOT, "slog2view: no drawables in the window [%s, %s]; the file spans "
                        + "[%s, %s] s%n", t0, t1, m.tMin, m.tMax);
            }
            BufferedImage img = new BufferedImage(sz[0], sz[1], BufferedImage.TYPE_INT_RGB);
            java.awt.Graphics2D g = img.createGraphics();
            Renderer.paint(new G2Painter(g), m, f, Renderer.layout(sz[0], sz[1], t0, t1, m.rows(), legend), -1,
                    legend);
            g.dispose();
            writeAtomically(out, img);
            if (svg != null) {
                SvgPainter p = new SvgPainter(sz[0], sz[1]);
                Renderer.paint(p, m, f, Renderer.layout(sz[0], sz[1], t0, t1, m.rows(), legend), -1, legend);
                Files.writeString(new File(svg).toPath(), p.finish(), StandardCharsets.UTF_8);
            }
            return 0;
        } catch (UsageError e) {
            throw e;
        } catch (IOException | RuntimeException | LinkageError e) {
            System.err.println("slog2view: " + file + ": " + e.getMessage());
            return 1;
        }
    }

    static void writeAtomically(String out, BufferedImage img) throws IOException {
        File target = new File(out).getAbsoluteFile();
        File tmp = new File(target.getParentFile(), "." + target.getName() + ".tmp");
        if (!ImageIO.write(img, "png", tmp)) {
            throw new IOException("no PNG writer");
        }
        Files.move(tmp.toPath(), target.toPath(), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** Open to first frame, then random zoom/pan steps: query + draw into a WxH image each. */
    static int bench(String[] a) {
        String file = null;
        int[] sz = {1600, 900};
        int steps = 500;
        long seed = 1;
        String planOut = null;
        int scroll = 0;
        for (int i = 1; i < a.length; i++) {
            switch (a[i]) {
                case "--plan-out" -> planOut = need(a, ++i);
                case "--size" -> sz = size(need(a, ++i));
                case "--steps" -> steps = integer(need(a, ++i), "--steps", 1, 100_000_000);
                case "--seed" -> seed = (long) num(need(a, ++i), "--seed");
                case "--scroll" -> scroll = integer(need(a, ++i), "--scroll", 1, 100_000_000);
                default -> file = a[i];
            }
        }
        if (file == null) {
            throw new UsageError("--bench needs FILE");
        }
        if (scroll > 0) {
            return ScrollBench.run(file, sz, scroll);
        }
        try {
            long w0n = System.nanoTime();
            if (!Boolean.getBoolean("slog2view.cold")) {
                warmUp(); // what the window does at start-up, before a file is chosen
            }
            System.out.printf(Locale.ROOT, "start-up warm-up (before a file is chosen, as the window): %.0f ms%n",
                    (System.nanoTime() - w0n) / 1e6);
            long t0 = System.nanoTime();
            Source s = ReaderSource.open(file);
            long tOpen = System.nanoTime();
            Model m = new Model(s);
            long tModel = System.nanoTime();
            Frame f = Frame.load(m, m.tMin, m.tMax);
            long tQuery = System.nanoTime();
            BufferedImage img = Renderer.image(m, f, sz[0], sz[1], -1);
            long tDraw = System.nanoTime();
            System.out.printf(Locale.ROOT, "open to first frame: %.1f ms (open %.1f, categories+maps %.1f, query %.1f,"
                    + " draw %.1f; %d drawables, depth %d of %d, %d nodes)%n", (tDraw - t0) / 1e6, (tOpen - t0) / 1e6,
                    (tModel - tOpen) / 1e6, (tQuery - tModel) / 1e6, (tDraw - tQuery) / 1e6, f.d.n, f.depth,
                    m.rootDepth, f.d.nodesRead);
            Random rnd = new Random(seed);
            double w0 = m.tMin, w1 = m.tMax, full = m.tMax - m.tMin;
            double[] ms = new double[steps];
            double[] qms = new double[steps];
            double[] cpu = new double[steps];
            boolean[] zoomed = new boolean[steps];
            long[] nDraw = new long[steps];
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long maxN = 0;
            // the steps, one "Z|P T0 T1" line each (zoom or pan), for other viewers' harnesses
            StringBuilder plan = new StringBuilder();
            for (int k = 0; k < steps; k++) {
                double span = w1 - w0;
                int op = rnd.nextInt(4);
                boolean zoom = op == 1 || (op == 0 && span > full * 1e-7);
                if (op == 0 && span > full * 1e-7) { // zoom in around a random point
                    double c = w0 + rnd.nextDouble() * span, fct = 0.3 + 0.5 * rnd.nextDouble();
                    w0 = c - (c - w0) * fct;
                    w1 = c + (w1 - c) * fct;
                } else if (op == 1) { // zoom out
                    double c = w0 + rnd.nextDouble() * span, fct = 1.5 + rnd.nextDouble() * 2;
                    w0 = c - (c - w0) * fct;
                    w1 = c + (w1 - c) * fct;
                } else { // pan up to a screen either way
                    double dt = (rnd.nextDouble() * 2 - 1) * span;
                    w0 += dt;
                    w1 += dt;
                }
                span = Math.min(w1 - w0, full);
                w0 = Math.max(m.tMin, Math.min(m.tMax - span, w0));
                w1 = w0 + span;
                plan.append(String.format(Locale.ROOT, "%s %.17g %.17g%n", zoom ? "Z" : "P", w0, w1));
                long c0 = mx.getCurrentThreadCpuTime();
                long a0 = System.nanoTime();
                Frame g = Frame.load(m, w0, w1);
                long a1 = System.nanoTime();
                Renderer.paint(new G2Painter(img.createGraphics()), m, g,
                        new Renderer.Layout(sz[0], sz[1], w0, w1, m.rows()), -1);
                long a2 = System.nanoTime();
                ms[k] = (a2 - a0) / 1e6;
                cpu[k] = (mx.getCurrentThreadCpuTime() - c0) / 1e6;
                qms[k] = (a1 - a0) / 1e6;
                zoomed[k] = zoom;
                nDraw[k] = g.d.n;
                maxN = Math.max(maxN, g.d.n);
            }
            double[] zs = java.util.stream.IntStream.range(0, steps).filter(k -> zoomed[k]).mapToDouble(k -> ms[k])
                    .sorted().toArray();
            double[] ps = java.util.stream.IntStream.range(0, steps).filter(k -> !zoomed[k]).mapToDouble(k -> ms[k])
                    .sorted().toArray();
            double[] sorted = ms.clone();
            Arrays.sort(sorted);
            double[] qs = qms.clone();
            Arrays.sort(qs);
            double[] cs = cpu.clone();
            Arrays.sort(cs);
            System.out.printf(Locale.ROOT, "frame CPU time (this thread, immune to other load): median %.2f ms, p99 %.2f ms%n",
                    pct(cs, 50), pct(cs, 99));
            System.out.printf(Locale.ROOT,
                    "%d steps at %dx%d: frame (query+draw) median %.2f ms, p99 %.2f ms, max %.2f ms;"
                            + " query median %.2f ms, p99 %.2f ms; max drawables in a frame %d%n",
                    steps, sz[0], sz[1], pct(sorted, 50), pct(sorted, 99), sorted[steps - 1], pct(qs, 50), pct(qs, 99),
                    maxN);
            Integer[] worst = java.util.stream.IntStream.range(0, steps).boxed()
                    .sorted((x, y) -> Double.compare(ms[y], ms[x])).limit(6).toArray(Integer[]::new);
            StringBuilder ws = new StringBuilder();
            for (int k : worst) {
                ws.append(String.format(Locale.ROOT, " #%d %s %.1f ms (cpu %.1f, query %.1f, %d drawables);", k,
                        zoomed[k] ? "zoom" : "pan", ms[k], cpu[k], qms[k], nDraw[k]));
            }
            System.out.println("slowest steps:" + ws);
            System.out.printf(Locale.ROOT, "zoom steps (%d): median %.2f ms, p99 %.2f ms; pan steps (%d): median %.2f ms,"
                    + " p99 %.2f ms%n", zs.length, pct(zs, 50), pct(zs, 99), ps.length, pct(ps, 50), pct(ps, 99));
            s.close();
            if (planOut != null) {
                Files.writeString(new File(planOut).toPath(), plan, StandardCharsets.UTF_8);
            }
            return 0;
        } catch (IOException | RuntimeException | LinkageError e) {
            System.err.println("slog2view: " + file + ": " + e.getMessage());
            return 1;
        }
    }

    /**
     * Start-up work that does not depend on the file: load the JNI library and
     * initialise Java2D's loops and the label font (several hundred ms in a
     * fresh JVM). The window runs this on a background thread while it shows
     * itself, so opening a file costs only the file's own work.
     */
    static void warmUp() {
        try {
            Class.forName("slog2.api.Native", true, Main.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            // reported by the first real call, with its message
        }
        for (String c : new String[] {"javax.swing.JTable", "javax.swing.JSplitPane", "javax.swing.JToolBar",
                "javax.swing.JComboBox", "javax.swing.JScrollPane", "javax.swing.table.DefaultTableCellRenderer",
                "javax.swing.JCheckBox", "slog2.view.LegendPanel", "slog2.view.TimelinePanel", "slog2.view.Renderer",
                "slog2.view.Frame", "slog2.view.Loader"}) {
            try {
                Class.forName(c, true, Main.class.getClassLoader()); // class loading and static set-up only
            } catch (ClassNotFoundException | LinkageError e) {
                // not needed for correctness
            }
        }
        BufferedImage img = new BufferedImage(64, 32, BufferedImage.TYPE_INT_RGB);
        java.awt.Graphics2D g = img.createGraphics();
        G2Painter p = new G2Painter(g);
        p.color(java.awt.Color.RED);
        p.fillRect(0, 0, 10, 10);
        p.line(0, 0, 30, 20, 3);
        p.fillPolygon(new int[] {0, 5, 9}, new int[] {0, 9, 3}, 3);
        p.text("0.123456789", 2, 20);
        g.dispose();
        warmUpRenderer();
    }

    /**
     * Run the query and drawing code a few times on the small trace built into
     * the jar ({@code warmup.slog2}: {@code slog2 bench write 4000}, written by
     * build.sh), at full detail and as preview shadows, so that the JIT has
     * compiled them before the first real file: the first frame of a file is
     * otherwise drawn by the interpreter (about 55 ms instead of 5 ms for the
     * 3302 drawables of a 10M-drawable file's full view). About 0.3 s of CPU
     * on the warm-up thread; without the resource (a jar built without the
     * CLI) nothing happens.
     */
    static void warmUpRenderer() {
        File tmp = null;
        try (java.io.InputStream in = Main.class.getResourceAsStream("warmup.slog2")) {
            if (in == null) {
                return;
            }
            tmp = File.createTempFile("slog2view-warmup", ".slog2");
            tmp.deleteOnExit(); // also when the viewer exits during the warm-up (System.exit)
            Files.copy(in, tmp.toPath(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            try (Source s = ReaderSource.open(tmp.getPath())) {
                Model m = new Model(s);
                BufferedImage img = new BufferedImage(800, 450, BufferedImage.TYPE_INT_RGB);
                double span = m.tMax - m.tMin;
                for (int k = 0; k < 12; k++) {
                    double f = new double[] {1, 0.5, 0.2}[k % 3];
                    double a = m.tMin + (span - span * f) * (k % 4) / 3.0;
                    Frame fr = k % 2 == 0 ? Frame.load(m, a, a + span * f)
                            : Frame.load(m, a, a + span * f, Math.max(0, m.rootDepth - k % 3));
                    java.awt.Graphics2D g2 = img.createGraphics();
                    Renderer.paint(new G2Painter(g2), m, fr, new Renderer.Layout(800, 450, fr.t0, fr.t1, m.rows()), -1);
                    g2.dispose();
                }
            }
        } catch (IOException | RuntimeException | LinkageError e) {
            // only a warm-up: the first real file reports any problem with its own message
        } finally {
            if (tmp != null && !tmp.delete()) {
                tmp.deleteOnExit();
            }
        }
    }

    static double pct(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
