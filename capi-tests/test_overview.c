/* SLOG2_Overview_* from C: a temporal overview with its p-curve and auto p,
 * the cube in [line][slice][category] order against a brute-force sum of the
 * window's states, the parts tiling the slices, set_p at 0 and 1, a
 * spatiotemporal overview whose parts tile lines x slices under its
 * hierarchy, array-too-small and bad-argument codes, closed handles; the
 * cube cache (the default: no_cache = 0) giving the same cube when slice edges
 * fall on cached ones.
 * Usage: test_overview FILE.slog2 */
#include <math.h>
#include <string.h>
#include "slog2.h"
#include "check.h"

#define N 10
#define MAXL 64
#define MAXC 64

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    SLOG2_File fp = NULL;
    CHECK_EQ(SLOG2_Open(argv[1], 'r', &fp), SLOG2_OK);
    /* no_cache = 1: the cube read from the drawables, compared below by brute force. */
    SLOG2_Overview_params prm = {NAN, NAN, N, SLOG2_OVERVIEW_DURATION, 0, NULL, -1.0, 0.001, 1};
    SLOG2_Overview ov = NULL;
    CHECK_EQ(SLOG2_Overview_open(fp, &prm, &ov), SLOG2_OK);
    SLOG2_Overview_info_t info;
    CHECK_EQ(SLOG2_Overview_get_info(ov, &info), SLOG2_OK);
    double t0, t1;
    CHECK_EQ(SLOG2_Get_total_time(fp, &t0, &t1), SLOG2_OK);
    CHECK(info.t0 == t0 && info.t1 == t1);
    CHECK_EQ(info.slices, N);
    CHECK(info.n_lines > 0 && info.n_lines <= MAXL && info.n_categories > 0 && info.n_categories <= MAXC);
    CHECK(info.n_curve >= 2);
    CHECK_EQ(info.exact, 1);

    int lines[MAXL], cats[MAXC], nl = 0, nc = 0;
    CHECK_EQ(SLOG2_Overview_get_axes(ov, lines, &nl, cats, &nc, 1), SLOG2_ERR_ARRAY_TOO_SMALL);
    CHECK_EQ(nl, info.n_lines);
    CHECK_EQ(SLOG2_Overview_get_axes(ov, lines, &nl, cats, &nc, MAXL), SLOG2_OK);

    /* The cube against the window's states. */
    int ncells = 0;
    CHECK_EQ(SLOG2_Overview_get_cube(ov, NULL, 0, &ncells), SLOG2_ERR_ARRAY_TOO_SMALL);
    CHECK_EQ(ncells, nl * N * nc);
    static double cube[MAXL * N * MAXC], want[MAXL * N * MAXC];
    CHECK_EQ(SLOG2_Overview_get_cube(ov, cube, ncells, &ncells), SLOG2_OK);
    int nrows = 0, ninfo = 0;
    CHECK_EQ(SLOG2_Query_window_size(fp, t0, t1, -1, &nrows, &ninfo), SLOG2_OK);
    static int kind[100000], cat[100000], l0[100000], l1[100000], parent[100000];
    static double s[100000], e[100000];
    static char infob[1 << 20];
    SLOG2_Query_columns cols;
    memset(&cols, 0, sizeof cols);
    cols.kind = kind; cols.category = cat; cols.start = s; cols.end = e;
    cols.line0 = l0; cols.line1 = l1; cols.parent = parent;
    int pos = 0, ipos = 0, n = 0;
    CHECK(nrows < 100000 && ninfo < (1 << 20));
    CHECK_EQ(SLOG2_Query_window(fp, t0, t1, &n, &cols, &pos, 100000, infob, &ipos, 1 << 20, NULL), SLOG2_OK);
    double w = (t1 - t0) / N;
    memset(want, 0, sizeof want);
    for (int i = 0; i < n; i++) {
        if (kind[i] != SLOG2_KIND_PRIMITIVE) continue;
        int li = -1, ci = -1;
        for (int k = 0; k < nl; k++) if (lines[k] == l0[i]) li = k;
        for (int k = 0; k < nc; k++) if (cats[k] == cat[i]) ci = k;
        if (li < 0 || ci < 0) continue; /* arrows, events: not state categories */
        for (int t = 0; t < N; t++) {
            double a = t0 + t * w, b = t == N - 1 ? t1 : t0 + (t + 1) * w;
            double ov_ = fmin(e[i], b) - fmax(s[i], a);
            if (ov_ > 0) want[(li * N + t) * nc + ci] += ov_;
        }
    }
    int bad = 0;
    for (int k = 0; k < ncells; k++)
        if (fabs(cube[k] - want[k]) > 1e-9 * (1 + fabs(want[k]))) bad++;
    CHECK_EQ(bad, 0);

    /* Parts tile the slices; set_p(1) is one part, set_p(0) all distinct slices. */
    int node[N], first[N], last[N], mode[N], np = 0;
    double gain[N], loss[N], values[N * MAXC];
    CHECK_EQ(SLOG2_Overview_get_parts(ov, node, first, last, gain, loss, mode, values, N, &np), SLOG2_OK);
    CHECK_EQ(np, info.n_parts);
    CHECK_EQ(first[0], 0);
    CHECK_EQ(last[np - 1], N - 1);
    for (int k = 1; k < np; k++) CHECK_EQ(first[k], last[k - 1] + 1);
    for (int k = 0; k < np; k++) CHECK_EQ(node[k], -1);
    CHECK_EQ(SLOG2_Overview_set_p(ov, 1.0), SLOG2_OK);
    CHECK_EQ(SLOG2_Overview_get_parts(ov, NULL, first, last, NULL, NULL, NULL, NULL, N, &np), SLOG2_OK);
    CHECK_EQ(np, 1);
    CHECK_EQ(SLOG2_Overview_set_p(ov, 1.5), SLOG2_ERR_BAD_ARG);
    double cp[64], cg[64], cl[64];
    int cparts[64], ncurve = 0;
    CHECK_EQ(SLOG2_Overview_get_curve(ov, cp, cg, cl, cparts, 64, &ncurve), SLOG2_OK);
    CHECK_EQ(ncurve, info.n_curve);
    CHECK(cp[0] == 0.0 && cparts[ncurve - 1] == 1);
    for (int k = 1; k < ncurve; k++) CHECK(cp[k] > cp[k - 1] && cparts[k] < cparts[k - 1]);
    CHECK_EQ(SLOG2_Overview_close(&ov), SLOG2_OK);
    CHECK(ov == NULL);
    CHECK_EQ(SLOG2_Overview_get_info(ov, &info), SLOG2_ERR_BAD_HANDLE);

    /* The default: the cube cache ($SLOG2_CACHE_DIR, set by CTest). Built by the
     * first call (unless an earlier run left it), read by the second; 10 slices of
     * the whole range fall on cached edges, so both are exact and equal the cube
     * read above. */
    for (int round = 0; round < 2; round++) {
        SLOG2_Overview_params cp_ = prm;
        cp_.no_cache = 0;
        CHECK_EQ(SLOG2_Overview_open(fp, &cp_, &ov), SLOG2_OK);
        CHECK_EQ(SLOG2_Overview_get_info(ov, &info), SLOG2_OK);
        CHECK_EQ(info.exact, 1);
        if (round == 1) CHECK_EQ(info.from_cache, 1);
        static double cached[MAXL * N * MAXC];
        CHECK_EQ(SLOG2_Overview_get_cube(ov, cached, ncells, &ncells), SLOG2_OK);
        bad = 0;
        for (int k = 0; k < ncells; k++)
            if (fabs(cached[k] - cube[k]) > 1e-9 * (1 + fabs(cube[k]))) bad++;
        CHECK_EQ(bad, 0);
        CHECK_EQ(SLOG2_Overview_close(&ov), SLOG2_OK);
    }

    /* Spatiotemporal, fanout:2: the parts tile lines x slices. */
    SLOG2_Overview_params st = {NAN, NAN, 4, SLOG2_OVERVIEW_COUNT, 1, "fanout:2", 0.4, 0, 1};
    CHECK_EQ(SLOG2_Overview_open(fp, &st, &ov), SLOG2_OK);
    CHECK_EQ(SLOG2_Overview_get_info(ov, &info), SLOG2_OK);
    CHECK(info.n_nodes > info.n_lines);
    int par[256], cnt[256], hl[4096], nn = 0, nhl = 0;
    CHECK_EQ(SLOG2_Overview_get_hierarchy(ov, par, cnt, 256, &nn, hl, 4096, &nhl), SLOG2_OK);
    CHECK_EQ(par[0], -1);
    CHECK_EQ(cnt[0], info.n_lines);
    int off[256], o = 0;
    for (int k = 0; k < nn; k++) { off[k] = o; o += cnt[k]; }
    static int pn[4096], pf[4096], pl[4096];
    CHECK_EQ(SLOG2_Overview_get_parts(ov, pn, pf, pl, NULL, NULL, NULL, NULL, 4096, &np), SLOG2_OK);
    static int cover[MAXL * 4];
    memset(cover, 0, sizeof cover);
    CHECK_EQ(SLOG2_Overview_get_axes(ov, lines, &nl, NULL, NULL, MAXL), SLOG2_OK);
    for (int k = 0; k < np; k++)
        for (int j = 0; j < cnt[pn[k]]; j++) {
            int id = hl[off[pn[k]] + j], li = -1;
            for (int q = 0; q < nl; q++) if (lines[q] == id) li = q;
            for (int t = pf[k]; t <= pl[k]; t++) cover[li * 4 + t]++;
        }
    bad = 0;
    for (int k = 0; k < nl * 4; k++) bad += cover[k] != 1;
    CHECK_EQ(bad, 0);
    int rn[4096], nr = 0;
    CHECK_EQ(SLOG2_Overview_get_rects(ov, 1.0, rn, NULL, NULL, NULL, NULL, 4096, &nr), SLOG2_OK);
    CHECK_EQ(nr, np);
    CHECK_EQ(SLOG2_Overview_close(&ov), SLOG2_OK);

    /* Bad arguments. */
    SLOG2_Overview_params badp = prm;
    badp.slices = 0;
    CHECK_EQ(SLOG2_Overview_open(fp, &badp, &ov), SLOG2_ERR_BAD_ARG);
    CHECK(ov == NULL);
    badp = prm;
    badp.metric = 7;
    CHECK_EQ(SLOG2_Overview_open(fp, &badp, &ov), SLOG2_ERR_BAD_ARG);
    badp = st;
    badp.hierarchy = "no such map";
    CHECK_EQ(SLOG2_Overview_open(fp, &badp, &ov), SLOG2_ERR_BAD_ARG);
    CHECK(strstr(SLOG2_Get_last_error(), "no such map") != NULL);
    CHECK_EQ(SLOG2_Overview_open(fp, NULL, &ov), SLOG2_ERR_NULL_ARG);
    CHECK_EQ(SLOG2_Close(&fp), SLOG2_OK);
    CHECK_EQ(SLOG2_Overview_open(fp, &prm, &ov), SLOG2_ERR_BAD_HANDLE);
    return check_report("test_overview");
}
