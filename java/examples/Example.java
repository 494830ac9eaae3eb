import slog2.api.*;

public class Example {
    public static void main(String[] args) throws Slog2Exception {
        try (Slog2Reader r = Slog2Reader.open(args[0])) {
            System.out.println(r.counts());             // drawables, composites, members, rows
            Drawables d = r.window(0.0007, 0.00071);    // one window: columns, one JNI call
            for (int i = 0; i < d.n; i++)
                System.out.printf("%d cat %d %g..%g line %d->%d parent %d %s%n", d.kind[i], d.category[i],
                        d.start[i], d.end[i], d.line0[i], d.line1[i], d.parent[i], r.popupText(d, i));
            double busy = 0;                             // every drawable, in batches of columns
            try (Scan s = r.scan(1 << 16)) {
                for (Drawables b : s)
                    for (int i = 0; i < b.n; i++)
                        busy += b.end[i] - b.start[i];
            }
            System.out.printf("summed durations %g s%n", busy);
        }
    }
}
