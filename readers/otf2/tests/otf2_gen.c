/*
 * otf2_gen.c -- writes the OTF2 archives the OTF2 reader is tested and
 * benchmarked on, with OTF2's own writer API (nothing binary is checked in).
 *
 *   otf2_gen scenario DIR EXPECTED.json
 *       DIR/traces.otf2 (+ traces.def, traces/) with 4 MPI ranks and one
 *       extra thread location: nested regions, blocking send/recv in both
 *       arrival orders (one receive recorded before its send: a backward
 *       arrow), isend/irecv with requests and waits, an Allreduce, two
 *       metrics (integer and double), a region left open at the end, a clock
 *       offset on rank 3, and one record kind the reader does not map
 *       (ParameterInt). EXPECTED.json lists every drawable the conversion
 *       must produce, in `slog2 query --format json` terms (name, kind,
 *       vertices, info).
 *   otf2_gen scenario-short DIR EXPECTED.json
 *       the same, but location 2's definition declares one event more than
 *       its event file holds (as if the file were cut at a record boundary,
 *       which libotf2 itself does not notice).
 *   otf2_gen bench DIR NEVENTS [NRANKS]
 *       a synthetic archive of about NEVENTS events over NRANKS ranks
 *       (default 8): nested Enter/Leave, ring messages, a metric.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
    (void)u;
    (void)ft;
    (void)loc;
    (void)cd;
    (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)u;
    (void)ft;
    (void)loc;
    return 0;
}

static OTF2_FlushCallbacks flush_cbs = { pre_flush, post_flush };

#define CHECK(x) \
    do { \
        OTF2_ErrorCode rc_ = (x); \
        if (rc_ != OTF2_SUCCESS) { \
            fprintf(stderr, "otf2_gen: %s failed: %s\n", #x, OTF2_Error_GetDescription(rc_)); \
            exit(1); \
        } \
    } while (0)

static OTF2_Archive *open_archive(const char *dir)
{
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a) {
        fprintf(stderr, "otf2_gen: cannot create archive in %s\n", dir);
        exit(1);
    }
    CHECK(OTF2_Archive_SetFlushCallbacks(a, &flush_cbs, NULL));
    CHECK(OTF2_Archive_SetSerialCollectiveCallbacks(a));
    CHECK(OTF2_Archive_OpenEvtFiles(a));
    return a;
}

/* ------------------------------------------------------------------------ */
/* The scenario */

#define BASE 1000000ULL /* globalOffset: the trace starts at tick 1e6 */
#define RES 1000000ULL  /* ticks per second */
#define NLOC 5
#define OFFSET3 500 /* rank 3's clock runs 500 ticks behind */

enum { S_EMPTY, S_MAIN, S_COMPUTE, S_INNER, S_SEND, S_RECV, S_ALLREDUCE, S_WAIT, S_COMM_WORLD, S_TOT_CYC,
       S_TEMP, S_RANK, S_THREAD, S_NODE, S_PARAM, S_MPI_LOCS, S_MPI_WORLD, NSTR };
static const char *const STRINGS[NSTR] = {
    "", "main", "compute", "inner", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Wait", "MPI_COMM_WORLD",
    "PAPI_TOT_CYC", "temperature", "MPI Rank", "Thread", "node", "iterations", "MPI locations", "world",
};
enum { R_MAIN, R_COMPUTE, R_INNER, R_SEND, R_RECV, R_ALLREDUCE, R_WAIT, NREG };
static const int REGION_NAME[NREG] = { S_MAIN, S_COMPUTE, S_INNER, S_SEND, S_RECV, S_ALLREDUCE, S_WAIT };

static FILE *expected;
static int nexpected;

static double sec(uint64_t rel) { return (double)rel / (double)RES; }

static void expect_open(void) { fputs("[\n", expected); }
static void expect_close(void) { fputs("\n]\n", expected); }
static void expect_item(const char *name, const char *kind, double t0, int y0, double t1, int y1, int nv,
                        const char *info)
{
    fprintf(expected, "%s  {\"name\": \"%s\", \"kind\": \"%s\", \"vertices\": [[%.9f, %d]", nexpected ? ",\n" : "",
            name, kind, t0, y0);
    if (nv == 2)
        fprintf(expected, ", [%.9f, %d]", t1, y1);
    fprintf(expected, "], \"info\": \"%s\"}", info);
    nexpected++;
}

/* Expected drawables use times relative to the trace start, in ticks. */
static void x_state(int region, int line, uint64_t t0, uint64_t t1)
{
    expect_item(STRINGS[REGION_NAME[region]], "state", sec(t0), line, sec(t1), line, 2, "");
}

static void x_arrow(int from, uint64_t ts, int to, uint64_t tr, int tag, int size)
{
    char info[64];
    snprintf(info, sizeof info, "comm=0 tag=%d size=%d", tag, size);
    expect_item("MPI message", "arrow", sec(ts), from, sec(tr), to, 2, info);
}

/* extra: events location 2's definition claims beyond those written (a
 * stand-in for an event file cut at a record boundary). */
static int scenario(const char *dir, const char *expected_path, uint64_t extra)
{
    expected = fopen(expected_path, "w");
    if (!expected) {
        perror(expected_path);
        return 1;
    }
    expect_open();
    OTF2_Archive *a = open_archive(dir);
    OTF2_EvtWriter *w[NLOC];
    for (int i = 0; i < NLOC; i++)
        w[i] = OTF2_Archive_GetEvtWriter(a, (OTF2_LocationRef)i);
    const uint64_t B = BASE;
    /* Rank 3 records local ticks; its clock offset (+OFFSET3) maps them to
     * global ticks. Everything below is written in global ticks minus
     * OFFSET3 for rank 3. */
    const uint64_t B3 = BASE - OFFSET3;

    /* rank 0 */
    CHECK(OTF2_EvtWriter_Enter(w[0], NULL, B + 0, R_MAIN));
    CHECK(OTF2_EvtWriter_Enter(w[0], NULL, B + 10, R_COMPUTE));
    CHECK(OTF2_EvtWriter_Enter(w[0], NULL, B + 20, R_INNER));
    CHECK(OTF2_EvtWriter_Leave(w[0], NULL, B + 30, R_INNER));
    CHECK(OTF2_EvtWriter_Leave(w[0], NULL, B + 40, R_COMPUTE));
    CHECK(OTF2_EvtWriter_Enter(w[0], NULL, B + 50, R_SEND));
    CHECK(OTF2_EvtWriter_MpiSend(w[0], NULL, B + 55, 1, 0, 7, 100));
    CHECK(OTF2_EvtWriter_Leave(w[0], NULL, B + 60, R_SEND));
    CHECK(OTF2_EvtWriter_MpiIsend(w[0], NULL, B + 70, 2, 0, 9, 200, 1));
    CHECK(OTF2_EvtWriter_Enter(w[0], NULL, B + 85, R_WAIT));
    CHECK(OTF2_EvtWriter_MpiIsendComplete(w[0], NULL, B + 90, 1));
    CHECK(OTF2_EvtWriter_Leave(w[0], NULL, B + 95, R_WAIT));
    CHECK(OTF2_EvtWriter_Enter(w[0], NULL, B + 200, R_ALLREDUCE));
    CHECK(OTF2_EvtWriter_MpiCollectiveBegin(w[0], NULL, B + 200));
    CHECK(OTF2_EvtWriter_MpiCollectiveEnd(w[0], NULL, B + 220, OTF2_COLLECTIVE_OP_ALLREDUCE, 0,
                                          OTF2_UNDEFINED_UINT32, 8, 8));
    CHECK(OTF2_EvtWriter_Leave(w[0], NULL, B + 225, R_ALLREDUCE));
    {
        OTF2_Type types[2] = { OTF2_TYPE_UINT64, OTF2_TYPE_DOUBLE };
        OTF2_MetricValue v[2];
        v[0].unsigned_int = 12345;
        v[1].floating_point = 42.5;
        CHECK(OTF2_EvtWriter_Metric(w[0], NULL, B + 230, 0, 2, types, v));
    }
    CHECK(OTF2_EvtWriter_Leave(w[0], NULL, B + 300, R_MAIN));
    x_state(R_INNER, 0, 20, 30);
    x_state(R_COMPUTE, 0, 10, 40);
    x_state(R_SEND, 0, 50, 60);
    x_state(R_WAIT, 0, 85, 95);
    x_state(R_ALLREDUCE, 0, 200, 225);
    x_state(R_MAIN, 0, 0, 300);
    expect_item("Metric PAPI_TOT_CYC", "event", sec(230), 0, 0, 0, 1, "value=12345");
    expect_item("Metric temperature", "event", sec(230), 0, 0, 0, 1, "value=42.5");

    /* rank 1: receives rank 0's message (send first), then one from rank 2
     * whose receive is recorded before its send (skewed clocks). */
    CHECK(OTF2_EvtWriter_Enter(w[1], NULL, B + 0, R_MAIN));
    CHECK(OTF2_EvtWriter_Enter(w[1], NULL, B + 52, R_RECV));
    CHECK(OTF2_EvtWriter_MpiRecv(w[1], NULL, B + 65, 0, 0, 7, 100));
    CHECK(OTF2_EvtWriter_Leave(w[1], NULL, B + 66, R_RECV));
    CHECK(OTF2_EvtWriter_MpiRecv(w[1], NULL, B + 80, 2, 0, 3, 50));
    CHECK(OTF2_EvtWriter_Enter(w[1], NULL, B + 205, R_ALLREDUCE));
    CHECK(OTF2_EvtWriter_MpiCollectiveBegin(w[1], NULL, B + 205));
    CHECK(OTF2_EvtWriter_MpiCollectiveEnd(w[1], NULL, B + 220, OTF2_COLLECTIVE_OP_ALLREDUCE, 0,
                                          OTF2_UNDEFINED_UINT32, 8, 8));
    CHECK(OTF2_EvtWriter_Leave(w[1], NULL, B + 221, R_ALLREDUCE));
    CHECK(OTF2_EvtWriter_Leave(w[1], NULL, B + 300, R_MAIN));
    x_state(R_RECV, 1, 52, 66);
    x_arrow(0, 55, 1, 65, 7, 100);
    x_arrow(2, 85, 1, 80, 3, 50);
    x_state(R_ALLREDUCE, 1, 205, 221);
    x_state(R_MAIN, 1, 0, 300);

    /* rank 2: posts an irecv, sends to 1, waits for the irecv; its main
     * region is never left (closed at the trace end). */
    CHECK(OTF2_EvtWriter_Enter(w[2], NULL, B + 0, R_MAIN));
    CHECK(OTF2_EvtWriter_MpiIrecvRequest(w[2], NULL, B + 60, 5));
    CHECK(OTF2_EvtWriter_MpiSend(w[2], NULL, B + 85, 1, 0, 3, 50));
    CHECK(OTF2_EvtWriter_Enter(w[2], NULL, B + 95, R_WAIT));
    CHECK(OTF2_EvtWriter_MpiIrecv(w[2], NULL, B + 100, 0, 0, 9, 200, 5));
    CHECK(OTF2_EvtWriter_Leave(w[2], NULL, B + 101, R_WAIT));
    CHECK(OTF2_EvtWriter_Enter(w[2], NULL, B + 210, R_ALLREDUCE));
    CHECK(OTF2_EvtWriter_MpiCollectiveBegin(w[2], NULL, B + 210));
    CHECK(OTF2_EvtWriter_MpiCollectiveEnd(w[2], NULL, B + 220, OTF2_COLLECTIVE_OP_ALLREDUCE, 0,
                                          OTF2_UNDEFINED_UINT32, 8, 8));
    CHECK(OTF2_EvtWriter_Leave(w[2], NULL, B + 222, R_ALLREDUCE));
    x_arrow(0, 70, 2, 100, 9, 200);
    x_state(R_WAIT, 2, 95, 101);
    x_state(R_ALLREDUCE, 2, 210, 222);
    x_state(R_MAIN, 2, 0, 400); /* open at the end: closed at the last event (rank 3, 400) */

    /* rank 3 (clock offset): a compute phase and a metric, the last event
     * of the trace at global tick 400. */
    CHECK(OTF2_EvtWriter_Enter(w[3], NULL, B3 + 5, R_MAIN));
    CHECK(OTF2_EvtWriter_Enter(w[3], NULL, B3 + 100, R_COMPUTE));
    {
        OTF2_Type types[1] = { OTF2_TYPE_UINT64 };
        OTF2_MetricValue v[1];
        v[0].unsigned_int = 777;
        CHECK(OTF2_EvtWriter_Metric(w[3], NULL, B3 + 150, 1, 1, types, v));
    }
    CHECK(OTF2_EvtWriter_Leave(w[3], NULL, B3 + 250, R_COMPUTE));
    CHECK(OTF2_EvtWriter_Leave(w[3], NULL, B3 + 400, R_MAIN));
    x_state(R_COMPUTE, 3, 100, 250);
    expect_item("Metric PAPI_TOT_CYC", "event", sec(150), 3, 0, 0, 1, "value=777");
    x_state(R_MAIN, 3, 5, 400);

    /* collectives: a state and an event on each participating rank */
    for (int r = 0; r < 3; r++) {
        static const uint64_t begin[3] = { 200, 205, 210 };
        expect_item("MPI collective", "state", sec(begin[r]), r, sec(220), r, 2, "");
        expect_item("MPI collective op", "event", sec(220), r, 0, 0, 1,
                    "op=Allreduce comm=0 root=-1 sent=8 received=8");
    }

    /* thread location of rank 1 (line 4): a region and an unmapped record */
    CHECK(OTF2_EvtWriter_Enter(w[4], NULL, B + 20, R_COMPUTE));
    CHECK(OTF2_EvtWriter_ParameterInt(w[4], NULL, B + 30, 0, 42));
    CHECK(OTF2_EvtWriter_Leave(w[4], NULL, B + 120, R_COMPUTE));
    x_state(R_COMPUTE, 4, 20, 120);

    for (int i = 0; i < NLOC; i++)
        CHECK(OTF2_Archive_CloseEvtWriter(a, w[i]));
    CHECK(OTF2_Archive_CloseEvtFiles(a));

    /* local definitions: rank 3's clock offset (constant: two equal points) */
    CHECK(OTF2_Archive_OpenDefFiles(a));
    for (int i = 0; i < NLOC; i++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, (OTF2_LocationRef)i);
        if (i == 3) {
            CHECK(OTF2_DefWriter_WriteClockOffset(dw, B3, OFFSET3, 0.0));
            CHECK(OTF2_DefWriter_WriteClockOffset(dw, B3 + 1000, OFFSET3, 0.0));
        }
        CHECK(OTF2_Archive_CloseDefWriter(a, dw));
    }
    CHECK(OTF2_Archive_CloseDefFiles(a));

    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    CHECK(OTF2_GlobalDefWriter_WriteClockProperties(g, RES, BASE, 400, OTF2_UNDEFINED_TIMESTAMP));
    for (int s = 0; s < NSTR; s++)
        CHECK(OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)s, STRINGS[s]));
    for (int r = 0; r < NREG; r++) {
        int mpi = r == R_SEND || r == R_RECV || r == R_ALLREDUCE || r == R_WAIT;
        CHECK(OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)r, (OTF2_StringRef)REGION_NAME[r],
                                               (OTF2_StringRef)REGION_NAME[r], S_EMPTY,
                                               mpi ? OTF2_REGION_ROLE_POINT2POINT : OTF2_REGION_ROLE_FUNCTION,
                                               mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
                                               OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0));
    }
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, S_NODE, S_NODE, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    for (int r = 0; r < 4; r++)
        CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)r, S_RANK,
                                                      OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                      OTF2_UNDEFINED_LOCATION_GROUP));
    const uint64_t nev[NLOC] = { 18, 10, 10 + extra, 5, 3 };
    for (int i = 0; i < 4; i++)
        CHECK(OTF2_GlobalDefWriter_WriteLocation(g, (OTF2_LocationRef)i, S_RANK, OTF2_LOCATION_TYPE_CPU_THREAD,
                                                 nev[i], (OTF2_LocationGroupRef)i));
    CHECK(OTF2_GlobalDefWriter_WriteLocation(g, 4, S_THREAD, OTF2_LOCATION_TYPE_CPU_THREAD, nev[4], 1));
    uint64_t locs[4] = { 0, 1, 2, 3 }, ranks[4] = { 0, 1, 2, 3 };
    CHECK(OTF2_GlobalDefWriter_WriteGroup(g, 0, S_MPI_LOCS, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, 4, locs));
    CHECK(OTF2_GlobalDefWriter_WriteGroup(g, 1, S_MPI_WORLD, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, 4, ranks));
    CHECK(OTF2_GlobalDefWriter_WriteComm(g, 0, S_COMM_WORLD, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    CHECK(OTF2_GlobalDefWriter_WriteMetricMember(g, 0, S_TOT_CYC, S_EMPTY, OTF2_METRIC_TYPE_PAPI,
                                                 OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL,
                                                 0, S_EMPTY));
    CHECK(OTF2_GlobalDefWriter_WriteMetricMember(g, 1, S_TEMP, S_EMPTY, OTF2_METRIC_TYPE_OTHER,
                                                 OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0,
                                                 S_EMPTY));
    OTF2_MetricMemberRef both[2] = { 0, 1 }, one[1] = { 0 };
    CHECK(OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 2, both, OTF2_METRIC_SYNCHRONOUS_STRICT,
                                                OTF2_RECORDER_KIND_CPU));
    CHECK(OTF2_GlobalDefWriter_WriteMetricClass(g, 1, 1, one, OTF2_METRIC_ASYNCHRONOUS, OTF2_RECORDER_KIND_CPU));
    CHECK(OTF2_GlobalDefWriter_WriteParameter(g, 0, S_PARAM, OTF2_PARAMETER_TYPE_INT64));
    CHECK(OTF2_Archive_Close(a));
    expect_close();
    if (fclose(expected)) {
        perror(expected_path);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Benchmark archive */

static int bench(const char *dir, uint64_t nevents, int nranks)
{
    OTF2_Archive *a = open_archive(dir);
    /* per rank, per iteration: Enter outer, Enter inner, Leave inner,
     * Enter send, Send, Leave send, Recv, Metric, Leave outer = 9 events
     * (the metric synchronous with the last Leave) */
    uint64_t iters = nevents / 9 / (uint64_t)nranks + 1;
    uint64_t *counts = calloc((size_t)nranks, sizeof *counts);
    for (int r = 0; r < nranks; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, (OTF2_LocationRef)r);
        uint64_t t = BASE + (uint64_t)r;
        OTF2_Type ty[1] = { OTF2_TYPE_UINT64 };
        for (uint64_t i = 0; i < iters; i++) {
            OTF2_MetricValue v[1];
            v[0].unsigned_int = i * 1000 + (uint64_t)r;
            CHECK(OTF2_EvtWriter_Enter(w, NULL, t + 0, 0));
            CHECK(OTF2_EvtWriter_Enter(w, NULL, t + 10, 1));
            CHECK(OTF2_EvtWriter_Leave(w, NULL, t + 40, 1));
            CHECK(OTF2_EvtWriter_Enter(w, NULL, t + 50, 2));
            CHECK(OTF2_EvtWriter_MpiSend(w, NULL, t + 55, (uint32_t)((r + 1) % nranks), 0, 1, 1024));
            CHECK(OTF2_EvtWriter_Leave(w, NULL, t + 60, 2));
            CHECK(OTF2_EvtWriter_MpiRecv(w, NULL, t + 70, (uint32_t)((r + nranks - 1) % nranks), 0, 1, 1024));
            /* A synchronous metric, recorded with the Leave that follows
             * (same timestamp), as Score-P records them. */
            CHECK(OTF2_EvtWriter_Metric(w, NULL, t + 90, 0, 1, ty, v));
            CHECK(OTF2_EvtWriter_Leave(w, NULL, t + 90, 0));
            t += 100;
            counts[r] += 9;
        }
        CHECK(OTF2_Archive_CloseEvtWriter(a, w));
    }
    CHECK(OTF2_Archive_CloseEvtFiles(a));
    /* empty local definition files, as Score-P writes them */
    CHECK(OTF2_Archive_OpenDefFiles(a));
    for (int r = 0; r < nranks; r++)
        CHECK(OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, (OTF2_LocationRef)r)));
    CHECK(OTF2_Archive_CloseDefFiles(a));
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    CHECK(OTF2_GlobalDefWriter_WriteClockProperties(g, RES, BASE, iters * 100 + (uint64_t)nranks,
                                                    OTF2_UNDEFINED_TIMESTAMP));
    static const char *const s[] = { "", "iteration", "compute", "MPI_Send", "rank", "node", "cycles",
                                     "MPI_COMM_WORLD" };
    for (int i = 0; i < 8; i++)
        CHECK(OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)i, s[i]));
    for (int r = 0; r < 3; r++)
        CHECK(OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)r, (OTF2_StringRef)(r + 1),
                                               (OTF2_StringRef)(r + 1), 0, OTF2_REGION_ROLE_FUNCTION,
                                               r == 2 ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
                                               OTF2_REGION_FLAG_NONE, 0, 0, 0));
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 5, 5, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    for (int r = 0; r < nranks; r++) {
        CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)r, 4,
                                                      OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                      OTF2_UNDEFINED_LOCATION_GROUP));
        CHECK(OTF2_GlobalDefWriter_WriteLocation(g, (OTF2_LocationRef)r, 4, OTF2_LOCATION_TYPE_CPU_THREAD,
                                                 counts[r], (OTF2_LocationGroupRef)r));
    }
    /* The communicator of the messages (comm 0 = all ranks), as Score-P
     * defines it: readers that resolve every reference (OTF2's Python
     * bindings, pipit) need it. */
    uint64_t *members = calloc((size_t)nranks, sizeof *members);
    for (int r = 0; r < nranks; r++)
        members[r] = (uint64_t)r;
    CHECK(OTF2_GlobalDefWriter_WriteGroup(g, 0, 7, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, (uint32_t)nranks, members));
    CHECK(OTF2_GlobalDefWriter_WriteGroup(g, 1, 7, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, (uint32_t)nranks, members));
    CHECK(OTF2_GlobalDefWriter_WriteComm(g, 0, 7, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    free(members);
    CHECK(OTF2_GlobalDefWriter_WriteMetricMember(g, 0, 6, 0, OTF2_METRIC_TYPE_PAPI, OTF2_METRIC_ABSOLUTE_POINT,
                                                 OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, 0));
    OTF2_MetricMemberRef m[1] = { 0 };
    CHECK(OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 1, m, OTF2_METRIC_SYNCHRONOUS_STRICT, OTF2_RECORDER_KIND_CPU));
    CHECK(OTF2_Archive_Close(a));
    uint64_t total = 0;
    for (int r = 0; r < nranks; r++)
        total += counts[r];
    printf("%" PRIu64 " events over %d ranks in %s\n", total, nranks, dir);
    free(counts);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "scenario"))
        return scenario(argv[2], argv[3], 0);
    if (argc == 4 && !strcmp(argv[1], "scenario-short"))
        return scenario(argv[2], argv[3], 1);
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "bench"))
        return bench(argv[2], strtoull(argv[3], NULL, 10), argc == 5 ? atoi(argv[4]) : 8);
    fprintf(stderr, "usage: otf2_gen scenario|scenario-short DIR EXPECTED.json | otf2_gen bench DIR NEVENTS [NRANKS]\n");
    return 2;
}
