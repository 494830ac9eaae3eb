/* Profile + communication matrix of a whole file through the C ABI, timed
 * (scripts/bench-stats.sh builds and runs it): per round, SLOG2_Stats_open
 * (the one pass: profile per line x category, matrix, idle) and the copy of
 * the per-category profile and the matrix into arrays, then SLOG2_Stats_close.
 * One warm-up round, then ROUNDS timed ones; prints each round and the median.
 * Usage: bench_stats FILE.slog2 [ROUNDS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "slog2.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static long long one_round(SLOG2_File f, int *rows) {
    SLOG2_Stats st;
    if (SLOG2_Stats_open(f, NULL, NULL, &st) != SLOG2_OK) {
        fprintf(stderr, "SLOG2_Stats_open: %s\n", SLOG2_Get_last_error());
        exit(1);
    }
    int np = 0, nc = 0, n = 0, pos = 0;
    SLOG2_Stats_count(st, SLOG2_STATS_PROFILE, &np);
    SLOG2_Stats_count(st, SLOG2_STATS_COMM, &nc);
    int *cat = malloc(sizeof(int) * (np + 1) * 3);
    int64_t *cnt = malloc(sizeof(int64_t) * (np + nc + 1) * 3);
    double *d = malloc(sizeof(double) * (np + 1) * 6);
    SLOG2_Profile_columns pc = {NULL, cat, cnt, d, d + np, d + 2 * np, d + 3 * np, d + 4 * np, cnt + np};
    SLOG2_Stats_profile(st, 0, &n, &pc, &pos, np);
    long long total = 0;
    for (int i = 0; i < n; i++) total += cnt[i];
    int *ft = malloc(sizeof(int) * (nc + 1) * 3);
    int64_t *cb = malloc(sizeof(int64_t) * (nc + 1) * 3);
    SLOG2_Comm_columns cc = {ft, ft + nc, ft + 2 * nc, cb, cb + nc, cb + 2 * nc};
    pos = 0;
    SLOG2_Stats_comm(st, &n, &cc, &pos, nc);
    SLOG2_Stats_close(&st);
    *rows = np + nc;
    free(cat), free(cnt), free(d), free(ft), free(cb);
    return total;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s FILE.slog2 [ROUNDS]\n", argv[0]); return 2; }
    int rounds = argc > 2 ? atoi(argv[2]) : 9;
    SLOG2_File f;
    if (SLOG2_Open(argv[1], 'r', &f) != SLOG2_OK) { fprintf(stderr, "%s\n", SLOG2_Get_last_error()); return 1; }
    int rows;
    long long n = one_round(f, &rows); /* warm-up */
    double *t = malloc(sizeof(double) * rounds);
    for (int r = 0; r < rounds; r++) {
        double a = now();
        one_round(f, &rows);
        t[r] = now() - a;
        printf("round %d: %.4f s, %.1f M drawables/s\n", r, t[r], n / t[r] / 1e6);
    }
    qsort(t, rounds, sizeof(double), cmp);
    printf("C: %lld drawables (%d result rows), median %.4f s = %.1f M drawables/s (min %.4f s)\n", n, rows,
           t[rounds / 2], n / t[rounds / 2] / 1e6, t[0]);
    SLOG2_Close(&f);
    free(t);
    return 0;
}
