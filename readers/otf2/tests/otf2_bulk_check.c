/*
 * otf2_bulk_check.c -- slog2's bulk extension (include/slog2_trace_ext.h)
 * against the standard TRACE calls, on one archive opened twice.
 *
 *   otf2_bulk_check ARCHIVE
 *
 * Handle A is read with the standard protocol (trace_client.c). Handle B
 * takes its primitives through SLOG2_TRACE_Get_next_primitives with small
 * arrays (3 primitives, 5 coordinates, 20 info bytes), so runs are cut by
 * every limit and the larger primitives (collective ops) go the standard
 * way; its categories and y-map go the standard way too. Every primitive of
 * B must equal A's (times, category, coordinates, info bytes), the bulk call
 * must take nothing at a category, the y-map or the end, and both kinds of
 * transfer must occur. Also: misuse (NULL count, negative sizes) is an error.
 * Prints "Passed: N primitives (K in bulk, S one by one)".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slog2_trace_ext.h"
#include "trace_client.h"

#define MAXP 3
#define MAXC 5
#define MAXB 20

static TRACE_file b;

static void die(const char *what, int rc)
{
    char *t = rc ? TRACE_Get_err_string(rc) : NULL;
    fprintf(stderr, "Error: %s (code %d): %s\n", what, rc, t ? t : "");
    exit(1);
}

/* B's non-primitive record, through the standard calls (content unused). */
static void skip_b(TRACE_Rec_Kind_t kind)
{
    int rc;
    if (kind == TRACE_CATEGORY) {
        int nl, nb, nm;
        if ((rc = TRACE_Peek_next_category(b, &nl, &nb, &nm)))
            die("B Peek_next_category", rc);
        TRACE_Category_head_t h;
        char *l = calloc((size_t)nl + 1, 1), *s = calloc((size_t)nb + 1, 1);
        int *m = calloc((size_t)nm + 1, sizeof *m), o1 = 0, o2 = 0, o3 = 0, p1 = 0, p2 = 0, p3 = 0;
        rc = TRACE_Get_next_category(b, &h, &o1, l, &p1, nl + 1, &o2, s, &p2, nb + 1, &o3, m, &p3, nm);
        free(l), free(s), free(m);
        if (rc)
            die("B Get_next_category", rc);
    } else if (kind == TRACE_YCOORDMAP) {
        int nr, nc, mc, mt, nm;
        if ((rc = TRACE_Peek_next_ycoordmap(b, &nr, &nc, &mc, &mt, &nm)))
            die("B Peek_next_ycoordmap", rc);
        char *title = calloc((size_t)mt + 1, 1);
        char **names = calloc((size_t)nc + 1, sizeof *names);
        for (int i = 0; i < nc - 1; i++)
            names[i] = calloc((size_t)mc + 1, 1);
        int *el = calloc((size_t)nr * (size_t)nc + 1, sizeof *el), *m = calloc((size_t)nm + 1, sizeof *m);
        int sz = 0, ep = 0, on = 0, mp = 0;
        rc = TRACE_Get_next_ycoordmap(b, title, names, &sz, el, &ep, nr * nc, &on, m, &mp, nm);
        for (int i = 0; i < nc - 1; i++)
            free(names[i]);
        free(title), free(names), free(el), free(m);
        if (rc)
            die("B Get_next_ycoordmap", rc);
    } else {
        fprintf(stderr, "Error: B: unexpected record kind %d\n", (int)kind);
        exit(1);
    }
}

static void same(int cond, int n, const char *what)
{
    if (!cond) {
        fprintf(stderr, "Error: primitive %d: %s differs between the bulk and the standard calls\n", n, what);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s ARCHIVE\n", argv[0]);
        return 2;
    }
    tc_open(argc, argv);
    int rc = TRACE_Open(argv[1], &b);
    if (rc || !b)
        die("TRACE_Open B", rc);

    /* misuse is refused, and does not break the handle */
    int n = -1;
    if (!SLOG2_TRACE_Get_next_primitives(b, 1, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL,
                                         0) ||
        !SLOG2_TRACE_Get_next_primitives(b, -1, &n, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, 0)) {
        fprintf(stderr, "Error: a NULL count or a negative size was accepted\n");
        return 1;
    }

    double st[MAXP], en[MAXP], t[MAXC];
    int cat[MAXP], nt[MAXP], ny[MAXP], nb[MAXP], y[MAXC];
    char bytes[MAXB];
    int have = 0, at = 0, tp = 0, bp = 0, total = 0, bulk = 0, single = 0;
    for (;;) {
        TRACE_Rec_Kind_t kind = tc_peek_kind();
        if (kind != TRACE_PRIMITIVE_DRAWABLE) {
            same(at == have, total, "the run's end");
            if ((rc = SLOG2_TRACE_Get_next_primitives(b, MAXP, &n, st, en, cat, nt, t, MAXC, ny, y, MAXC, nb, bytes,
                                                      MAXB)))
                die("B bulk before a non-primitive", rc);
            same(n == 0, total, "stopping before a non-primitive");
            TRACE_Rec_Kind_t kb;
            if ((rc = TRACE_Peek_next_kind(b, &kb)))
                die("B Peek_next_kind", rc);
            same(kb == kind, total, "the record kind");
            if (kind == TRACE_EOF)
                break;
            if (kind == TRACE_CATEGORY) {
                tc_category c;
                tc_read_category(&c);
                tc_free_category(&c);
            } else if (kind == TRACE_YCOORDMAP) {
                tc_ycoordmap m;
                tc_read_ycoordmap(&m);
                tc_free_ycoordmap(&m);
            } else {
                fprintf(stderr, "Error: unexpected record kind %d\n", (int)kind);
                return 1;
            }
            skip_b(kind);
            continue;
        }
        tc_primitive p;
        tc_read_primitive(&p);
        if (at == have) {
            if ((rc = SLOG2_TRACE_Get_next_primitives(b, MAXP, &have, st, en, cat, nt, t, MAXC, ny, y, MAXC, nb,
                                                      bytes, MAXB)))
                die("B bulk", rc);
            at = tp = bp = 0;
        }
        if (have) {
            same(st[at] == p.start && en[at] == p.end, total, "the time box");
            same(cat[at] == p.category, total, "the category");
            same(nt[at] == p.nt && ny[at] == p.ny && nb[at] == p.nbytes, total, "a count");
            same(!memcmp(t + tp, p.t, sizeof *t * (size_t)p.nt), total, "a time");
            same(!memcmp(y + tp, p.y, sizeof *y * (size_t)p.ny), total, "a y coordinate");
            same(!p.nbytes || !memcmp(bytes + bp, p.bytes, (size_t)p.nbytes), total, "the info bytes");
            tp += nt[at], bp += nb[at], at++, bulk++;
        } else {
            /* too large for the arrays: the standard calls */
            double s, e, tt[16];
            int ant, any, anb, c, ont = 0, ony = 0, onb = 0, p1 = 0, p2 = 0, p3 = 0, yy[16];
            char bb[256];
            if ((rc = TRACE_Peek_next_primitive(b, &s, &e, &ant, &any, &anb)))
                die("B Peek_next_primitive", rc);
            same(ant <= 16 && any <= 16 && anb <= 256, total, "a count");
            if ((rc = TRACE_Get_next_primitive(b, &c, &ont, tt, &p1, 16, &ony, yy, &p2, 16, &onb, bb, &p3, 256)))
                die("B Get_next_primitive", rc);
            same(s == p.start && e == p.end && c == p.category && onb == p.nbytes, total, "a standard read");
            same(ont == p.nt && !memcmp(tt, p.t, sizeof *tt * (size_t)ont), total, "a standard read's times");
            same(ont > MAXC || onb > MAXB, total, "the fit (it fits, yet the bulk call took nothing)");
            single++;
        }
        tc_free_primitive(&p);
        total++;
    }
    tc_close();
    if ((rc = TRACE_Close(&b)))
        die("TRACE_Close B", rc);
    if (!bulk || !single) {
        fprintf(stderr, "Error: %d in bulk, %d one by one: both kinds of transfer must occur\n", bulk, single);
        return 1;
    }
    printf("Passed: %d primitives (%d in bulk, %d one by one)\n", total, bulk, single);
    return 0;
}
