/* C-ABI misuse, from C, under ASan+UBSan and valgrind (issue #16): NULL
 * pointers, closed / made-up / foreign handles, short caller arrays with
 * canaries around them, wrong call order, 8 threads on one handle, 10,000
 * handles. Every case asserts the documented code and, where the library
 * keeps one, a detail naming the cause. The same cases from Rust:
 * tests/capi_misuse.rs.
 * Usage: test_misuse DATA.TXT DATA.slog2 WORKDIR */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "trace_API.h"
#include "slog2.h"
#include "check.h"

#define CANARY 0x5a5a5a5a
#define DETAIL(needle) do { if (!strstr(SLOG2_Get_last_error(), needle)) { check_failures++; \
    fprintf(stderr, "%s:%d: detail \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, SLOG2_Get_last_error(), needle); } } while (0)

static const char *slog2_path;

static SLOG2_File open_r(void) {
    SLOG2_File fp = NULL;
    CHECK_EQ(SLOG2_Open(slog2_path, 'r', &fp), SLOG2_OK);
    return fp;
}

/* ---- 8 threads on one handle ---- */
enum { THREADS = 8, ROUNDS = 200, MAXROWS = 4096 };
struct job { SLOG2_File fp; int rows; long long kind_sum; int bad; };

static void query(SLOG2_File fp, int *rows, long long *kind_sum, int *bad) {
    static __thread int kind[MAXROWS], cat[MAXROWS];
    static __thread double start[MAXROWS], end[MAXROWS];
    static __thread char info[1 << 16];
    SLOG2_Query_columns cols = {kind, cat, start, end, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    int n = 0, pos = 0, ip = 0;
    if (SLOG2_Query_window(fp, 0.0, 1.0, &n, &cols, &pos, MAXROWS, info, &ip, (int)sizeof info, NULL) != SLOG2_OK) {
        (*bad)++;
        return;
    }
    long long s = 0;
    for (int i = 0; i < pos; i++) s += kind[i] * 31 + cat[i] + (long long)(end[i] * 1e6) - (long long)(start[i] * 1e6);
    *rows = pos;
    *kind_sum = s;
}

static void *worker(void *arg) {
    struct job *j = arg;
    int rows0 = -1; long long sum0 = 0;
    for (int r = 0; r < ROUNDS; r++) {
        int rows = 0; long long sum = 0;
        query(j->fp, &rows, &sum, &j->bad);
        if (r == 0) { rows0 = rows; sum0 = sum; }
        else if (rows != rows0 || sum != sum0) j->bad++;
    }
    j->rows = rows0;
    j->kind_sum = sum0;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s DATA.TXT DATA.slog2 WORKDIR\n", argv[0]); return 2; }
    slog2_path = argv[2];
    char wpath[2048];
    snprintf(wpath, sizeof wpath, "%s/misuse-out.slog2", argv[3]);

    /* ---- NULL pointers ---- */
    SLOG2_File fp = NULL;
    CHECK_EQ(SLOG2_Open(NULL, 'r', &fp), SLOG2_ERR_NULL_ARG);
    CHECK(fp == NULL);
    CHECK_EQ(SLOG2_Open(slog2_path, 'r', NULL), SLOG2_ERR_NULL_ARG);
    CHECK_EQ(SLOG2_Close(NULL), SLOG2_ERR_NULL_ARG);
    fp = open_r();
    int nr = 0, ni = 0;
    CHECK_EQ(SLOG2_Query_window_size(fp, 0, 1, -1, NULL, &ni), SLOG2_ERR_NULL_ARG);
    CHECK_EQ(SLOG2_Query_window_size(fp, 0, 1, -1, &nr, NULL), SLOG2_ERR_NULL_ARG);
    CHECK_EQ(SLOG2_Get_total_time(fp, NULL, NULL), SLOG2_ERR_NULL_ARG);
    int n_nodes = 0;
    CHECK_EQ(SLOG2_Read_dir(fp, NULL, 4, &n_nodes), SLOG2_ERR_NULL_ARG);
    SLOG2_Treedir_node one[1];
    CHECK_EQ(SLOG2_Read_dir(fp, one, 1, NULL), SLOG2_ERR_NULL_ARG);
    CHECK_EQ(SLOG2_Get_next_category(fp, NULL, NULL, NULL, 0, NULL, NULL, 0), SLOG2_ERR_NULL_ARG);
    TRACE_file tf = NULL;
    CHECK(TRACE_Open(NULL, &tf) != 0);
    CHECK(tf == NULL);
    CHECK(TRACE_Open(argv[1], NULL) != 0);
    CHECK(TRACE_Close(NULL) != 0);

    /* ---- short arrays: nothing written outside what the caller gave ---- */
    SLOG2_Treedir_node nodes[3];
    memset(nodes, 0x5a, sizeof nodes);
    CHECK_EQ(SLOG2_Read_dir(fp, nodes + 1, 0, &n_nodes), SLOG2_ERR_ARRAY_TOO_SMALL);
    CHECK(n_nodes >= 1);
    for (size_t i = 0; i < sizeof nodes; i++) CHECK_EQ(((unsigned char *)nodes)[i], 0x5a);
    CHECK_EQ(SLOG2_Query_window_size(fp, 0, 1, -1, &nr, &ni), SLOG2_OK);
    CHECK(nr > 2);
    int kind[4] = {CANARY, CANARY, CANARY, CANARY};
    double start[4] = {-7, -7, -7, -7};
    char info[8];
    memset(info, 'C', sizeof info);
    SLOG2_Query_columns cols = {kind + 1, NULL, start + 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    int n_out = 0, pos = 0, ip = 0;
    CHECK_EQ(SLOG2_Query_window(fp, 0, 1, &n_out, &cols, &pos, 2, info + 1, &ip, 6, NULL), SLOG2_ERR_ARRAY_TOO_SMALL);
    DETAIL("too small");
    CHECK_EQ(n_out, nr);
    CHECK_EQ(pos, 0);
    CHECK_EQ(ip, 0);
    for (int i = 0; i < 4; i++) { CHECK_EQ(kind[i], CANARY); CHECK(start[i] == -7); }
    for (int i = 0; i < 8; i++) CHECK_EQ(info[i], 'C');
    /* enough rows, too few info bytes (unless the window has no info) */
    int kind2[MAXROWS + 2];
    for (int i = 0; i < MAXROWS + 2; i++) kind2[i] = CANARY;
    SLOG2_Query_columns cols2 = {kind2 + 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    pos = 0; ip = 0;
    if (ni > 0) {
        CHECK_EQ(SLOG2_Query_window(fp, 0, 1, &n_out, &cols2, &pos, nr, info + 1, &ip, 0, NULL), SLOG2_ERR_ARRAY_TOO_SMALL);
        CHECK_EQ(kind2[1], CANARY);
    }
    CHECK_EQ(kind2[0], CANARY);
    CHECK_EQ(kind2[nr + 1], CANARY);
    /* negative sizes and positions are bad arguments, not writes */
    pos = -1;
    CHECK_EQ(SLOG2_Query_window(fp, 0, 1, &n_out, &cols2, &pos, nr, info, &ip, 8, NULL), SLOG2_ERR_BAD_ARG);
    pos = 0;
    CHECK_EQ(SLOG2_Query_window(fp, 0, 1, &n_out, &cols2, &pos, -5, info, &ip, 8, NULL), SLOG2_ERR_BAD_ARG);
    CHECK_EQ(kind2[1], CANARY);

    /* ---- wrong call order / wrong mode ---- */
    CHECK_EQ(SLOG2_Write_header_ex(fp, 2, 4096), SLOG2_ERR_WRONG_MODE);
    DETAIL("reading");
    SLOG2_File w = NULL;
    CHECK_EQ(SLOG2_Open(wpath, 'w', &w), SLOG2_OK);
    CHECK_EQ(SLOG2_Query_window_size(w, 0, 1, -1, &nr, &ni), SLOG2_ERR_WRONG_MODE);
    DETAIL("writing");
    CHECK_EQ(SLOG2_Read_dir(w, nodes, 3, &n_nodes), SLOG2_ERR_WRONG_MODE);
    /* closing a writer that got no drawable: an error, the handle is gone, no file */
    CHECK_EQ(SLOG2_Close(&w), SLOG2_ERR_NO_DRAWABLES);
    CHECK(w == NULL);
    FILE *left = fopen(wpath, "rb");
    CHECK(left == NULL);
    if (left) fclose(left);

    /* ---- closed, made-up and foreign handles ---- */
    SLOG2_File kept = fp;
    CHECK_EQ(SLOG2_Close(&fp), SLOG2_OK);
    CHECK(fp == NULL);
    CHECK_EQ(SLOG2_Query_window_size(kept, 0, 1, -1, &nr, &ni), SLOG2_ERR_BAD_HANDLE);
    SLOG2_File again = kept;
    CHECK_EQ(SLOG2_Close(&again), SLOG2_ERR_BAD_HANDLE);
    CHECK_EQ(SLOG2_Query_window_size((SLOG2_File)(uintptr_t)0xdeadbeef, 0, 1, -1, &nr, &ni), SLOG2_ERR_BAD_HANDLE);
    CHECK_EQ(SLOG2_Query_window_size(NULL, 0, 1, -1, &nr, &ni), SLOG2_ERR_BAD_HANDLE);
    CHECK_EQ(TRACE_Open(argv[1], &tf), 0);
    CHECK(tf != NULL);
    CHECK_EQ(SLOG2_Query_window_size((SLOG2_File)(void *)tf, 0, 1, -1, &nr, &ni), SLOG2_ERR_BAD_HANDLE);
    SLOG2_File r2 = open_r();
    TRACE_Rec_Kind_t k;
    CHECK(TRACE_Peek_next_kind((TRACE_file)(void *)r2, &k) != 0);
    CHECK(TRACE_Peek_next_kind(tf, NULL) != 0);
    CHECK_EQ(TRACE_Peek_next_kind(tf, &k), 0);
    TRACE_file tkept = tf;
    CHECK_EQ(TRACE_Close(&tf), 0);
    CHECK(TRACE_Peek_next_kind(tkept, &k) != 0);
    CHECK(TRACE_Close(&tkept) != 0);

    /* ---- 8 threads on one handle agree with one thread ---- */
    int rows1 = 0, bad1 = 0; long long sum1 = 0;
    query(r2, &rows1, &sum1, &bad1);
    CHECK_EQ(bad1, 0);
    CHECK(rows1 > 0);
    pthread_t th[THREADS];
    struct job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (struct job){r2, 0, 0, 0};
        CHECK_EQ(pthread_create(&th[i], NULL, worker, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ(jobs[i].bad, 0);
        CHECK_EQ(jobs[i].rows, rows1);
        CHECK_EQ(jobs[i].kind_sum, sum1);
    }
    CHECK_EQ(SLOG2_Close(&r2), SLOG2_OK);

    /* ---- 10,000 handles: distinct, usable, all closed ---- */
    enum { MANY = 10000 };
    SLOG2_File *hs = calloc(MANY, sizeof *hs);
    int opened = 0;
    for (int i = 0; i < MANY; i++) if (SLOG2_Open(slog2_path, 'r', &hs[i]) == SLOG2_OK) opened++;
    CHECK_EQ(opened, MANY);
    int dup = 0;
    for (int i = 1; i < MANY; i++) if (hs[i] == hs[i - 1] || hs[i] == hs[0]) dup++;
    CHECK_EQ(dup, 0);
    CHECK_EQ(SLOG2_Query_window_size(hs[MANY - 1], 0, 1, -1, &nr, &ni), SLOG2_OK);
    int closed = 0;
    for (int i = 0; i < MANY; i++) if (SLOG2_Close(&hs[i]) == SLOG2_OK && hs[i] == NULL) closed++;
    CHECK_EQ(closed, MANY);
    free(hs);

    return check_report("misuse");
}
