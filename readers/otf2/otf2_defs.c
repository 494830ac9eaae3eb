/*
 * otf2_defs.c -- opening an OTF2 archive and reading its definitions.
 *
 * An OTF2 archive is an anchor file (traces.otf2: version, chunk sizes,
 * number of locations), global definitions (traces.def: strings, the clock,
 * the system tree, location groups and locations, regions, groups,
 * communicators, metrics) and per location an event file and optionally a
 * local definition file (clock offsets and mapping tables that libotf2
 * applies to that location's events). This file
 *   - checks the anchor's bytes before libotf2 trusts its counts,
 *   - reads the global definitions into dense arrays (each OTF2 reference is
 *     mapped to its index by a umap) -- the categories and the y-map are
 *     built from them,
 *   - reads every location's local definitions, one location at a time,
 *   - and maps a location to its MPI rank in any communicator (for matching
 *     the two halves of a message, whose peers are communicator ranks).
 * Failures store a text naming the archive (and the location) on the handle.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "otf2_internal.h"

const char *str(struct _trace_file *fp, uint32_t ref)
{
    int i = umap_get(&fp->string_ix, ref);
    return i >= 0 ? fp->strings[i] : NULL;
}

/* Describe a location for error texts. */
void describe_loc(struct _trace_file *fp, int li, char *buf, size_t n)
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
int32_t ref_value(uint64_t ref)
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
    fp->cc_valid = 0;
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
    fp->cc_valid = 0;
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
 * location) in the MPI COMM_LOCATIONS group: a member location gets its own
 * position, any other location that of the first member of its location
 * group (a map from location group to that position: linear in the number
 * of locations, which reach 10,000s). Returns -1 when out of memory. */
static int assign_world_ranks(struct _trace_file *fp)
{
    for (size_t g = 0; g < fp->ngroups; g++) {
        group_def *gd = &fp->groups[g];
        if (gd->type != OTF2_GROUP_TYPE_COMM_LOCATIONS || gd->paradigm != OTF2_PARADIGM_MPI)
            continue;
        fp->nworld = (int)gd->n;
        umap first = { 0 }; /* location group -> position of its first member */
        int rc = 0;
        for (uint32_t r = 0; r < gd->n && !rc; r++) {
            int li = umap_get(&fp->loc_ix, gd->members[r]);
            if (li >= 0 && umap_get(&first, fp->locs[li].group) < 0)
                rc = umap_put(&first, fp->locs[li].group, (int32_t)r);
        }
        for (size_t k = 0; k < fp->nlocs && !rc; k++)
            fp->locs[k].world_rank = umap_get(&first, fp->locs[k].group);
        for (uint32_t r = 0; r < gd->n && !rc; r++) {
            int li = umap_get(&fp->loc_ix, gd->members[r]);
            if (li >= 0)
                fp->locs[li].world_rank = (int)r;
        }
        umap_free(&first);
        return rc;
    }
    /* No MPI group: the location group reference is the rank. */
    for (size_t k = 0; k < fp->nlocs; k++) {
        fp->locs[k].world_rank = fp->locs[k].group > INT32_MAX ? -1 : (int)fp->locs[k].group;
        if (fp->locs[k].world_rank + 1 > fp->nworld)
            fp->nworld = fp->locs[k].world_rank + 1;
    }
    return 0;
}

/* Rank of location li in communicator comm (the world rank if the
 * communicator or its group is not defined). */
int64_t comm_rank(struct _trace_file *fp, uint32_t comm, int li)
{
    int wr = fp->locs[li].world_rank;
    int ci, gi;
    if (fp->cc_valid && fp->cc_ref == comm) {
        ci = fp->cc_ci, gi = fp->cc_gi;
    } else {
        ci = umap_get(&fp->comm_ix, comm);
        gi = ci < 0 ? -1 : umap_get(&fp->group_ix, fp->comms[ci].group);
        fp->cc_valid = 1, fp->cc_ref = comm, fp->cc_ci = ci, fp->cc_gi = gi;
    }
    if (ci < 0 || wr < 0)
        return wr;
    comm_def *c = &fp->comms[ci];
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
/* The anchor file and open_archive */

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
    size_t most = (n - at - 4) / 2;
    if (props > most)
        return fail(fp, ERR_OPEN,
                    "%s: not a readable OTF2 anchor file: it declares %u properties, its remaining %zu bytes hold "
                    "at most %zu",
                    fp->path, props, n - at - 4, most);
    return 0;
}

int open_archive(struct _trace_file *fp)
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
    if (assign_world_ranks(fp))
        return fail(fp, ERR_MEM, "out of memory");

    fp->ncats = N_FIXED_CATS + (int)fp->nmembers + (int)fp->nregions;
    return 0;
}

/* Select locations [from, to) on reader r, open their event readers and read
 * their local definitions (clock offsets, mappings: libotf2 applies them to
 * the events of that location), one definition reader open at a time. */
int open_locations(struct _trace_file *fp, OTF2_Reader *r, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (OTF2_Reader_SelectLocation(r, fp->locs[i].ref) != OTF2_SUCCESS)
            return fail(fp, ERR_OPEN, "%s: cannot select location %llu", fp->path,
                        (unsigned long long)fp->locs[i].ref);
    int have_defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    otf2_msg[0] = 0; /* an archive without local definition files is fine */
    if (OTF2_Reader_OpenEvtFiles(r) != OTF2_SUCCESS)
        return fail(fp, ERR_OPEN, "%s: cannot open the event files", fp->path);
    for (size_t i = from; i < to; i++) {
        char d[256];
        if (!OTF2_Reader_GetEvtReader(r, fp->locs[i].ref)) {
            describe_loc(fp, (int)i, d, sizeof d);
            return fail(fp, ERR_OPEN, "%s: %s: cannot open its event file", fp->path, d);
        }
        if (!have_defs)
            continue;
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, fp->locs[i].ref);
        if (!dr) {
            otf2_msg[0] = 0;
            continue;
        }
        uint64_t n = 0;
        OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n);
        if (rc != OTF2_SUCCESS) {
            describe_loc(fp, (int)i, d, sizeof d);
            return fail(fp, ERR_OPEN, "%s: %s: reading its local definitions failed: %s", fp->path, d,
                        OTF2_Error_GetDescription(rc));
        }
        OTF2_Reader_CloseDefReader(r, dr);
    }
    if (have_defs)
        OTF2_Reader_CloseDefFiles(r);
    otf2_msg[0] = 0;
    return 0;
}
