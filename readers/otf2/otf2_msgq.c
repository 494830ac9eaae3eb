/*
 * otf2_msgq.c -- the message matcher (see otf2_msgq.h): FIFOs of unmatched
 * message halves in a chained hash table keyed by (comm, src, dst, tag).
 */
#include "otf2_msgq.h"

#include <stdlib.h>
#include <string.h>

#include "otf2_umap.h"

static size_t mhash(uint32_t comm, uint32_t src, uint32_t dst, uint32_t tag)
{
    return (size_t)mix64(((uint64_t)comm << 32 | src) ^ mix64((uint64_t)dst << 32 | tag));
}

static msgq *mq_find(matcher *mt, uint32_t comm, uint32_t src, uint32_t dst, uint32_t tag,
                     msgq ***slot)
{
    if (!mt->mcap)
        return NULL;
    msgq **p = &mt->mbuckets[mhash(comm, src, dst, tag) & (mt->mcap - 1)];
    *slot = p;
    for (; *p; p = &(*p)->next)
        if ((*p)->comm == comm && (*p)->src == src && (*p)->dst == dst && (*p)->tag == tag) {
            *slot = p;
            return *p;
        }
    return NULL;
}

static int mq_rehash(matcher *mt)
{
    size_t ncap = mt->mcap ? mt->mcap * 2 : 256;
    msgq **nb = calloc(ncap, sizeof *nb);
    if (!nb)
        return -1;
    for (size_t i = 0; i < mt->mcap; i++) {
        msgq *q = mt->mbuckets[i];
        while (q) {
            msgq *nx = q->next;
            size_t h = mhash(q->comm, q->src, q->dst, q->tag) & (ncap - 1);
            q->next = nb[h];
            nb[h] = q;
            q = nx;
        }
    }
    free(mt->mbuckets);
    mt->mbuckets = nb;
    mt->mcap = ncap;
    return 0;
}

int message_half(matcher *mt, int is_recv, uint32_t comm, uint32_t src, uint32_t dst, uint32_t tag,
                 uint64_t size, double now, int line, msg *partner)
{
    msgq **slot = NULL;
    msgq *q = mq_find(mt, comm, src, dst, tag, &slot);
    if (q && q->head && q->recvs != is_recv) {
        msg *m = q->head;
        q->head = m->next;
        if (!q->head)
            q->tail = NULL;
        mt->in_flight--;
        *partner = *m;
        m->next = mt->free_msgs;
        mt->free_msgs = m;
        if (!q->head) { /* drop the empty queue: memory follows messages in flight */
            *slot = q->next;
            q->next = mt->free_queues;
            mt->free_queues = q;
            mt->mqueues--;
        }
        return 1;
    }
    if (!q) {
        if ((mt->mqueues + 1) * 2 > mt->mcap && mq_rehash(mt))
            return -1;
        q = mt->free_queues;
        if (q) {
            mt->free_queues = q->next;
            memset(q, 0, sizeof *q);
        } else if (!(q = calloc(1, sizeof *q))) {
            return -1;
        }
        q->comm = comm;
        q->src = src;
        q->dst = dst;
        q->tag = tag;
        size_t h = mhash(comm, src, dst, tag) & (mt->mcap - 1);
        q->next = mt->mbuckets[h];
        mt->mbuckets[h] = q;
        mt->mqueues++;
    }
    q->recvs = is_recv;
    msg *m = mt->free_msgs;
    if (m)
        mt->free_msgs = m->next;
    else if (!(m = malloc(sizeof *m)))
        return -1;
    m->next = NULL;
    m->t = now;
    m->line = line;
    m->size = size;
    if (q->tail)
        q->tail->next = m;
    else
        q->head = m;
    q->tail = m;
    mt->in_flight++;
    return 0;
}


void matcher_free(matcher *mt)
{
    for (size_t i = 0; i < mt->mcap; i++) {
        msgq *q = mt->mbuckets[i];
        while (q) {
            msgq *nx = q->next;
            for (msg *m = q->head; m;) {
                msg *mn = m->next;
                free(m);
                m = mn;
            }
            free(q);
            q = nx;
        }
    }
    free(mt->mbuckets);
    for (msgq *q = mt->free_queues; q;) {
        msgq *qn = q->next;
        free(q);
        q = qn;
    }
    for (msg *m = mt->free_msgs; m;) {
        msg *mn = m->next;
        free(m);
        m = mn;
    }
    memset(mt, 0, sizeof *mt);
}
