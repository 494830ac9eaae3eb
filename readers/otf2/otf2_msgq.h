/*
 * otf2_msgq.h -- the message matcher: pairs the two halves of each MPI
 * point-to-point message so that the reader can draw one arrow per message.
 *
 * OTF2 records a message twice, as a send on the sender's location and a
 * receive on the receiver's, with no message ID. MPI's non-overtaking rule
 * says that messages between the same two ranks on the same communicator
 * with the same tag are received in the order they were sent, so halves with
 * the same key (communicator, source rank, destination rank, tag) match
 * first-in first-out. Each key has a FIFO of unmatched halves -- all sends,
 * or all receives when skewed clocks put a receive before its send -- and a
 * half either takes the oldest opposite half of its key (a match: the caller
 * draws the arrow) or joins the FIFO. Empty FIFOs leave the table at once
 * (kept on a free list for the next key, as matched halves are), so memory
 * follows the most messages ever in flight at once, not the number of keys
 * ever seen.
 */
#ifndef SLOG2_OTF2_MSGQ_H
#define SLOG2_OTF2_MSGQ_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* One half of a message waiting for its partner. */
typedef struct msg {
    struct msg *next;
    double t;
    int line;
    uint64_t size;
} msg;

/* FIFO of unmatched halves for one (comm, src, dst, tag). */
typedef struct msgq {
    struct msgq *next;  /* hash chain */
    uint32_t comm, src, dst, tag;
    int recvs;          /* the queue holds receives (else sends) */
    msg *head, *tail;
} msgq;

/* The FIFOs by key (chained hash table) and free lists of halves and of
 * queues (most keys hold one message at a time: a queue per message). */
typedef struct {
    msgq **mbuckets;
    size_t mcap, mqueues;
    msg *free_msgs;
    msgq *free_queues;   /* emptied queues, for the next key */
    uint64_t in_flight;  /* halves waiting for a partner */
} matcher;

/* One half of a message: a send (is_recv 0) at time `now` on line `line`, or
 * a receive. Returns 1 and the partner half in *partner when it matches the
 * oldest opposite half with the same key; 0 when this half was queued; -1 when
 * out of memory. */
int message_half(matcher *mt, int is_recv, uint32_t comm, uint32_t src, uint32_t dst, uint32_t tag,
                 uint64_t size, double now, int line, msg *partner);
void matcher_free(matcher *mt);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
