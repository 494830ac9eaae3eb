package slog2.view;

import java.io.IOException;
import slog2.api.Drawables;

/**
 * Find the next or previous real drawable of a category (or of any
 * searchable category) after or before a time: window queries of doubling
 * span starting at that time, so a near hit costs one small query.
 */
public final class Find {
    /** What was found: the drawable's start, end, first line and category. */
    public record Hit(double start, double end, int line, int category) {
    }

    private Find() {
    }

    static boolean wanted(Model m, int category, int slot) {
        int s = m.slot(category);
        if (s < 0) {
            return false;
        }
        return slot >= 0 ? s == slot : m.searchable[s] && m.visible[s];
    }

    /** First drawable starting strictly after {@code t} (forward) or before it (backward); null if none. */
    public static Hit find(Model m, double t, int slot, boolean forwardDir, double initialSpan) throws IOException {
        double span = Math.max(initialSpan, (m.tMax - m.tMin) * 1e-9);
        double full = m.tMax - m.tMin;
        while (true) {
            double a = forwardDir ? t : Math.max(m.tMin, t - span);
            double b = forwardDir ? Math.min(m.tMax, t + span) : t;
            Drawables d = m.source.window(a, b);
            int best = -1;
            for (int i = 0; i < d.n; i++) {
                if (d.kind[i] == Drawables.KIND_SHADOW || !wanted(m, d.category[i], slot)) {
                    continue;
                }
                double s = d.start[i];
                if (forwardDir ? s > t && (best < 0 || s < d.start[best]) : s < t && (best < 0 || s > d.start[best])) {
                    best = i;
                }
            }
            if (best >= 0) {
                return new Hit(d.start[best], d.end[best], d.line0[best], d.category[best]);
            }
            if ((forwardDir && b >= m.tMax) || (!forwardDir && a <= m.tMin) || span > 2 * full) {
                return null;
            }
            span *= 4;
        }
    }
}
