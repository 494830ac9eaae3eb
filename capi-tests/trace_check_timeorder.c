/*
 * trace_check_timeorder -- check the time rules of the TRACE-API
 * (trace-api.md §2.1) on a trace read through trace_API.h.
 *
 *   usage: trace_check_timeorder FILESPEC...   (words joined with single spaces)
 *
 * For each top-level drawable, in arrival order:
 *   1. well-formed: a primitive has start <= end and every vertex time t with
 *      start <= t <= end (vertex order is not checked: arrows may point
 *      backwards); a composite has start <= end, every member well-formed,
 *      and every member's box inside the composite's box (inclusive);
 *   2. order: the previous top-level drawable's end time is not greater than
 *      this one's (equal is fine; before the first drawable it is -infinity).
 * It stops at the first violation: a report on stdout naming the record
 * (drawable number counted from 1, member number from 0, printed in
 * trace_print's format), exit 1. Otherwise "Passed: ..." on stdout, exit 0.
 * Reader errors: "Error: <TRACE_Get_err_string text>" on stderr, exit 2.
 * A help request prints the reader's help text, exit 0.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_client.h"

/* A growable string. */
typedef struct {
    char *s;
    size_t len, cap;
} strbuf;

static void sb_printf(strbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) tc_fail_msg("formatting failed");
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *s = realloc(b->s, cap);
        if (!s) tc_fail_msg("out of memory");
        b->s = s;
        b->cap = cap;
    }
}

/* The record as trace_print shows it (without the line end). */
static void describe_primitive(strbuf *b, long no, int member, const tc_primitive *p)
{
    b->len = 0;
    if (member >= 0)
        sb_printf(b, "drawable %ld, member %d : ", no, member);
    else
        sb_printf(b, "drawable %ld : ", no);
    sb_printf(b, "Primitive: index=%d times=(%lf, %lf) ", p->category, p->start, p->end);
    for (int i = 0; i < p->nt; i++) sb_printf(b, "(%lf, %d) ", p->t[i], tc_y_of(p, i));
    sb_printf(b, "info_sz=%d", p->nbytes);
}

static void describe_composite(strbuf *b, long no, const tc_composite *c)
{
    b->len = 0;
    sb_printf(b, "drawable %ld : Composite: index=%d times=(%lf, %lf) Nprimes=%d info_sz=%d", no, c->category,
              c->start, c->end, c->nmembers, c->nbytes);
}

/* Report a violation: the title, the offending record, the details; then
 * close the trace and stop with status 1. */
static void violation(const char *title, const strbuf *offended, const strbuf *offending, const char *fmt, ...)
{
    printf("**** %s ****\n", title);
    if (offended) printf("Offended  %s\n", offended->s ? offended->s : "(none)");
    printf("Offending %s\n\t", offending->s);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    tc_close();
    exit(1);
}

/* Rule 1 for a primitive described by desc. NaN times fail too. */
static void check_primitive(const tc_primitive *p, const strbuf *desc)
{
    if (!(p->start <= p->end))
        violation("Violation of Causality", NULL, desc, "starttime (%lf) > endtime (%lf)", p->start, p->end);
    for (int i = 0; i < p->nt; i++)
        if (!(p->start <= p->t[i] && p->t[i] <= p->end))
            violation("Out of Primitive Time Range", NULL, desc, "time coordinate %d (%lf) is out of the range (%lf, %lf)",
                      i, p->t[i], p->start, p->end);
}

int main(int argc, char **argv)
{
    tc_error_status = 2;
    tc_open(argc, argv);

    strbuf cur = { NULL, 0, 0 }, prev = { NULL, 0, 0 };
    double prev_end = -INFINITY;
    long ndrawables = 0, ncomposites = 0, nmembers = 0;
    for (TRACE_Rec_Kind_t kind; (kind = tc_peek_kind()) != TRACE_EOF;) {
        double end;
        if (kind == TRACE_PRIMITIVE_DRAWABLE) {
            tc_primitive p;
            tc_read_primitive(&p);
            describe_primitive(&cur, ++ndrawables, -1, &p);
            check_primitive(&p, &cur);
            end = p.end;
            tc_free_primitive(&p);
        } else if (kind == TRACE_COMPOSITE_DRAWABLE) {
            tc_composite c;
            tc_read_composite(&c);
            describe_composite(&cur, ++ndrawables, &c);
            ncomposites++;
            if (!(c.start <= c.end))
                violation("Violation of Causality", NULL, &cur, "starttime (%lf) > endtime (%lf)", c.start, c.end);
            strbuf mdesc = { NULL, 0, 0 };
            for (int k = 0; k < c.nmembers; k++, nmembers++) {
                tc_primitive p;
                tc_read_primitive(&p);
                describe_primitive(&mdesc, ndrawables, k, &p);
                check_primitive(&p, &mdesc);
                if (!(c.start <= p.start && p.end <= c.end))
                    violation("Out of Composite Time Range", NULL, &mdesc,
                              "member time range (%lf, %lf) is out of the composite's (%lf, %lf)", p.start, p.end,
                              c.start, c.end);
                tc_free_primitive(&p);
            }
            free(mdesc.s);
            end = c.end;
            tc_free_composite(&c);
        } else if (kind == TRACE_CATEGORY) {
            tc_category c;
            tc_read_category(&c);
            tc_free_category(&c);
            continue;
        } else if (kind == TRACE_YCOORDMAP) {
            tc_ycoordmap m;
            tc_read_ycoordmap(&m);
            tc_free_ycoordmap(&m);
            continue;
        } else {
            char msg[64];
            snprintf(msg, sizeof msg, "unknown TRACE_Rec_Kind_t %d", (int)kind);
            tc_fail_msg(msg);
            continue;
        }
        /* Rule 2. */
        if (!(prev_end <= end))
            violation("Violation of Increasing Endtime Order", &prev, &cur,
                      "previous endtime (%lf) > current endtime (%lf)", prev_end, end);
        prev_end = end;
        strbuf t = prev;
        prev = cur;
        cur = t;
    }
    tc_close();
    printf("Passed: %ld drawables (%ld composites with %ld members): time boxes well-formed, "
           "end times non-decreasing\n",
           ndrawables, ncomposites, nmembers);
    free(cur.s);
    free(prev.s);
    return 0;
}
