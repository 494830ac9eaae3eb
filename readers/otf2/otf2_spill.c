/*
 * otf2_spill.c -- many locations in bounded memory: pass 1 records each group
 * of locations' events as a sorted run in a temporary file, pass 2 merges the
 * runs into the event callbacks (the why and the guarantees: otf2_spill.h).
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
    uint64_t last_ticks; /* pass 1: last event recorded (for error texts) */
    int have_last;
    run *runs;
    size_t nruns, runs_cap;
    size_t *heap;        /* pass 2: runs with events left, smallest head first */
    size_t nheap;
    int merging;
};

size_t spill_group_size(struct _trace_file *fp)
{
    const char *env = getenv("SLOG2_OTF2_OPEN_LOCATIONS");
    if (env && *env) {
        char *end;
        unsigned long long k = strtoull(env, &end, 10);
        if (!*end && k > 0)
            return (size_t)k;
    }
    uint64_t evt = 0, def = 0;
    if (OTF2_Reader_GetChunkSize(fp->reader, &evt, &def) != OTF2_SUCCESS || evt == 0)
        evt = 1u << 20;
    otf2_msg[0] = 0;
    return evt >= SPILL_BUDGET ? 1 : (size_t)(SPILL_BUDGET / evt);
}

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
/* Pass 1: recording */

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

static OTF2_CallbackCode record(void *u, const spill_rec *e, const spill_value *v)
{
    struct _trace_file *fp = u;
    struct spill *sp = fp->spill;
    size_t nv = e->kind == SP_METRIC ? e->n : 0, n = sizeof *e + nv * sizeof *v;
    if (sp->wlen + n > WBUF && flush_wbuf(fp))
        return OTF2_CALLBACK_INTERRUPT;
    memcpy(sp->wbuf + sp->wlen, e, sizeof *e);
    if (v && nv)
        memcpy(sp->wbuf + sp->wlen + sizeof *e, v, nv * sizeof *v);
    sp->wlen += n;
    sp->last_ticks = e->t;
    sp->have_last = 1;
    return OTF2_CALLBACK_SUCCESS;
}

#define REC(kind_) spill_rec e = { .t = t, .loc = loc, .kind = (kind_) }; (void)attrs

static OTF2_CallbackCode rec_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                   OTF2_RegionRef reg)
{
    REC(SP_ENTER);
    e.a = reg;
    return record(u, &e, NULL);
}

static OTF2_CallbackCode rec_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                   OTF2_RegionRef reg)
{
    REC(SP_LEAVE);
    e.a = reg;
    return record(u, &e, NULL);
}

static OTF2_CallbackCode rec_p2p(void *u, spill_rec *e, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                                 uint64_t len, uint64_t req)
{
    e->a = peer;
    e->b = comm;
    e->c = tag;
    e->x = len;
    e->y = req;
    return record(u, e, NULL);
}

static OTF2_CallbackCode rec_send(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                  uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    REC(SP_SEND);
    return rec_p2p(u, &e, receiver, comm, tag, len, 0);
}

static OTF2_CallbackCode rec_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                  uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    REC(SP_RECV);
    return rec_p2p(u, &e, sender, comm, tag, len, 0);
}

static OTF2_CallbackCode rec_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                   uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    REC(SP_ISEND);
    return rec_p2p(u, &e, receiver, comm, tag, len, req);
}

static OTF2_CallbackCode rec_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                   uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    REC(SP_IRECV);
    return rec_p2p(u, &e, sender, comm, tag, len, req);
}

#define REC_REQUEST(name, kind_) \
    static OTF2_CallbackCode name(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs, \
                                  uint64_t req) \
    { \
        REC(kind_); \
        e.y = req; \
        return record(u, &e, NULL); \
    }
REC_REQUEST(rec_isend_done, SP_ISEND_DONE)
REC_REQUEST(rec_irecv_request, SP_IRECV_REQUEST)
REC_REQUEST(rec_request_test, SP_REQUEST_TEST)
REC_REQUEST(rec_request_cancelled, SP_REQUEST_CANCELLED)

static OTF2_CallbackCode rec_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs)
{
    REC(SP_COLL_BEGIN);
    return record(u, &e, NULL);
}

static OTF2_CallbackCode rec_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                      OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                      uint64_t received)
{
    REC(SP_COLL_END);
    e.n = op;
    e.a = comm;
    e.b = root;
    e.x = sent;
    e.y = received;
    return record(u, &e, NULL);
}

static OTF2_CallbackCode rec_metric(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                    OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                    const OTF2_MetricValue *values)
{
    REC(SP_METRIC);
    spill_value v[256];
    e.a = metric;
    e.n = n;
    for (int i = 0; i < n; i++) {
        memset(&v[i], 0, sizeof v[i]);
        v[i].type = types[i];
        v[i].value = values[i];
    }
    return record(u, &e, v);
}

void spill_register_recorders(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, rec_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, rec_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, rec_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, rec_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, rec_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, rec_isend_done);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, rec_irecv_request);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, rec_irecv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRequestTestCallback(cb, rec_request_test);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, rec_request_cancelled);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, rec_coll_begin);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, rec_coll_end);
    OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(cb, rec_metric);
}

/* The events of locations [from, to) through a reader of their own, as one
 * run; the reader (and its chunk buffers) is closed before the next group. */
static int record_group(struct _trace_file *fp, size_t from, size_t to)
{
    struct spill *sp = fp->spill;
    OTF2_Reader *r = OTF2_Reader_Open(fp->path);
    if (!r)
        return fail(fp, ERR_OPEN, "%s: not a readable OTF2 anchor file", fp->path);
    OTF2_GlobalEvtReader *ger = NULL;
    off_t start = sp->wpos + (off_t)sp->wlen;
    int rc = 0;
    if (OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS)
        rc = fail(fp, ERR_OPEN, "%s: cannot set up the OTF2 reader", fp->path);
    if (!rc)
        rc = open_locations(fp, r, from, to);
    if (!rc)
        rc = open_global_reader(fp, r, &ger, from, to, 1);
    for (uint64_t got = 1; !rc && got;)
        rc = read_events(fp, r, ger, 1u << 16, &got, from, to, sp->have_last, sp->last_ticks);
    OTF2_Reader_Close(r);
    if (rc)
        return fp->err;
    off_t end = sp->wpos + (off_t)sp->wlen;
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

static int start_merge(struct _trace_file *fp)
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

int spill_read(struct _trace_file *fp, uint64_t max, uint64_t *got)
{
    *got = 0;
    if (!fp->spill) {
        if (!(fp->spill = calloc(1, sizeof *fp->spill)))
            return fail(fp, ERR_MEM, "%s: out of memory", fp->path);
        fp->spill->fd = -1;
        if (!(fp->spill->wbuf = malloc(WBUF)))
            return fail(fp, ERR_MEM, "%s: out of memory", fp->path);
        if (make_tempfile(fp))
            return fp->err;
        size_t k = spill_group_size(fp);
        for (size_t from = 0; from < fp->nlocs; from += k)
            if (record_group(fp, from, fp->nlocs - from < k ? fp->nlocs : from + k))
                return fp->err;
        if (start_merge(fp))
            return fp->err;
    }
    struct spill *sp = fp->spill;
    while (*got < max && sp->nheap) {
        run *r = &sp->runs[sp->heap[0]];
        const spill_value *v = (const spill_value *)(r->buf + r->at + sizeof(spill_rec));
        spill_rec e = r->head;
        OTF2_CallbackCode cc = replay_event(fp, &e, v);
        ++*got;
        if (cc != OTF2_CALLBACK_SUCCESS || fp->err)
            return fp->err ? fp->err : fail(fp, ERR_READ, "%s: replaying the events failed", fp->path);
        r->at += sizeof(spill_rec) + (e.kind == SP_METRIC ? e.n * sizeof(spill_value) : 0);
        int rc = run_next(fp, r);
        if (rc < 0)
            return fp->err;
        if (!rc)
            sp->heap[0] = sp->heap[--sp->nheap];
        if (sp->nheap)
            sift_down(sp, 0);
    }
    return 0;
}
