/*
 * otf2_internal.h -- what the files of the OTF2 reader plugin share: the
 * state of one open archive (struct _trace_file, the TRACE_file handle) and
 * the functions each file offers the others. The plugin is cut by concern,
 * in layers: each file calls only the files below it.
 *
 *   otf2_trace.c    the TRACE-API itself: open/close, the record cursor and
 *                   its four-argument array protocol (peek, then get), the
 *                   categories and the y-map
 *   otf2_events.c   the events: callbacks that turn events into drawables in
 *                   end-time order, the end-of-events checks and report; it
 *                   drives the reading, direct or grouped
 *   otf2_grouped.c  many locations in bounded memory: the group size, and the
 *                   callbacks that record a group's events (pass 1)
 *   otf2_spill.c    storage of the grouped path: sorted runs of records in a
 *                   temporary file, and their k-way merge
 *   otf2_defs.c     the archive: the anchor check, the global and local
 *                   definitions, world ranks and communicator ranks
 *   otf2_errors.c   error texts: fail(), and libotf2's reports folded in
 * and, used by several of them, the leaves
 *   otf2_msgq.c     the message matcher (send/receive halves -> arrows)
 *   otf2_umap.c     the hash map from OTF2 references to dense indices
 *   otf2_payload.h  the big-endian encoder of a drawable's info bytes
 *
 * Everything here is hidden: the plugin exports only the TRACE_* functions.
 */
#ifndef SLOG2_OTF2_INTERNAL_H
#define SLOG2_OTF2_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "otf2_msgq.h"
#include "otf2_umap.h"
#include "trace_API.h"

#if OTF2_VERSION_MAJOR < 2
#error "slog2-otf2 needs OTF2 2.0 or newer"
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

enum {
    ERR_OPEN = 1,      /* archive cannot be opened or is not usable */
    ERR_ARG = 2,       /* NULL argument, or a handle that is not open */
    ERR_READ = 3,      /* reading the events failed (text in the handle) */
    ERR_KIND = 4,      /* call does not match the current record */
    ERR_SMALL = 5,     /* a caller array is too small */
    ERR_NOTSUP = 6,    /* Get_next_method, composites, positions */
    ERR_MEM = 7,       /* out of memory */
    ERR_VERSION = 8,   /* archive written by an unsupported OTF2 version */
};

#define BATCH 4096
#define INFO_MAX 64
#define N_FIXED_CATS 3
#define CAT_MESSAGE 0
#define CAT_COLL 1
#define CAT_COLL_OP 2

/* ------------------------------------------------------------------------ */
/* Reader state */

typedef struct {
    int cat;
    int nv;                 /* 1 (event) or 2 (state, arrow) */
    double t[2];
    int y[2];
    int nbytes;
    unsigned char info[INFO_MAX];
} drawable;

typedef struct {
    int region;   /* dense region index */
    double start;
} frame;

typedef struct {
    uint64_t ref;
    uint32_t name;       /* string ref */
    uint64_t group;      /* location group ref */
    int thread;          /* position inside its group */
    int world_rank;      /* rank in the MPI COMM_LOCATIONS group, or -1 */
    uint64_t declared;   /* numberOfEvents of its definition (0: unknown) */
    uint64_t read;       /* event records read */
    frame *stack;
    size_t depth, stack_cap;
    int coll_open;       /* a CollectiveBegin is pending */
    double coll_start;
    umap requests;       /* outstanding request IDs -> 0 send / 1 recv */
} location;

typedef struct {
    uint64_t ref;
    uint32_t name;
    int paradigm;
} region;

typedef struct {
    uint32_t name;
    int is_int;
} metric_member;

typedef struct {
    int *members; /* dense member indices */
    int n;
} metric_class;

typedef struct {
    int type;
    int paradigm;
    uint64_t *members;
    uint32_t n;
} group_def;

typedef struct {
    uint64_t group;   /* group ref */
    int32_t *to_comm; /* world rank -> comm rank (lazily built), -1 none */
    int built;
} comm_def;

struct _trace_file {
    struct _trace_file *next_open;
    char *path;          /* anchor file */
    OTF2_Reader *reader;
    OTF2_GlobalEvtReader *ger;
    int err;             /* sticky error code */
    char *errtext;

    /* definitions */
    uint64_t resolution, offset;
    int have_clock;
    char **strings;
    size_t nstrings, strings_cap;
    umap string_ix;
    location *locs;
    size_t nlocs, locs_cap;
    umap loc_ix;
    region *regions;
    size_t nregions, regions_cap;
    umap region_ix;
    metric_member *members;
    size_t nmembers, members_cap;
    umap member_ix;
    metric_class *classes;
    size_t nclasses, classes_cap;
    umap metric_ix;      /* metric ref (class or instance) -> class index */
    umap instance_pending; /* instance ref -> class ref (resolved later) */
    group_def *groups;
    size_t ngroups, groups_cap;
    umap group_ix;
    comm_def *comms;
    size_t ncomms, comms_cap;
    umap comm_ix;
    /* the last communicator comm_rank() looked up (messages of one run use
     * one or a few): its ref, index and group index; reset by new definitions */
    int cc_valid;
    uint32_t cc_ref;
    int cc_ci, cc_gi;
    umap group_ix_by_locgroup; /* location group ref -> thread counter */
    umap group_node;           /* location group ref -> its system tree node (y-map column) */
    umap node_parent;          /* system tree node ref -> its parent (-1: the root) */
    int nworld;

    /* record cursor */
    int ncats;           /* categories to deliver */
    int cat_next;
    int ymap_done;
    int events_done;
    int eof;

    /* queue of finished drawables (ring buffer) */
    drawable *q;
    size_t qcap, qhead, qlen;

    /* messages in flight */
    matcher mt;

    /* many locations: events through temporary sorted runs (otf2_grouped.c) */
    int spill_mode;
    struct spill *spill;

    /* stream state and statistics */
    uint64_t last_ticks;
    int have_last;
    double last_time;
    uint64_t unsupported[256];
    uint64_t unknown_records;
    uint64_t bad_leaves, closed_at_end, unmatched_requests, bad_metrics;
    int reported;
};


/* Dense index of a location or region reference. Writers (Score-P, the
 * tests' generator) usually number them 0, 1, 2, ... in definition order,
 * and a definition repeating a reference is dropped, so when entry `ref`
 * holds reference `ref` that is the answer; else the hash map's. These run
 * at every event. */
static inline int loc_index(const struct _trace_file *fp, uint64_t ref)
{
    if (ref < fp->nlocs && fp->locs[ref].ref == ref)
        return (int)ref;
    return umap_get(&fp->loc_ix, ref);
}

static inline int region_index(const struct _trace_file *fp, uint64_t ref)
{
    if (ref < fp->nregions && fp->regions[ref].ref == ref)
        return (int)ref;
    return umap_get(&fp->region_ix, ref);
}

/* otf2_errors.c: errors */
extern char err_text[2048]; /* the text of the last failure: TRACE_Get_err_string */
extern char otf2_msg[1024]; /* libotf2's reports since the last stored error */
/* Store an error text on the handle (sticky; fp may be NULL) and return the code. */
int fail(struct _trace_file *fp, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Redirect libotf2's error printing into otf2_msg (once per process). */
void catch_otf2_errors(void);

/* otf2_defs.c: the archive and its definitions */
int open_archive(struct _trace_file *fp);
const char *str(struct _trace_file *fp, uint32_t ref);
/* Seconds since the trace start of tick t (inline: once per event). */
static inline double to_seconds(const struct _trace_file *fp, uint64_t t)
{
    double d = t >= fp->offset ? (double)(t - fp->offset) : -(double)(fp->offset - t);
    return d / (double)fp->resolution;
}
void describe_loc(struct _trace_file *fp, int li, char *buf, size_t n);
int32_t ref_value(uint64_t ref);
int64_t comm_rank(struct _trace_file *fp, uint32_t comm, int li);

int open_locations(struct _trace_file *fp, OTF2_Reader *r, size_t from, size_t to);

/* otf2_grouped.c: many locations */
/* The group size: how many locations' event readers may be open at once. */
size_t group_size(struct _trace_file *fp);
/* The recording callbacks of pass 1, for the mapped kinds. */
void register_recorders(OTF2_GlobalEvtReaderCallbacks *cb);

/* otf2_events.c: the events */
/* Open the events once the definitions are read: the direct path's global
 * event reader, or the grouped path when there are too many locations. */
int events_open(struct _trace_file *fp);
/* Make sure a drawable is queued, or events_done; returns the sticky error. */
int fill(struct _trace_file *fp);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
