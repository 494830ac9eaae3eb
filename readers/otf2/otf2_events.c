/*
 * otf2_events.c -- turning OTF2 events into TRACE-API drawables.
 *
 * ORDER WITHOUT A REORDER BUFFER. OTF2's global event reader merges the
 * locations' event streams into one stream of non-decreasing timestamps
 * (a timestamp that goes backwards is an error here, with its location).
 * Every drawable is emitted while handling the event at which it *ends*:
 *   - a region state at its Leave (nested Enter/Leave pairs end inner first);
 *   - an arrow when the second of its two halves arrives: normally the
 *     receive (Recv, or Irecv = completion of a non-blocking receive); if
 *     skewed clocks put the receive first, it waits and the arrow leaves at
 *     the send, pointing backwards in time (its box still ends "now");
 *   - a collective state and its event at CollectiveEnd;
 *   - a metric event at its Metric record.
 * So each drawable's end time is the current stream time, which never
 * decreases: the output is end-time ordered, and nothing waits for a later
 * drawable. What we hold is exactly what is still open: per location a stack
 * of entered regions and one pending collective begin; per (communicator,
 * source rank, destination rank, tag) a FIFO of unmatched sends or receives
 * (otf2_msgq.c); per location the set of outstanding request IDs. At the end
 * of the events, regions still open are closed at the time of the last event
 * (innermost first) -- the trace end as far as the events tell.
 *
 * The events are pulled in batches (BATCH events per ReadGlobalEvents call)
 * whenever the queue of finished drawables is empty, so the queue holds at
 * most one batch's drawables. With more locations than the chunk-buffer
 * budget allows open at once (otf2_grouped.c), this file drives two passes
 * instead: each group of locations' events into a sorted run of the
 * temporary file (otf2_spill.c), then the runs' merge replayed into the same
 * callbacks, which so get the same stream (the end of this file).
 *
 * Record kinds not mapped are counted per kind (otf2_unsupported.h, generated
 * from this libotf2's callback header) and reported once at the end, with
 * unmatched messages and requests. libotf2 ends a truncated event file
 * quietly, so at the end each location's count of records read is compared
 * with the numberOfEvents of its definition: fewer is an error.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_internal.h"
#include "otf2_payload.h"
#include "otf2_spill.h"

/* ------------------------------------------------------------------------ */
/* Output queue */

static drawable *push(struct _trace_file *fp)
{
    if (fp->qlen == fp->qcap) {
        size_t ncap = fp->qcap ? fp->qcap * 2 : 1024;
        drawable *nq = malloc(ncap * sizeof *nq);
        if (!nq)
            return NULL;
        for (size_t i = 0; i < fp->qlen; i++)
            nq[i] = fp->q[(fp->qhead + i) % fp->qcap];
        free(fp->q);
        fp->q = nq;
        fp->qcap = ncap;
        fp->qhead = 0;
    }
    size_t at = fp->qhead + fp->qlen; /* < 2 * qcap: no division */
    drawable *d = &fp->q[at < fp->qcap ? at : at - fp->qcap];
    fp->qlen++;
    memset(d, 0, offsetof(drawable, info));
    return d;
}

static int emit_state(struct _trace_file *fp, int cat, int line, double t0, double t1)
{
    drawable *d = push(fp);
    if (!d)
        return -1;
    d->cat = cat;
    d->nv = 2;
    d->t[0] = t0;
    d->t[1] = t1;
    d->y[0] = d->y[1] = line;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Events */

static void count_event(struct _trace_file *fp, OTF2_LocationRef loc)
{
    int li = loc_index(fp, loc);
    if (li >= 0)
        fp->locs[li].read++;
}

static OTF2_CallbackCode count_unsupported(void *u, OTF2_LocationRef loc, int kind)
{
    struct _trace_file *fp = u;
    count_event(fp, loc);
    if (kind >= 0 && kind < 256)
        fp->unsupported[kind]++;
    return OTF2_CALLBACK_SUCCESS;
}

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif
#include "otf2_unsupported.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static OTF2_CallbackCode ev_unknown(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a)
{
    (void)t;
    (void)a;
    count_event(u, loc);
    ((struct _trace_file *)u)->unknown_records++;
    return OTF2_CALLBACK_SUCCESS;
}

/* Common start of every mapped event: the location's index and the time in
 * seconds; checks the stream order. Returns -1 after storing an error. */
static int begin_event(struct _trace_file *fp, OTF2_LocationRef loc, OTF2_TimeStamp t, double *sec)
{
    int li = loc_index(fp, loc);
    if (li < 0) {
        fail(fp, ERR_READ, "%s: event of undefined location %llu", fp->path, (unsigned long long)loc);
        return -1;
    }
    if (fp->have_last && t < fp->last_ticks) {
        char d[256];
        describe_loc(fp, li, d, sizeof d);
        fail(fp, ERR_READ,
             "%s: %s: event at tick %llu comes after tick %llu: the location's timestamps go backwards",
             fp->path, d, (unsigned long long)t, (unsigned long long)fp->last_ticks);
        return -1;
    }
    fp->locs[li].read++;
    fp->have_last = 1;
    fp->last_ticks = t;
    *sec = to_seconds(fp, t);
    fp->last_time = *sec;
    return li;
}

#define EV_BEGIN(loc, t) \
    struct _trace_file *fp = u; \
    (void)attrs; \
    double now; \
    int li = begin_event(fp, loc, t, &now); \
    if (li < 0) \
        return OTF2_CALLBACK_INTERRUPT
#define EV_OOM(fp) \
    do { \
        fail(fp, ERR_MEM, "%s: out of memory reading the events", fp->path); \
        return OTF2_CALLBACK_INTERRUPT; \
    } while (0)

static int region_cat(struct _trace_file *fp, int ri)
{
    return N_FIXED_CATS + (int)fp->nmembers + ri;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                  OTF2_RegionRef reg)
{
    EV_BEGIN(loc, t);
    int ri = region_index(fp, reg);
    if (ri < 0) {
        char d[256];
        describe_loc(fp, li, d, sizeof d);
        fail(fp, ERR_READ, "%s: %s: Enter of undefined region %u at tick %llu", fp->path, d, (unsigned)reg,
             (unsigned long long)t);
        return OTF2_CALLBACK_INTERRUPT;
    }
    location *l = &fp->locs[li];
    if (l->depth == l->stack_cap && grow((void **)&l->stack, &l->stack_cap, l->depth + 1, sizeof(frame)))
        EV_OOM(fp);
    l->stack[l->depth++] = (frame){ ri, now };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                  OTF2_RegionRef reg)
{
    EV_BEGIN(loc, t);
    location *l = &fp->locs[li];
    int ri = region_index(fp, reg);
    size_t k = l->depth;
    while (k > 0 && l->stack[k - 1].region != ri)
        k--;
    if (k == 0) { /* not open: nothing to close */
        fp->bad_leaves++;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (k != l->depth)
        fp->bad_leaves++; /* inner regions left without Leave: close them now */
    while (l->depth >= k) {
        frame f = l->stack[--l->depth];
        if (emit_state(fp, region_cat(fp, f.region), li, f.start, now))
            EV_OOM(fp);
        if (l->depth == 0)
            break;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* Messages */

static int emit_arrow(struct _trace_file *fp, uint32_t comm, uint32_t tag, uint64_t size, double ts, int ls,
                      double tr, int lr)
{
    drawable *d = push(fp);
    if (!d)
        return -1;
    d->cat = CAT_MESSAGE;
    d->nv = 2;
    d->t[0] = ts;
    d->y[0] = ls;
    d->t[1] = tr;
    d->y[1] = lr;
    int at = put32(d->info, 0, (int32_t)comm);
    at = put32(d->info, at, (int32_t)tag);
    d->nbytes = put64(d->info, at, size);
    return 0;
}

/* One half of a message: matched with its partner, it becomes an arrow from
 * the send to the receive. */
static int message_half_at(struct _trace_file *fp, int is_recv, uint32_t comm, uint32_t src, uint32_t dst,
                           uint32_t tag, uint64_t size, double now, int line)
{
    msg m;
    int rc = message_half(&fp->mt, is_recv, comm, src, dst, tag, size, now, line, &m);
    if (rc <= 0)
        return rc;
    return is_recv ? emit_arrow(fp, comm, tag, size, m.t, m.line, now, line)
                   : emit_arrow(fp, comm, tag, m.size, now, line, m.t, m.line);
}

static OTF2_CallbackCode send_half(struct _trace_file *fp, int li, double now, uint32_t receiver,
                                   OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    int64_t me = comm_rank(fp, comm, li);
    if (me == -2)
        EV_OOM(fp);
    if (message_half_at(fp, 0, comm, (uint32_t)me, receiver, tag, len, now, li))
        EV_OOM(fp);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode recv_half(struct _trace_file *fp, int li, double now, uint32_t sender,
                                   OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    int64_t me = comm_rank(fp, comm, li);
    if (me == -2)
        EV_OOM(fp);
    if (message_half_at(fp, 1, comm, sender, (uint32_t)me, tag, len, now, li))
        EV_OOM(fp);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_send(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                 uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    EV_BEGIN(loc, t);
    return send_half(fp, li, now, receiver, comm, tag, len);
}

static OTF2_CallbackCode ev_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                 uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    EV_BEGIN(loc, t);
    return recv_half(fp, li, now, sender, comm, tag, len);
}

static OTF2_CallbackCode ev_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                  uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len,
                                  uint64_t req)
{
    EV_BEGIN(loc, t);
    if (umap_put(&fp->locs[li].requests, req, 0))
        EV_OOM(fp);
    return send_half(fp, li, now, receiver, comm, tag, len);
}

static OTF2_CallbackCode ev_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                  uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    EV_BEGIN(loc, t);
    if (!umap_del(&fp->locs[li].requests, req))
        fp->unmatched_requests++;
    return recv_half(fp, li, now, sender, comm, tag, len);
}

static OTF2_CallbackCode ev_request_done(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                         OTF2_AttributeList *attrs, uint64_t req)
{
    EV_BEGIN(loc, t);
    (void)now;
    if (!umap_del(&fp->locs[li].requests, req))
        fp->unmatched_requests++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_irecv_request(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                          OTF2_AttributeList *attrs, uint64_t req)
{
    EV_BEGIN(loc, t);
    (void)now;
    if (umap_put(&fp->locs[li].requests, req, 1))
        EV_OOM(fp);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_request_test(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                         OTF2_AttributeList *attrs, uint64_t req)
{
    EV_BEGIN(loc, t);
    (void)now;
    if (umap_get(&fp->locs[li].requests, req) < 0)
        fp->unmatched_requests++;
    return OTF2_CALLBACK_SUCCESS;
}

/* Collectives */

static const char *const COLL_OPS[] = {
    "Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv",
    "Alltoall", "Alltoallv", "Alltoallw", "Allreduce", "Reduce", "Reduce_scatter", "Scan", "Exscan",
    "Reduce_scatter_block", "Create_handle", "Destroy_handle", "Allocate", "Deallocate",
    "Create_handle_and_allocate", "Destroy_handle_and_deallocate",
};

static OTF2_CallbackCode ev_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                       OTF2_AttributeList *attrs)
{
    EV_BEGIN(loc, t);
    fp->locs[li].coll_open = 1;
    fp->locs[li].coll_start = now;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                     OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                     uint64_t received)
{
    EV_BEGIN(loc, t);
    location *l = &fp->locs[li];
    double start = l->coll_open ? l->coll_start : now;
    l->coll_open = 0;
    if (emit_state(fp, CAT_COLL, li, start, now))
        EV_OOM(fp);
    drawable *d = push(fp);
    if (!d)
        EV_OOM(fp);
    d->cat = CAT_COLL_OP;
    d->nv = 1;
    d->t[0] = d->t[1] = now;
    d->y[0] = d->y[1] = li;
    char opname[32];
    if (op < sizeof COLL_OPS / sizeof COLL_OPS[0])
        snprintf(opname, sizeof opname, "%s", COLL_OPS[op]);
    else
        snprintf(opname, sizeof opname, "op %u", (unsigned)op);
    int at = put_str(d->info, 0, opname, 30);
    at = put32(d->info, at, (int32_t)comm);
    at = put32(d->info, at, root == OTF2_UNDEFINED_UINT32 ? -1 : clamp32(root));
    at = put64(d->info, at, sent);
    d->nbytes = put64(d->info, at, received);
    return OTF2_CALLBACK_SUCCESS;
}

/* Metrics */

static OTF2_CallbackCode ev_metric(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                   OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                   const OTF2_MetricValue *values)
{
    EV_BEGIN(loc, t);
    int ci = umap_get(&fp->metric_ix, metric);
    if (ci < 0) {
        fp->bad_metrics++;
        return OTF2_CALLBACK_SUCCESS;
    }
    const metric_class *c = &fp->classes[ci];
    for (int i = 0; i < n && i < c->n; i++) {
        int mi = c->members[i];
        if (mi < 0) {
            fp->bad_metrics++;
            continue;
        }
        drawable *d = push(fp);
        if (!d)
            EV_OOM(fp);
        d->cat = N_FIXED_CATS + mi;
        d->nv = 1;
        d->t[0] = d->t[1] = now;
        d->y[0] = d->y[1] = li;
        int is_double = types[i] == OTF2_TYPE_DOUBLE;
        if (fp->members[mi].is_int) {
            int64_t v = is_double ? (int64_t)values[i].floating_point
                        : types[i] == OTF2_TYPE_UINT64 && values[i].unsigned_int > INT64_MAX
                            ? INT64_MAX
                            : values[i].signed_int;
            d->nbytes = put64(d->info, 0, (uint64_t)v);
        } else {
            double v = is_double                    ? values[i].floating_point
                       : types[i] == OTF2_TYPE_UINT64 ? (double)values[i].unsigned_int
                                                      : (double)values[i].signed_int;
            uint64_t bits;
            memcpy(&bits, &v, 8);
            d->nbytes = put64(d->info, 0, bits);
        }
    }
    if (n != c->n)
        fp->bad_metrics++;
    return OTF2_CALLBACK_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* End of the events */

static void report(struct _trace_file *fp)
{
    if (fp->reported)
        return;
    fp->reported = 1;
    char buf[4096];
    size_t at = 0;
    uint64_t total = 0;
    for (int k = 0; k < N_RECORD_KINDS; k++) {
        if (!fp->unsupported[k])
            continue;
        total += fp->unsupported[k];
        at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s %llu", at ? ", " : "", record_kind_names[k],
                               (unsigned long long)fp->unsupported[k]);
        if (at >= sizeof buf)
            at = sizeof buf - 1;
    }
    if (total)
        fprintf(stderr, "slog2-otf2: %s: %llu event records of kinds this reader does not map were skipped: %s\n",
                fp->path, (unsigned long long)total, buf);
    if (fp->unknown_records)
        fprintf(stderr, "slog2-otf2: %s: %llu event records of kinds unknown to libotf2 %s were skipped\n",
                fp->path, (unsigned long long)fp->unknown_records, OTF2_VERSION);
    if (fp->mt.in_flight)
        fprintf(stderr, "slog2-otf2: %s: %llu message halves (sends or receives) had no partner: no arrow\n",
                fp->path, (unsigned long long)fp->mt.in_flight);
    if (fp->unmatched_requests)
        fprintf(stderr, "slog2-otf2: %s: %llu request completions/tests for unknown request IDs\n", fp->path,
                (unsigned long long)fp->unmatched_requests);
    uint64_t open_req = 0;
    for (size_t i = 0; i < fp->nlocs; i++)
        open_req += fp->locs[i].requests.n;
    if (open_req)
        fprintf(stderr, "slog2-otf2: %s: %llu requests never completed\n", fp->path, (unsigned long long)open_req);
    if (fp->bad_leaves)
        fprintf(stderr, "slog2-otf2: %s: %llu Leave records did not match the innermost open region\n", fp->path,
                (unsigned long long)fp->bad_leaves);
    if (fp->bad_metrics)
        fprintf(stderr, "slog2-otf2: %s: %llu metric values of undefined metrics or members were skipped\n",
                fp->path, (unsigned long long)fp->bad_metrics);
    if (fp->closed_at_end)
        fprintf(stderr, "slog2-otf2: %s: %llu regions still open at the end were closed at the last event (%.9g s)\n",
                fp->path, (unsigned long long)fp->closed_at_end, fp->last_time);
}

/* Close the regions still open (innermost first) at the last event's time. */
static int close_open(struct _trace_file *fp)
{
    for (size_t i = 0; i < fp->nlocs; i++) {
        location *l = &fp->locs[i];
        while (l->depth > 0) {
            frame f = l->stack[--l->depth];
            if (emit_state(fp, region_cat(fp, f.region), (int)i, f.start, fp->last_time))
                return fail(fp, ERR_MEM, "%s: out of memory", fp->path);
            fp->closed_at_end++;
        }
    }
    return 0;
}

/* After the global event reader failed: find the location whose event file
 * is damaged, by reading each unfinished location's events alone with a
 * second reader (only on this error path). Returns its index or -1. */
static int find_bad_location(struct _trace_file *fp, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        if (fp->locs[i].declared && fp->locs[i].read >= fp->locs[i].declared)
            continue;
        OTF2_Reader *r = OTF2_Reader_Open(fp->path);
        if (!r)
            return -1;
        int bad = 0;
        uint64_t n = 0;
        OTF2_EvtReader *er = NULL;
        if (OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS ||
            OTF2_Reader_SelectLocation(r, fp->locs[i].ref) != OTF2_SUCCESS ||
            OTF2_Reader_OpenEvtFiles(r) != OTF2_SUCCESS || !(er = OTF2_Reader_GetEvtReader(r, fp->locs[i].ref)) ||
            OTF2_Reader_ReadAllLocalEvents(r, er, &n) != OTF2_SUCCESS ||
            (fp->locs[i].declared && n < fp->locs[i].declared))
            bad = 1;
        OTF2_Reader_Close(r);
        if (bad)
            return (int)i;
    }
    return -1;
}

/* Up to `max` events of global reader ger (of locations [from, to)) into its
 * callbacks. A failure stores a text naming the damaged location where one
 * can be found, and when (after which tick) it happened. */
static int read_events(struct _trace_file *fp, OTF2_Reader *r, OTF2_GlobalEvtReader *ger, uint64_t max, uint64_t *got,
                size_t from, size_t to, int have_last, uint64_t last_ticks)
{
    OTF2_ErrorCode rc = OTF2_Reader_ReadGlobalEvents(r, ger, max, got);
    if (fp->err)
        return fp->err;
    if (rc == OTF2_SUCCESS)
        return 0;
    char when[64] = "at the first event", where[300] = "";
    if (have_last)
        snprintf(when, sizeof when, "after tick %llu", (unsigned long long)last_ticks);
    char keep[sizeof otf2_msg];
    memcpy(keep, otf2_msg, sizeof keep);
    int bad = find_bad_location(fp, from, to);
    memcpy(otf2_msg, keep, sizeof keep);
    if (bad >= 0) {
        char d[256];
        describe_loc(fp, bad, d, sizeof d);
        snprintf(where, sizeof where, "%s: its event file is damaged: ", d);
    }
    return fail(fp, ERR_READ, "%s: %sreading the events failed %s: %s", fp->path, where, when,
                OTF2_Error_GetDescription(rc));
}

/* ------------------------------------------------------------------------ */
/* The global event reader */

/* The global event reader of r over locations [from, to) (their event readers
 * open), with the event callbacks -- or, with `record`, pass 1's recorders
 * for the mapped kinds (otf2_grouped.c). */
static int open_global_reader(struct _trace_file *fp, OTF2_Reader *r, OTF2_GlobalEvtReader **out, size_t from,
                              size_t to, int record)
{
    OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader(r);
    if (!ger) {
        char keep[sizeof otf2_msg], d[256] = "";
        memcpy(keep, otf2_msg, sizeof keep);
        int bad = find_bad_location(fp, from, to);
        memcpy(otf2_msg, keep, sizeof keep);
        if (bad >= 0) {
            describe_loc(fp, bad, d, sizeof d - 40);
            strcat(d, ": its event file is damaged: ");
        }
        return fail(fp, ERR_OPEN, "%s: %scannot open the global event reader", fp->path, d);
    }
    OTF2_GlobalEvtReaderCallbacks *ecb = OTF2_GlobalEvtReaderCallbacks_New();
    if (!ecb)
        return fail(fp, ERR_MEM, "out of memory");
    register_unsupported(ecb);
    OTF2_GlobalEvtReaderCallbacks_SetUnknownCallback(ecb, ev_unknown);
    if (record) {
        register_recorders(ecb);
        goto registered;
    }
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ecb, ev_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ecb, ev_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(ecb, ev_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(ecb, ev_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(ecb, ev_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(ecb, ev_request_done);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(ecb, ev_irecv_request);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(ecb, ev_irecv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRequestTestCallback(ecb, ev_request_test);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRequestCancelledCallback(ecb, ev_request_done);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(ecb, ev_coll_begin);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, ev_coll_end);
    OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(ecb, ev_metric);
registered:;
    OTF2_ErrorCode rc = OTF2_Reader_RegisterGlobalEvtCallbacks(r, ger, ecb, fp);
    OTF2_GlobalEvtReaderCallbacks_Delete(ecb);
    *out = ger;
    if (rc != OTF2_SUCCESS)
        return fail(fp, ERR_OPEN, "%s: cannot register event callbacks", fp->path);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The grouped path (many locations: otf2_grouped.c says why) */

/* One recorded event (pass 2) into the callback of its kind. */
static OTF2_CallbackCode replay_event(struct _trace_file *fp, const spill_rec *e, const spill_value *v)
{
    switch (e->kind) {
    case SP_ENTER:
        return ev_enter(e->loc, e->t, fp, NULL, e->a);
    case SP_LEAVE:
        return ev_leave(e->loc, e->t, fp, NULL, e->a);
    case SP_SEND:
        return ev_send(e->loc, e->t, fp, NULL, e->a, e->b, e->c, e->x);
    case SP_RECV:
        return ev_recv(e->loc, e->t, fp, NULL, e->a, e->b, e->c, e->x);
    case SP_ISEND:
        return ev_isend(e->loc, e->t, fp, NULL, e->a, e->b, e->c, e->x, e->y);
    case SP_IRECV:
        return ev_irecv(e->loc, e->t, fp, NULL, e->a, e->b, e->c, e->x, e->y);
    case SP_ISEND_DONE:
    case SP_REQUEST_CANCELLED:
        return ev_request_done(e->loc, e->t, fp, NULL, e->y);
    case SP_IRECV_REQUEST:
        return ev_irecv_request(e->loc, e->t, fp, NULL, e->y);
    case SP_REQUEST_TEST:
        return ev_request_test(e->loc, e->t, fp, NULL, e->y);
    case SP_COLL_BEGIN:
        return ev_coll_begin(e->loc, e->t, fp, NULL);
    case SP_COLL_END:
        return ev_coll_end(e->loc, e->t, fp, NULL, e->n, e->a, e->b, e->x, e->y);
    case SP_METRIC: {
        OTF2_Type types[256];
        OTF2_MetricValue values[256];
        for (int i = 0; i < e->n; i++) {
            types[i] = (OTF2_Type)v[i].type;
            values[i] = v[i].value;
        }
        return ev_metric(e->loc, e->t, fp, NULL, e->a, e->n, types, values);
    }
    }
    fail(fp, ERR_READ, "%s: the temporary event file is damaged (record kind %d)", fp->path, e->kind);
    return OTF2_CALLBACK_INTERRUPT;
}

/* Pass 1 for locations [from, to): their events through a reader of their
 * own, as one run; the reader (and its chunk buffers) is closed before the
 * next group. */
static int record_group(struct _trace_file *fp, size_t from, size_t to)
{
    struct spill *sp = fp->spill;
    OTF2_Reader *r = OTF2_Reader_Open(fp->path);
    if (!r)
        return fail(fp, ERR_OPEN, "%s: not a readable OTF2 anchor file", fp->path);
    OTF2_GlobalEvtReader *ger = NULL;
    spill_run_begin(sp);
    int rc = 0;
    if (OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS)
        rc = fail(fp, ERR_OPEN, "%s: cannot set up the OTF2 reader", fp->path);
    if (!rc)
        rc = open_locations(fp, r, from, to);
    if (!rc)
        rc = open_global_reader(fp, r, &ger, from, to, 1);
    for (uint64_t got = 1; !rc && got;) {
        uint64_t last = 0;
        int have_last = spill_last(sp, &last);
        rc = read_events(fp, r, ger, 1u << 16, &got, from, to, have_last, last);
    }
    OTF2_Reader_Close(r);
    if (rc)
        return fp->err;
    return spill_run_end(fp);
}

/* Up to `max` events of the merged runs into the event callbacks (pass 1,
 * every group into the temporary file, on the first call); *got = 0 at the
 * end. Returns the sticky error or 0. */
static int grouped_read(struct _trace_file *fp, uint64_t max, uint64_t *got)
{
    *got = 0;
    if (!fp->spill) {
        if (spill_open(fp))
            return fp->err;
        size_t k = group_size(fp);
        for (size_t from = 0; from < fp->nlocs; from += k)
            if (record_group(fp, from, fp->nlocs - from < k ? fp->nlocs : from + k))
                return fp->err;
        if (spill_merge(fp))
            return fp->err;
    }
    const spill_rec *head;
    const spill_value *v;
    while (*got < max && spill_peek(fp->spill, &head, &v)) {
        spill_rec e = *head;
        OTF2_CallbackCode cc = replay_event(fp, &e, v);
        ++*got;
        if (cc != OTF2_CALLBACK_SUCCESS || fp->err)
            return fp->err ? fp->err : fail(fp, ERR_READ, "%s: replaying the events failed", fp->path);
        if (spill_pop(fp))
            return fp->err;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Driving the events */

/* Make sure a drawable is queued, or events_done. */
int fill(struct _trace_file *fp)
{
    while (!fp->err && fp->qlen == 0 && !fp->events_done) {
        uint64_t got = 0;
        if (fp->spill_mode ? grouped_read(fp, BATCH, &got)
                           : read_events(fp, fp->reader, fp->ger, BATCH, &got, 0, fp->nlocs, fp->have_last,
                                         fp->last_ticks))
            return fp->err;
        if (fp->err)
            return fp->err;
        if (got == 0) {
            fp->events_done = 1;
            /* OTF2 stops quietly at the end of a truncated event file: compare
             * with the event counts the definitions declare. */
            for (size_t i = 0; i < fp->nlocs; i++) {
                const location *l = &fp->locs[i];
                if (l->declared && l->read < l->declared) {
                    char d[256];
                    describe_loc(fp, (int)i, d, sizeof d);
                    return fail(fp, ERR_READ,
                                "%s: %s: its event file ends after %llu of the %llu events its definition "
                                "declares (truncated or damaged archive)",
                                fp->path, d, (unsigned long long)l->read, (unsigned long long)l->declared);
                }
            }
            if (close_open(fp))
                return fp->err;
            report(fp);
        }
    }
    return fp->err;
}

/* Direct reading when every location's event reader fits the budget (one
 * global event reader over them all); otherwise the grouped path's pass 1
 * runs at the first drawable asked for. */
int events_open(struct _trace_file *fp)
{
    if (fp->nlocs > group_size(fp)) {
        fp->spill_mode = 1;
        return 0;
    }
    if (open_locations(fp, fp->reader, 0, fp->nlocs))
        return fp->err;
    return open_global_reader(fp, fp->reader, &fp->ger, 0, fp->nlocs, 0);
}
