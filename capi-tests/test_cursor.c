/* SLOG2_Cursor_*: a viewer's moving window. Writes a file of 3,000 drawables
 * (states short and long, arrows both ways with info, composites) in small
 * leaves, then moves a cursor through scrolls both ways, zooms and jumps and
 * checks after every move that its rows (zero-copy view and copied columns)
 * are exactly SLOG2_Query_window's rows as a multiset, in drawing order, with
 * members after their composite. Also the error paths: NULL and closed
 * handles, a writer, a bad window (which empties the cursor), and a cursor
 * and a scan ended by their file's SLOG2_Close.
 * Usage: test_cursor OUT.slog2 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "slog2.h"
#include "check.h"

#define MAXR 8192

typedef struct {
    int kind, cat, l0, l1, parent_kind, nreal;
    double s, e, t0, t1;
    unsigned info; /* checksum of the info bytes */
} Row;

static int cmp_row(const void *a, const void *b) {
    const Row *x = a, *y = b;
#define C(f) if (x->f != y->f) return x->f < y->f ? -1 : 1;
    C(s) C(e) C(kind) C(cat) C(l0) C(l1) C(t0) C(t1) C(nreal) C(parent_kind) C(info)
#undef C
    return 0;
}

static unsigned sum(const char *p, int n) {
    unsigned h = 2166136261u;
    for (int i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

static unsigned long long rng = 88172645463325252ull;
static double unit(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static Row want[MAXR], got[MAXR];
static int kind[MAXR], cat[MAXR], l0[MAXR], l1[MAXR], par[MAXR], ioff[MAXR], ilen[MAXR];
static double s[MAXR], e[MAXR], t0[MAXR], t1[MAXR];
static int64_t nreal[MAXR];
static char info[MAXR * 8];

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s OUT.slog2\n", argv[0]); return 2; }
    SLOG2_File w;
    CHECK_EQ(SLOG2_Open(argv[1], 'w', &w), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_header_ex(w, 2, 2048), SLOG2_OK);
    SLOG2_Category_head_t state = {1, 1, 255, 0, 0, 255, 1, 0, 0, 0};
    SLOG2_Category_head_t arrow = {2, 2, 255, 255, 255, 255, 3, 0, 0, 0};
    SLOG2_Category_head_t comp = {3, 1, 0, 0, 255, 255, 1, 0, 0, 0};
    CHECK_EQ(SLOG2_Write_category_ex(w, &state, "compute", NULL, 0, NULL), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_category_ex(w, &arrow, "message", "tag=%d", 0, NULL), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_category_ex(w, &comp, "group", NULL, 0, NULL), SLOG2_OK);
    SLOG2_Cursor bad = NULL;
    CHECK_EQ(SLOG2_Cursor_open(w, &bad), SLOG2_ERR_WRONG_MODE);
    CHECK(bad == NULL);
    for (int i = 0; i < 3000; i++) {
        double end = 0.01 * (i + 1);
        double u = unit();
        int line = (int)(unit() * 4);
        if (u < 0.6 || i < 2) {          /* a state, sometimes very long */
            double st = unit() < 0.03 ? end * unit() * 0.5 : end - 0.2 * unit();
            double tt[2] = {st, end}; int yy[2] = {line, line};
            CHECK_EQ(SLOG2_Write_drawable_object(w, st, end, 1, 2, tt, 2, yy, 0, NULL), SLOG2_OK);
        } else if (u < 0.9) {            /* an arrow, forward or backward */
            double st = end - 0.1 * unit();
            int other = (line + 1) % 4;
            char tag[4] = {0, 0, (char)(i >> 8), (char)i};
            double tt[2]; int yy[2] = {line, other};
            if (unit() < 0.5) { tt[0] = st; tt[1] = end; } else { tt[0] = end; tt[1] = st; }
            CHECK_EQ(SLOG2_Write_drawable_object(w, st, end, 2, 2, tt, 2, yy, 4, tag), SLOG2_OK);
        } else {                         /* a composite of two states */
            double st = end - 0.05;
            int mcat[2] = {1, 1}, mnv[2] = {2, 2}, mni[2] = {0, 0};
            double mt[4] = {st, st + 0.02, st + 0.01, end}; int my[4] = {line, line, line, line};
            CHECK_EQ(SLOG2_Write_composite_ex(w, st, end, 3, 0, NULL, 2, mcat, mnv, mt, my, mni, NULL), SLOG2_OK);
        }
    }
    CHECK_EQ(SLOG2_Close(&w), SLOG2_OK);

    SLOG2_File r;
    CHECK_EQ(SLOG2_Open(argv[1], 'r', &r), SLOG2_OK);
    SLOG2_Cursor c = NULL;
    CHECK_EQ(SLOG2_Cursor_open(r, NULL), SLOG2_ERR_NULL_ARG);
    CHECK_EQ(SLOG2_Cursor_open(NULL, &c), SLOG2_ERR_BAD_HANDLE);
    CHECK_EQ(SLOG2_Cursor_open(r, &c), SLOG2_OK);
    CHECK(c != NULL);
    SLOG2_Cursor_view v;
    CHECK_EQ(SLOG2_Cursor_get_view(c, &v), SLOG2_OK);   /* before any move: empty */
    CHECK_EQ(v.n_rows, 0);
    CHECK(v.kind == NULL && v.info == NULL);
    CHECK_EQ(SLOG2_Cursor_get_view(c, NULL), SLOG2_ERR_NULL_ARG);
    CHECK_EQ(SLOG2_Cursor_move(NULL, 0, 1, NULL, NULL, NULL), SLOG2_ERR_BAD_HANDLE);
    CHECK_EQ(SLOG2_Cursor_move((SLOG2_Cursor)r, 0, 1, NULL, NULL, NULL), SLOG2_ERR_BAD_HANDLE);

    double a = 3.0, b = 4.0;
    int moves = 0, incremental = 0;
    for (int step = 0; step < 400; step++) {
        double u = unit(), width = b - a;
        if (step > 0) {
            if (u < 0.6) { double d = width * (unit() - 0.4) * 0.6; a += d; b += d; }
            else if (u < 0.85) { double m = (a + b) / 2, h = width * (0.3 + unit()) / 2; a = m - h; b = m + h; }
            else { a = unit() * 31 - 0.5; b = a + unit() * 2; }
        }
        int n = -1, ni = -1;
        SLOG2_Query_stats st = {-1, -1};
        CHECK_EQ(SLOG2_Cursor_move(c, a, b, &n, &ni, &st), SLOG2_OK);
        CHECK_EQ(SLOG2_Cursor_get_view(c, &v), SLOG2_OK);
        CHECK_EQ(v.n_rows, n);
        CHECK_EQ(v.n_info_bytes, ni);
        CHECK(v.t0 == a && v.t1 == b);
        /* The same window from a fresh query. */
        SLOG2_Query_columns cols = {kind, cat, s, e, l0, l1, nreal, ioff, ilen, t0, t1, par};
        int pos = 0, ip = 0, nq = 0;
        CHECK_EQ(SLOG2_Query_window(r, a, b, &nq, &cols, &pos, MAXR, info, &ip, (int)sizeof info, NULL), SLOG2_OK);
        CHECK_EQ(nq, n);
        if (nq != n || n > MAXR) break;
        SLOG2_Query_stats qs;
        CHECK_EQ(SLOG2_Query_window(r, a, b, &nq, &cols, &(int){0}, MAXR, info, &(int){0}, (int)sizeof info, &qs), SLOG2_OK);
        if (st.bytes_read < qs.bytes_read) incremental++;
        for (int i = 0; i < n; i++) {
            want[i] = (Row){kind[i], cat[i], l0[i], l1[i], par[i] < 0 ? -1 : kind[par[i]], (int)nreal[i],
                            s[i], e[i], t0[i], t1[i], ilen[i] ? sum(info + ioff[i], ilen[i]) : 0};
            int pk = v.parent[i] < 0 ? -1 : v.kind[v.parent[i]];
            got[i] = (Row){v.kind[i], v.category[i], v.line0[i], v.line1[i], pk, (int)v.num_real[i],
                           v.start[i], v.end[i], v.time0[i], v.time1[i],
                           v.info_offset[i + 1] > v.info_offset[i]
                               ? sum(v.info + v.info_offset[i], (int)(v.info_offset[i + 1] - v.info_offset[i])) : 0};
            /* Members follow their composite; rows are in drawing order. */
            if (v.parent[i] >= 0) CHECK(v.parent[i] < i && v.kind[v.parent[i]] == SLOG2_KIND_COMPOSITE);
            else if (i > 0) {
                int j = i - 1;
                while (j > 0 && v.parent[j] >= 0) j--;
                CHECK(v.start[j] <= v.start[i]);
            }
            CHECK((v.start[i] <= b && a <= v.end[i]) || v.parent[i] >= 0);
        }
        qsort(want, n, sizeof(Row), cmp_row);
        qsort(got, n, sizeof(Row), cmp_row);
        CHECK(memcmp(want, got, n * sizeof(Row)) == 0);
        /* The copying variant: the view's rows, column for column. */
        pos = 0; ip = 0; nq = 0;
        CHECK_EQ(SLOG2_Cursor_rows(c, &nq, &cols, &pos, MAXR, info, &ip, (int)sizeof info, NULL), SLOG2_OK);
        CHECK_EQ(nq, n);
        for (int i = 0; i < n; i++) {
            CHECK(s[i] == v.start[i] && e[i] == v.end[i] && t0[i] == v.time0[i] && t1[i] == v.time1[i]);
            CHECK(kind[i] == v.kind[i] && cat[i] == v.category[i] && par[i] == v.parent[i]);
            CHECK(ilen[i] == (int)(v.info_offset[i + 1] - v.info_offset[i]));
        }
        if (n > 0) {
            pos = 0; ip = 0;
            CHECK_EQ(SLOG2_Cursor_rows(c, &nq, &cols, &pos, n - 1, info, &ip, (int)sizeof info, NULL), SLOG2_ERR_ARRAY_TOO_SMALL);
            CHECK_EQ(nq, n);
            CHECK_EQ(pos, 0);
        }
        moves++;
    }
    CHECK_EQ(moves, 400);
    CHECK(incremental > 100);   /* most moves decoded less than a fresh query */

    /* A bad window: an error, and the cursor is empty until the next move. */
    CHECK_EQ(SLOG2_Cursor_move(c, 2.0, 1.0, NULL, NULL, NULL), SLOG2_ERR_BAD_ARG);
    CHECK_EQ(SLOG2_Cursor_move(c, NAN, 1.0, NULL, NULL, NULL), SLOG2_ERR_BAD_ARG);
    CHECK(strlen(SLOG2_Get_last_error()) > 0);
    CHECK_EQ(SLOG2_Cursor_get_view(c, &v), SLOG2_OK);
    CHECK_EQ(v.n_rows, 0);
    /* A whole-file window, then closing the file ends the cursor (and a
     * scan) as well: every call but their close is SLOG2_ERR_BAD_HANDLE. */
    int n = 0;
    CHECK_EQ(SLOG2_Cursor_move(c, 0.0, 100.0, &n, NULL, NULL), SLOG2_OK);
    CHECK_EQ(SLOG2_Cursor_get_view(c, &v), SLOG2_OK);
    int top = 0;
    for (int i = 0; i < v.n_rows; i++) top += v.parent[i] < 0;
    CHECK_EQ(top, 3000);
    SLOG2_Scan sc = NULL;
    CHECK_EQ(SLOG2_Scan_open(r, &sc), SLOG2_OK);
    CHECK_EQ(SLOG2_Close(&r), SLOG2_OK);
    CHECK_EQ(SLOG2_Cursor_move(c, 0.0, 100.0, &n, NULL, NULL), SLOG2_ERR_BAD_HANDLE);
    CHECK(strstr(SLOG2_Get_last_error(), "of this cursor was closed") != NULL);
    CHECK_EQ(SLOG2_Cursor_get_view(c, &v), SLOG2_ERR_BAD_HANDLE);
    int sn = 0, sp = 0, sip = 0, skind[1];
    SLOG2_Query_columns cols_one = {skind, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    CHECK_EQ(SLOG2_Scan_next(sc, &sn, &cols_one, &sp, 1, NULL, &sip, 0, NULL), SLOG2_ERR_BAD_HANDLE);
    CHECK(strstr(SLOG2_Get_last_error(), "of this scan was closed") != NULL);
    CHECK_EQ(SLOG2_Scan_close(&sc), SLOG2_OK);
    CHECK(sc == NULL);
    CHECK_EQ(SLOG2_Cursor_close(&c), SLOG2_OK);
    CHECK(c == NULL);
    CHECK_EQ(SLOG2_Cursor_close(&c), SLOG2_ERR_BAD_HANDLE);
    CHECK_EQ(SLOG2_Cursor_close(NULL), SLOG2_ERR_NULL_ARG);
    SLOG2_Cursor stale = (SLOG2_Cursor)(uintptr_t)123456789;
    CHECK_EQ(SLOG2_Cursor_close(&stale), SLOG2_ERR_BAD_HANDLE);
    return check_report("test_cursor");
}
