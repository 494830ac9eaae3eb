/*
 * otf2_spill.c -- sorted runs of event records in a temporary file and their
 * k-way merge (the contract: otf2_spill.h). Pass 1 appends through one write
 * buffer; pass 2 reads each run through a buffer of its own and keeps the
 * runs in a binary heap by their head record, smallest first.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otf2_internal.h"
#include "otf2_spill.h"

#define REC_MAX (sizeof(spill_rec) + 255 * sizeof(spill_value))
#define WBUF (1u << 20)

/* One run: the events of one group, ordered by (timestamp, location). */
typedef struct {
    off_t pos, end;      /* what is left of it in the file */
    unsigned char *buf;  /* [at, len) holds read-ahead bytes */
    size_t at, len, cap;
    spill_rec head;      /* the current (smallest) event of the run */
} run;

struct spill {
    int fd;
    unsigned char *wbuf; /* pass 1: write buffer */
    size_t wlen;
    off_t wpos;
    off_t run_start;     /* pass 1: where the current run begins */
    uint64_t last_ticks; /* pass 1: last record appended (for the caller's error texts) */
    int have_last;
    run *runs;
    size_t nruns, runs_cap;
    size_t *heap;        /* pass 2: runs with events left, smallest head first */
    size_t nheap;
    int merging;
};

void spill_free(struct spill *sp)
{
    if (!sp)
        return;
    if (sp->fd >= 0)
        close(sp->fd);
    free(sp->wbuf);
    for (size_t i = 0; i < sp->nruns; i++)
        free(sp->runs[i].buf);
    free(sp->runs);
    free(sp->heap);
    free(sp);
}

/* ------------------------------------------------------------------------ */
/* Pass 1: appending runs */

static int write_all(int fd, const unsigned char *b, size_t n, off_t at)
{
    while (n) {
        ssize_t w = pwrite(fd, b, n, at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
        at += w;
    }
    return 0;
}

static int flush_wbuf(struct _trace_file *fp)
{
    struct spill *sp = fp->spill;
    if (write_all(sp->fd, sp->wbuf, sp->wlen, sp->wpos))
        return fail(fp, ERR_READ, "%s: writing the temporary event file failed: %s", fp->path, strerror(errno));
    sp->wpos += (off_t)sp->wlen;
    sp->wlen = 0;
    return 0;
}

int spill_append(struct _trace_file *fp, const spill_rec *e, const spill_value *v)
{
    struct spill *sp = fp->spill;
    size_t nv = e->kind == SP_METRIC ? e->n : 0, n = sizeof *e + nv * sizeof *v;
    if (sp->wlen + n > WBUF && flush_wbuf(fp))
        return fp->err;
    memcpy(sp->wbuf + sp->wlen, e, sizeof *e);
    if (v && nv)
        memcpy(sp->wbuf + sp->wlen + sizeof *e, v, nv * sizeof *v);
    sp->wlen += n;
    sp->last_ticks = e->t;
    sp->have_last = 1;
    return 0;
}

int spill_last(const struct spill *sp, uint64_t *ticks)
{
    *ticks = sp->last_ticks;
    return sp->have_last;
}

void spill_run_begin(struct spill *sp)
{
    sp->run_start = sp->wpos + (off_t)sp->wlen;
}

int spill_run_end(struct _trace_file *fp)
{
    struct spill *sp = fp->spill;
    off_t start = sp->run_start, end = sp->wpos + (off_t)sp->wlen;
    if (end == start)
        return 0;
    if (grow((void **)&sp->runs, &sp->runs_cap, sp->nruns + 1, sizeof(run)))
        return fail(fp, ERR_MEM, "%s: out of memory", fp->path);
    sp->runs[sp->nruns++] = (run){ .pos = start, .end = end };
    return 0;
}

static int make_tempfile(struct _trace_file *fp)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + sizeof "/slog2-otf2-XXXXXX";
    char *name = malloc(n);
    if (!name)
        return fail(fp, ERR_MEM, "%s: out of memory", fp->path);
    snprintf(name, n, "%s/slog2-otf2-XXXXXX", dir);
    int fd = mkstemp(name);
    if (fd >= 0) {
        unlink(name); /* gone when the handle closes, however the process ends */
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    free(name);
    if (fd < 0)
        return fail(fp, ERR_READ, "%s: cannot create a temporary event file in %s: %s", fp->path, dir,
                    strerror(errno));
    fp->spill->fd = fd;
    return 0;
}

int spill_open(struct _trace_file *fp)
{
    if (!(fp->spill = calloc(1, sizeof *fp->spill)))
        return fail(fp, ERR_MEM, "%s: out of memory", fp->path);
    fp->spill->fd = -1;
    if (!(fp->spill->wbuf = malloc(WBUF)))
        return fail(fp, ERR_MEM, "%s: out of memory", fp->path);
    return make_tempfile(fp);
}

/* ------------------------------------------------------------------------ */
/* Pass 2: the merge */

/* Order of libotf2's global event reader: timestamp, then location. */
static int before(const spill_rec *a, const spill_rec *b)
{
    return a->t < b->t || (a->t == b->t && a->loc < b->loc);
}

/* Make the run's next whole record readable at buf + at; 0 at its end. */
static int run_next(struct _trace_file *fp, run *r)
{
    for (;;) {
        size_t have = r->len - r->at;
        if (have >= sizeof(spill_rec)) {
            memcpy(&r->head, r->buf + r->at, sizeof r->head);
            size_t need = sizeof r->head + (r->head.kind == SP_METRIC ? r->head.n * sizeof(spill_value) : 0);
            if (have >= need)
                return 1;
        }
        if (r->pos >= r->end) {
            if (have)
                return fail(fp, ERR_READ, "%s: the temporary event file is damaged (a cut record)", fp->path);
            return 0;
        }
        memmove(r->buf, r->buf + r->at, have);
        r->at = 0;
        r->len = have;
        size_t want = r->cap - have;
        if ((off_t)want > r->end - r->pos)
            want = (size_t)(r->end - r->pos);
        ssize_t got = pread(fp->spill->fd, r->buf + have, want, r->pos);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return fail(fp, ERR_READ, "%s: reading the temporary event file failed: %s", fp->path,
                        got < 0 ? strerror(errno) : "it ends early");
        r->len += (size_t)got;
        r->pos += got;
    }
}

static void sift_down(struct spill *sp, size_t i)
{
    for (;;) {
        size_t m = i, l = 2 * i + 1, rr = l + 1;
        if (l < sp->nheap && before(&sp->runs[sp->heap[l]].head, &sp->runs[sp->heap[m]].head))
            m = l;
        if (rr < sp->nheap && before(&sp->runs[sp->heap[rr]].head, &sp->runs[sp->heap[m]].head))
            m = rr;
        if (m == i)
            return;
        size_t t = sp->heap[i];
        sp->heap[i] = sp->heap[m];
        sp->heap[m] = t;
        i = m;
    }
}

int spill_merge(struct _trace_file *fp)
{
    struct spill *sp = fp->spill;
    if (sp->wlen && flush_wbuf(fp))
        return fp->err;
    free(sp->wbuf);
    sp->wbuf = NULL;
    size_t cap = sp->nruns ? SPILL_MERGE_BUDGET / sp->nruns : 0;
    if (cap < 2 * REC_MAX)
        cap = 2 * REC_MAX;
    if (cap > (1u << 20))
        cap = 1u << 20;
    sp->heap = malloc((sp->nruns ? sp->nruns : 1) * sizeof *sp->heap);
    if (!sp->heap)
        return fail(fp, ERR_MEM, "%s: out of memory", fp->path);
    for (size_t i = 0; i < sp->nruns; i++) {
        run *r = &sp->runs[i];
        if (!(r->buf = malloc(cap)))
            return fail(fp, ERR_MEM, "%s: out of memory", fp->path);
        r->cap = cap;
        int rc = run_next(fp, r);
        if (rc < 0 || fp->err)
            return fp->err;
        if (rc)
            sp->heap[sp->nheap++] = i;
    }
    for (size_t i = sp->nheap; i--;)
        sift_down(sp, i);
    sp->merging = 1;
    return 0;
}

int spill_peek(const struct spill *sp, const spill_rec **e, const spill_value **v)
{
    if (!sp->nheap)
        return 0;
    const run *r = &sp->runs[sp->heap[0]];
    *e = &r->head;
    *v = (const spill_value *)(r->buf + r->at + sizeof(spill_rec));
    return 1;
}

int spill_pop(struct _trace_file *fp)
{
    struct spill *sp = fp->spill;
    run *r = &sp->runs[sp->heap[0]];
    r->at += sizeof(spill_rec) + (r->head.kind == SP_METRIC ? r->head.n * sizeof(spill_value) : 0);
    int rc = run_next(fp, r);
    if (rc < 0 || fp->err)
        return fp->err;
    if (!rc)
        sp->heap[0] = sp->heap[--sp->nheap];
    if (sp->nheap)
        sift_down(sp, 0);
    return 0;
}
