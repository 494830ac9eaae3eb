/*
 * otf2_spill.h -- sorted runs of event records in a temporary file, and their
 * k-way merge: the storage under the grouped path (otf2_grouped.c says why
 * many locations are read in groups; otf2_events.c drives the two passes).
 *
 * Pass 1 appends records run by run: between spill_run_begin and
 * spill_run_end every record appended must not sort before the previous one
 * (each run is one group's events, already merged by libotf2). Pass 2
 * (spill_merge, then spill_peek / spill_pop) yields the records of all runs
 * in (timestamp, location reference) order -- the order of libotf2's global
 * event reader, so the merge gives exactly the stream a direct read would.
 * Memory: a 1 MiB write buffer in pass 1, the runs' read buffers
 * (SPILL_MERGE_BUDGET in all, however many runs) in pass 2. The file is
 * unlinked at once (in $TMPDIR or /tmp), so it goes with the handle however
 * the process ends. This file knows the records' layout, nothing of what
 * they mean: no OTF2 reader, no callbacks, no definitions.
 */
#ifndef SLOG2_OTF2_SPILL_H
#define SLOG2_OTF2_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

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

/* The functions below keep their state in fp->spill and store their errors
 * (naming fp->path) on the handle; each returns the sticky error or 0. */

/* Create fp->spill: the temporary file and pass 1's write buffer. */
int spill_open(struct _trace_file *fp);
/* Start a run at the end of what is written so far. */
void spill_run_begin(struct spill *sp);
/* Append one record (and, for SP_METRIC, its e->n values v). */
int spill_append(struct _trace_file *fp, const spill_rec *e, const spill_value *v);
/* The timestamp of the last record appended; 0 when none was. */
int spill_last(const struct spill *sp, uint64_t *ticks);
/* End the run begun last (an empty run is dropped). */
int spill_run_end(struct _trace_file *fp);
/* Pass 2: flush, drop the write buffer, read the head of every run. */
int spill_merge(struct _trace_file *fp);
/* The smallest record left (and its values) in *e and *v: 1, or 0 at the
 * end. Valid until spill_pop. */
int spill_peek(const struct spill *sp, const spill_rec **e, const spill_value **v);
/* Drop the record spill_peek gave. */
int spill_pop(struct _trace_file *fp);
void spill_free(struct spill *sp);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
