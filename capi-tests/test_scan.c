/* The whole-file scan from C: SLOG2_Scan_next in small calls (3 rows, 16 info
 * bytes of room; more when SLOG2_Scan_next_size says the next record needs
 * it) returns the same rows as one SLOG2_Query_window over the whole file:
 * compared as sorted records (a top-level row with its member rows, parent
 * and info resolved), each drawable exactly once. Then EOF, a closed file and
 * closed handles give their codes.
 * Usage: test_scan FILE.slog2... */
#include <string.h>
#include "slog2.h"
#include "check.h"

#define CAP 20000
#define ICAP (CAP * 16)

typedef struct {
    int kind[CAP], cat[CAP], l0[CAP], l1[CAP], par[CAP], ioff[CAP], ilen[CAP];
    double s[CAP], e[CAP], t0[CAP], t1[CAP];
    int64_t nreal[CAP];
    char info[ICAP];
    int n;
} rows_t;

static rows_t W, S;

static SLOG2_Query_columns cols_of(rows_t *r) {
    SLOG2_Query_columns c = {r->kind, r->cat, r->s, r->e, r->l0, r->l1, r->nreal,
                             r->ioff, r->ilen, r->t0, r->t1, r->par};
    return c;
}

/* One row as text (members: relative to their composite's row). */
static void row_text(const rows_t *r, int i, int base, char *out, size_t max) {
    int n = snprintf(out, max, "%d %d %.17g %.17g %.17g %.17g %d %d %lld %d [", r->kind[i], r->cat[i],
                     r->s[i], r->e[i], r->t0[i], r->t1[i], r->l0[i], r->l1[i],
                     (long long)r->nreal[i], r->par[i] >= 0 ? i - (base + r->par[i]) : -1);
    for (int k = 0; k < r->ilen[i] && n + 4 < (int)max; k++)
        n += snprintf(out + n, max - n, "%02x", (unsigned char)r->info[r->ioff[i] + k]);
    snprintf(out + n, max - n, "]");
}

#define RECLEN 1024
static char (*recs_w)[RECLEN], (*recs_s)[RECLEN];

/* Records of rows [0, n): `bases[i]` is the first row of the call that wrote row i. */
static int records(const rows_t *r, const int *bases, char (*out)[RECLEN]) {
    int nrec = 0;
    for (int i = 0; i < r->n; i++) {
        char t[512];
        row_text(r, i, bases ? bases[i] : 0, t, sizeof t);
        if (r->par[i] < 0) {
            nrec++;
            out[nrec - 1][0] = 0;
        }
        if (nrec == 0) return -1;
        strncat(out[nrec - 1], t, RECLEN - strlen(out[nrec - 1]) - 2);
        strcat(out[nrec - 1], ";");
    }
    return nrec;
}

static int cmp(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

static int bases[CAP];

static void check_file(const char *path) {
    SLOG2_File fp;
    CHECK_EQ(SLOG2_Open(path, 'r', &fp), SLOG2_OK);
    double a, b;
    CHECK_EQ(SLOG2_Get_total_time(fp, &a, &b), SLOG2_OK);
    SLOG2_Query_columns wc = cols_of(&W), sc_cols = cols_of(&S);
    int pos = 0, ip = 0;
    CHECK_EQ(SLOG2_Query_window(fp, a, b, &W.n, &wc, &pos, CAP, W.info, &ip, ICAP, NULL), SLOG2_OK);
    CHECK(W.n > 0);

    SLOG2_Scan sc = NULL;
    CHECK_EQ(SLOG2_Scan_open(fp, &sc), SLOG2_OK);
    CHECK(sc != NULL);
    int room = 3, iroom = 16, calls = 0;
    pos = 0; ip = 0;
    for (;;) {
        int n = -1, p0 = pos, i0 = ip;
        SLOG2_Query_stats st;
        int max = pos + room < CAP ? pos + room : CAP;
        int imax = ip + iroom < ICAP ? ip + iroom : ICAP;
        int rc = SLOG2_Scan_next(sc, &n, &sc_cols, &pos, max, S.info, &ip, imax, &st);
        if (rc == SLOG2_ERR_EOF) { CHECK_EQ(n, 0); break; }
        if (rc == SLOG2_ERR_ARRAY_TOO_SMALL) {
            int nr = 0, ni = 0;
            CHECK_EQ(pos, p0);
            CHECK_EQ(ip, i0);
            CHECK_EQ(SLOG2_Scan_next_size(sc, &nr, &ni), SLOG2_OK);
            CHECK_EQ(nr, n);
            CHECK(nr > room || ni > iroom);
            if (nr > room) room = nr;
            if (ni > iroom) iroom = ni;
            continue;
        }
        CHECK_EQ(rc, SLOG2_OK);
        if (rc != SLOG2_OK) break;
        CHECK_EQ(pos - p0, n);
        CHECK(n >= 1 && n <= room);
        for (int i = p0; i < pos; i++) bases[i] = p0;
        calls++;
    }
    S.n = pos;
    CHECK_EQ(S.n, W.n);
    CHECK(calls >= 2);
    /* At the end: EOF again. */
    int n = -1;
    CHECK_EQ(SLOG2_Scan_next(sc, &n, &sc_cols, &pos, CAP, S.info, &ip, ICAP, NULL), SLOG2_ERR_EOF);
    CHECK_EQ(n, 0);

    int nw = records(&W, NULL, recs_w), ns = records(&S, bases, recs_s);
    CHECK(nw > 0);
    CHECK_EQ(nw, ns);
    if (nw == ns && nw > 0) {
        qsort(recs_w, nw, RECLEN, cmp);
        qsort(recs_s, ns, RECLEN, cmp);
        int diff = 0;
        for (int i = 0; i < nw; i++) diff += strcmp(recs_w[i], recs_s[i]) != 0;
        CHECK_EQ(diff, 0);
    }
    printf("%s: %d rows, %d records, %d scan calls\n", path, S.n, ns, calls);

    /* A second scan, then the file closed under it. */
    SLOG2_Scan sc2 = NULL;
    CHECK_EQ(SLOG2_Scan_open(fp, &sc2), SLOG2_OK);
    CHECK_EQ(SLOG2_Scan_close(&sc), SLOG2_OK);
    CHECK(sc == NULL);
    CHECK_EQ(SLOG2_Scan_close(&sc), SLOG2_ERR_BAD_HANDLE);
    CHECK_EQ(SLOG2_Close(&fp), SLOG2_OK);
    pos = 0; ip = 0;
    CHECK_EQ(SLOG2_Scan_next(sc2, &n, &sc_cols, &pos, CAP, S.info, &ip, ICAP, NULL), SLOG2_ERR_BAD_HANDLE);
    CHECK(strstr(SLOG2_Get_last_error(), "closed") != NULL);
    CHECK_EQ(SLOG2_Scan_close(&sc2), SLOG2_OK);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s FILE.slog2...\n", argv[0]); return 2; }
    recs_w = calloc(CAP, RECLEN);
    recs_s = calloc(CAP, RECLEN);
    if (!recs_w || !recs_s) return 2;
    for (int i = 1; i < argc; i++) check_file(argv[i]);
    /* NULL handles. */
    SLOG2_Scan sc = NULL;
    CHECK_EQ(SLOG2_Scan_open(NULL, &sc), SLOG2_ERR_BAD_HANDLE);
    CHECK_EQ(SLOG2_Scan_close(NULL), SLOG2_ERR_NULL_ARG);
    free(recs_w);
    free(recs_s);
    return check_report("test_scan");
}
