/* Every error kind the two APIs can meet from C → its documented code, a
 * static text that is not "unknown", and a detail (SLOG2_Get_last_error)
 * naming the cause. Also: TRACE and SLOG2 handles never stand in for each
 * other, and made-up handles are rejected.
 * Usage: test_error_codes DATA.TXT DATA.slog2 WORKDIR */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "trace_API.h"
#include "slog2.h"
#include "check.h"

static char work[1024];

static const char *path(const char *name) {
    static char buf[2048];
    snprintf(buf, sizeof buf, "%s/%s", work, name);
    return buf;
}

/* The code, its static text, and a detail containing `needle`. */
#define EXPECT_SLOG2(call, code, needle) do { \
    int _rc = (call); CHECK_EQ(_rc, code); \
    CHECK(strcmp(SLOG2_Get_err_string(code), "unknown error code") != 0); \
    if (needle && !strstr(SLOG2_Get_last_error(), needle)) { check_failures++; \
        fprintf(stderr, "%s:%d: detail \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, SLOG2_Get_last_error(), (const char *)needle); } \
} while (0)
#define EXPECT_TRACE(call, code, needle) do { \
    int _rc = (call); CHECK_EQ(_rc, code); \
    CHECK(strcmp(TRACE_Get_err_string(code), "TRACE: unknown error code") != 0); \
    if (needle && !strstr(SLOG2_Get_last_error(), needle)) { check_failures++; \
        fprintf(stderr, "%s:%d: detail \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, SLOG2_Get_last_error(), (const char *)needle); } \
} while (0)

static void write_text(const char *name, const char *text) {
    FILE *f = fopen(path(name), "w");
    if (!f) { perror(path(name)); exit(2); }
    fputs(text, f);
    fclose(f);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s DATA.TXT DATA.slog2 WORKDIR\n", argv[0]); return 2; }
    snprintf(work, sizeof work, "%s", argv[3]);
    double t0, t1;

    /* ---- SLOG2 API ---- */
    SLOG2_File r = NULL;
    EXPECT_SLOG2(SLOG2_Open(NULL, 'r', &r), SLOG2_ERR_NULL_ARG, "filename");
    EXPECT_SLOG2(SLOG2_Open(argv[2], 'x', &r), SLOG2_ERR_BAD_ARG, "mode");
    EXPECT_SLOG2(SLOG2_Open(path("missing.slog2"), 'r', &r), SLOG2_ERR_IO, "missing.slog2");
    CHECK(r == NULL);
    EXPECT_SLOG2(SLOG2_Open(argv[1], 'r', &r), SLOG2_ERR_FORMAT, "SLOG");
    CHECK_EQ(SLOG2_Open(argv[2], 'r', &r), SLOG2_OK);
    EXPECT_SLOG2(SLOG2_Get_total_time(r, NULL, &t1), SLOG2_ERR_NULL_ARG, "starttime");
    EXPECT_SLOG2(SLOG2_Write_start_treenode(r), SLOG2_ERR_WRONG_MODE, "reading");
    int n_out = 0, pos = 0, ip = 0, kind[2]; char info[8];
    SLOG2_Query_columns cols = {kind, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    EXPECT_SLOG2(SLOG2_Query_window(r, 0, 1, &n_out, &cols, &pos, 1, info, &ip, 8, NULL), SLOG2_ERR_ARRAY_TOO_SMALL, "too small");
    CHECK(n_out > 1);
    CHECK_EQ(pos, 0);
    EXPECT_SLOG2(SLOG2_Query_window(r, 2, 1, &n_out, &cols, &pos, 2, info, &ip, 8, NULL), SLOG2_ERR_BAD_ARG, "window");
    EXPECT_SLOG2(SLOG2_Query_window(r, NAN, 1, &n_out, &cols, &pos, 2, info, &ip, 8, NULL), SLOG2_ERR_BAD_ARG, "window");
    pos = -1;
    EXPECT_SLOG2(SLOG2_Query_window(r, 0, 1, &n_out, &cols, &pos, 2, info, &ip, 8, NULL), SLOG2_ERR_BAD_ARG, "negative");
    SLOG2_Category_head_t h; char text[256], legend[256];
    int ncat = 0;
    for (;;) {
        int tp = 0, lp = 0;
        int rc = SLOG2_Get_next_category(r, &h, text, &tp, 256, legend, &lp, 256);
        if (rc != SLOG2_OK) { EXPECT_SLOG2(rc, SLOG2_ERR_EOF, "no more"); break; }
        ncat++;
    }
    CHECK(ncat > 0);

    /* Handles: made up, closed, and of the other API. */
    EXPECT_SLOG2(SLOG2_Get_total_time((SLOG2_File)(uintptr_t)0x7fffffff, &t0, &t1), SLOG2_ERR_BAD_HANDLE, "unknown");
    EXPECT_SLOG2(SLOG2_Get_total_time(NULL, &t0, &t1), SLOG2_ERR_BAD_HANDLE, "NULL");
    TRACE_file tf = NULL;
    CHECK_EQ(TRACE_Open(argv[1], &tf), 0);
    CHECK(tf != NULL);
    EXPECT_SLOG2(SLOG2_Get_total_time((SLOG2_File)(void *)tf, &t0, &t1), SLOG2_ERR_BAD_HANDLE, "unknown");
    TRACE_Rec_Kind_t k;
    EXPECT_TRACE(TRACE_Peek_next_kind((TRACE_file)(void *)r, &k), TRACE_ERR_BAD_HANDLE, "unknown");
    SLOG2_File closed = r;
    CHECK_EQ(SLOG2_Close(&r), SLOG2_OK);
    EXPECT_SLOG2(SLOG2_Close(&closed), SLOG2_ERR_BAD_HANDLE, "closed");

    /* Writer errors. */
    SLOG2_File w;
    CHECK_EQ(SLOG2_Open(path("w.slog2"), 'w', &w), SLOG2_OK);
    SLOG2_Category_head_t st = {1, 1, 255, 0, 0, 255, 1, 0, 0, 0};
    CHECK_EQ(SLOG2_Write_category_ex(w, &st, "s", NULL, 0, NULL), SLOG2_OK);
    EXPECT_SLOG2(SLOG2_Write_header_ex(w, 2, 4096), SLOG2_ERR_STATE, "before");
    EXPECT_SLOG2(SLOG2_Write_end_treenode(w), SLOG2_ERR_STATE, "without a start");
    double tt[2] = {1.0, 2.0}; int yy[2] = {0, 0};
    CHECK_EQ(SLOG2_Write_drawable_object(w, 1.0, 2.0, 1, 2, tt, 2, yy, 0, NULL), SLOG2_OK);
    double early[2] = {0.1, 0.5};
    EXPECT_SLOG2(SLOG2_Write_drawable_object(w, 0.1, 0.5, 1, 2, early, 2, yy, 0, NULL), SLOG2_ERR_ORDER, "non-decreasing");
    double inf[2] = {INFINITY, INFINITY};
    EXPECT_SLOG2(SLOG2_Write_drawable_object(w, INFINITY, INFINITY, 1, 2, inf, 2, yy, 0, NULL), SLOG2_ERR_INVALID_DRAWABLE, "finite");
    EXPECT_SLOG2(SLOG2_Write_drawable_object(w, 1.0, 9.0, 1, 2, tt, 2, yy, 0, NULL), SLOG2_ERR_BAD_ARG, "envelope");
    EXPECT_SLOG2(SLOG2_Get_total_time(w, &t0, &t1), SLOG2_ERR_WRONG_MODE, "writing");
    CHECK_EQ(SLOG2_Close(&w), SLOG2_OK);
    CHECK_EQ(SLOG2_Open(path("empty.slog2"), 'w', &w), SLOG2_OK);
    EXPECT_SLOG2(SLOG2_Close(&w), SLOG2_ERR_NO_DRAWABLES, "no drawable");
    CHECK(fopen(path("empty.slog2"), "r") == NULL);

    /* ---- TRACE API ---- */
    TRACE_file bad = NULL;
    EXPECT_TRACE(TRACE_Open(path("missing.txt"), &bad), TRACE_ERR_OPEN, "missing.txt");
    EXPECT_TRACE(TRACE_Peek_next_kind(tf, NULL), TRACE_ERR_NULL_ARG, "next_kind");
    EXPECT_TRACE(TRACE_Get_next_method(tf, NULL, NULL, NULL), TRACE_ERR_UNSUPPORTED, "not supported");
    EXPECT_TRACE(TRACE_Set_position(tf, -1), TRACE_ERR_POSITION, "negative");
    CHECK_EQ(TRACE_Peek_next_kind(tf, &k), 0);
    CHECK_EQ(k, TRACE_CATEGORY);
    double s, e; int a, b, c;
    EXPECT_TRACE(TRACE_Peek_next_primitive(tf, &s, &e, &a, &b, &c), TRACE_ERR_KIND, "not a primitive");
    TRACE_Category_head_t th; char lg[4], lb[256]; int m[4], nl, nb, nm, lp = 0, bp = 0, mp = 0;
    EXPECT_TRACE(TRACE_Get_next_category(tf, &th, &nl, lg, &lp, 1, &nb, lb, &bp, 256, &nm, m, &mp, 4), TRACE_ERR_ARRAY_TOO_SMALL, "too small");
    CHECK_EQ(lp, 0);
    EXPECT_TRACE(TRACE_Get_next_category(tf, &th, &nl, lg, &lp, -1, &nb, lb, &bp, 256, &nm, m, &mp, 4), TRACE_ERR_BAD_ARG, "negative");
    CHECK_EQ(TRACE_Close(&tf), 0);
    EXPECT_TRACE(TRACE_Peek_next_kind(tf ? tf : (TRACE_file)(uintptr_t)0x7ffffffe, &k), TRACE_ERR_BAD_HANDLE, "unknown");

    write_text("bad.txt", "Category[ index=0 name=S topo=State color=(255,0,0,255,true) width=1 ]\n"
                          "Primitive[ TimeBBox(0,1) Category=0 (0, 0) (1 0) ]\n");
    CHECK_EQ(TRACE_Open(path("bad.txt"), &tf), 0);
    CHECK_EQ(TRACE_Peek_next_kind(tf, &k), 0);
    CHECK_EQ(k, TRACE_CATEGORY);
    CHECK_EQ(TRACE_Get_next_category(tf, &th, &nl, lb, &lp, 256, &nb, lb + 128, &bp, 256, &nm, m, &mp, 4), 0);
    EXPECT_TRACE(TRACE_Peek_next_kind(tf, &k), TRACE_ERR_PARSE, "bad.txt:2");
    CHECK_EQ(TRACE_Close(&tf), 0);

    /* TRACE_Open reports the kind of failure, not always TRACE_ERR_OPEN: a
     * damaged SLOG-2 file is TRACE_ERR_READ (the detail says where). */
    FILE *in = fopen(argv[2], "rb"), *cut = fopen(path("cut.slog2"), "wb");
    CHECK(in != NULL && cut != NULL);
    char head[300];
    size_t got = fread(head, 1, sizeof head, in);
    CHECK_EQ((int)got, 300);
    fwrite(head, 1, got, cut);
    fclose(in);
    fclose(cut);
    EXPECT_TRACE(TRACE_Open(path("cut.slog2"), &bad), TRACE_ERR_READ, "outside the file");
    CHECK(bad == NULL);
    const char *dir = work;  /* a directory */
    EXPECT_TRACE(TRACE_Open(dir, &bad), TRACE_ERR_OPEN, dir);

    /* SLOG2_Get_next_category refuses one int for both positions (each
     * array advances its own). */
    CHECK_EQ(SLOG2_Open(argv[2], 'r', &r), SLOG2_OK);
    int same = 0;
    EXPECT_SLOG2(SLOG2_Get_next_category(r, &h, text, &same, 256, legend, &same, 256), SLOG2_ERR_BAD_ARG, "same int");
    CHECK_EQ(same, 0);
    CHECK_EQ(SLOG2_Close(&r), SLOG2_OK);

    /* Every code has its own text, different from every other code's. */
    for (int code = 1; code <= SLOG2_ERR_SOURCE; code++) {
        CHECK(strcmp(SLOG2_Get_err_string(code), "unknown error code") != 0);
        for (int other = 1; other < code; other++)
            CHECK(strcmp(SLOG2_Get_err_string(code), SLOG2_Get_err_string(other)) != 0);
    }
    for (int code = 1; code <= TRACE_ERR_SOURCE; code++) {
        CHECK(strcmp(TRACE_Get_err_string(code), "TRACE: unknown error code") != 0);
        for (int other = 1; other < code; other++)
            CHECK(strcmp(TRACE_Get_err_string(code), TRACE_Get_err_string(other)) != 0);
    }
    return check_report("test_error_codes");
}
