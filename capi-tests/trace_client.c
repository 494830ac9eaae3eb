/* trace_client.c -- see trace_client.h. */
#include "trace_client.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tc_error_status = 1;

static TRACE_file tf = NULL;

void tc_fail_msg(const char *msg)
{
    fflush(stdout);
    fprintf(stderr, "Error: %s\n", msg);
    TRACE_Close(&tf);
    exit(tc_error_status);
}

/* A TRACE call failed with code ierr. */
static void fail(int ierr)
{
    const char *text = TRACE_Get_err_string(ierr);
    tc_fail_msg(text ? text : "(the trace reader has no text for this error)");
}

static void bad_count(void) { tc_fail_msg("the trace reader reported a negative or impossible count"); }

static void overrun(void) { tc_fail_msg("the trace reader returned more than its peek announced"); }

/* calloc that never returns NULL (and never allocates 0 bytes). */
static void *alloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) tc_fail_msg("out of memory");
    return p;
}

void tc_open(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILESPEC...  (-h: the trace reader's help)\n", argv[0]);
        exit(tc_error_status);
    }
    size_t len = 1;
    for (int i = 1; i < argc; i++) len += strlen(argv[i]) + 1;
    char *filespec = alloc(len, 1);
    for (int i = 1; i < argc; i++) {
        if (i > 1) strcat(filespec, " ");
        strcat(filespec, argv[i]);
    }
    int ierr = TRACE_Open(filespec, &tf);
    free(filespec);
    if (tf == NULL) {
        const char *text = TRACE_Get_err_string(ierr);
        if (!text) text = "(the trace reader has no text for this code)";
        if (ierr == 0) { /* help requested */
            printf("%s\n", text);
            exit(0);
        }
        fprintf(stderr, "%s\n", text);
        exit(tc_error_status);
    }
}

void tc_close(void)
{
    int ierr = TRACE_Close(&tf);
    if (ierr != 0) fail(ierr);
}

TRACE_Rec_Kind_t tc_peek_kind(void)
{
    TRACE_Rec_Kind_t kind = TRACE_EOF;
    int ierr = TRACE_Peek_next_kind(tf, &kind);
    if (ierr != 0) fail(ierr);
    return kind;
}

void tc_read_primitive(tc_primitive *p)
{
    int nt = 0, ny = 0, nb = 0, ierr;
    memset(p, 0, sizeof *p);
    if ((ierr = TRACE_Peek_next_primitive(tf, &p->start, &p->end, &nt, &ny, &nb)) != 0) fail(ierr);
    if (nt < 0 || ny < 0 || nb < 0) bad_count();
    p->t = alloc((size_t)nt, sizeof *p->t);
    p->y = alloc((size_t)ny, sizeof *p->y);
    p->bytes = alloc((size_t)nb, 1);
    int tp = 0, yp = 0, bp = 0;
    if ((ierr = TRACE_Get_next_primitive(tf, &p->category, &p->nt, p->t, &tp, nt, &p->ny, p->y, &yp, ny, &p->nbytes,
                                         p->bytes, &bp, nb)) != 0)
        fail(ierr);
    if (p->nt < 0 || p->nt > nt || p->ny < 0 || p->ny > ny || p->nbytes < 0 || p->nbytes > nb) overrun();
}

void tc_read_composite(tc_composite *c)
{
    int nb = 0, ierr;
    memset(c, 0, sizeof *c);
    if ((ierr = TRACE_Peek_next_composite(tf, &c->start, &c->end, &c->nmembers, &nb)) != 0) fail(ierr);
    if (c->nmembers < 0 || nb < 0) bad_count();
    c->bytes = alloc((size_t)nb, 1);
    int bp = 0;
    if ((ierr = TRACE_Get_next_composite(tf, &c->category, &c->nbytes, c->bytes, &bp, nb)) != 0) fail(ierr);
    if (c->nbytes < 0 || c->nbytes > nb) overrun();
}

void tc_read_category(tc_category *c)
{
    int nl = 0, nb = 0, nm = 0, ierr;
    memset(c, 0, sizeof *c);
    if ((ierr = TRACE_Peek_next_category(tf, &nl, &nb, &nm)) != 0) fail(ierr);
    if (nl < 0 || nb < 0 || nm < 0 || nl == INT_MAX || nb == INT_MAX) bad_count();
    /* One element more than announced for the legend and the label: the
     * client writes a NUL at base[pos] afterwards. */
    c->legend = alloc((size_t)nl + 1, 1);
    c->label = alloc((size_t)nb + 1, 1);
    c->methods = alloc((size_t)nm, sizeof *c->methods);
    int n_legend = 0, lp = 0, bp = 0, mp = 0;
    if ((ierr = TRACE_Get_next_category(tf, &c->head, &n_legend, c->legend, &lp, nl + 1, &c->nlabel, c->label, &bp,
                                        nb + 1, &c->nmethods, c->methods, &mp, nm)) != 0)
        fail(ierr);
    if (lp < 0 || lp > nl || bp < 0 || bp > nb || c->nlabel < 0 || c->nmethods < 0 || c->nmethods > nm) overrun();
    c->legend[lp] = '\0';
    c->label[bp] = '\0';
}

void tc_read_ycoordmap(tc_ycoordmap *m)
{
    int maxcol = 0, maxtitle = 0, nm = 0, ierr;
    memset(m, 0, sizeof *m);
    if ((ierr = TRACE_Peek_next_ycoordmap(tf, &m->nrows, &m->ncols, &maxcol, &maxtitle, &nm)) != 0) fail(ierr);
    if (m->nrows < 0 || m->ncols < 1 || maxcol < 0 || maxtitle < 0 || nm < 0) bad_count();
    if (m->nrows > 0 && m->ncols > INT_MAX / m->nrows) bad_count();
    int nnames = m->ncols - 1, nelems = m->nrows * m->ncols;
    /* Name buffers of the announced sizes (which include the NUL), cleared. */
    m->title = alloc((size_t)maxtitle, 1);
    m->names = alloc((size_t)nnames, sizeof *m->names);
    for (int i = 0; i < nnames; i++) m->names[i] = alloc((size_t)maxcol, 1);
    m->elems = alloc((size_t)nelems, sizeof *m->elems);
    m->methods = alloc((size_t)nm, sizeof *m->methods);
    int sz = 0, ep = 0, mp = 0;
    if ((ierr = TRACE_Get_next_ycoordmap(tf, m->title, m->names, &sz, m->elems, &ep, nelems, &m->nmethods, m->methods,
                                         &mp, nm)) != 0)
        fail(ierr);
    if (sz != nelems || ep != nelems) tc_fail_msg("the trace reader returned a y-map of another size than announced");
    if (m->nmethods < 0 || m->nmethods > nm) overrun();
    /* Terminate the names even if a reader forgot to. */
    if (maxtitle > 0) m->title[maxtitle - 1] = '\0';
    for (int i = 0; i < nnames && maxcol > 0; i++) m->names[i][maxcol - 1] = '\0';
}

int tc_y_of(const tc_primitive *p, int i)
{
    if (p->ny <= 0) return 0;
    int k = i < p->ny ? i : i / 2;
    return p->y[k < p->ny ? k : p->ny - 1];
}

void tc_free_primitive(tc_primitive *p)
{
    free(p->t);
    free(p->y);
    free(p->bytes);
    memset(p, 0, sizeof *p);
}

void tc_free_composite(tc_composite *c)
{
    free(c->bytes);
    memset(c, 0, sizeof *c);
}

void tc_free_category(tc_category *c)
{
    free(c->legend);
    free(c->label);
    free(c->methods);
    memset(c, 0, sizeof *c);
}

void tc_free_ycoordmap(tc_ycoordmap *m)
{
    for (int i = 0; i < m->ncols - 1; i++) free(m->names[i]);
    free(m->names);
    free(m->title);
    free(m->elems);
    free(m->methods);
    memset(m, 0, sizeof *m);
}
