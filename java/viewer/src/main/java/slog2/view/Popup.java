package slog2.view;

import java.io.IOException;
import java.util.Locale;
import slog2.api.Category;
import slog2.api.Drawables;

/** The text shown when a drawable is clicked: what, when, where, and its info. */
public final class Popup {
    private Popup() {
    }

    static String topoName(int t) {
        return t == Category.STATE ? "state" : t == Category.ARROW ? "arrow" : t == Category.EVENT ? "event" : "?";
    }

    public static String describe(Model m, Frame f, int i) throws IOException {
        Drawables d = f.d;
        StringBuilder sb = new StringBuilder();
        if (d.kind[i] == Drawables.KIND_SHADOW) {
            sb.append("Preview ").append(topoName(f.topo[i])).append(": ").append(d.numReal[i])
                    .append(" drawables\n");
            line(sb, d, i);
            for (int k = 0; k < d.weights.size(); k++) {
                if (d.weights.row[k] != i) {
                    continue;
                }
                int s = m.slot(d.weights.category[k]);
                String name = s >= 0 ? m.categories[s].name : "category " + d.weights.category[k];
                sb.append(String.format(Locale.ROOT, "  %s: count=%d incl=%.4f excl=%.4f%n", name,
                        d.weights.count[k], d.weights.incl[k], d.weights.excl[k]));
            }
            return sb.toString();
        }
        int s = f.slot[i];
        String name = s >= 0 ? m.categories[s].name : "category " + d.category[i];
        sb.append(name).append(" (")
                .append(d.kind[i] == Drawables.KIND_COMPOSITE ? "composite of " + d.numReal[i] : topoName(f.topo[i]))
                .append(")\n");
        line(sb, d, i);
        sb.append(String.format(Locale.ROOT, "[0]: time=%s, lineID=%d%n", fmt(d.time0[i]), d.line0[i]));
        sb.append(String.format(Locale.ROOT, "[1]: time=%s, lineID=%d%n", fmt(d.time1[i]), d.line1[i]));
        String info = m.source.popupText(d, i);
        if (info != null && !info.isEmpty()) {
            sb.append(info).append('\n');
        }
        return sb.toString();
    }

    private static void line(StringBuilder sb, Drawables d, int i) {
        sb.append(String.format(Locale.ROOT, "start=%s, end=%s, duration=%s%n", fmt(d.start[i]), fmt(d.end[i]),
                fmt(d.end[i] - d.start[i])));
    }

    static String fmt(double t) {
        return Double.toString(t);
    }
}
