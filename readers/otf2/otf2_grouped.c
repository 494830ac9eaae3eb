/*
 * otf2_grouped.c -- why and how archives of many locations are read in
 * groups: the group size, and the recording callbacks of pass 1.
 *
 * libotf2's global event reader keeps every location's event reader open,
 * and each holds a buffer of the archive's event chunk size (1 MiB by
 * default, Score-P's too): 10,000 locations cost 10 GB before the first
 * event. When the archive has more locations than fit in the budget
 * (GROUP_BUDGET bytes of chunk buffers), the events are read in two passes
 * (driven by otf2_events.c):
 *
 *   1. the locations in groups of K (K chunk buffers fit the budget): per
 *      group a global event reader of its own merges the group's events, and
 *      the callbacks here append the mapped ones to a temporary file as one
 *      sorted run (record kinds that are only counted are counted right
 *      there, by otf2_events.c's callbacks);
 *   2. a k-way merge of the runs (otf2_spill.c) replays the events into the
 *      same callbacks the direct path uses.
 *
 * Both passes order by (timestamp, location reference), which is exactly
 * the order of libotf2's global event reader, so the drawables, their order
 * and every message match are identical to the direct path. Memory is K
 * chunk buffers in pass 1, and the runs' buffers (SPILL_MERGE_BUDGET in all)
 * in pass 2 -- bounded, whatever the number of locations; the temporary file
 * holds the mapped events.
 *
 * SLOG2_OTF2_OPEN_LOCATIONS=K overrides the group size (0 or unset: from the
 * budget); an archive of at most K locations is read directly.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "otf2_internal.h"
#include "otf2_spill.h"

#define GROUP_BUDGET (32u << 20) /* chunk buffers open at once in pass 1 */

/* The group size: how many locations' event readers may be open at once. */
size_t group_size(struct _trace_file *fp)
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
    return evt >= GROUP_BUDGET ? 1 : (size_t)(GROUP_BUDGET / evt);
}

/* ------------------------------------------------------------------------ */
/* Pass 1: the recorders (one event of a mapped kind -> one record) */

static OTF2_CallbackCode record(void *u, const spill_rec *e, const spill_value *v)
{
    struct _trace_file *fp = u;
    return spill_append(fp, e, v) ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
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

void register_recorders(OTF2_GlobalEvtReaderCallbacks *cb)
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
