/* trace_check_timeorder: check a trace through the TRACE-API against the
 * TRACE-API time rules (trace-api.md 2.1): each primitive's start <= end and
 * its vertices inside its box; each composite's start <= end, every member
 * well-formed and inside the composite's box; top-level drawables in
 * non-decreasing end time. Stops at the first violation (exit 1), naming the
 * drawable (from 1) and member (from 0). Usage: trace_check_timeorder FILESPEC */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "trace_API.h"

static TRACE_file fp;

static void die(int ierr) { fprintf(stderr, "Error: %s\n", TRACE_Get_err_string(ierr)); TRACE_Close(&fp); exit(2); }
static void fail(void) { TRACE_Close(&fp); exit(1); }

/* Read one primitive; check it; return its box. */
static void primitive(long no, int member, double *st, double *et) {
    int nt, ny, nb, cat, ierr, ont = 0, ony = 0, onb = 0, tp = 0, yp = 0, bp = 0;
    if ((ierr = TRACE_Peek_next_primitive(fp, st, et, &nt, &ny, &nb)) != 0) die(ierr);
    double *t = malloc(sizeof(double) * (size_t)(nt ? nt : 1));
    int *y = malloc(sizeof(int) * (size_t)(ny ? ny : 1));
    char *b = malloc((size_t)(nb ? nb : 1));
    if (!t || !y || !b) exit(2);
    if ((ierr = TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, nt, &ony, y, &yp, ny, &onb, b, &bp, nb)) != 0) die(ierr);
    if (*st > *et) {
        if (member >= 0) printf("Violation of Causality in drawable %ld, member %d: start %g > end %g\n", no, member, *st, *et);
        else printf("Violation of Causality in drawable %ld: start %g > end %g\n", no, *st, *et);
        fail();
    }
    for (int i = 0; i < ont; i++)
        if (t[i] < *st || t[i] > *et) {
            printf("Vertex %d of drawable %ld (member %d) at %g is outside [%g, %g]\n", i, no, member, t[i], *st, *et);
            fail();
        }
    free(t); free(y); free(b);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s FILESPEC\n", argv[0]); return 2; }
    int ierr = TRACE_Open(argv[1], &fp);
    if (fp == NULL) {
        if (ierr == 0) { printf("%s\n", TRACE_Get_err_string(0)); return 0; }
        fprintf(stderr, "%s\n", TRACE_Get_err_string(ierr));
        return 2;
    }
    double prev_end = -INFINITY;
    long no = 0;
    for (;;) {
        TRACE_Rec_Kind_t kind;
        if ((ierr = TRACE_Peek_next_kind(fp, &kind)) != 0) die(ierr);
        if (kind == TRACE_EOF) break;
        double st, et;
        if (kind == TRACE_PRIMITIVE_DRAWABLE) {
            primitive(++no, -1, &st, &et);
        } else if (kind == TRACE_COMPOSITE_DRAWABLE) {
            int np, nb, cat, onb = 0, bp = 0;
            if ((ierr = TRACE_Peek_next_composite(fp, &st, &et, &np, &nb)) != 0) die(ierr);
            char *b = malloc((size_t)(nb ? nb : 1));
            if ((ierr = TRACE_Get_next_composite(fp, &cat, &onb, b, &bp, nb)) != 0) die(ierr);
            free(b);
            ++no;
            if (st > et) { printf("Violation of Causality in composite drawable %ld: start %g > end %g\n", no, st, et); fail(); }
            for (int i = 0; i < np; i++) {
                double ms, me;
                primitive(no, i, &ms, &me);
                if (ms < st || me > et) {
                    printf("Member %d of composite drawable %ld [%g, %g] is outside [%g, %g]\n", i, no, ms, me, st, et);
                    fail();
                }
            }
        } else if (kind == TRACE_CATEGORY) {
            TRACE_Category_head_t h;
            int nl, nlab, nm, a = 0, b = 0, c = 0, p1 = 0, p2 = 0, p3 = 0;
            if ((ierr = TRACE_Peek_next_category(fp, &nl, &nlab, &nm)) != 0) die(ierr);
            char *l1 = malloc((size_t)nl + 1), *l2 = malloc((size_t)nlab + 1);
            int *m = malloc(sizeof(int) * (size_t)(nm ? nm : 1));
            if ((ierr = TRACE_Get_next_category(fp, &h, &a, l1, &p1, nl + 1, &b, l2, &p2, nlab + 1, &c, m, &p3, nm)) != 0) die(ierr);
            free(l1); free(l2); free(m);
            continue;
        } else {
            int nr, nc, mc, mt, nm, sz = 0, ep = 0, om = 0, mp = 0;
            if ((ierr = TRACE_Peek_next_ycoordmap(fp, &nr, &nc, &mc, &mt, &nm)) != 0) die(ierr);
            char *title = malloc((size_t)mt + 1);
            char **names = malloc(sizeof(char *) * (size_t)(nc > 1 ? nc - 1 : 1));
            for (int i = 0; i < nc - 1; i++) names[i] = malloc((size_t)mc + 1);
            int ne = nr * nc > 0 ? nr * nc : 1;
            int *e = malloc(sizeof(int) * (size_t)ne), *m = malloc(sizeof(int) * (size_t)(nm ? nm : 1));
            if ((ierr = TRACE_Get_next_ycoordmap(fp, title, names, &sz, e, &ep, nr * nc, &om, m, &mp, nm)) != 0) die(ierr);
            for (int i = 0; i < nc - 1; i++) free(names[i]);
            free(names); free(title); free(e); free(m);
            continue;
        }
        if (prev_end > et) {
            printf("Violation of Increasing Endtime Order: drawable %ld ends at %g, drawable %ld ended at %g\n", no, et, no - 1, prev_end);
            fail();
        }
        prev_end = et;
    }
    printf("%ld drawables checked: end times non-decreasing, all time boxes well-formed\n", no);
    return TRACE_Close(&fp) == 0 ? 0 : 2;
}
