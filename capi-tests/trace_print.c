/* trace_print: print a trace record by record through the TRACE-API, in the
 * text format of slog2sdk's trace_print client (so its output can be diffed
 * with the reference's). Buffers are sized from each Peek; every return code
 * is checked.  Usage: trace_print FILESPEC...  (words joined with spaces) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace_API.h"

static TRACE_file fp;

static void die(int ierr) {
    fprintf(stderr, "Error: %s\n", TRACE_Get_err_string(ierr));
    TRACE_Close(&fp);
    exit(1);
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) { fprintf(stderr, "out of memory\n"); exit(1); }
    return p;
}

/* Print one primitive (prefix "N : " at top level, a tab inside a composite). */
static void primitive(long no, int member) {
    double st, et;
    int nt, ny, nb, ierr, cat, tp = 0, yp = 0, bp = 0, ont = 0, ony = 0, onb = 0;
    if ((ierr = TRACE_Peek_next_primitive(fp, &st, &et, &nt, &ny, &nb)) != 0) die(ierr);
    double *t = xmalloc(sizeof(double) * (size_t)nt);
    int *y = xmalloc(sizeof(int) * (size_t)ny);
    char *b = xmalloc((size_t)nb);
    if ((ierr = TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, nt, &ony, y, &yp, ny, &onb, b, &bp, nb)) != 0) die(ierr);
    if (member) printf("\tPrimitive: index=%d times=(%lf, %lf) ", cat, st, et);
    else printf("%ld : Primitive: index=%d times=(%lf, %lf) ", no, cat, st, et);
    for (int i = 0; i < ont && i < ony; i++) printf("(%lf, %d) ", t[i], y[i]);
    printf("info_sz=%d\n", onb);
    free(t); free(y); free(b);
}

int main(int argc, char **argv) {
    size_t len = 1;
    for (int i = 1; i < argc; i++) len += strlen(argv[i]) + 1;
    char *spec = xmalloc(len);
    spec[0] = '\0';
    for (int i = 1; i < argc; i++) { if (i > 1) strcat(spec, " "); strcat(spec, argv[i]); }
    int ierr = TRACE_Open(spec, &fp);
    free(spec);
    if (fp == NULL) {
        if (ierr == 0) { printf("%s\n", TRACE_Get_err_string(0)); return 0; }
        fprintf(stderr, "%s\n", TRACE_Get_err_string(ierr));
        return 1;
    }
    long no = 0;
    for (;;) {
        TRACE_Rec_Kind_t kind;
        if ((ierr = TRACE_Peek_next_kind(fp, &kind)) != 0) die(ierr);
        if (kind == TRACE_EOF) break;
        switch (kind) {
        case TRACE_PRIMITIVE_DRAWABLE:
            primitive(++no, 0);
            break;
        case TRACE_COMPOSITE_DRAWABLE: {
            double st, et;
            int np, nb, cat, onb = 0, bp = 0;
            if ((ierr = TRACE_Peek_next_composite(fp, &st, &et, &np, &nb)) != 0) die(ierr);
            char *b = xmalloc((size_t)nb);
            if ((ierr = TRACE_Get_next_composite(fp, &cat, &onb, b, &bp, nb)) != 0) die(ierr);
            printf("%ld : Composite: index=%d times=(%lf, %lf) Nprimes=%d info_sz=%d\n", ++no, cat, st, et, np, onb);
            free(b);
            for (int i = 0; i < np; i++) primitive(no, 1);
            break;
        }
        case TRACE_CATEGORY: {
            TRACE_Category_head_t h;
            int nl, nb, nm, ol = 0, ob = 0, om = 0, lp = 0, bp = 0, mp = 0;
            if ((ierr = TRACE_Peek_next_category(fp, &nl, &nb, &nm)) != 0) die(ierr);
            char *legend = xmalloc((size_t)nl + 1), *label = xmalloc((size_t)nb + 1);
            int *m = xmalloc(sizeof(int) * (size_t)nm);
            if ((ierr = TRACE_Get_next_category(fp, &h, &ol, legend, &lp, nl + 1, &ob, label, &bp, nb + 1,
                                                &om, m, &mp, nm)) != 0) die(ierr);
            legend[lp] = '\0';
            label[bp] = '\0';
            printf("Category: index=%d shape=%d color=(%d,%d,%d,%d) width=%d legend=%s ", h.index, h.shape, h.red,
                   h.green, h.blue, h.alpha, h.width, legend);
            if (ob > 0) printf("label=< %s > ", label);
            if (om > 0) {
                printf("methods={ ");
                for (int i = 0; i < om; i++) printf("%d ", m[i]);
                printf("}");
            }
            printf("\n");
            free(legend); free(label); free(m);
            break;
        }
        case TRACE_YCOORDMAP: {
            int nr, nc, mcol, mtitle, nm, sz = 0, ep = 0, om = 0, mp = 0;
            if ((ierr = TRACE_Peek_next_ycoordmap(fp, &nr, &nc, &mcol, &mtitle, &nm)) != 0) die(ierr);
            char *title = xmalloc((size_t)mtitle + 1);
            char **names = xmalloc(sizeof(char *) * (size_t)(nc > 1 ? nc - 1 : 1));
            for (int i = 0; i < nc - 1; i++) names[i] = xmalloc((size_t)mcol + 1);
            int *e = xmalloc(sizeof(int) * (size_t)nr * (size_t)nc);
            int *m = xmalloc(sizeof(int) * (size_t)nm);
            if ((ierr = TRACE_Get_next_ycoordmap(fp, title, names, &sz, e, &ep, nr * nc, &om, m, &mp, nm)) != 0) die(ierr);
            printf("YCoordMap: %s[%d][%d]\nLineID -> ", title, nr, nc);
            for (int i = 0; i < nc - 1; i++) printf("%s ", names[i]);
            printf("\n");
            for (int r = 0, k = 0; r < nr; r++) {
                printf("%d -> ", e[k++]);
                for (int c = 1; c < nc; c++) printf("%d ", e[k++]);
                printf("\n");
            }
            if (om > 0) {
                printf("methods={ ");
                for (int i = 0; i < om; i++) printf("%d ", m[i]);
                printf("}\n");
            }
            for (int i = 0; i < nc - 1; i++) free(names[i]);
            free(names); free(title); free(e); free(m);
            break;
        }
        default:
            fprintf(stderr, "unknown TRACE_Rec_Kind_t %d\n", (int)kind);
            TRACE_Close(&fp);
            return 1;
        }
    }
    return TRACE_Close(&fp) == 0 ? 0 : 1;
}
