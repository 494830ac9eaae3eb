/* Every TRACE_* function and its error paths: protocol (idempotent peeks,
 * wrong-kind calls, composites with and without Get_next_composite),
 * four-argument arrays (short arrays write nothing past max), help, bad and
 * closed handles, double close, positions.  Usage: test_trace_api DATA.TXT */
#include <string.h>
#include "trace_API.h"
#include "check.h"

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    TRACE_file fp = (TRACE_file)0x1;
    TRACE_Rec_Kind_t k;

    /* Help: NULL handle, code 0, help text. */
    CHECK_EQ(TRACE_Open("-h", &fp), 0);
    CHECK(fp == NULL);
    CHECK(strstr(TRACE_Get_err_string(0), "filespec") != NULL);
    CHECK_EQ(TRACE_Open("--help extra", &fp), 0);
    CHECK(fp == NULL);
    /* Failure: NULL handle, non-zero code, text. */
    CHECK(TRACE_Open("/nonexistent/trace.txt", &fp) != 0);
    CHECK(fp == NULL);
    CHECK(TRACE_Open(NULL, &fp) != 0);
    CHECK(TRACE_Open(argv[1], NULL) != 0);
    CHECK(TRACE_Get_err_string(12345) != NULL);
    CHECK(TRACE_Get_err_string(-7) != NULL);

    /* Bad handles. */
    CHECK(TRACE_Peek_next_kind(NULL, &k) != 0);
    CHECK(TRACE_Peek_next_kind((TRACE_file)0x12345, &k) != 0);
    CHECK(TRACE_Close(NULL) != 0);
    TRACE_file none = NULL;
    CHECK_EQ(TRACE_Close(&none), 0);

    CHECK_EQ(TRACE_Open(argv[1], &fp), 0);
    CHECK(fp != NULL);
    CHECK(TRACE_Peek_next_kind(fp, NULL) != 0);

    /* Idempotent peek. */
    CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
    CHECK_EQ(k, TRACE_CATEGORY);
    CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
    CHECK_EQ(k, TRACE_CATEGORY);

    /* Wrong kind: error, nothing changes. */
    double st, et; int nt, ny, nb, np;
    CHECK(TRACE_Peek_next_primitive(fp, &st, &et, &nt, &ny, &nb) != 0);
    CHECK(TRACE_Peek_next_composite(fp, &st, &et, &np, &nb) != 0);
    int r1, r2, r3, r4, r5;
    CHECK(TRACE_Peek_next_ycoordmap(fp, &r1, &r2, &r3, &r4, &r5) != 0);
    CHECK(TRACE_Get_next_method(fp, NULL, NULL, NULL) != 0);

    /* Category with a short legend array: error, nothing written past max. */
    int nl, nlab, nm;
    CHECK_EQ(TRACE_Peek_next_category(fp, &nl, &nlab, &nm), 0);
    CHECK_EQ(nl, 7); /* "message" */
    CHECK_EQ(nlab, 23);
    char legend[16], label[64]; int meth[4];
    memset(legend, 'Z', sizeof legend);
    TRACE_Category_head_t h;
    int ol = -5, ob = -5, om = -5, lp = 2, bp = 0, mp = 0;
    CHECK(TRACE_Get_next_category(fp, &h, &ol, legend, &lp, 8, &ob, label, &bp, 64, &om, meth, &mp, 4) != 0);
    CHECK_EQ(lp, 2);
    CHECK_EQ(ol, -5);
    for (int i = 0; i < 16; i++) CHECK(legend[i] == 'Z');
    /* Negative pos / max. */
    lp = -1;
    CHECK(TRACE_Get_next_category(fp, &h, &ol, legend, &lp, 16, &ob, label, &bp, 64, &om, meth, &mp, 4) != 0);
    lp = 0;
    CHECK(TRACE_Get_next_category(fp, &h, &ol, legend, &lp, -3, &ob, label, &bp, 64, &om, meth, &mp, 4) != 0);
    /* The category is still current: retry with room, packing after pos 2. */
    lp = 2;
    CHECK_EQ(TRACE_Get_next_category(fp, &h, &ol, legend, &lp, 16, &ob, label, &bp, 64, &om, meth, &mp, 4), 0);
    CHECK_EQ(ol, 7);
    CHECK_EQ(lp, 9);
    CHECK(memcmp(legend + 2, "message", 7) == 0);
    CHECK(legend[9] == 'Z');
    CHECK_EQ(h.index, 0);
    CHECK_EQ(h.shape, TRACE_SHAPE_ARROW);
    CHECK_EQ(h.width, 3);
    CHECK_EQ(om, 0);
    label[bp] = 0;
    CHECK(strcmp(label, "msg_tag=%d, msg_size=%d") == 0);

    /* Skip the remaining categories with Get only (a Get performs its Peek). */
    int cats = 1;
    for (;;) {
        CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
        if (k != TRACE_CATEGORY) break;
        lp = bp = mp = 0;
        CHECK_EQ(TRACE_Get_next_category(fp, &h, &ol, legend, &lp, 16, &ob, label, &bp, 64, &om, meth, &mp, 4), 0);
        if (h.index == 184) { CHECK_EQ(om, 1); CHECK_EQ(meth[0], TRACE_METHOD_CONNECT_COMPOSITE_STATE); }
        cats++;
    }
    CHECK_EQ(cats, 11);

    /* Position cookie between records. */
    TRACE_int64_t cookie = -1;
    CHECK_EQ(TRACE_Get_position(fp, &cookie), 0);
    CHECK_EQ(cookie, 11);

    /* First primitive: short time array. */
    CHECK_EQ(k, TRACE_PRIMITIVE_DRAWABLE);
    CHECK_EQ(TRACE_Peek_next_primitive(fp, &st, &et, &nt, &ny, &nb), 0);
    CHECK_EQ(nt, 2);
    double t[4] = {-1, -1, -1, -1}; int y[4] = {0}; char b[16];
    int cat, ont = -9, ony, onb, tp = 0, yp = 0, bpp = 0;
    CHECK(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 1, &ony, y, &yp, 4, &onb, b, &bpp, 16) != 0);
    CHECK(t[0] == -1 && t[1] == -1);
    CHECK_EQ(ont, -9);
    CHECK_EQ(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, b, &bpp, 16), 0);
    CHECK_EQ(cat, 13);
    CHECK(t[0] == 0.0005 && t[1] == 0.001);
    CHECK_EQ(onb, 0);

    /* Walk to the first composite; take its members without Get_next_composite. */
    for (;;) {
        CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
        if (k != TRACE_PRIMITIVE_DRAWABLE) break;
        tp = yp = bpp = 0;
        CHECK_EQ(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, b, &bpp, 16), 0);
    }
    CHECK_EQ(k, TRACE_COMPOSITE_DRAWABLE);
    CHECK_EQ(TRACE_Peek_next_composite(fp, &st, &et, &np, &nb), 0);
    CHECK_EQ(np, 3);
    CHECK_EQ(nb, 8);
    CHECK(st == 0.001 && et == 0.004);
    for (int i = 0; i < np; i++) {
        CHECK_EQ(TRACE_Peek_next_primitive(fp, &st, &et, &nt, &ny, &nb), 0);
        CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
        CHECK_EQ(k, TRACE_PRIMITIVE_DRAWABLE); /* inside a composite */
        CHECK(TRACE_Get_position(fp, &cookie) != 0);
        tp = yp = bpp = 0;
        CHECK_EQ(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, b, &bpp, 16), 0);
    }
    /* Next composite: with Get_next_composite, short info array first. */
    for (;;) {
        CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
        if (k != TRACE_PRIMITIVE_DRAWABLE) break;
        tp = yp = bpp = 0;
        CHECK_EQ(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, b, &bpp, 16), 0);
    }
    CHECK_EQ(k, TRACE_COMPOSITE_DRAWABLE);
    unsigned char info[8]; memset(info, 0xEE, sizeof info);
    int ip = 0, oninfo = 0;
    CHECK(TRACE_Get_next_composite(fp, &cat, &oninfo, (char *)info, &ip, 4) != 0);
    CHECK(info[0] == 0xEE);
    CHECK_EQ(TRACE_Get_next_composite(fp, &cat, &oninfo, (char *)info, &ip, 8), 0);
    CHECK_EQ(cat, 183);
    CHECK(info[0] == 0xff && info[3] == 0x9c); /* AA=-100 */

    /* Back to the cookie: the first primitive again. */
    CHECK_EQ(TRACE_Set_position(fp, 11), 0);
    CHECK_EQ(TRACE_Peek_next_primitive(fp, &st, &et, &nt, &ny, &nb), 0);
    CHECK(st == 0.0005);
    CHECK(TRACE_Set_position(fp, 100000) != 0);
    CHECK(TRACE_Set_position(fp, -1) != 0);

    /* Drain to EOF (y-maps at the end), EOF repeats. */
    int maps = 0;
    CHECK_EQ(TRACE_Set_position(fp, 0), 0);
    for (;;) {
        CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
        if (k == TRACE_EOF) break;
        if (k == TRACE_YCOORDMAP) {
            int nr, nc, mc, mt, nmm;
            CHECK_EQ(TRACE_Peek_next_ycoordmap(fp, &nr, &nc, &mc, &mt, &nmm), 0);
            char title[32]; char n1[16], n2[16], n3[16]; char *names[3] = {n1, n2, n3};
            int e[64], sz, ep = 0, omm, mpp = 0, mm[2];
            CHECK(mt <= 32 && mc <= 16 && nr * nc <= 64);
            CHECK(TRACE_Get_next_ycoordmap(fp, title, names, &sz, e, &ep, 3, &omm, mm, &mpp, 2) != 0);
            CHECK_EQ(ep, 0);
            CHECK_EQ(TRACE_Get_next_ycoordmap(fp, title, names, &sz, e, &ep, 64, &omm, mm, &mpp, 2), 0);
            CHECK_EQ(sz, nr * nc);
            if (maps == 0) { CHECK(strcmp(title, "ThreadView") == 0); CHECK(strcmp(n2, "label2") == 0); CHECK_EQ(e[0], 4); }
            if (maps == 1) { CHECK_EQ(omm, 1); CHECK_EQ(mm[0], 1); }
            maps++;
        } else if (k == TRACE_CATEGORY) {
            lp = bp = mp = 0;
            CHECK_EQ(TRACE_Get_next_category(fp, &h, &ol, legend, &lp, 16, &ob, label, &bp, 64, &om, meth, &mp, 4), 0);
        } else if (k == TRACE_COMPOSITE_DRAWABLE) {
            CHECK_EQ(TRACE_Peek_next_composite(fp, &st, &et, &np, &nb), 0);
            for (int i = 0; i < np; i++) {
                tp = yp = bpp = 0;
                CHECK_EQ(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, b, &bpp, 16), 0);
            }
        } else {
            tp = yp = bpp = 0;
            CHECK_EQ(TRACE_Get_next_primitive(fp, &cat, &ont, t, &tp, 4, &ony, y, &yp, 4, &onb, b, &bpp, 16), 0);
        }
    }
    CHECK_EQ(maps, 3);
    CHECK_EQ(TRACE_Peek_next_kind(fp, &k), 0);
    CHECK_EQ(k, TRACE_EOF);

    /* Close, then the handle is dead. */
    TRACE_file saved = fp;
    CHECK_EQ(TRACE_Close(&fp), 0);
    CHECK(fp == NULL);
    CHECK(TRACE_Peek_next_kind(saved, &k) != 0);
    CHECK(TRACE_Close(&saved) != 0); /* double close */
    return check_report("test_trace_api");
}
