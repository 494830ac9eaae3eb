/*
 * test_minitrace -- the TRACE-API contract of libminitrace (plugin_minitrace.c):
 * help and open protocol, handle checks, idempotent peeks, wrong-kind calls,
 * four-argument arrays checked before writing (and packing with pos),
 * Get without Peek, composites with and without Get_next_composite,
 * positions, y-maps, EOF, and syntax errors with file and line.
 *
 *   usage: test_minitrace DATA/mini.trace WORKDIR
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "trace_API.h"

/* Write text to WORKDIR/name; return the path (static buffer). */
static const char *write_file(const char *dir, const char *name, const char *text)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return "/nonexistent";
    fputs(text, f);
    fclose(f);
    return path;
}

/* Open text as a trace and read records until an error; return that code
 * (0 if everything read) and the error text in *text. */
static int first_error(const char *dir, const char *text, const char **err)
{
    TRACE_file fp;
    int rc = TRACE_Open(write_file(dir, "bad.trace", text), &fp);
    if (!fp) return -1000 - rc;
    TRACE_Rec_Kind_t k;
    double st, et, t[4];
    int n[8], y[4], cat, tp, yp, bp, np;
    char b[16];
    TRACE_Category_head_t h;
    char legend[64], label[64];
    int meth[4];
    for (;;) {
        if ((rc = TRACE_Peek_next_kind(fp, &k)) != 0 || k == TRACE_EOF) break;
        tp = yp = bp = 0;
        if (k == TRACE_CATEGORY)
            rc = TRACE_Get_next_category(fp, &h, &n[0], legend, &tp, 64, &n[1], label, &yp, 64, &n[2], meth, &bp, 4);
        else if (k == TRACE_COMPOSITE_DRAWABLE) {
            rc = TRACE_Peek_next_composite(fp, &st, &et, &np, &n[0]);
            for (int i = 0; rc == 0 && i < np; i++) {
                tp = yp = bp = 0;
                rc = TRACE_Get_next_primitive(fp, &cat, &n[0], t, &tp, 4, &n[1], y, &yp, 4, &n[2], b, &bp, 16);
            }
        } else if (k == TRACE_PRIMITIVE_DRAWABLE)
            rc = TRACE_Get_next_primitive(fp, &cat, &n[0], t, &tp, 4, &n[1], y, &yp, 4, &n[2], b, &bp, 16);
        else
            rc = -1; /* not used by these inputs */
        if (rc) break;
    }
    *err = TRACE_Get_err_string(rc);
    /* A syntax error is sticky. */
    if (rc > 0) CHECK(TRACE_Peek_next_kind(fp, &k) == rc);
    CHECK_EQ(TRACE_Close(&fp), 0);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s MINI.TRACE WORKDIR\n", argv[0]);
        return 2;
    }
    TRACE_file fp = (TRACE_file)&argc; /* garbage: Open must store NULL */
    TRACE_Rec_Kind_t k;

    /* Help: first word -h, --h, -help, --help. */
    const char *helps[] = { "-h", "--h", "-help", "--help x.trace", "  -h" };
    for (size_t i = 0; i < sizeof helps / sizeof *helps; i++) {
        fp = (TRACE_file)&argc;
        CHECK_EQ(TRACE_Open(helps[i], &fp), 0);
        CHECK(fp == NULL);
    }
    CHECK(strstr(TRACE_Get_err_string(0), "usage") != NULL);
    /* "-hello" is a file name, not a help request. */
    CHECK(TRACE_Open("-hello", &fp) != 0);
    CHECK(fp == NULL);
    CHECK(TRACE_Open("/nonexistent/x.trace", &fp) != 0);
    CHECK(fp == NULL);
    CHECK(TRACE_Open(NULL, &fp) != 0);
    CHECK(TRACE_Open(argv[1], NULL) != 0);
    for (int code = -3; code < 20; code++) CHECK(TRACE_Get_err_string(code) != NULL);
    CHECK(TRACE_Get_err_string(123456) != NULL);

    /* Handles. */
    CHECK(TRACE_Close(NULL) != 0);
    TRACE_file none = NULL;
    CHECK_EQ(TRACE_Close(&none), 0);
    TRACE_file bogus = (TRACE_file)&none;
    CHECK(TRACE_Close(&bogus) != 0);
    CHECK(TRACE_Peek_next_kind(bogus, &k) != 0);
    CHECK(TRACE_Peek_next_kind(NULL, &k) != 0);

    CHECK_EQ(TRACE_Open(argv[1], &fp), 0);
    CHECK(fp != NULL);
    CHECK(TRACE_Peek_next_kind(fp, NULL) != 0);
    CHECK(TRACE_Get_next_method(fp, NULL, NULL, NULL) != 0);

    /* Position at the very start. */
    TRACE_int64_t start = -1, cookie = -1;
    CHECK_EQ(TRACE_Get_position(fp, &start), 0);

    /* Idempotent peeks. */
    CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
    CHECK_EQ(k, TRACE_CATEGORY);
    CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
    CHECK_EQ(k, TRACE_CATEGORY);
    int nl = -1, nb = -1, nm = -1;
    CHECK_EQ(TRACE_Peek_next_category(fp, &nl, &nb, &nm), 0);
    CHECK_EQ(TRACE_Peek_next_category(fp, &nl, &nb, &nm), 0);
    CHECK_EQ(nl, 7); /* "Compute" */
    CHECK_EQ(nb, 7); /* "iter=%d" */
    CHECK_EQ(nm, 0);

    /* Wrong kind: error, nothing changes. */
    double st, et;
    int nt, ny, np, r[5];
    CHECK(TRACE_Peek_next_primitive(fp, &st, &et, &nt, &ny, &nb) != 0);
    CHECK(TRACE_Peek_next_composite(fp, &st, &et, &np, &nb) != 0);
    CHECK(TRACE_Peek_next_ycoordmap(fp, &r[0], &r[1], &r[2], &r[3], &r[4]) != 0);
    CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
    CHECK_EQ(k, TRACE_CATEGORY);

    /* Four-argument arrays: too small, bad pos or max -> error, nothing written. */
    TRACE_Category_head_t h;
    char legend[32], label[32];
    int meth[4];
    memset(legend, 'Z', sizeof legend);
    memset(label, 'Z', sizeof label);
    int ol = -5, ob = -5, om = -5, lp = 2, bp = 0, mp = 0;
    CHECK(TRACE_Get_next_category(fp, &h, &ol, legend, &lp, 8, &ob, label, &bp, 32, &om, meth, &mp, 4) != 0);
    CHECK(TRACE_Get_next_category(fp, &h, &ol, legend, &lp, 32, &ob, label, &bp, 6, &om, meth, &mp, 4) != 0);
    CHECK(TRACE_Get_next_category(fp, &h, &ol, NULL, &lp, 32, &ob, label, &bp, 32, &om, meth, &mp, 4) != 0);
    lp = -1;
    CHECK(TRACE_Get_next_category(fp, &h, &ol, legend, &lp, 32, &ob, label, &bp, 32, &om, meth, &mp, 4) != 0);
    lp = 40;
    CHECK(TRACE_Get_next_category(fp, &h, &ol, legend, &lp, 32, &ob, label, &bp, 32, &om, meth, &mp, 4) != 0);
    lp = 2;
    CHECK(TRACE_Get_next_category(fp, &h, &ol, legend, &lp, -1, &ob, label, &bp, 32, &om, meth, &mp, 4) != 0);
    CHECK_EQ(lp, 2);
    CHECK_EQ(bp, 0);
    CHECK_EQ(ol, -5);
    CHECK_EQ(ob, -5);
    for (size_t i = 0; i < sizeof legend; i++) CHECK(legend[i] == 'Z' && label[i] == 'Z');
    /* Still current: retry with exactly enough room after pos 2 (no methods: NULL base is fine). */
    CHECK_EQ(TRACE_Get_next_category(fp, &h, &ol, legend, &lp, 9, &ob, label, &bp, 7, &om, NULL, &mp, 0), 0);
    CHECK_EQ(ol, 7);
    CHECK_EQ(lp, 9);
    CHECK(memcmp(legend + 2, "Compute", 7) == 0);
    CHECK(legend[9] == 'Z');
    CHECK_EQ(ob, 7);
    CHECK(memcmp(label, "iter=%d", 7) == 0);
    CHECK_EQ(om, 0);
    CHECK_EQ(h.index, 1);
    CHECK_EQ(h.shape, TRACE_SHAPE_STATE);
    CHECK_EQ(h.red, 255);
    CHECK_EQ(h.green, 165);
    CHECK_EQ(h.alpha, 255);

    /* Get without Peek, packing the next legends after the first (pos kept). */
    int cats = 1;
    for (;;) {
        CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
        if (k != TRACE_CATEGORY) break;
        bp = mp = 0;
        ob = om = -5;
        CHECK_EQ(TRACE_Get_next_category(fp, &h, &ol, legend, &lp, 32, &ob, label, &bp, 32, &om, meth, &mp, 4), 0);
        CHECK(ob >= 0 && om >= 0); /* always stored */
        if (h.index == 4) {
            CHECK_EQ(h.shape, TRACE_SHAPE_ARROW);
            CHECK_EQ(ob, 14); /* "tag=%d size=%d" */
        }
        if (h.index == 5) CHECK_EQ(h.shape, TRACE_SHAPE_EVENT);
        if (h.index == 6) {
            CHECK_EQ(om, 1);
            CHECK_EQ(meth[0], TRACE_METHOD_CONNECT_COMPOSITE_STATE);
        }
        cats++;
        if (cats == 3) CHECK(memcmp(legend + 2, "ComputeSendRecv", 15) == 0 && lp == 17);
        if (cats == 3) lp = 0; /* the remaining legends would not fit */
    }
    CHECK_EQ(cats, 6);

    /* Positions between records; an unknown cookie changes nothing. */
    CHECK_EQ(TRACE_Get_position(fp, &cookie), 0);
    CHECK(cookie > start);
    CHECK(TRACE_Set_position(fp, cookie + 1) != 0);
    CHECK(TRACE_Set_position(fp, -1) != 0);
    CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
    CHECK_EQ(k, TRACE_PRIMITIVE_DRAWABLE);

    /* First primitive: short arrays, then the real Get. */
    CHECK_EQ(TRACE_Peek_next_primitive(fp, &st, &et, &nt, &ny, &nb), 0);
    CHECK(st == 0.0 && et == 1.0);
    CHECK_EQ(nt, 2);
    CHECK_EQ(ny, 2);
    CHECK_EQ(nb, 4);
    double t[4] = { -1, -1, -1, -1 };
    int y[4] = { -1, -1, -1, -1 }, cat = -1, ont = -9, ony = -9, onb = -9, tp = 0, yp = 0, bpp = 0;
    unsigned char b[16];
    memset(b, 0xEE, sizeof b);
    CHECK(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 1, &ony, y, &yp, 4, &onb, (char *)b, &bpp, 16) != 0);
    CHECK(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, (char *)b, &bpp, 3) != 0);
    CHECK(t[0] == -1 && y[0] == -1 && b[0] == 0xEE);
    CHECK_EQ(ont, -9);
    CHECK_EQ(cat, -1);
    CHECK_EQ(tp, 0);
    CHECK_EQ(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, (char *)b, &bpp, 16), 0);
    CHECK_EQ(cat, 1);
    CHECK(t[0] == 0.0 && t[1] == 1.0 && t[2] == -1);
    CHECK(y[0] == 0 && y[1] == 0);
    CHECK(onb == 4 && b[0] == 0 && b[3] == 1 && b[4] == 0xEE); /* iter=1, big-endian */

    /* Event: one vertex, no info: NULL byte base with max 0 is fine. */
    tp = yp = bpp = 0;
    CHECK_EQ(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, (char *)b, &bpp, 16), 0);
    tp = yp = 0;
    bpp = 0;
    CHECK_EQ(TRACE_Peek_next_primitive(fp, &st, &et, &nt, &ny, &nb), 0);
    CHECK(st == 1.25 && et == 1.25 && nt == 1 && nb == 0);
    CHECK_EQ(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, NULL, NULL, 0), 0);
    CHECK(cat == 5 && ont == 1 && onb == 0);

    /* To the first composite; its members without Get_next_composite. */
    for (;;) {
        CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
        if (k != TRACE_PRIMITIVE_DRAWABLE) break;
        tp = yp = bpp = 0;
        CHECK_EQ(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, (char *)b, &bpp, 16), 0);
    }
    CHECK_EQ(k, TRACE_COMPOSITE_DRAWABLE);
    TRACE_int64_t comp_cookie;
    CHECK_EQ(TRACE_Get_position(fp, &comp_cookie), 0);
    CHECK_EQ(TRACE_Peek_next_composite(fp, &st, &et, &np, &nb), 0);
    CHECK_EQ(TRACE_Peek_next_composite(fp, &st, &et, &np, &nb), 0);
    CHECK(st == 1.8 && et == 3.0);
    CHECK_EQ(np, 4);
    CHECK_EQ(nb, 4);
    for (int i = 0; i < np; i++) {
        CHECK_EQ(TRACE_Peek_next_primitive(fp, &st, &et, &nt, &ny, &nb), 0);
        CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
        CHECK_EQ(k, TRACE_PRIMITIVE_DRAWABLE);
        CHECK(TRACE_Get_position(fp, &cookie) != 0); /* inside a composite */
        CHECK(TRACE_Peek_next_composite(fp, &st, &et, &np, &nb) != 0);
        tp = yp = bpp = 0;
        CHECK_EQ(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, (char *)b, &bpp, 16), 0);
        if (i == 0) CHECK(cat == 1 && t[0] == 2.5);
    }
    /* Back to the composite: with Get_next_composite (short array first). */
    CHECK_EQ(TRACE_Set_position(fp, comp_cookie), 0);
    CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
    CHECK_EQ(k, TRACE_COMPOSITE_DRAWABLE);
    int ip = 0, oninfo = -9;
    memset(b, 0xEE, sizeof b);
    CHECK(TRACE_Get_next_composite(fp, &cat, &oninfo, (char *)b, &ip, 3) != 0);
    CHECK(b[0] == 0xEE && oninfo == -9 && ip == 0);
    CHECK_EQ(TRACE_Get_next_composite(fp, &cat, &oninfo, (char *)b, &ip, 16), 0);
    CHECK(cat == 6 && oninfo == 4 && ip == 4 && b[3] == 0xff);
    CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
    CHECK_EQ(k, TRACE_COMPOSITE_DRAWABLE); /* Get_next_composite does not consume */
    for (int i = 0; i < 4; i++) { /* Get without Peek enters the composite */
        tp = yp = bpp = 0;
        CHECK_EQ(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, (char *)b, &bpp, 16), 0);
    }
    /* The backwards arrow: box = envelope, vertices as written. */
    CHECK_EQ(TRACE_Peek_next_primitive(fp, &st, &et, &nt, &ny, &nb), 0);
    CHECK(st == 3.1 && et == 3.2);
    tp = yp = bpp = 0;
    CHECK_EQ(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, (char *)b, &bpp, 16), 0);
    CHECK(t[0] == 3.2 && t[1] == 3.1 && y[0] == 2 && y[1] == 0 && onb == 8 && b[3] == 9 && b[7] == 16);

    /* Drain to EOF, checking the y-maps; EOF repeats. */
    int maps = 0, drawables = 8;
    for (;;) {
        CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
        if (k == TRACE_EOF) break;
        if (k == TRACE_YCOORDMAP) {
            int nr, nc, mc, mt, nmm;
            CHECK_EQ(TRACE_Peek_next_ycoordmap(fp, &nr, &nc, &mc, &mt, &nmm), 0);
            char title[16], n1[8], n2[8];
            char *names[2] = { n1, n2 };
            int e[16], sz = -1, ep = 0, omm = -1, mpp = 0, mm[2];
            if (maps == 0) CHECK(nr == 3 && nc == 3 && mc == 5 && mt == 10 && nmm == 0);
            if (maps == 1) CHECK(nr == 3 && nc == 2 && mc == 5 && mt == 6 && nmm == 1);
            CHECK(TRACE_Get_next_ycoordmap(fp, title, names, &sz, e, &ep, nr * nc - 1, &omm, mm, &mpp, 2) != 0);
            if (nmm > 0) /* an empty method list ignores its array */
                CHECK(TRACE_Get_next_ycoordmap(fp, title, names, &sz, e, &ep, 16, &omm, mm, &mpp, nmm - 1) != 0);
            CHECK(ep == 0 && sz == -1);
            CHECK_EQ(TRACE_Get_next_ycoordmap(fp, title, names, &sz, e, &ep, 16, &omm, mm, &mpp, 2), 0);
            CHECK_EQ(sz, nr * nc);
            CHECK_EQ(omm, nmm);
            if (maps == 0)
                CHECK(strcmp(title, "Placement") == 0 && strcmp(n1, "node") == 0 && strcmp(n2, "core") == 0 &&
                      e[3] == 1 && e[5] == 1 && e[6] == 2 && e[7] == 1);
            if (maps == 1) CHECK(strcmp(title, "Nodes") == 0 && mm[0] == 1 && e[5] == 1);
            maps++;
        } else if (k == TRACE_COMPOSITE_DRAWABLE) {
            drawables++;
            CHECK_EQ(TRACE_Peek_next_composite(fp, &st, &et, &np, &nb), 0);
            for (int i = 0; i < np; i++) {
                tp = yp = bpp = 0;
                CHECK_EQ(
                    TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, (char *)b, &bpp, 16),
                    0);
            }
        } else {
            drawables++;
            tp = yp = bpp = 0;
            CHECK_EQ(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, (char *)b, &bpp, 16),
                     0);
        }
    }
    CHECK_EQ(maps, 2);
    CHECK_EQ(drawables, 17);
    CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
    CHECK_EQ(k, TRACE_EOF);
    CHECK(TRACE_Peek_next_primitive(fp, &st, &et, &nt, &ny, &nb) != 0);
    /* Position at EOF, then back to the start: the first category again. */
    CHECK_EQ(TRACE_Get_position(fp, &cookie), 0);
    CHECK_EQ(TRACE_Set_position(fp, start), 0);
    CHECK_EQ(TRACE_Peek_next_category(fp, &nl, &nb, &nm), 0);
    CHECK_EQ(nl, 7);
    CHECK_EQ(TRACE_Set_position(fp, cookie), 0);
    CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
    CHECK_EQ(k, TRACE_EOF);

    /* Close: the handle is dead afterwards. */
    TRACE_file saved = fp;
    CHECK_EQ(TRACE_Close(&fp), 0);
    CHECK(fp == NULL);
    CHECK(TRACE_Peek_next_kind(saved, &k) != 0);
    CHECK(TRACE_Close(&saved) != 0);

    /* Bad input: an error code naming file and line, sticky. */
    const char *err = "";
    CHECK(first_error(argv[2], "cat 1 A state 1 2 3 4 1\nstate 1 0 0.0 oops\n", &err) > 0);
    CHECK(strstr(err, "bad.trace:2:") != NULL);
    CHECK(first_error(argv[2], "cat 1 A blob 1 2 3 4 1\n", &err) > 0);
    CHECK(strstr(err, "SHAPE") != NULL);
    CHECK(first_error(argv[2], "cat 1 A state 1 2 300 4 1\n", &err) > 0);
    CHECK(first_error(argv[2], "state 9 0 0 1\n", &err) > 0);
    CHECK(strstr(err, "category 9 is not defined") != NULL);
    CHECK(first_error(argv[2], "cat 1 A state 1 2 3 4 1 v=%d\n\n# c\nstate 1 0 0 1\n", &err) > 0);
    CHECK(strstr(err, ":4:") != NULL && strstr(err, "needs 1 info value") != NULL);
    CHECK(first_error(argv[2], "cat 1 A state 1 2 3 4 1 v=%s\n", &err) > 0);
    CHECK(first_error(argv[2], "cat 1 A state 1 2 3 4 1\ncomp 1 0 1 2\nstate 1 0 0 1\n", &err) > 0);
    CHECK(strstr(err, "end of file inside a composite") != NULL);
    CHECK(first_error(argv[2], "cat 1 A state 1 2 3 4 1\ncomp 1 0 1 1\ncat 2 B state 1 2 3 4 1\n", &err) > 0);
    CHECK(strstr(err, "member") != NULL);
    CHECK(first_error(argv[2], "ymap T 2 3 a b\n0 1 2\n", &err) > 0);
    CHECK(first_error(argv[2], "frobnicate\n", &err) > 0);
    CHECK(strstr(err, "unknown record") != NULL);
    CHECK_EQ(first_error(argv[2], "# only a comment\n\n", &err), 0);

    return check_report("test_minitrace");
}
