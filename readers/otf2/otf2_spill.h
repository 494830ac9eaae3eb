/*
 * otf2_spill.h -- reading archives of many locations in bounded memory.
 *
 * libotf2's global event reader keeps every location's event reader open,
 * and each holds a buffer of the archive's event chunk size (1 MiB by
 * default, Score-P's too): 10,000 locations cost 10 GB before the first
 * event. When the archive has more locations than fit in the budget
 * (SPILL_BUDGET bytes of chunk buffers), the events are read in two passes:
 *
 *   1. the locations in groups of K (K chunk buffers fit the budget): per
 *      group a global event reader of its own merges the group's events and
 *      the mapped ones are appended to a temporary file as one sorted run
 *      (record kinds that are only counted are counted right there);
 *   2. a k-way merge of the runs, each read through a small buffer, replays
 *      the events into the same callbacks the direct path uses.
 *
 * Both passes order by (timestamp, location reference), which is exactly
 * the order of libotf2's global event reader, so the drawables, their order
 * and every message match are identical to the direct path. Memory is K
 * chunk buffers in pass 1, and the runs' buffers (SPILL_MERGE_BUDGET in all)
 * in pass 2 -- bounded, whatever the number of locations; the temporary file
 * (unlinked at once, in $TMPDIR or /tmp) holds the mapped events.
 *
 * SLOG2_OTF2_OPEN_LOCATIONS=K overrides the group size (0 or unset: from the
 * budget); an archive of at most K locations is read directly.
 */
#ifndef SLOG2_OTF2_SPILL_H
#define SLOG2_OTF2_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

#define SPILL_BUDGET (32u << 20)       /* chunk buffers open at once in pass 1 */
#define SPILL_MERGE_BUDGET (16u << 20) /* run buffers in pass 2 */

/* The mapped event kinds, as recorded in a run. */
enum {
    SP_ENTER = 1, SP_LEAVE, SP_SEND, SP_RECV, SP_ISEND, SP_ISEND_DONE, SP_IRECV_REQUEST, SP_IRECV,
    SP_REQUEST_TEST, SP_REQUEST_CANCELLED, SP_COLL_BEGIN, SP_COLL_END, SP_METRIC,
};

/* One recorded event (native byte order: the file never leaves this
 * process). A SP_METRIC record is followed by n spill_value entries. */
typedef struct {
    uint64_t t;        /* timestamp (ticks, clock offsets applied) */
    uint64_t loc;      /* location reference */
    uint8_t kind;      /* SP_* */
    uint8_t n;         /* SP_METRIC: number of values; SP_COLL_END: op */
    uint16_t pad;
    uint32_t a, b, c;  /* region | peer, comm, tag | comm, root | metric */
    uint64_t x, y;     /* length, request | sent, received */
} spill_rec;

typedef struct {
    uint64_t type;     /* OTF2_Type */
    OTF2_MetricValue value;
} spill_value;

struct _trace_file;
struct spill;

/* The group size: how many locations' event readers may be open at once. */
size_t spill_group_size(struct _trace_file *fp);
/* Up to `max` events of the merged runs into the event callbacks (pass 1 on
 * the first call); *got = 0 at the end. Returns the sticky error or 0. */
int spill_read(struct _trace_file *fp, uint64_t max, uint64_t *got);
void spill_free(struct spill *sp);
/* The recording callbacks of pass 1, for the mapped kinds. */
void spill_register_recorders(OTF2_GlobalEvtReaderCallbacks *cb);
/* otf2_events.c: one recorded event into the callback of its kind. */
OTF2_CallbackCode replay_event(struct _trace_file *fp, const spill_rec *e, const spill_value *v);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
