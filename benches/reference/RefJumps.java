// Reference side of `slog2 bench query` (issue #15): replays a plan of
// windows ("J|S t0 t1" lines written by `slog2 bench query --plan-out`)
// through slog2sdk's viewer tree, TreeTrunk.updateTimeWindow, and iterates
// the drawables of each window as Jumpshot's canvas does (nestable and
// nestless, composites kept). Prints p50/p99 per kind in microseconds.
//
// Needs the reference's jumpshot.jar (not part of this repository):
//   javac -cp /work/slog2sdk/lib/jumpshot.jar -d /tmp/refjumps benches/reference/RefJumps.java
//   java -cp /work/slog2sdk/lib/jumpshot.jar:/tmp/refjumps RefJumps FILE.slog2 PLAN.txt
import base.drawable.Drawable;
import base.drawable.TimeBoundingBox;
import logformat.slog2.input.InputLog;
import logformat.slog2.input.TreeTrunk;
import logformat.slog2.input.TreeNode;

import java.io.BufferedReader;
import java.io.FileReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

public class RefJumps {
    static TreeTrunk trunk;
    static TimeBoundingBox old;

    static long query(double t0, double t1) {
        TimeBoundingBox w = new TimeBoundingBox();
        w.setEarliestTime(t0);
        w.setLatestTime(t1);
        trunk.updateTimeWindow(old, w);
        old = w;
        long n = 0;
        for (boolean nestable : new boolean[] {true, false}) {
            Iterator it = trunk.iteratorOfAllDrawables(w, Drawable.INCRE_STARTTIME_ORDER, true, nestable);
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    static double pct(double[] v, double q) {
        if (v.length == 0) return 0;
        Arrays.sort(v);
        int i = (int) Math.round((v.length - 1) * q);
        return v[Math.min(i, v.length - 1)];
    }

    public static void main(String[] args) throws Exception {
        long t = System.nanoTime();
        InputLog in = new InputLog(args[0]);
        if (!in.isSLOG2()) throw new IllegalArgumentException(args[0] + " is not SLOG-2");
        String msg = in.getCompatibleHeader();
        if (msg != null) System.err.print(msg);
        in.initialize();
        trunk = new TreeTrunk(in, Drawable.INCRE_STARTTIME_ORDER);
        trunk.initFromTreeTop();
        TreeNode root = trunk.getTreeRoot();
        TimeBoundingBox all = new TimeBoundingBox(root);
        trunk.growInTreeWindow(root, root.getTreeNodeID().depth, all);
        old = all;
        double openMs = (System.nanoTime() - t) / 1e6;

        List<double[]> plan = new ArrayList<>();
        List<Character> kinds = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new FileReader(args[1]))) {
            String line;
            while ((line = r.readLine()) != null) {
                String[] f = line.trim().split("\\s+");
                if (f.length != 3) continue;
                kinds.add(f[0].charAt(0));
                plan.add(new double[] {Double.parseDouble(f[1]), Double.parseDouble(f[2])});
            }
        }
        double width = plan.get(0)[1] - plan.get(0)[0];
        // JIT warm-up on other windows of the same width (not timed).
        Random rnd = new Random(42);
        double span = all.getDuration() - width;
        for (int i = 0; i < 200; i++) {
            double t0 = all.getEarliestTime() + span * rnd.nextDouble();
            query(t0, t0 + width);
        }
        List<Double> jumps = new ArrayList<>(), scrolls = new ArrayList<>();
        long rowsJ = 0, rowsS = 0;
        for (int i = 0; i < plan.size(); i++) {
            double[] p = plan.get(i);
            long s = System.nanoTime();
            long n = query(p[0], p[1]);
            double us = (System.nanoTime() - s) / 1e3;
            if (kinds.get(i) == 'J') { jumps.add(us); rowsJ += n; } else { scrolls.add(us); rowsS += n; }
        }
        double[] j = jumps.stream().mapToDouble(Double::doubleValue).toArray();
        double[] s = scrolls.stream().mapToDouble(Double::doubleValue).toArray();
        System.out.printf("reference open %.1f ms%n", openMs);
        System.out.printf("jump   n=%d p50 %.1f us p99 %.1f us; %.0f drawables%n", j.length, pct(j, .5), pct(j, .99), (double) rowsJ / Math.max(1, j.length));
        System.out.printf("scroll n=%d p50 %.1f us p99 %.1f us; %.0f drawables%n", s.length, pct(s, .5), pct(s, .99), (double) rowsS / Math.max(1, s.length));
        in.close();
    }
}
