/* cquery: the C-API baseline for the Python window benchmarks (python/bench/bench.py).
 *
 *   cquery FILE query WIDTH COUNT   time COUNT SLOG2_Query_window calls of WIDTH seconds at
 *                                   evenly spaced positions (the positions bench.py uses),
 *                                   after one untimed warm-up pass over the same windows;
 *                                   prints one line per query: "<ns> <rows>"
 *   cquery FILE scan NWIN           the whole file in NWIN consecutive windows; prints
 *                                   "<seconds> <rows>"
 * Columns are caller buffers kept across calls (what a C viewer does): every column
 * the Python layer asks for, so both sides make the same library call.
 * Build: cc -O2 -I include python/bench/cquery.c -L target/release -lslog2 -o cquery
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slog2.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
    int cap, icap;
    int *kind, *category, *line0, *line1, *info_offset, *info_len, *parent;
    double *start, *end, *time0, *time1;
    int64_t *num_real;
    char *info;
    SLOG2_Query_columns cols;
} bufs;

static void grow(bufs *b, int cap, int icap)
{
    if (cap > b->cap) {
        b->cap = cap;
#define R(p) p = realloc(p, sizeof *p * (size_t)cap)
        R(b->kind); R(b->category); R(b->line0); R(b->line1); R(b->info_offset); R(b->info_len);
        R(b->parent); R(b->start); R(b->end); R(b->time0); R(b->time1); R(b->num_real);
#undef R
    }
    if (icap > b->icap) {
        b->icap = icap;
        b->info = realloc(b->info, (size_t)icap);
    }
    SLOG2_Query_columns c = {b->kind, b->category, b->start, b->end, b->line0, b->line1,
                             b->num_real, b->info_offset, b->info_len, b->time0, b->time1, b->parent};
    b->cols = c;
}

static int query(SLOG2_File f, bufs *b, double t0, double t1)
{
    for (;;) {
        int n = 0, pos = 0, ipos = 0;
        SLOG2_Query_stats st;
        int rc = SLOG2_Query_window(f, t0, t1, &n, &b->cols, &pos, b->cap, b->info, &ipos, b->icap, &st);
        if (rc == SLOG2_OK) return n;
        if (rc != SLOG2_ERR_ARRAY_TOO_SMALL) {
            fprintf(stderr, "query: %s\n", SLOG2_Get_last_error());
            exit(1);
        }
        int nr = 0, ni = 0;
        SLOG2_Query_window_size(f, t0, t1, -1, &nr, &ni);
        grow(b, nr, ni + 1);
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: cquery FILE query WIDTH COUNT | cquery FILE scan NWIN\n");
        return 2;
    }
    SLOG2_File f;
    if (SLOG2_Open(argv[1], 'r', &f) != SLOG2_OK) {
        fprintf(stderr, "open: %s\n", SLOG2_Get_last_error());
        return 1;
    }
    double a, z;
    SLOG2_Get_total_time(f, &a, &z);
    bufs b;
    memset(&b, 0, sizeof b);
    grow(&b, 4096, 1 << 16);
    if (strcmp(argv[2], "query") == 0 && argc == 5) {
        double w = atof(argv[3]);
        int count = atoi(argv[4]);
        /* warm-up pass over the same windows (maps the file's pages into this
           process and sizes the buffers), as bench.py does for Python */
        for (int i = 0; i < count; i++) {
            double t0 = a + (z - a - w) * i / count;
            query(f, &b, t0, t0 + w);
        }
        for (int i = 0; i < count; i++) {
            double t0 = a + (z - a - w) * i / count;
            double s = now();
            int n = query(f, &b, t0, t0 + w);
            printf("%.0f %d\n", (now() - s) * 1e9, n);
        }
    } else if (strcmp(argv[2], "scan") == 0) {
        int nwin = atoi(argv[3]);
        double s = now();
        long long rows = 0;
        for (int k = 0; k < nwin; k++) {
            double t0 = a + (z - a) * k / nwin, t1 = a + (z - a) * (k + 1) / nwin;
            rows += query(f, &b, t0, t1);
        }
        printf("%.6f %lld\n", now() - s, rows);
    } else {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    SLOG2_Close(&f);
    return 0;
}
