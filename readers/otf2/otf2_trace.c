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
 * BULK: also exports slog2's optional extension SLOG2_TRACE_Get_next_primitives
 * (include/slog2_trace_ext.h): the queued drawables in one call, the same
 * copies as TRACE_Peek_next_primitive + TRACE_Get_next_primitive of each;
 * slog2 uses it when present (SLOG2_TRACE_NO_EXT=1: not).
 *
 * ORDER: drawables come in non-decreasing end time without a reorder buffer:
 * each is emitted at the event where it ends, in OTF2's merged event stream
 * (otf2_events.c explains how and what is held meanwhile).
 *
 * MEMORY is bounded by what is open (regions, messages in flight, requests,
 * one batch of drawables), not by the number of locations: archives with more
 * locations than 32 MiB of libotf2's event chunk buffers hold are read in
 * groups through sorted runs in a temporary file (otf2_grouped.c;
 * SLOG2_OTF2_OPEN_LOCATIONS=K sets the group size).
 *
 * FILES: this file is the TRACE-API (open/close, the record cursor and its
 * array protocol, categories, the y-map); below it, each calling only the
 * ones further down: the events otf2_events.c, many locations
 * otf2_grouped.c, the temporary sorted runs otf2_spill.c, the archive and
 * its definitions otf2_defs.c, error texts otf2_errors.c; and the leaves: the
 * message matcher otf2_msgq.c, the hash map otf2_umap.c, the info-byte
 * encoder otf2_payload.h (the list, and what they share: otf2_internal.h).
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
 * On the grouped path (many locations) event files are opened when the
 * events are first asked for, so a missing or damaged one is reported by the
 * first TRACE_Peek_next_kind after the y-map instead of by TRACE_Open.
 *
 * Not thread-safe: one global list of open handles and one error buffer.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_internal.h"
#include "otf2_spill.h"
#include "slog2_trace_ext.h"

static struct _trace_file *open_list;

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
    matcher_free(&fp->mt);
    spill_free(fp->spill);
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

TRACE_EXPORT int TRACE_Open(const char filespec[], TRACE_file *fp)
{
    if (!fp)
        return fail(NULL, ERR_ARG, "TRACE_Open: NULL handle pointer");
    *fp = NULL;
    if (!filespec)
        return fail(NULL, ERR_ARG, "TRACE_Open: NULL filespec");
    if (is_help(filespec))
        return 0;
    catch_otf2_errors();
    struct _trace_file *h = calloc(1, sizeof *h);
    if (!h || !(h->path = strdup(filespec))) {
        free(h);
        return fail(NULL, ERR_MEM, "TRACE_Open: out of memory");
    }
    int rc = open_archive(h);
    if (!rc)
        rc = events_open(h); /* after the definitions: it opens the event readers */
    if (rc) {
        free_handle(h);
        return rc; /* err_text holds the text */
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
        snprintf(err_text, sizeof err_text, "%s: %s: the current record is of kind %d, not %d", fp->path,
                 fn, (int)k, (int)want);
        return ERR_KIND;
    }
    return 0;
}

/* The current record is a queued drawable: the common case of every call
 * below, answered without going through current_kind() and fill(). */
static int at_drawable(const struct _trace_file *fp)
{
    return fp->qlen && fp->cat_next >= fp->ncats && fp->ymap_done;
}

TRACE_EXPORT int TRACE_Peek_next_kind(const TRACE_file fp, TRACE_Rec_Kind_t *next_kind)
{
    CHECK_FP(fp, "TRACE_Peek_next_kind");
    if (!next_kind)
        return fail(NULL, ERR_ARG, "TRACE_Peek_next_kind: NULL argument");
    if (at_drawable(fp)) {
        *next_kind = TRACE_PRIMITIVE_DRAWABLE;
        return 0;
    }
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
        snprintf(err_text, sizeof err_text, "TRACE_Get_next_category: array too small");
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
        snprintf(err_text, sizeof err_text, "TRACE_Get_next_ycoordmap: array too small");
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
    int rc = at_drawable(fp) ? 0 : expect(fp, TRACE_PRIMITIVE_DRAWABLE, "TRACE_Peek_next_primitive");
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
    int rc = at_drawable(fp) ? 0 : expect(fp, TRACE_PRIMITIVE_DRAWABLE, "TRACE_Get_next_primitive");
    if (rc)
        return rc;
    const drawable *d = &fp->q[fp->qhead];
    if (!room(tcoord_base, tcoord_pos, tcoord_max, d->nv) || !room(ycoord_base, ycoord_pos, ycoord_max, d->nv) ||
        !room(byte_base, byte_pos, byte_max, d->nbytes)) {
        snprintf(err_text, sizeof err_text, "TRACE_Get_next_primitive: array too small");
        return ERR_SMALL;
    }
    *category_index = d->cat;
    /* one or two vertices: copied by hand, not by two calls to memcpy */
    double *t = tcoord_base + *tcoord_pos;
    int *y = ycoord_base + *ycoord_pos;
    t[0] = d->t[0];
    y[0] = d->y[0];
    if (d->nv > 1) {
        t[1] = d->t[1];
        y[1] = d->y[1];
    }
    *tcoord_pos += d->nv;
    *n_tcoords = d->nv;
    *ycoord_pos += d->nv;
    *n_ycoords = d->nv;
    if (d->nbytes) {
        memcpy(byte_base + *byte_pos, d->info, (size_t)d->nbytes);
        *byte_pos += d->nbytes;
    }
    *n_bytes = d->nbytes;
    if (++fp->qhead == fp->qcap)
        fp->qhead = 0;
    fp->qlen--;
    return 0;
}

/* slog2's extension (include/slog2_trace_ext.h): the run of queued
 * drawables in one call, the same copies as Peek + Get of each. */
TRACE_EXPORT int SLOG2_TRACE_Get_next_primitives(const TRACE_file fp, int max_primitives, int *n_primitives,
                                                 double starttime[], double endtime[], int category_index[],
                                                 int n_tcoords[], double tcoord_base[], int tcoord_max,
                                                 int n_ycoords[], int ycoord_base[], int ycoord_max,
                                                 int n_bytes[], char byte_base[], int byte_max)
{
    CHECK_FP(fp, "SLOG2_TRACE_Get_next_primitives");
    if (!n_primitives || max_primitives < 0 || tcoord_max < 0 || ycoord_max < 0 || byte_max < 0 ||
        (max_primitives && (!starttime || !endtime || !category_index || !n_tcoords || !n_ycoords || !n_bytes)) ||
        (tcoord_max && !tcoord_base) || (ycoord_max && !ycoord_base) || (byte_max && !byte_base))
        return fail(NULL, ERR_ARG, "SLOG2_TRACE_Get_next_primitives: NULL or negative argument");
    *n_primitives = 0;
    int n = 0, tp = 0, bp = 0;
    while (n < max_primitives) {
        if (!at_drawable(fp)) {
            if (fp->cat_next < fp->ncats || !fp->ymap_done)
                break;
            /* An error after copied primitives stays sticky for the next call. */
            if (fill(fp))
                return n ? (*n_primitives = n, 0) : fp->err;
            if (!fp->qlen)
                break;
        }
        const drawable *d = &fp->q[fp->qhead];
        if (d->nv > tcoord_max - tp || d->nv > ycoord_max - tp || d->nbytes > byte_max - bp)
            break;
        double a = d->t[0], b = d->nv > 1 ? d->t[1] : d->t[0];
        starttime[n] = a < b ? a : b;
        endtime[n] = a < b ? b : a;
        category_index[n] = d->cat;
        tcoord_base[tp] = d->t[0];
        ycoord_base[tp] = d->y[0];
        if (d->nv > 1) {
            tcoord_base[tp + 1] = d->t[1];
            ycoord_base[tp + 1] = d->y[1];
        }
        n_tcoords[n] = n_ycoords[n] = d->nv;
        tp += d->nv;
        if (d->nbytes) {
            memcpy(byte_base + bp, d->info, (size_t)d->nbytes);
            bp += d->nbytes;
        }
        n_bytes[n] = d->nbytes;
        n++;
        if (++fp->qhead == fp->qcap)
            fp->qhead = 0;
        fp->qlen--;
    }
    *n_primitives = n;
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
    if (!err_text[0])
        snprintf(err_text, sizeof err_text, "slog2-otf2: error code %d", ierr);
    return err_text;
}
