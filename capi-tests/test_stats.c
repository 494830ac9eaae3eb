/* SLOG2_Stats_*: the statistics of issue #30 from C, on a small file written
 * here whose every figure is known by hand:
 *   line 0: S1 [0, 4] with MPI_Wait [1, 2] nested in it;  line 1: S1 [0, 1];
 *   msg 0 -> 1 sent 0.5, received 1.5, msg_size=100;
 *   msg 1 -> 0 sent 3.0, received 2.5 (backwards in time), msg_size=50;
 *   an arrow of a category without a size field, 0 -> 1 over [2, 3].
 * Checks the profile (per category and per line), the matrix with its bytes,
 * idle time (no state and wait categories), imbalance, histograms with
 * outliers and the instances of a bar, the time profile, partition rows
 * (each drawable once), the comparison of two windows by name, and the error
 * paths: NULL and closed handles, a writer, bad scopes, too small arrays
 * (nothing written past the canaries, n_out = rows needed).
 * Usage: test_stats OUT.slog2 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "slog2.h"
#include "check.h"

#define NEAR(a, b) CHECK(fabs((a) - (b)) < 1e-12)

static void state(SLOG2_File w, int cat, int line, double s, double e) {
    double t[2] = {s, e};
    int y[2] = {line, line};
    CHECK_EQ(SLOG2_Write_drawable_object(w, s, e, cat, 2, t, 2, y, 0, NULL), SLOG2_OK);
}

static void arrow(SLOG2_File w, int cat, int from, int to, double ts, double tr, int size) {
    double t[2] = {ts, tr};
    int y[2] = {from, to};
    char info[8] = {0, 0, 0, 7, (char)(size >> 24), (char)(size >> 16), (char)(size >> 8), (char)size};
    double s = ts < tr ? ts : tr, e = ts < tr ? tr : ts;
    CHECK_EQ(SLOG2_Write_drawable_object(w, s, e, cat, 2, t, 2, y, size >= 0 ? 8 : 0, size >= 0 ? info : NULL),
             SLOG2_OK);
}

static void write_file(const char *path) {
    SLOG2_File w;
    CHECK_EQ(SLOG2_Open(path, 'w', &w), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_header_ex(w, 2, 1024), SLOG2_OK);
    SLOG2_Category_head_t s1 = {1, 1, 255, 0, 0, 255, 1, 0, 0, 0};
    SLOG2_Category_head_t wt = {2, 1, 0, 255, 0, 255, 1, 0, 0, 0};
    SLOG2_Category_head_t msg = {3, 2, 255, 255, 255, 255, 3, 0, 0, 0};
    SLOG2_Category_head_t bare = {4, 2, 255, 255, 0, 255, 3, 0, 0, 0};
    CHECK_EQ(SLOG2_Write_category_ex(w, &s1, "S1", NULL, 0, NULL), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_category_ex(w, &wt, "MPI_Wait", NULL, 0, NULL), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_category_ex(w, &msg, "msg", "msg_tag=%d, msg_size=%d", 0, NULL), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_category_ex(w, &bare, "bare", NULL, 0, NULL), SLOG2_OK);
    SLOG2_Stats none = NULL;
    CHECK_EQ(SLOG2_Stats_open(w, NULL, NULL, &none), SLOG2_ERR_WRONG_MODE);
    CHECK(none == NULL);
    /* In end-time order. */
    state(w, 1, 1, 0.0, 1.0);
    arrow(w, 3, 0, 1, 0.5, 1.5, 100);
    state(w, 2, 0, 1.0, 2.0);
    arrow(w, 3, 1, 0, 3.0, 2.5, 50);
    arrow(w, 4, 0, 1, 2.0, 3.0, -1);
    state(w, 1, 0, 0.0, 4.0);
    CHECK_EQ(SLOG2_Close(&w), SLOG2_OK);
}

static void profile(SLOG2_Stats st) {
    int n = -1, pos = 0;
    CHECK_EQ(SLOG2_Stats_count(st, SLOG2_STATS_PROFILE, &n), SLOG2_OK);
    CHECK_EQ(n, 4);
    int line[8], cat[8];
    int64_t count[8], timed[8];
    double incl[8], excl[8], mn[8], mean[8], mx[8];
    SLOG2_Profile_columns c = {line, cat, count, incl, excl, mn, mean, mx, timed};
    /* Too small: nothing written, n_out = rows needed. */
    cat[0] = cat[1] = -77;
    CHECK_EQ(SLOG2_Stats_profile(st, 0, &n, &c, &pos, 1), SLOG2_ERR_ARRAY_TOO_SMALL);
    CHECK_EQ(n, 4);
    CHECK_EQ(pos, 0);
    CHECK_EQ(cat[0], -77);
    CHECK_EQ(SLOG2_Stats_profile(st, 0, &n, &c, &pos, 8), SLOG2_OK);
    CHECK_EQ(n, 4);
    CHECK_EQ(pos, 4);
    CHECK_EQ(cat[0], 1);
    CHECK_EQ(count[0], 2);
    CHECK_EQ(timed[0], 2);
    NEAR(incl[0], 5.0);
    NEAR(excl[0], 4.0);
    NEAR(mn[0], 1.0);
    NEAR(mean[0], 2.5);
    NEAR(mx[0], 4.0);
    CHECK_EQ(cat[1], 2);
    NEAR(incl[1], 1.0);
    NEAR(excl[1], 1.0);
    CHECK_EQ(cat[2], 3);
    CHECK_EQ(count[2], 2);
    NEAR(incl[2], 1.0 + 0.5);
    CHECK_EQ(cat[3], 4);
    NEAR(excl[3], 1.0);
    /* By line: (0, S1) (0, Wait) (0, msg) (0, bare) (1, S1) (1, msg). */
    CHECK_EQ(SLOG2_Stats_count(st, SLOG2_STATS_PROFILE_BY_LINE, &n), SLOG2_OK);
    CHECK_EQ(n, 6);
    pos = 0;
    CHECK_EQ(SLOG2_Stats_profile(st, 1, &n, &c, &pos, 8), SLOG2_OK);
    CHECK_EQ(line[0], 0);
    CHECK_EQ(cat[0], 1);
    NEAR(excl[0], 3.0);
    CHECK_EQ(line[4], 1);
    CHECK_EQ(cat[4], 1);
    NEAR(excl[4], 1.0);
    /* NULL columns are skipped. */
    SLOG2_Profile_columns only = {NULL, cat, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    pos = 0;
    CHECK_EQ(SLOG2_Stats_profile(st, 1, &n, &only, &pos, 8), SLOG2_OK);
    CHECK_EQ(SLOG2_Stats_profile(st, 1, &n, NULL, &pos, 8), SLOG2_ERR_NULL_ARG);
}

static void comm(SLOG2_Stats st) {
    int n = 0, pos = 0;
    CHECK_EQ(SLOG2_Stats_count(st, SLOG2_STATS_COMM, &n), SLOG2_OK);
    CHECK_EQ(n, 3);
    int from[4], to[4], cat[4];
    int64_t count[4], sized[4], bytes[4];
    SLOG2_Comm_columns c = {from, to, cat, count, sized, bytes};
    CHECK_EQ(SLOG2_Stats_comm(st, &n, &c, &pos, 4), SLOG2_OK);
    CHECK_EQ(n, 3);
    /* (0,1,msg) 100 bytes; (0,1,bare) no size; (1,0,msg) 50 bytes. */
    CHECK(from[0] == 0 && to[0] == 1 && cat[0] == 3 && count[0] == 1 && bytes[0] == 100);
    CHECK(from[1] == 0 && to[1] == 1 && cat[1] == 4 && count[1] == 1 && sized[1] == 0 && bytes[1] == -1);
    CHECK(from[2] == 1 && to[2] == 0 && cat[2] == 3 && bytes[2] == 50);
}

static void idle(SLOG2_File f) {
    const char *wait[] = {"MPI_W*", NULL};
    SLOG2_Stats st;
    CHECK_EQ(SLOG2_Stats_open(f, NULL, wait, &st), SLOG2_OK);
    int n = 0, pos = 0, line[4];
    double id[4], fr[4], ns[4], wt[4];
    SLOG2_Idle_columns c = {line, id, fr, ns, wt};
    CHECK_EQ(SLOG2_Stats_idle(st, &n, &c, &pos, 4), SLOG2_OK);
    CHECK_EQ(n, 2);
    CHECK(line[0] == 0 && line[1] == 1);
    NEAR(ns[0], 0.0);
    NEAR(ns[1], 3.0);
    NEAR(wt[0], 1.0);
    NEAR(id[0], 1.0);
    NEAR(fr[0], 0.25);
    /* Imbalance of exclusive time: S1 3 and 1 over 2 lines. */
    int cat[4], lines[4], wl[8];
    double mean[4], mx[4], ratio[4], wv[8];
    SLOG2_Imbalance_columns ic = {cat, lines, mean, mx, ratio, wl, wv};
    pos = 0;
    CHECK_EQ(SLOG2_Stats_imbalance(st, 0, 2, &n, &ic, &pos, 4), SLOG2_OK);
    CHECK_EQ(n, 2);
    CHECK_EQ(cat[0], 1);
    CHECK_EQ(lines[0], 2);
    NEAR(mean[0], 2.0);
    NEAR(mx[0], 3.0);
    NEAR(ratio[0], 1.5);
    CHECK(wl[0] == 0 && wl[1] == 1);
    NEAR(wv[0], 3.0);
    /* MPI_Wait: only line 0; padded worst list. */
    CHECK_EQ(cat[1], 2);
    CHECK(wl[2] == 0 && wl[3] == -1 && isnan(wv[3]));
    CHECK_EQ(SLOG2_Stats_imbalance(st, 0, -1, &n, &ic, &pos, 4), SLOG2_ERR_BAD_ARG);
    CHECK_EQ(SLOG2_Stats_close(&st), SLOG2_OK);
    CHECK(st == NULL);
}

static void histograms(SLOG2_File f) {
    SLOG2_Histogram_spec spec = {SLOG2_MEASURE_DURATION, 1, 2, 0, NAN, NAN};
    int nb = -1;
    double edges[3], sums[2];
    int64_t counts[2], outl[3];
    CHECK_EQ(SLOG2_Stats_histogram(f, NULL, &spec, &nb, edges, counts, sums, outl), SLOG2_OK);
    CHECK_EQ(nb, 2);
    NEAR(edges[0], 1.0);
    NEAR(edges[1], 2.5);
    NEAR(edges[2], 4.0);
    CHECK(counts[0] == 1 && counts[1] == 1 && outl[0] == 0 && outl[1] == 0);
    NEAR(sums[1], 4.0);
    /* Cut-offs [0, 2]: the 4 s state is an outlier above. */
    spec.lo = 0.0;
    spec.hi = 2.0;
    CHECK_EQ(SLOG2_Stats_histogram(f, NULL, &spec, &nb, edges, counts, sums, outl), SLOG2_OK);
    CHECK(counts[0] == 0 && counts[1] == 1 && outl[1] == 1);
    /* The instances of the outliers above: [0, 4] on line 0. */
    int n = 0, pos = 0, tpos = 0, l0[4], l1[4], cat[4], toff[4];
    double s[4], e[4], v[4];
    int64_t total = 0;
    char text[64];
    SLOG2_Instance_columns ic = {s, e, l0, l1, cat, v, toff};
    CHECK_EQ(SLOG2_Stats_histogram_instances(f, NULL, &spec, edges, 3, 2, &total, &n, &ic, &pos, 4, text,
                                             &tpos, 64), SLOG2_OK);
    CHECK_EQ(total, 1);
    CHECK_EQ(n, 1);
    NEAR(s[0], 0.0);
    NEAR(e[0], 4.0);
    CHECK_EQ(l0[0], 0);
    NEAR(v[0], 4.0);
    CHECK_EQ(toff[0], 0);
    CHECK_EQ(SLOG2_Stats_histogram_instances(f, NULL, &spec, edges, 3, 5, &total, &n, &ic, &pos, 4, text,
                                             &tpos, 64), SLOG2_ERR_BAD_ARG);
    /* Message sizes of every arrow category: 50 and 100; one arrow unsized. */
    SLOG2_Histogram_spec ms = {SLOG2_MEASURE_MESSAGE_SIZE, -1, 1, 0, NAN, NAN};
    CHECK_EQ(SLOG2_Stats_histogram(f, NULL, &ms, &nb, edges, counts, sums, outl), SLOG2_OK);
    CHECK_EQ(nb, 1);
    CHECK(counts[0] == 2 && outl[2] == 1);
    NEAR(sums[0], 150.0);
    /* Instances with text: the msg_size shows in the popup text. */
    pos = tpos = 0;
    CHECK_EQ(SLOG2_Stats_histogram_instances(f, NULL, &ms, edges, 2, 0, &total, &n, &ic, &pos, 4, text,
                                             &tpos, 64), SLOG2_OK);
    CHECK_EQ(n, 2);
    CHECK(strstr(text + toff[0], "msg_size=100") != NULL);
    CHECK(strstr(text + toff[1], "msg_size=50") != NULL);
    /* Text room too small: an error, nothing written. */
    pos = tpos = 0;
    CHECK_EQ(SLOG2_Stats_histogram_instances(f, NULL, &ms, edges, 2, 0, &total, &n, &ic, &pos, 4, text,
                                             &tpos, 8), SLOG2_ERR_ARRAY_TOO_SMALL);
    CHECK_EQ(pos, 0);
    /* Log bins need a positive low cut-off. */
    SLOG2_Histogram_spec lg = {SLOG2_MEASURE_DURATION, 1, 2, 1, 0.0, 4.0};
    CHECK_EQ(SLOG2_Stats_histogram(f, NULL, &lg, &nb, edges, counts, sums, outl), SLOG2_ERR_BAD_ARG);
    /* No value to bin: 0 bins. */
    SLOG2_Histogram_spec empty = {SLOG2_MEASURE_DURATION, 99, 2, 0, NAN, NAN};
    CHECK_EQ(SLOG2_Stats_histogram(f, NULL, &empty, &nb, edges, counts, sums, outl), SLOG2_OK);
    CHECK_EQ(nb, 0);
}

static void time_profile(SLOG2_File f) {
    int nc = -1, cats[4];
    double v[16];
    CHECK_EQ(SLOG2_Stats_time_profile(f, NULL, 4, &nc, NULL, NULL, 0), SLOG2_ERR_ARRAY_TOO_SMALL);
    CHECK_EQ(nc, 2);
    CHECK_EQ(SLOG2_Stats_time_profile(f, NULL, 4, &nc, cats, v, 4), SLOG2_OK);
    CHECK(cats[0] == 1 && cats[1] == 2);
    /* [slice][category]: S1 2,1,1,1; MPI_Wait 0,1,0,0. */
    NEAR(v[0], 2.0);
    NEAR(v[1], 0.0);
    NEAR(v[2], 1.0);
    NEAR(v[3], 1.0);
    NEAR(v[6], 1.0);
    NEAR(v[7], 0.0);
    CHECK_EQ(SLOG2_Stats_time_profile(f, NULL, 0, &nc, cats, v, 4), SLOG2_ERR_BAD_ARG);
}

static void partitions(SLOG2_File f) {
    static int kind[16], cat[16], l0[16], l1[16], par[16], ioff[16], ilen[16];
    static double s[16], e[16], t0[16], t1[16];
    static int64_t nr[16];
    SLOG2_Query_columns c = {kind, cat, s, e, l0, l1, nr, ioff, ilen, t0, t1, par};
    SLOG2_Stats_scope a = {NAN, NAN, 1, -INFINITY, 2.0, 0};
    SLOG2_Stats_scope b = {NAN, NAN, 1, 2.0, INFINITY, 0};
    int n = 0, pos = 0;
    CHECK_EQ(SLOG2_Stats_rows(f, &a, &n, &c, &pos, 0), SLOG2_ERR_ARRAY_TOO_SMALL);
    CHECK_EQ(n, 4);
    CHECK_EQ(SLOG2_Stats_rows(f, &a, &n, &c, &pos, 16), SLOG2_OK);
    CHECK_EQ(SLOG2_Stats_rows(f, &b, &n, &c, &pos, 16), SLOG2_OK);
    CHECK_EQ(n, 2);
    CHECK_EQ(pos, 6);
    for (int i = 0; i < 6; i++) {
        CHECK(i < 4 ? s[i] < 2.0 : s[i] >= 2.0);
        CHECK(par[i] == -1 && ioff[i] == -1 && ilen[i] == 0 && nr[i] == 1);
    }
    /* The backward arrow keeps its direction: time0 > time1. */
    int back = 0;
    for (int i = 0; i < 6; i++) back += cat[i] == 3 && t0[i] > t1[i] && l0[i] == 1;
    CHECK_EQ(back, 1);
    /* Partition edges: -inf ... +inf, non-decreasing. */
    double edges[5];
    CHECK_EQ(SLOG2_Stats_partitions(f, 4, edges), SLOG2_OK);
    CHECK(isinf(edges[0]) && edges[0] < 0 && isinf(edges[4]) && edges[4] > 0);
    for (int i = 0; i < 4; i++) CHECK(edges[i] <= edges[i + 1]);
    CHECK_EQ(SLOG2_Stats_partitions(f, 0, edges), SLOG2_ERR_BAD_ARG);
    CHECK_EQ(SLOG2_Stats_partitions(f, 2, NULL), SLOG2_ERR_NULL_ARG);
    /* Partials add up: exclusive time of S1 over the two partitions. */
    SLOG2_Stats pa, pb;
    CHECK_EQ(SLOG2_Stats_open(f, &a, NULL, &pa), SLOG2_OK);
    CHECK_EQ(SLOG2_Stats_open(f, &b, NULL, &pb), SLOG2_OK);
    double excl_s1 = 0;
    int64_t msgs = 0;
    for (int k = 0; k < 2; k++) {
        int pc[8], pn = 0, pp = 0;
        int64_t pcount[8];
        double pex[8];
        SLOG2_Profile_columns pcol = {NULL, pc, pcount, NULL, pex, NULL, NULL, NULL, NULL};
        CHECK_EQ(SLOG2_Stats_profile(k ? pb : pa, 0, &pn, &pcol, &pp, 8), SLOG2_OK);
        for (int i = 0; i < pn; i++) {
            if (pc[i] == 1) excl_s1 += pex[i];
            if (pc[i] == 3) msgs += pcount[i];
        }
    }
    NEAR(excl_s1, 4.0);
    CHECK_EQ(msgs, 2);
    CHECK_EQ(SLOG2_Stats_close(&pa), SLOG2_OK);
    CHECK_EQ(SLOG2_Stats_close(&pb), SLOG2_OK);
    SLOG2_Stats_scope bad = {3.0, 1.0, 0, 0, 0, 0};
    CHECK_EQ(SLOG2_Stats_open(f, &bad, NULL, &pa), SLOG2_ERR_BAD_ARG);
    CHECK(pa == NULL);
}

static void compare(SLOG2_File f) {
    SLOG2_Stats a, b;
    SLOG2_Stats_scope w = {0.0, 2.0, 0, 0, 0, 0};
    CHECK_EQ(SLOG2_Stats_open(f, NULL, NULL, &a), SLOG2_OK);
    CHECK_EQ(SLOG2_Stats_open(f, &w, NULL, &b), SLOG2_OK);
    int n = 0, pos = 0, npos = 0, noff[8];
    int64_t ca[8], cb[8];
    double ia[8], ib[8], id[8], ir[8], ea[8], eb[8], ed[8], er[8];
    char names[128];
    SLOG2_Compare_columns c = {noff, ca, cb, ia, ib, id, ir, ea, eb, ed, er};
    CHECK_EQ(SLOG2_Stats_compare(a, b, &n, &c, &pos, 8, names, &npos, sizeof names), SLOG2_OK);
    CHECK_EQ(n, 4);
    /* By name: MPI_Wait, S1, bare, msg. */
    CHECK(strcmp(names + noff[1], "S1") == 0);
    NEAR(ia[1], 5.0);
    NEAR(ib[1], 3.0);
    NEAR(id[1], -2.0);
    NEAR(ir[1], -0.4);
    CHECK(strcmp(names + noff[2], "bare") == 0);
    /* [2, 3] meets the window [0, 2] at 2: counted, no time inside. */
    CHECK(ca[2] == 1 && cb[2] == 1);
    NEAR(ib[2], 0.0);
    /* The time profiles of a file against itself. */
    int nn = 0, nl = 0;
    double va[64], vb[64];
    CHECK_EQ(SLOG2_Stats_compare_time(f, f, 4, &nn, names, sizeof names, &nl, va, vb, 64), SLOG2_OK);
    CHECK_EQ(nn, 2);
    CHECK(strcmp(names, "MPI_Wait") == 0 && strcmp(names + 9, "S1") == 0);
    for (int i = 0; i < 8; i++) CHECK(va[i] == vb[i]);
    NEAR(va[1], 2.0);
    CHECK_EQ(SLOG2_Stats_compare_time(f, f, 4, &nn, names, 2, &nl, va, vb, 64), SLOG2_ERR_ARRAY_TOO_SMALL);
    CHECK_EQ(nl, 12);
    CHECK_EQ(SLOG2_Stats_close(&a), SLOG2_OK);
    /* A closed handle. */
    CHECK_EQ(SLOG2_Stats_compare(a, b, &n, &c, &pos, 8, names, &npos, sizeof names), SLOG2_ERR_BAD_HANDLE);
    CHECK_EQ(SLOG2_Stats_close(&b), SLOG2_OK);
    CHECK_EQ(SLOG2_Stats_close(&b), SLOG2_ERR_BAD_HANDLE);
    CHECK_EQ(SLOG2_Stats_count(NULL, SLOG2_STATS_COMM, &n), SLOG2_ERR_BAD_HANDLE);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s OUT.slog2\n", argv[0]); return 2; }
    write_file(argv[1]);
    SLOG2_File f;
    CHECK_EQ(SLOG2_Open(argv[1], 'r', &f), SLOG2_OK);
    SLOG2_Stats st = NULL;
    CHECK_EQ(SLOG2_Stats_open(f, NULL, NULL, NULL), SLOG2_ERR_NULL_ARG);
    CHECK_EQ(SLOG2_Stats_open(f, NULL, NULL, &st), SLOG2_OK);
    int n = 0;
    CHECK_EQ(SLOG2_Stats_count(st, 99, &n), SLOG2_ERR_BAD_ARG);
    profile(st);
    comm(st);
    idle(f);
    histograms(f);
    time_profile(f);
    partitions(f);
    compare(f);
    /* The handle outlives its file. */
    CHECK_EQ(SLOG2_Close(&f), SLOG2_OK);
    CHECK_EQ(SLOG2_Stats_count(st, SLOG2_STATS_PROFILE, &n), SLOG2_OK);
    CHECK_EQ(n, 4);
    CHECK_EQ(SLOG2_Stats_close(&st), SLOG2_OK);
    CHECK_EQ(SLOG2_Stats_open(f, NULL, NULL, &st), SLOG2_ERR_BAD_HANDLE);
    return check_report("test_stats");
}
