/* Query columns as a viewer uses them: write a file with a backward arrow, a
 * forward arrow and a composite through SLOG2_Write_*, query it with
 * SLOG2_Query_window and draw each arrow from (time0, line0) to (time1, line1):
 * the head must land on the receiver, whatever the time box says. Composite
 * members follow their composite's row with `parent` pointing at it.
 * Usage: test_query_columns OUT.slog2 */
#include <string.h>
#include "slog2.h"
#include "check.h"

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s OUT.slog2\n", argv[0]); return 2; }
    SLOG2_File w;
    CHECK_EQ(SLOG2_Open(argv[1], 'w', &w), SLOG2_OK);
    SLOG2_Category_head_t state = {1, 1, 255, 0, 0, 255, 1, 0, 0, 0};
    SLOG2_Category_head_t arrow = {2, 2, 255, 255, 255, 255, 3, 0, 0, 0};
    SLOG2_Category_head_t comp = {3, 1, 0, 0, 255, 255, 1, 0, 0, 0};
    CHECK_EQ(SLOG2_Write_category_ex(w, &state, "compute", NULL, 0, NULL), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_category_ex(w, &arrow, "message", "tag=%d", 0, NULL), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_category_ex(w, &comp, "group", NULL, 0, NULL), SLOG2_OK);
    /* Backward arrow: sent on line 3 at t=2.0, received on line 1 at t=1.0. */
    double bt[2] = {2.0, 1.0}; int by[2] = {3, 1};
    const char tag7[4] = {0, 0, 0, 7};
    CHECK_EQ(SLOG2_Write_drawable_object(w, 1.0, 2.0, 2, 2, bt, 2, by, 4, tag7), SLOG2_OK);
    /* Forward arrow: line 1 at t=1.5 to line 2 at t=2.5. */
    double ft[2] = {1.5, 2.5}; int fy[2] = {1, 2};
    const char tag8[4] = {0, 0, 0, 8};
    CHECK_EQ(SLOG2_Write_drawable_object(w, 1.5, 2.5, 2, 2, ft, 2, fy, 4, tag8), SLOG2_OK);
    /* Composite of two states on line 0. */
    int mcat[2] = {1, 1}, mnv[2] = {2, 2}, mni[2] = {0, 0};
    double mt[4] = {2.6, 2.8, 2.7, 3.0}; int my[4] = {0, 0, 0, 0};
    CHECK_EQ(SLOG2_Write_composite_ex(w, 2.6, 3.0, 3, 0, NULL, 2, mcat, mnv, mt, my, mni, NULL), SLOG2_OK);
    CHECK_EQ(SLOG2_Close(&w), SLOG2_OK);

    SLOG2_File r;
    CHECK_EQ(SLOG2_Open(argv[1], 'r', &r), SLOG2_OK);
    int n = 0, ni = 0;
    CHECK_EQ(SLOG2_Query_window_size(r, 0.0, 10.0, -1, &n, &ni), SLOG2_OK);
    CHECK_EQ(n, 5);   /* two arrows, one composite row, two member rows */
    CHECK_EQ(ni, 8);
    int kind[8], cat[8], l0[8], l1[8], par[8], ioff[8], ilen[8];
    double s[8], e[8], t0[8], t1[8]; int64_t nreal[8];
    SLOG2_Query_columns cols = {kind, cat, s, e, l0, l1, nreal, ioff, ilen, t0, t1, par};
    char info[16]; int pos = 0, ip = 0, n_out = 0;
    CHECK_EQ(SLOG2_Query_window(r, 0.0, 10.0, &n_out, &cols, &pos, 8, info, &ip, 16, NULL), SLOG2_OK);
    CHECK_EQ(n_out, 5);
    int arrows = 0, backward = 0, members = 0, composite_row = -1;
    for (int i = 0; i < n_out; i++) {
        if (kind[i] == SLOG2_KIND_PRIMITIVE && cat[i] == 2) {
            arrows++;
            /* The viewer's drawing: tail at (t0, l0), head at (t1, l1). */
            int tag = ((unsigned char)info[ioff[i] + 3]);
            CHECK_EQ(ilen[i], 4);
            CHECK_EQ(par[i], -1);
            if (tag == 7) {
                backward++;
                CHECK(s[i] == 1.0 && e[i] == 2.0);      /* the box is ordered */
                CHECK(t0[i] == 2.0 && t1[i] == 1.0);    /* the arrow is not */
                CHECK_EQ(l0[i], 3);
                CHECK_EQ(l1[i], 1);
                CHECK(t1[i] < t0[i]);                   /* head points back in time */
            } else {
                CHECK_EQ(tag, 8);
                CHECK(t0[i] == 1.5 && t1[i] == 2.5);
                CHECK_EQ(l0[i], 1);
                CHECK_EQ(l1[i], 2);
            }
        } else if (kind[i] == SLOG2_KIND_COMPOSITE) {
            composite_row = i;
            CHECK_EQ(cat[i], 3);
            CHECK_EQ(nreal[i], 2);
            CHECK_EQ(par[i], -1);
            CHECK_EQ(ioff[i], -1);
        } else {
            CHECK_EQ(kind[i], SLOG2_KIND_PRIMITIVE);
            CHECK_EQ(cat[i], 1);
            members++;
            CHECK(composite_row >= 0 && par[i] == composite_row);
            CHECK(i > composite_row && i <= composite_row + 2);
        }
    }
    CHECK_EQ(arrows, 2);
    CHECK_EQ(backward, 1);
    CHECK_EQ(members, 2);
    CHECK_EQ(SLOG2_Close(&r), SLOG2_OK);
    return check_report("test_query_columns");
}
