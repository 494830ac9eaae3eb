/*
 * otf2_trace.c -- a TRACE-API reader (trace_API.h) for OTF2 archives
 * (Score-P, Vampir, Scalasca), written over libotf2's reader API and built as
 * the plugin libslog2-otf2.so. `slog2 convert traces.otf2 -o run.slog2` finds
 * it by itself (README "OTF2 (Score-P) traces"); any TRACE-API client can
 * link it directly.
 *
 * FILESPEC: the path of the archive's anchor file (`traces.otf2`), or of the
 * archive directory holding exactly that name. Help: first word -h, --h,
 * -help or --help (TRACE_Open stores NULL, returns 0; code 0's text is the
 * help).
 *
 * RECORDS, in this order:
 *   1. categories (all defined before any drawable):
 *        0  "MPI message"        arrow, label "comm=%d tag=%d size=%l"
 *        1  "MPI collective"     state (CollectiveBegin..CollectiveEnd)
 *        2  "MPI collective op"  event at CollectiveEnd,
 *                                label "op=%s comm=%d root=%d sent=%l received=%l"
 *        3..3+M-1                one event category per metric member,
 *                                label "value=%l" (integer members) or "value=%E"
 *        3+M..                   one state category per region (its name)
 *   2. one y-map "OTF2 locations", columns rank, thread, node, node_parent:
 *      row (line, rank, thread, node, parent) per location. The line ID of a
 *      location is its position in the global definitions; rank is its
 *      location group's reference, thread its position inside the group;
 *      node is the system tree node of its location group (e.g. the host)
 *      and node parent that node's parent (e.g. the machine), -1 where the
 *      archive defines none: with rank and thread, a hierarchy machine ->
 *      node -> process -> thread for overviews (issue #29).
 *   3. drawables (primitives only), in non-decreasing end time.
 *
 * TIME: seconds since the trace start, (ticks - globalOffset) /
 * timerResolution from ClockProperties. Timestamps reach us after OTF2 has
 * applied the ClockOffset definitions of each location (we read every
 * location's local definitions so the event readers know them).
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
 * (MPI's non-overtaking order = matching in order); per location the set of
 * outstanding request IDs. At the end of the events, regions still open are
 * closed at the time of the last event (innermost first) -- the trace end
 * as far as the events tell.
 *
 * The events are pulled in batches (BATCH events per ReadGlobalEvents call)
 * whenever the queue of finished drawables is empty, so the queue holds at
 * most one batch's drawables.
 *
 * NOT MAPPED: every other event record kind (threads, OpenMP, RMA, I/O,
 * parameters, calling contexts, ...) and records unknown to this libotf2
 * are counted per kind; the counts, and messages/requests left unmatched,
 * are printed to stderr once at the end of the events ("slog2-otf2: ...").
 *
 * ERRORS: every failure stores a text naming the archive and, where known,
 * the location (and OTF2's own error report) that TRACE_Get_err_string
 * returns; errors are sticky for the handle. libotf2's own error printing is
 * redirected into that text. libotf2 ends a truncated event file quietly,
 * so at the end of the events each location's count of records read is
 * compared with the numberOfEvents of its definition: fewer is an error.
 *
 * Not thread-safe: one global list of open handles and one error buffer.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "trace_API.h"

#if OTF2_VERSION_MAJOR < 2
#error "slog2-otf2 needs OTF2 2.0 or newer"
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
/* Small containers */

/* Open-addressing map uint64 -> int32 (>= 0). */
typedef struct {
    uint64_t *keys;
    int32_t *vals; /* value + 1; 0 = empty slot */
    size_t cap, n;
} umap;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static int umap_get(const umap *m, uint64_t k)
{
    if (!m->cap)
        return -1;
    size_t i = mix64(k) & (m->cap - 1);
    while (m->vals[i]) {
        if (m->keys[i] == k)
            return m->vals[i] - 1;
        i = (i + 1) & (m->cap - 1);
    }
    return -1;
}

static int umap_grow(umap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 64;
    uint64_t *nk = calloc(ncap, sizeof *nk);
    int32_t *nv = calloc(ncap, sizeof *nv);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->vals[i])
            continue;
        size_t j = mix64(m->keys[i]) & (ncap - 1);
        while (nv[j])
            j = (j + 1) & (ncap - 1);
        nk[j] = m->keys[i];
        nv[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = nk;
    m->vals = nv;
    m->cap = ncap;
    return 0;
}

/* Insert or overwrite. */
static int umap_put(umap *m, uint64_t k, int32_t v)
{
    if ((m->n + 1) * 2 > m->cap && umap_grow(m))
        return -1;
    size_t i = mix64(k) & (m->cap - 1);
    while (m->vals[i]) {
        if (m->keys[i] == k) {
            m->vals[i] = v + 1;
            return 0;
        }
        i = (i + 1) & (m->cap - 1);
    }
    m->keys[i] = k;
    m->vals[i] = v + 1;
    m->n++;
    return 0;
}

/* Remove (backward-shift deletion); returns 1 if it was there. */
static int umap_del(umap *m, uint64_t k)
{
    if (!m->cap)
        return 0;
    size_t mask = m->cap - 1, i = mix64(k) & mask;
    while (m->vals[i] && m->keys[i] != k)
        i = (i + 1) & mask;
    if (!m->vals[i])
        return 0;
    m->vals[i] = 0;
    m->n--;
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!m->vals[j])
            break;
        size_t home = mix64(m->keys[j]) & mask;
        /* move j into the hole i if its home is not in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            m->vals[j] = 0;
            i = j;
        }
    }
    return 1;
}

static void umap_free(umap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* Grow a dynamic array to hold at least `need` elements. */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

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
    msgq **mbuckets;
    size_t mcap, mqueues;
    msg *free_msgs;
    uint64_t in_flight;

    /* stream state and statistics */
    uint64_t last_ticks;
    int have_last;
    double last_time;
    uint64_t unsupported[256];
    uint64_t unknown_records;
    uint64_t bad_leaves, closed_at_end, unmatched_requests, bad_metrics;
    int reported;
};

static struct _trace_file *open_list;
static char static_err[2048];
static char otf2_msg[1024]; /* last error libotf2 reported */

static const char HELP[] =
    "usage: TRACE_Open(filespec): filespec is the path of an OTF2 archive's anchor file "
    "(e.g. scorep-run/traces.otf2) or of the directory holding traces.otf2. Regions become "
    "states, MPI messages arrows, collectives a state plus an event, metrics events; one "
    "timeline per OTF2 location (y-map: rank, thread). A filespec whose first word is -h, "
    "--h, -help or --help asks for this text.";

static int is_open(struct _trace_file *fp)
{
    for (struct _trace_file *p = open_list; p; p = p->next_open)
        if (p == fp)
            return 1;
    return 0;
}

/* Store an error text on the handle (sticky) and return the code. */
static int fail(struct _trace_file *fp, int code, const char *fmt, ...)
{
    char buf[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (otf2_msg[0]) {
        size_t l = strlen(buf);
        snprintf(buf + l, sizeof buf - l, " (libotf2: %s)", otf2_msg);
        otf2_msg[0] = 0;
    }
    if (fp) {
        if (!fp->err) {
            fp->err = code;
            free(fp->errtext);
            fp->errtext = strdup(buf);
        }
        code = fp->err;
    }
    snprintf(static_err, sizeof static_err, "%s", fp && fp->errtext ? fp->errtext : buf);
    return code;
}

static OTF2_ErrorCode otf2_error_cb(void *user, const char *file, uint64_t line,
                                    const char *function, OTF2_ErrorCode code,
                                    const char *fmt, va_list va)
{
    (void)user;
    (void)file;
    (void)line;
    (void)function;
    char text[768];
    vsnprintf(text, sizeof text, fmt ? fmt : "", va);
    /* keep every report since the last error was stored (innermost first) */
    size_t at = strlen(otf2_msg);
    if (at + 8 < sizeof otf2_msg)
        snprintf(otf2_msg + at, sizeof otf2_msg - at, "%s%s: %s%s%s", at ? "; " : "", OTF2_Error_GetName(code),
                 OTF2_Error_GetDescription(code), text[0] ? ": " : "", text);
    return code;
}

static const char *str(struct _trace_file *fp, uint32_t ref)
{
    int i = umap_get(&fp->string_ix, ref);
    return i >= 0 ? fp->strings[i] : NULL;
}

static double to_seconds(struct _trace_file *fp, uint64_t t)
{
    double d = t >= fp->offset ? (double)(t - fp->offset) : -(double)(fp->offset - t);
    return d / (double)fp->resolution;
}

/* Describe a location for error texts. */
static void describe_loc(struct _trace_file *fp, int li, char *buf, size_t n)
{
    if (li < 0) {
        snprintf(buf, n, "unknown location");
        return;
    }
    const location *l = &fp->locs[li];
    const char *name = str(fp, l->name);
    snprintf(buf, n, "location %llu \"%s\" (rank %llu, thread %d)", (unsigned long long)l->ref,
             name ? name : "?", (unsigned long long)l->group, l->thread);
}

/* ------------------------------------------------------------------------ */
/* Big-endian info encoding */

static int put32(unsigned char *b, int at, int32_t v)
{
    uint32_t u = (uint32_t)v;
    b[at] = (unsigned char)(u >> 24);
    b[at + 1] = (unsigned char)(u >> 16);
    b[at + 2] = (unsigned char)(u >> 8);
    b[at + 3] = (unsigned char)u;
    return at + 4;
}

static int put64(unsigned char *b, int at, uint64_t u)
{
    for (int i = 0; i < 8; i++)
        b[at + i] = (unsigned char)(u >> (56 - 8 * i));
    return at + 8;
}

static int put_str(unsigned char *b, int at, const char *s, int maxlen)
{
    int n = (int)strlen(s);
    if (n > maxlen)
        n = maxlen;
    b[at] = (unsigned char)(n >> 8);
    b[at + 1] = (unsigned char)n;
    memcpy(b + at + 2, s, (size_t)n);
    return at + 2 + n;
}

static int32_t clamp32(uint64_t v)
{
    return v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

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
    drawable *d = &fp->q[(fp->qhead + fp->qlen) % fp->qcap];
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
/* Global definitions */

#define DEF_OOM(fp) \
    do { \
        fail(fp, ERR_MEM, "%s: out of memory reading the definitions", fp->path); \
        return OTF2_CALLBACK_INTERRUPT; \
    } while (0)

static OTF2_CallbackCode def_clock(void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    struct _trace_file *fp = u;
    (void)len;
    (void)rt;
    fp->resolution = res;
    fp->offset = off;
    fp->have_clock = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *s)
{
    struct _trace_file *fp = u;
    if (grow((void **)&fp->strings, &fp->strings_cap, fp->nstrings + 1, sizeof(char *)))
        DEF_OOM(fp);
    char *c = strdup(s ? s : "");
    if (!c)
        DEF_OOM(fp);
    int prev = umap_get(&fp->string_ix, self);
    if (prev >= 0) {
        free(fp->strings[prev]);
        fp->strings[prev] = c;
        return OTF2_CALLBACK_SUCCESS;
    }
    fp->strings[fp->nstrings] = c;
    if (umap_put(&fp->string_ix, self, (int32_t)fp->nstrings)) {
        free(c);
        DEF_OOM(fp);
    }
    fp->nstrings++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t nev, OTF2_LocationGroupRef group)
{
    struct _trace_file *fp = u;
    (void)type;
    if (umap_get(&fp->loc_ix, self) >= 0)
        return OTF2_CALLBACK_SUCCESS;
    if (fp->nlocs >= INT32_MAX / 2 ||
        grow((void **)&fp->locs, &fp->locs_cap, fp->nlocs + 1, sizeof(location)))
        DEF_OOM(fp);
    location *l = &fp->locs[fp->nlocs];
    memset(l, 0, sizeof *l);
    l->ref = self;
    l->name = name;
    l->group = group;
    l->world_rank = -1;
    l->declared = nev;
    int th = umap_get(&fp->group_ix_by_locgroup, group);
    l->thread = th < 0 ? 0 : th;
    if (umap_put(&fp->group_ix_by_locgroup, group, l->thread + 1) ||
        umap_put(&fp->loc_ix, self, (int32_t)fp->nlocs))
        DEF_OOM(fp);
    fp->nlocs++;
    return OTF2_CALLBACK_SUCCESS;
}

/* A reference as a y-map value: -1 for "none" (undefined, or past INT32_MAX). */
static int32_t ref_value(uint64_t ref)
{
    return ref > INT32_MAX ? -1 : (int32_t)ref;
}

/* The system tree (for the y-map's "node" and "node_parent" columns, a
 * hierarchy machine -> node -> process -> thread for overviews). */
static OTF2_CallbackCode def_system_tree_node(void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                              OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    struct _trace_file *fp = u;
    (void)name;
    (void)cls;
    if (umap_put(&fp->node_parent, self, ref_value(parent)))
        DEF_OOM(fp);
    return OTF2_CALLBACK_SUCCESS;
}

#if OTF2_VERSION_MAJOR >= 3
static OTF2_CallbackCode def_location_group(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                            OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef node,
                                            OTF2_LocationGroupRef creator)
{
    (void)creator;
#else
static OTF2_CallbackCode def_location_group(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                            OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef node)
{
#endif
    struct _trace_file *fp = u;
    (void)name;
    (void)type;
    if (umap_put(&fp->group_node, self, ref_value(node)))
        DEF_OOM(fp);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
                                    OTF2_StringRef canonical, OTF2_StringRef descr, OTF2_RegionRole role,
                                    OTF2_Paradigm paradigm, OTF2_RegionFlag flags, OTF2_StringRef file,
                                    uint32_t begin, uint32_t end)
{
    struct _trace_file *fp = u;
    (void)canonical;
    (void)descr;
    (void)role;
    (void)flags;
    (void)file;
    (void)begin;
    (void)end;
    if (umap_get(&fp->region_ix, self) >= 0)
        return OTF2_CALLBACK_SUCCESS;
    if (fp->nregions >= INT32_MAX / 2 ||
        grow((void **)&fp->regions, &fp->regions_cap, fp->nregions + 1, sizeof(region)))
        DEF_OOM(fp);
    fp->regions[fp->nregions] = (region){ self, name, paradigm };
    if (umap_put(&fp->region_ix, self, (int32_t)fp->nregions))
        DEF_OOM(fp);
    fp->nregions++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                   OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n,
                                   const uint64_t *members)
{
    struct _trace_file *fp = u;
    (void)name;
    (void)flags;
    if (umap_get(&fp->group_ix, self) >= 0)
        return OTF2_CALLBACK_SUCCESS;
    if (grow((void **)&fp->groups, &fp->groups_cap, fp->ngroups + 1, sizeof(group_def)))
        DEF_OOM(fp);
    group_def *g = &fp->groups[fp->ngroups];
    g->type = type;
    g->paradigm = paradigm;
    g->n = n;
    g->members = malloc((n ? n : 1) * sizeof(uint64_t));
    if (!g->members)
        DEF_OOM(fp);
    if (n)
        memcpy(g->members, members, n * sizeof(uint64_t));
    if (umap_put(&fp->group_ix, self, (int32_t)fp->ngroups)) {
        free(g->members);
        DEF_OOM(fp);
    }
    fp->ngroups++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                  OTF2_CommRef parent, OTF2_CommFlag flags)
{
    struct _trace_file *fp = u;
    (void)name;
    (void)parent;
    (void)flags;
    if (umap_get(&fp->comm_ix, self) >= 0)
        return OTF2_CALLBACK_SUCCESS;
    if (grow((void **)&fp->comms, &fp->comms_cap, fp->ncomms + 1, sizeof(comm_def)))
        DEF_OOM(fp);
    fp->comms[fp->ncomms] = (comm_def){ group, NULL, 0 };
    if (umap_put(&fp->comm_ix, self, (int32_t)fp->ncomms))
        DEF_OOM(fp);
    fp->ncomms++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                    OTF2_StringRef descr, OTF2_MetricType mtype, OTF2_MetricMode mode,
                                    OTF2_Type vtype, OTF2_Base base, int64_t exponent, OTF2_StringRef unit)
{
    struct _trace_file *fp = u;
    (void)descr;
    (void)mtype;
    (void)mode;
    (void)base;
    (void)exponent;
    (void)unit;
    if (umap_get(&fp->member_ix, self) >= 0)
        return OTF2_CALLBACK_SUCCESS;
    if (grow((void **)&fp->members, &fp->members_cap, fp->nmembers + 1, sizeof(metric_member)))
        DEF_OOM(fp);
    fp->members[fp->nmembers] = (metric_member){ name, vtype != OTF2_TYPE_DOUBLE && vtype != OTF2_TYPE_FLOAT };
    if (umap_put(&fp->member_ix, self, (int32_t)fp->nmembers))
        DEF_OOM(fp);
    fp->nmembers++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_class(void *u, OTF2_MetricRef self, uint8_t n, const OTF2_MetricMemberRef *mem,
                                   OTF2_MetricOccurrence occ, OTF2_RecorderKind kind)
{
    struct _trace_file *fp = u;
    (void)occ;
    (void)kind;
    if (umap_get(&fp->metric_ix, self) >= 0)
        return OTF2_CALLBACK_SUCCESS;
    if (grow((void **)&fp->classes, &fp->classes_cap, fp->nclasses + 1, sizeof(metric_class)))
        DEF_OOM(fp);
    metric_class *c = &fp->classes[fp->nclasses];
    c->n = n;
    c->members = malloc((n ? n : 1) * sizeof(int));
    if (!c->members)
        DEF_OOM(fp);
    for (int i = 0; i < n; i++)
        c->members[i] = umap_get(&fp->member_ix, mem[i]); /* -1: undefined member */
    if (umap_put(&fp->metric_ix, self, (int32_t)fp->nclasses)) {
        free(c->members);
        DEF_OOM(fp);
    }
    fp->nclasses++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_instance(void *u, OTF2_MetricRef self, OTF2_MetricRef cls, OTF2_LocationRef rec,
                                      OTF2_MetricScope scope, uint64_t sc)
{
    struct _trace_file *fp = u;
    (void)rec;
    (void)scope;
    (void)sc;
    /* The class may come later in the file: resolve after all definitions. */
    if (cls > INT32_MAX || umap_put(&fp->instance_pending, self, (int32_t)cls))
        DEF_OOM(fp);
    return OTF2_CALLBACK_SUCCESS;
}

/* World ranks: the position of each location (or of its group's MPI
 * location) in the MPI COMM_LOCATIONS group. */
static void assign_world_ranks(struct _trace_file *fp)
{
    for (size_t g = 0; g < fp->ngroups; g++) {
        group_def *gd = &fp->groups[g];
        if (gd->type != OTF2_GROUP_TYPE_COMM_LOCATIONS || gd->paradigm != OTF2_PARADIGM_MPI)
            continue;
        fp->nworld = (int)gd->n;
        for (uint32_t r = 0; r < gd->n; r++) {
            int li = umap_get(&fp->loc_ix, gd->members[r]);
            if (li < 0)
                continue;
            uint64_t lg = fp->locs[li].group;
            for (size_t k = 0; k < fp->nlocs; k++)
                if (fp->locs[k].group == lg && fp->locs[k].world_rank < 0)
                    fp->locs[k].world_rank = (int)r;
            fp->locs[li].world_rank = (int)r;
        }
        return;
    }
    /* No MPI group: the location group reference is the rank. */
    for (size_t k = 0; k < fp->nlocs; k++) {
        fp->locs[k].world_rank = fp->locs[k].group > INT32_MAX ? -1 : (int)fp->locs[k].group;
        if (fp->locs[k].world_rank + 1 > fp->nworld)
            fp->nworld = fp->locs[k].world_rank + 1;
    }
}

/* Rank of location li in communicator comm (the world rank if the
 * communicator or its group is not defined). */
static int64_t comm_rank(struct _trace_file *fp, uint32_t comm, int li)
{
    int wr = fp->locs[li].world_rank;
    int ci = umap_get(&fp->comm_ix, comm);
    if (ci < 0 || wr < 0)
        return wr;
    comm_def *c = &fp->comms[ci];
    int gi = umap_get(&fp->group_ix, c->group);
    if (gi < 0)
        return wr;
    group_def *g = &fp->groups[gi];
    if (g->type == OTF2_GROUP_TYPE_COMM_SELF)
        return 0;
    if (g->type != OTF2_GROUP_TYPE_COMM_GROUP)
        return wr;
    if (!c->built) {
        c->built = 1;
        c->to_comm = malloc((size_t)(fp->nworld ? fp->nworld : 1) * sizeof(int32_t));
        if (!c->to_comm)
            return -2;
        for (int i = 0; i < fp->nworld; i++)
            c->to_comm[i] = -1;
        for (uint32_t i = 0; i < g->n; i++)
            if (g->members[i] < (uint64_t)fp->nworld)
                c->to_comm[g->members[i]] = (int32_t)i;
    }
    if (!c->to_comm)
        return -2;
    return wr < fp->nworld ? c->to_comm[wr] : -1;
}

/* ------------------------------------------------------------------------ */
/* Events */

static void count_event(struct _trace_file *fp, OTF2_LocationRef loc)
{
    int li = umap_get(&fp->loc_ix, loc);
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
    int li = umap_get(&fp->loc_ix, loc);
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
    int ri = umap_get(&fp->region_ix, reg);
    if (ri < 0) {
        char d[256];
        describe_loc(fp, li, d, sizeof d);
        fail(fp, ERR_READ, "%s: %s: Enter of undefined region %u at tick %llu", fp->path, d, (unsigned)reg,
             (unsigned long long)t);
        return OTF2_CALLBACK_INTERRUPT;
    }
    location *l = &fp->locs[li];
    if (grow((void **)&l->stack, &l->stack_cap, l->depth + 1, sizeof(frame)))
        EV_OOM(fp);
    l->stack[l->depth++] = (frame){ ri, now };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *attrs,
                                  OTF2_RegionRef reg)
{
    EV_BEGIN(loc, t);
    location *l = &fp->locs[li];
    int ri = umap_get(&fp->region_ix, reg);
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

static size_t mhash(uint32_t comm, uint32_t src, uint32_t dst, uint32_t tag)
{
    return (size_t)mix64(((uint64_t)comm << 32 | src) ^ mix64((uint64_t)dst << 32 | tag));
}

static msgq *mq_find(struct _trace_file *fp, uint32_t comm, uint32_t src, uint32_t dst, uint32_t tag,
                     msgq ***slot)
{
    if (!fp->mcap)
        return NULL;
    msgq **p = &fp->mbuckets[mhash(comm, src, dst, tag) & (fp->mcap - 1)];
    *slot = p;
    for (; *p; p = &(*p)->next)
        if ((*p)->comm == comm && (*p)->src == src && (*p)->dst == dst && (*p)->tag == tag) {
            *slot = p;
            return *p;
        }
    return NULL;
}

static int mq_rehash(struct _trace_file *fp)
{
    size_t ncap = fp->mcap ? fp->mcap * 2 : 256;
    msgq **nb = calloc(ncap, sizeof *nb);
    if (!nb)
        return -1;
    for (size_t i = 0; i < fp->mcap; i++) {
        msgq *q = fp->mbuckets[i];
        while (q) {
            msgq *nx = q->next;
            size_t h = mhash(q->comm, q->src, q->dst, q->tag) & (ncap - 1);
            q->next = nb[h];
            nb[h] = q;
            q = nx;
        }
    }
    free(fp->mbuckets);
    fp->mbuckets = nb;
    fp->mcap = ncap;
    return 0;
}

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

/* One half of a message: a send (is_recv 0) at line `line`, or a receive.
 * Matches the oldest opposite half with the same key, or queues this one. */
static int message_half(struct _trace_file *fp, int is_recv, uint32_t comm, uint32_t src, uint32_t dst,
                        uint32_t tag, uint64_t size, double now, int line)
{
    msgq **slot = NULL;
    msgq *q = mq_find(fp, comm, src, dst, tag, &slot);
    if (q && q->head && q->recvs != is_recv) {
        msg *m = q->head;
        q->head = m->next;
        if (!q->head)
            q->tail = NULL;
        fp->in_flight--;
        int rc = is_recv ? emit_arrow(fp, comm, tag, size, m->t, m->line, now, line)
                         : emit_arrow(fp, comm, tag, m->size, now, line, m->t, m->line);
        m->next = fp->free_msgs;
        fp->free_msgs = m;
        if (!q->head) { /* drop the empty queue: memory follows messages in flight */
            *slot = q->next;
            free(q);
            fp->mqueues--;
        }
        return rc;
    }
    if (!q) {
        if ((fp->mqueues + 1) * 2 > fp->mcap && mq_rehash(fp))
            return -1;
        q = calloc(1, sizeof *q);
        if (!q)
            return -1;
        q->comm = comm;
        q->src = src;
        q->dst = dst;
        q->tag = tag;
        size_t h = mhash(comm, src, dst, tag) & (fp->mcap - 1);
        q->next = fp->mbuckets[h];
        fp->mbuckets[h] = q;
        fp->mqueues++;
    }
    q->recvs = is_recv;
    msg *m = fp->free_msgs;
    if (m)
        fp->free_msgs = m->next;
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
    fp->in_flight++;
    return 0;
}

static OTF2_CallbackCode send_half(struct _trace_file *fp, int li, double now, uint32_t receiver,
                                   OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    int64_t me = comm_rank(fp, comm, li);
    if (me == -2)
        EV_OOM(fp);
    if (message_half(fp, 0, comm, (uint32_t)me, receiver, tag, len, now, li))
        EV_OOM(fp);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode recv_half(struct _trace_file *fp, int li, double now, uint32_t sender,
                                   OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    int64_t me = comm_rank(fp, comm, li);
    if (me == -2)
        EV_OOM(fp);
    if (message_half(fp, 1, comm, sender, (uint32_t)me, tag, len, now, li))
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
    if (fp->in_flight)
        fprintf(stderr, "slog2-otf2: %s: %llu message halves (sends or receives) had no partner: no arrow\n",
                fp->path, (unsigned long long)fp->in_flight);
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
static int find_bad_location(struct _trace_file *fp)
{
    for (size_t i = 0; i < fp->nlocs; i++) {
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

/* Make sure a drawable is queued, or events_done. */
static int fill(struct _trace_file *fp)
{
    while (!fp->err && fp->qlen == 0 && !fp->events_done) {
        uint64_t got = 0;
        OTF2_ErrorCode rc = OTF2_Reader_ReadGlobalEvents(fp->reader, fp->ger, BATCH, &got);
        if (fp->err)
            return fp->err;
        if (rc != OTF2_SUCCESS) {
            char when[64] = "at the first event", where[300] = "";
            if (fp->have_last)
                snprintf(when, sizeof when, "after tick %llu", (unsigned long long)fp->last_ticks);
            char keep[sizeof otf2_msg];
            memcpy(keep, otf2_msg, sizeof keep);
            int bad = find_bad_location(fp);
            memcpy(otf2_msg, keep, sizeof keep);
            if (bad >= 0) {
                char d[256];
                describe_loc(fp, bad, d, sizeof d);
                snprintf(where, sizeof where, "%s: its event file is damaged: ", d);
            }
            return fail(fp, ERR_READ, "%s: %sreading the events failed %s: %s", fp->path, where, when,
                        OTF2_Error_GetDescription(rc));
        }
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

/* ------------------------------------------------------------------------ */
/* Open / close */

static void free_handle(struct _trace_file *fp)
{
    if (!fp)
        return;
    if (fp->reader)
        OTF2_Reader_Close(fp->reader);
    for (size_t i = 0; i < fp->nstrings; i++)
        free(fp->strings[i]);
    free(fp->strings);
    umap_free(&fp->string_ix);
    for (size_t i = 0; i < fp->nlocs; i++) {
        free(fp->locs[i].stack);
        umap_free(&fp->locs[i].requests);
    }
    free(fp->locs);
    umap_free(&fp->loc_ix);
    umap_free(&fp->group_node);
    umap_free(&fp->node_parent);
    free(fp->regions);
    umap_free(&fp->region_ix);
    free(fp->members);
    umap_free(&fp->member_ix);
    for (size_t i = 0; i < fp->nclasses; i++)
        free(fp->classes[i].members);
    free(fp->classes);
    umap_free(&fp->metric_ix);
    umap_free(&fp->instance_pending);
    for (size_t i = 0; i < fp->ngroups; i++)
        free(fp->groups[i].members);
    free(fp->groups);
    umap_free(&fp->group_ix);
    for (size_t i = 0; i < fp->ncomms; i++)
        free(fp->comms[i].to_comm);
    free(fp->comms);
    umap_free(&fp->comm_ix);
    umap_free(&fp->group_ix_by_locgroup);
    free(fp->q);
    for (size_t i = 0; i < fp->mcap; i++) {
        msgq *q = fp->mbuckets[i];
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
    free(fp->mbuckets);
    for (msg *m = fp->free_msgs; m;) {
        msg *mn = m->next;
        free(m);
        m = mn;
    }
    free(fp->errtext);
    free(fp->path);
    free(fp);
}

static int is_help(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strcspn(s, " \t");
    return (n == 2 && !strncmp(s, "-h", 2)) || (n == 3 && !strncmp(s, "--h", 3)) ||
           (n == 5 && !strncmp(s, "-help", 5)) || (n == 6 && !strncmp(s, "--help", 6));
}


/* libotf2 trusts the counts of the anchor file: a damaged 72-byte anchor that
 * declares 352 million properties makes it calloc 5.6 GB before it reads a
 * single property (found by fuzzing, fuzz/fuzz_targets/otf2.rs). Check that
 * the anchor's bytes can hold what it declares before libotf2 sees it.
 * Layout (OTF2 anchor format >= 2): 2 bytes of buffer header (the second
 * says the byte order), "OTF2\0", the anchor format (1 byte), 38 bytes of
 * fixed fields, three NUL-terminated strings (machine, creator, description),
 * then a 4-byte property count; each property is two NUL-terminated strings
 * (at least 2 bytes). Anything this check does not understand is left to
 * libotf2, which refuses it without allocating by its counts. */
static int check_anchor_bytes(struct _trace_file *fp, const unsigned char *b, size_t n);

static int check_anchor(struct _trace_file *fp)
{
    enum { CAP = 1 << 20 };
    FILE *f = fopen(fp->path, "rb");
    if (!f)
        return 0; /* libotf2 reports it */
    unsigned char *b = malloc(CAP);
    if (!b) {
        fclose(f);
        return fail(fp, ERR_MEM, "out of memory");
    }
    size_t n = fread(b, 1, CAP, f);
    int more = n == CAP && fgetc(f) != EOF;
    fclose(f);
    int rc = 0;
    if (more)
        rc = fail(fp, ERR_OPEN, "%s: not a readable OTF2 anchor file (over %d bytes; anchor files are small)",
                  fp->path, (int)CAP);
    else
        rc = check_anchor_bytes(fp, b, n);
    free(b);
    return rc;
}

static int check_anchor_bytes(struct _trace_file *fp, const unsigned char *b, size_t n)
{
    if (n < 8 || memcmp(b + 2, "OTF2", 5) != 0 || b[7] < 2)
        return 0;
    size_t at = 8 + 38;
    for (int s = 0; s < 3; s++) {
        const unsigned char *z = at < n ? memchr(b + at, 0, n - at) : NULL;
        if (!z)
            return 0;
        at = (size_t)(z - b) + 1;
    }
    if (at + 4 > n)
        return 0;
    /* 0x42 marks little-endian data (what libotf2 writes on x86-64); for any
     * other marker take the smaller reading, so a valid archive of either
     * byte order always passes. */
    uint32_t le = (uint32_t)b[at] | (uint32_t)b[at + 1] << 8 | (uint32_t)b[at + 2] << 16 | (uint32_t)b[at + 3] << 24;
    uint32_t be = (uint32_t)b[at + 3] | (uint32_t)b[at + 2] << 8 | (uint32_t)b[at + 1] << 16 | (uint32_t)b[at] << 24;
    uint32_t props = b[1] == 0x42 ? le : (le < be ? le : be);
    size_t room = (n - at - 4) / 2;
    if (props > room)
        return fail(fp, ERR_OPEN,
                    "%s: not a readable OTF2 anchor file: it declares %u properties, its remaining %zu bytes hold "
                    "at most %zu",
                    fp->path, props, n - at - 4, room);
    return 0;
}

static int open_archive(struct _trace_file *fp)
{
    struct stat st;
    if (stat(fp->path, &st) != 0)
        return fail(fp, ERR_OPEN, "%s: cannot open OTF2 archive: %s", fp->path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        size_t n = strlen(fp->path);
        char *p = malloc(n + sizeof "/traces.otf2");
        if (!p)
            return fail(fp, ERR_MEM, "out of memory");
        memcpy(p, fp->path, n);
        memcpy(p + n, "/traces.otf2", sizeof "/traces.otf2");
        free(fp->path);
        fp->path = p;
        if (stat(fp->path, &st) != 0)
            return fail(fp, ERR_OPEN, "%s: no OTF2 anchor file in the directory: %s", fp->path, strerror(errno));
    }
    if (check_anchor(fp))
        return fp->err;
    otf2_msg[0] = 0;
    fp->reader = OTF2_Reader_Open(fp->path);
    if (!fp->reader)
        return fail(fp, ERR_OPEN, "%s: not a readable OTF2 anchor file", fp->path);
    uint8_t major = 0, minor = 0, bugfix = 0;
    if (OTF2_Reader_GetVersion(fp->reader, &major, &minor, &bugfix) != OTF2_SUCCESS)
        return fail(fp, ERR_OPEN, "%s: cannot read the archive's OTF2 version", fp->path);
    if (major < 1 || major > OTF2_VERSION_MAJOR)
        return fail(fp, ERR_VERSION,
                    "%s: archive written by OTF2 %u.%u.%u; this reader is built with OTF2 %s and reads "
                    "archives of versions 1.x to %d.x",
                    fp->path, major, minor, bugfix, OTF2_VERSION, OTF2_VERSION_MAJOR);
    if (OTF2_Reader_SetSerialCollectiveCallbacks(fp->reader) != OTF2_SUCCESS)
        return fail(fp, ERR_OPEN, "%s: cannot set up the OTF2 reader", fp->path);

    /* Global definitions. */
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(fp->reader);
    if (!gdr)
        return fail(fp, ERR_OPEN, "%s: cannot open the global definitions (traces.def)", fp->path);
    OTF2_GlobalDefReaderCallbacks *dcb = OTF2_GlobalDefReaderCallbacks_New();
    if (!dcb)
        return fail(fp, ERR_MEM, "out of memory");
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(dcb, def_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(dcb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(dcb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(dcb, def_location_group);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(dcb, def_system_tree_node);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(dcb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(dcb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(dcb, def_comm);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(dcb, def_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(dcb, def_class);
    OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback(dcb, def_instance);
    OTF2_ErrorCode rc = OTF2_Reader_RegisterGlobalDefCallbacks(fp->reader, gdr, dcb, fp);
    OTF2_GlobalDefReaderCallbacks_Delete(dcb);
    if (rc != OTF2_SUCCESS)
        return fail(fp, ERR_OPEN, "%s: cannot register definition callbacks", fp->path);
    uint64_t ndefs = 0;
    rc = OTF2_Reader_ReadAllGlobalDefinitions(fp->reader, gdr, &ndefs);
    if (fp->err)
        return fp->err;
    if (rc != OTF2_SUCCESS)
        return fail(fp, ERR_OPEN, "%s: reading the global definitions failed: %s", fp->path,
                    OTF2_Error_GetDescription(rc));
    OTF2_Reader_CloseGlobalDefReader(fp->reader, gdr);
    if (!fp->have_clock || fp->resolution == 0)
        return fail(fp, ERR_OPEN, "%s: the global definitions have no ClockProperties (timer resolution)",
                    fp->path);
    if (fp->nlocs == 0)
        return fail(fp, ERR_OPEN, "%s: the archive defines no locations", fp->path);
    if (fp->nmembers + fp->nregions + N_FIXED_CATS > (size_t)INT32_MAX / 2)
        return fail(fp, ERR_OPEN, "%s: too many definitions", fp->path);
    /* Metric instances -> their class. */
    for (size_t i = 0; i < fp->instance_pending.cap; i++) {
        if (!fp->instance_pending.vals[i])
            continue;
        int ci = umap_get(&fp->metric_ix, (uint64_t)(fp->instance_pending.vals[i] - 1));
        if (ci >= 0 && umap_put(&fp->metric_ix, fp->instance_pending.keys[i], ci))
            return fail(fp, ERR_MEM, "out of memory");
    }
    assign_world_ranks(fp);

    /* Local definitions (clock offsets, mappings) and event readers. */
    for (size_t i = 0; i < fp->nlocs; i++)
        if (OTF2_Reader_SelectLocation(fp->reader, fp->locs[i].ref) != OTF2_SUCCESS)
            return fail(fp, ERR_OPEN, "%s: cannot select location %llu", fp->path,
                        (unsigned long long)fp->locs[i].ref);
    int have_defs = OTF2_Reader_OpenDefFiles(fp->reader) == OTF2_SUCCESS;
    otf2_msg[0] = 0; /* an archive without local definition files is fine */
    if (OTF2_Reader_OpenEvtFiles(fp->reader) != OTF2_SUCCESS)
        return fail(fp, ERR_OPEN, "%s: cannot open the event files", fp->path);
    for (size_t i = 0; i < fp->nlocs; i++) {
        char d[256];
        if (!OTF2_Reader_GetEvtReader(fp->reader, fp->locs[i].ref)) {
            describe_loc(fp, (int)i, d, sizeof d);
            return fail(fp, ERR_OPEN, "%s: %s: cannot open its event file", fp->path, d);
        }
        if (!have_defs)
            continue;
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(fp->reader, fp->locs[i].ref);
        if (!dr) {
            otf2_msg[0] = 0;
            continue;
        }
        uint64_t n = 0;
        rc = OTF2_Reader_ReadAllLocalDefinitions(fp->reader, dr, &n);
        if (rc != OTF2_SUCCESS) {
            describe_loc(fp, (int)i, d, sizeof d);
            return fail(fp, ERR_OPEN, "%s: %s: reading its local definitions failed: %s", fp->path, d,
                        OTF2_Error_GetDescription(rc));
        }
        OTF2_Reader_CloseDefReader(fp->reader, dr);
    }
    if (have_defs)
        OTF2_Reader_CloseDefFiles(fp->reader);
    otf2_msg[0] = 0;

    /* Global event reader. */
    fp->ger = OTF2_Reader_GetGlobalEvtReader(fp->reader);
    if (!fp->ger) {
        char keep[sizeof otf2_msg], d[256] = "";
        memcpy(keep, otf2_msg, sizeof keep);
        int bad = find_bad_location(fp);
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
    rc = OTF2_Reader_RegisterGlobalEvtCallbacks(fp->reader, fp->ger, ecb, fp);
    OTF2_GlobalEvtReaderCallbacks_Delete(ecb);
    if (rc != OTF2_SUCCESS)
        return fail(fp, ERR_OPEN, "%s: cannot register event callbacks", fp->path);
    fp->ncats = N_FIXED_CATS + (int)fp->nmembers + (int)fp->nregions;
    return 0;
}

TRACE_EXPORT int TRACE_Open(const char filespec[], TRACE_file *fp)
{
    if (!fp)
        return fail(NULL, ERR_ARG, "TRACE_Open: NULL handle pointer");
    *fp = NULL;
    if (!filespec)
        return fail(NULL, ERR_ARG, "TRACE_Open: NULL filespec");
    if (is_help(filespec))
        return 0;
    static int registered;
    if (!registered) {
        OTF2_Error_RegisterCallback(otf2_error_cb, NULL);
        registered = 1;
    }
    struct _trace_file *h = calloc(1, sizeof *h);
    if (!h || !(h->path = strdup(filespec))) {
        free(h);
        return fail(NULL, ERR_MEM, "TRACE_Open: out of memory");
    }
    int rc = open_archive(h);
    if (rc) {
        free_handle(h);
        return rc; /* static_err holds the text */
    }
    h->next_open = open_list;
    open_list = h;
    *fp = h;
    return 0;
}

TRACE_EXPORT int TRACE_Close(TRACE_file *fp)
{
    if (!fp)
        return fail(NULL, ERR_ARG, "TRACE_Close: NULL handle pointer");
    if (!*fp)
        return 0;
    struct _trace_file **p = &open_list;
    while (*p && *p != *fp)
        p = &(*p)->next_open;
    if (!*p)
        return fail(NULL, ERR_ARG, "TRACE_Close: not an open handle");
    *p = (*fp)->next_open;
    free_handle(*fp);
    *fp = NULL;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Record cursor */

static int current_kind(struct _trace_file *fp, TRACE_Rec_Kind_t *kind)
{
    if (fp->cat_next < fp->ncats) {
        *kind = TRACE_CATEGORY;
        return 0;
    }
    if (!fp->ymap_done) {
        *kind = TRACE_YCOORDMAP;
        return 0;
    }
    int rc = fill(fp);
    if (rc)
        return rc;
    *kind = fp->qlen ? TRACE_PRIMITIVE_DRAWABLE : TRACE_EOF;
    return 0;
}

#define CHECK_FP(fp, fn) \
    do { \
        if (!(fp) || !is_open(fp)) \
            return fail(NULL, ERR_ARG, fn ": not an open handle"); \
        if ((fp)->err) \
            return (fp)->err; \
    } while (0)

static int expect(struct _trace_file *fp, TRACE_Rec_Kind_t want, const char *fn)
{
    TRACE_Rec_Kind_t k;
    int rc = current_kind(fp, &k);
    if (rc)
        return rc;
    if (k != want) {
        snprintf(static_err, sizeof static_err, "%s: %s: the current record is of kind %d, not %d", fp->path,
                 fn, (int)k, (int)want);
        return ERR_KIND;
    }
    return 0;
}

TRACE_EXPORT int TRACE_Peek_next_kind(const TRACE_file fp, TRACE_Rec_Kind_t *next_kind)
{
    CHECK_FP(fp, "TRACE_Peek_next_kind");
    if (!next_kind)
        return fail(NULL, ERR_ARG, "TRACE_Peek_next_kind: NULL argument");
    return current_kind(fp, next_kind);
}

TRACE_EXPORT int TRACE_Get_next_method(const TRACE_file fp, char method_name[], char method_extra[],
                                       int *methodID)
{
    (void)fp;
    (void)method_name;
    (void)method_extra;
    (void)methodID;
    return fail(NULL, ERR_NOTSUP, "TRACE_Get_next_method: not supported (no record announces a method)");
}

/* Category i: name, label, shape, colour. */
typedef struct {
    char name[256];
    const char *label;
    int shape;
    int rgb[3];
} catdef;

static void category(struct _trace_file *fp, int i, catdef *c)
{
    static const int palette[][3] = {
        { 31, 119, 180 }, { 255, 127, 14 }, { 44, 160, 44 }, { 148, 103, 189 }, { 140, 86, 75 },
        { 227, 119, 194 }, { 127, 127, 127 }, { 188, 189, 34 }, { 23, 190, 207 }, { 174, 199, 232 },
        { 255, 187, 120 }, { 152, 223, 138 }, { 197, 176, 213 }, { 196, 156, 148 }, { 247, 182, 210 },
        { 219, 219, 141 },
    };
    c->label = NULL;
    if (i == CAT_MESSAGE) {
        snprintf(c->name, sizeof c->name, "MPI message");
        c->label = "comm=%d tag=%d size=%l";
        c->shape = TRACE_SHAPE_ARROW;
        c->rgb[0] = 255, c->rgb[1] = 255, c->rgb[2] = 255;
    } else if (i == CAT_COLL) {
        snprintf(c->name, sizeof c->name, "MPI collective");
        c->shape = TRACE_SHAPE_STATE;
        c->rgb[0] = 255, c->rgb[1] = 215, c->rgb[2] = 0;
    } else if (i == CAT_COLL_OP) {
        snprintf(c->name, sizeof c->name, "MPI collective op");
        c->label = "op=%s comm=%d root=%d sent=%l received=%l";
        c->shape = TRACE_SHAPE_EVENT;
        c->rgb[0] = 255, c->rgb[1] = 140, c->rgb[2] = 0;
    } else if (i < N_FIXED_CATS + (int)fp->nmembers) {
        const metric_member *m = &fp->members[i - N_FIXED_CATS];
        const char *n = str(fp, m->name);
        snprintf(c->name, sizeof c->name, "Metric %s", n && *n ? n : "?");
        c->label = m->is_int ? "value=%l" : "value=%E";
        c->shape = TRACE_SHAPE_EVENT;
        c->rgb[0] = 0, c->rgb[1] = 200, c->rgb[2] = 255;
    } else {
        int ri = i - N_FIXED_CATS - (int)fp->nmembers;
        const region *r = &fp->regions[ri];
        const char *n = str(fp, r->name);
        if (n && *n)
            snprintf(c->name, sizeof c->name, "%s", n);
        else
            snprintf(c->name, sizeof c->name, "region %llu", (unsigned long long)r->ref);
        c->shape = TRACE_SHAPE_STATE;
        if (r->paradigm == OTF2_PARADIGM_MPI) { /* MPI calls in reds, as Vampir does */
            c->rgb[0] = 200 + (ri * 37) % 56, c->rgb[1] = (ri * 23) % 60, c->rgb[2] = (ri * 29) % 60;
        } else {
            const int *p = palette[ri % 16];
            c->rgb[0] = p[0], c->rgb[1] = p[1], c->rgb[2] = p[2];
        }
    }
}

TRACE_EXPORT int TRACE_Peek_next_category(const TRACE_file fp, int *n_legend, int *n_label, int *n_methodIDs)
{
    CHECK_FP(fp, "TRACE_Peek_next_category");
    if (!n_legend || !n_label || !n_methodIDs)
        return fail(NULL, ERR_ARG, "TRACE_Peek_next_category: NULL argument");
    int rc = expect(fp, TRACE_CATEGORY, "TRACE_Peek_next_category");
    if (rc)
        return rc;
    catdef c;
    category(fp, fp->cat_next, &c);
    *n_legend = (int)strlen(c.name);
    *n_label = c.label ? (int)strlen(c.label) : 0;
    *n_methodIDs = 0;
    return 0;
}

/* Room check of a four-argument array for n elements. */
static int room(const void *base, const int *pos, int max, int n)
{
    if (n == 0)
        return 1;
    return base && pos && *pos >= 0 && max >= 0 && *pos <= max && n <= max - *pos;
}

TRACE_EXPORT int TRACE_Get_next_category(const TRACE_file fp, TRACE_Category_head_t *head, int *n_legend,
                                         char legend_base[], int *legend_pos, const int legend_max,
                                         int *n_label, char label_base[], int *label_pos, const int label_max,
                                         int *n_methodIDs, int methodID_base[], int *methodID_pos,
                                         const int methodID_max)
{
    CHECK_FP(fp, "TRACE_Get_next_category");
    if (!head || !n_legend || !n_label || !n_methodIDs || !legend_pos || !label_pos)
        return fail(NULL, ERR_ARG, "TRACE_Get_next_category: NULL argument");
    int rc = expect(fp, TRACE_CATEGORY, "TRACE_Get_next_category");
    if (rc)
        return rc;
    (void)methodID_base;
    (void)methodID_pos;
    (void)methodID_max;
    catdef c;
    category(fp, fp->cat_next, &c);
    int nl = (int)strlen(c.name), nb = c.label ? (int)strlen(c.label) : 0;
    if (!room(legend_base, legend_pos, legend_max, nl) || !room(label_base, label_pos, label_max, nb)) {
        snprintf(static_err, sizeof static_err, "TRACE_Get_next_category: array too small");
        return ERR_SMALL;
    }
    *head = (TRACE_Category_head_t){ fp->cat_next, c.shape, c.rgb[0], c.rgb[1], c.rgb[2], 255, 1 };
    memcpy(legend_base + *legend_pos, c.name, (size_t)nl);
    *legend_pos += nl;
    *n_legend = nl;
    if (nb) {
        memcpy(label_base + *label_pos, c.label, (size_t)nb);
        *label_pos += nb;
    }
    *n_label = nb;
    *n_methodIDs = 0;
    fp->cat_next++;
    return 0;
}

static const char YMAP_TITLE[] = "OTF2 locations";
static const char *const YMAP_COLS[] = { "rank", "thread", "node", "node_parent" };
#define YMAP_NCOLS 5 /* the line ID and the four columns */

TRACE_EXPORT int TRACE_Peek_next_ycoordmap(TRACE_file fp, int *n_rows, int *n_columns, int *max_column_name,
                                           int *max_title_name, int *n_methodIDs)
{
    CHECK_FP(fp, "TRACE_Peek_next_ycoordmap");
    if (!n_rows || !n_columns || !max_column_name || !max_title_name || !n_methodIDs)
        return fail(NULL, ERR_ARG, "TRACE_Peek_next_ycoordmap: NULL argument");
    int rc = expect(fp, TRACE_YCOORDMAP, "TRACE_Peek_next_ycoordmap");
    if (rc)
        return rc;
    *n_rows = (int)fp->nlocs;
    *n_columns = YMAP_NCOLS;
    *max_column_name = 12; /* "node_parent" + NUL */
    *max_title_name = (int)sizeof YMAP_TITLE;
    *n_methodIDs = 0;
    return 0;
}

TRACE_EXPORT int TRACE_Get_next_ycoordmap(TRACE_file fp, char *title_name, char **column_names, int *coordmap_sz,
                                          int coordmap_base[], int *coordmap_pos, const int coordmap_max,
                                          int *n_methodIDs, int methodID_base[], int *methodID_pos,
                                          const int methodID_max)
{
    CHECK_FP(fp, "TRACE_Get_next_ycoordmap");
    (void)methodID_base;
    (void)methodID_pos;
    (void)methodID_max;
    if (!title_name || !column_names || !coordmap_sz || !n_methodIDs)
        return fail(NULL, ERR_ARG, "TRACE_Get_next_ycoordmap: NULL argument");
    for (int c = 0; c < YMAP_NCOLS - 1; c++)
        if (!column_names[c])
            return fail(NULL, ERR_ARG, "TRACE_Get_next_ycoordmap: NULL argument");
    int rc = expect(fp, TRACE_YCOORDMAP, "TRACE_Get_next_ycoordmap");
    if (rc)
        return rc;
    if (fp->nlocs > (size_t)(INT_MAX / YMAP_NCOLS) ||
        !room(coordmap_base, coordmap_pos, coordmap_max, YMAP_NCOLS * (int)fp->nlocs)) {
        snprintf(static_err, sizeof static_err, "TRACE_Get_next_ycoordmap: array too small");
        return ERR_SMALL;
    }
    memcpy(title_name, YMAP_TITLE, sizeof YMAP_TITLE);
    for (int c = 0; c < YMAP_NCOLS - 1; c++)
        strcpy(column_names[c], YMAP_COLS[c]);
    int *o = coordmap_base + *coordmap_pos;
    for (size_t i = 0; i < fp->nlocs; i++) {
        int node = umap_get(&fp->group_node, fp->locs[i].group);
        int parent = node < 0 ? -1 : umap_get(&fp->node_parent, (uint64_t)node);
        int *row = o + YMAP_NCOLS * i;
        row[0] = (int)i;
        row[1] = ref_value(fp->locs[i].group);
        row[2] = fp->locs[i].thread;
        row[3] = node;
        row[4] = parent;
    }
    *coordmap_pos += YMAP_NCOLS * (int)fp->nlocs;
    *coordmap_sz = YMAP_NCOLS * (int)fp->nlocs;
    *n_methodIDs = 0;
    fp->ymap_done = 1;
    return 0;
}

TRACE_EXPORT int TRACE_Peek_next_primitive(const TRACE_file fp, double *starttime, double *endtime, int *n_tcoords,
                                           int *n_ycoords, int *n_bytes)
{
    CHECK_FP(fp, "TRACE_Peek_next_primitive");
    if (!starttime || !endtime || !n_tcoords || !n_ycoords || !n_bytes)
        return fail(NULL, ERR_ARG, "TRACE_Peek_next_primitive: NULL argument");
    int rc = expect(fp, TRACE_PRIMITIVE_DRAWABLE, "TRACE_Peek_next_primitive");
    if (rc)
        return rc;
    const drawable *d = &fp->q[fp->qhead];
    double a = d->t[0], b = d->nv > 1 ? d->t[1] : d->t[0];
    *starttime = a < b ? a : b;
    *endtime = a < b ? b : a;
    *n_tcoords = d->nv;
    *n_ycoords = d->nv;
    *n_bytes = d->nbytes;
    return 0;
}

TRACE_EXPORT int TRACE_Get_next_primitive(const TRACE_file fp, int *category_index, int *n_tcoords,
                                          double tcoord_base[], int *tcoord_pos, const int tcoord_max,
                                          int *n_ycoords, int ycoord_base[], int *ycoord_pos, const int ycoord_max,
                                          int *n_bytes, char byte_base[], int *byte_pos, const int byte_max)
{
    CHECK_FP(fp, "TRACE_Get_next_primitive");
    if (!category_index || !n_tcoords || !n_ycoords || !n_bytes)
        return fail(NULL, ERR_ARG, "TRACE_Get_next_primitive: NULL argument");
    int rc = expect(fp, TRACE_PRIMITIVE_DRAWABLE, "TRACE_Get_next_primitive");
    if (rc)
        return rc;
    const drawable *d = &fp->q[fp->qhead];
    if (!room(tcoord_base, tcoord_pos, tcoord_max, d->nv) || !room(ycoord_base, ycoord_pos, ycoord_max, d->nv) ||
        !room(byte_base, byte_pos, byte_max, d->nbytes)) {
        snprintf(static_err, sizeof static_err, "TRACE_Get_next_primitive: array too small");
        return ERR_SMALL;
    }
    *category_index = d->cat;
    memcpy(tcoord_base + *tcoord_pos, d->t, (size_t)d->nv * sizeof(double));
    *tcoord_pos += d->nv;
    *n_tcoords = d->nv;
    memcpy(ycoord_base + *ycoord_pos, d->y, (size_t)d->nv * sizeof(int));
    *ycoord_pos += d->nv;
    *n_ycoords = d->nv;
    if (d->nbytes) {
        memcpy(byte_base + *byte_pos, d->info, (size_t)d->nbytes);
        *byte_pos += d->nbytes;
    }
    *n_bytes = d->nbytes;
    fp->qhead = (fp->qhead + 1) % fp->qcap;
    fp->qlen--;
    return 0;
}

TRACE_EXPORT int TRACE_Peek_next_composite(const TRACE_file fp, double *starttime, double *endtime,
                                           int *n_primitives, int *n_bytes)
{
    CHECK_FP(fp, "TRACE_Peek_next_composite");
    (void)starttime;
    (void)endtime;
    (void)n_primitives;
    (void)n_bytes;
    return expect(fp, TRACE_COMPOSITE_DRAWABLE, "TRACE_Peek_next_composite");
}

TRACE_EXPORT int TRACE_Get_next_composite(const TRACE_file fp, int *category_index, int *n_bytes, char byte_base[],
                                          int *byte_pos, const int byte_max)
{
    CHECK_FP(fp, "TRACE_Get_next_composite");
    (void)category_index;
    (void)n_bytes;
    (void)byte_base;
    (void)byte_pos;
    (void)byte_max;
    return expect(fp, TRACE_COMPOSITE_DRAWABLE, "TRACE_Get_next_composite");
}

TRACE_EXPORT int TRACE_Get_position(TRACE_file fp, TRACE_int64_t *offset)
{
    (void)fp;
    (void)offset;
    return fail(NULL, ERR_NOTSUP, "TRACE_Get_position: not supported by the OTF2 reader (a streamed merge)");
}

TRACE_EXPORT int TRACE_Set_position(TRACE_file fp, TRACE_int64_t offset)
{
    (void)fp;
    (void)offset;
    return fail(NULL, ERR_NOTSUP, "TRACE_Set_position: not supported by the OTF2 reader (a streamed merge)");
}

TRACE_EXPORT char *TRACE_Get_err_string(int ierr)
{
    if (ierr == 0)
        return (char *)HELP;
    if (!static_err[0])
        snprintf(static_err, sizeof static_err, "slog2-otf2: error code %d", ierr);
    return static_err;
}
