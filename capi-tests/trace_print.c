/*
 * trace_print -- print a trace record by record through the TRACE-API
 * (trace_API.h), in exactly the text format of slog2sdk's client of the same
 * name, so that its stdout can be compared with the reference output.
 *
 *   usage: trace_print FILESPEC...   (the words are joined with single spaces)
 *
 * Unlike the reference client it is safe with any reader (trace_client.c):
 * buffers are allocated from the counts each Peek reports and every return
 * code is checked. Errors: "Error: <TRACE_Get_err_string text>" on stderr,
 * exit 1. A help request (TRACE_Open: NULL handle, code 0) prints the
 * reader's help text to stdout, exit 0.
 *
 * Output, one line per record as the reader delivers them:
 *   Category: index=I shape=S color=(R,G,B,A) width=W legend=L [label=< T > ][methods={ M... }]
 *   N : Primitive: index=C times=(S, E) (T, Y)... info_sz=B
 *   N : Composite: index=C times=(S, E) Nprimes=P info_sz=B
 *   <TAB>Primitive: index=C times=(S, E) (T, Y)... info_sz=B     (its P members)
 *   YCoordMap: TITLE[ROWS][COLUMNS]
 *   LineID -> NAME...
 *   LINEID -> VALUE...                                          (one per row)
 *   [methods={ M... }]
 * N counts the top-level drawables from 1; times are printed with %lf.
 */
#include <stdio.h>

#include "trace_client.h"

static void print_methods(const int *m, int n)
{
    printf("methods={ ");
    for (int i = 0; i < n; i++) printf("%d ", m[i]);
    printf("}");
}

/* One primitive: `no` > 0 at top level, 0 for a composite member. */
static void print_primitive(long no)
{
    tc_primitive p;
    tc_read_primitive(&p);
    if (no > 0)
        printf("%ld : Primitive: index=%d times=(%lf, %lf) ", no, p.category, p.start, p.end);
    else
        printf("\tPrimitive: index=%d times=(%lf, %lf) ", p.category, p.start, p.end);
    for (int i = 0; i < p.nt; i++) printf("(%lf, %d) ", p.t[i], tc_y_of(&p, i));
    printf("info_sz=%d\n", p.nbytes);
    tc_free_primitive(&p);
}

static void print_composite(long no)
{
    tc_composite c;
    tc_read_composite(&c);
    printf("%ld : Composite: index=%d times=(%lf, %lf) Nprimes=%d info_sz=%d\n", no, c.category, c.start, c.end,
           c.nmembers, c.nbytes);
    for (int i = 0; i < c.nmembers; i++) print_primitive(0);
    tc_free_composite(&c);
}

static void print_category(void)
{
    tc_category c;
    tc_read_category(&c);
    const TRACE_Category_head_t *h = &c.head;
    printf("Category: index=%d shape=%d color=(%d,%d,%d,%d) width=%d legend=%s ", h->index, h->shape, h->red,
           h->green, h->blue, h->alpha, h->width, c.legend);
    if (c.nlabel > 0 && c.label[0] != '\0') printf("label=< %s > ", c.label);
    if (c.nmethods > 0) print_methods(c.methods, c.nmethods);
    printf("\n");
    tc_free_category(&c);
}

static void print_ycoordmap(void)
{
    tc_ycoordmap m;
    tc_read_ycoordmap(&m);
    printf("YCoordMap: %s[%d][%d]\n", m.title, m.nrows, m.ncols);
    printf("LineID -> ");
    for (int i = 0; i < m.ncols - 1; i++) printf("%s ", m.names[i]);
    printf("\n");
    for (int r = 0, k = 0; r < m.nrows; r++) {
        printf("%d -> ", m.elems[k++]);
        for (int col = 1; col < m.ncols; col++) printf("%d ", m.elems[k++]);
        printf("\n");
    }
    if (m.nmethods > 0) {
        print_methods(m.methods, m.nmethods);
        printf("\n");
    }
    tc_free_ycoordmap(&m);
}

int main(int argc, char **argv)
{
    tc_open(argc, argv);
    long obj_no = 0;
    for (TRACE_Rec_Kind_t kind; (kind = tc_peek_kind()) != TRACE_EOF;) {
        switch (kind) {
        case TRACE_PRIMITIVE_DRAWABLE: print_primitive(++obj_no); break;
        case TRACE_COMPOSITE_DRAWABLE: print_composite(++obj_no); break;
        case TRACE_CATEGORY: print_category(); break;
        case TRACE_YCOORDMAP: print_ycoordmap(); break;
        default: {
            char msg[64];
            snprintf(msg, sizeof msg, "unknown TRACE_Rec_Kind_t %d", (int)kind);
            tc_fail_msg(msg);
        }
        }
    }
    tc_close();
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "Error: cannot write the output\n");
        return 1;
    }
    return 0;
}
