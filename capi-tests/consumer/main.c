/* A consumer of the installed package: counts the records of a trace. */
#include <stdio.h>
#include "trace_API.h"
#include "slog2.h"

int main(int argc, char **argv) {
    TRACE_file fp;
    if (argc != 2 || TRACE_Open(argv[1], &fp) != 0 || !fp) return 1;
    int n = 0;
    TRACE_Rec_Kind_t k;
    while (TRACE_Peek_next_kind(fp, &k) == 0 && k != TRACE_EOF) {
        /* consume whatever it is by skipping: re-open is simpler for a demo */
        n++;
        if (k == TRACE_CATEGORY) {
            TRACE_Category_head_t h; char l[128], b[128]; int m[4], a, c, d, p1 = 0, p2 = 0, p3 = 0;
            if (TRACE_Get_next_category(fp, &h, &a, l, &p1, 128, &c, b, &p2, 128, &d, m, &p3, 4)) return 1;
        } else if (k == TRACE_YCOORDMAP) {
            char t[64], n1[32], n2[32], n3[32]; char *names[3] = {n1, n2, n3}; int e[64], sz, ep = 0, om, mp = 0, mm[2];
            if (TRACE_Get_next_ycoordmap(fp, t, names, &sz, e, &ep, 64, &om, mm, &mp, 2)) return 1;
        } else {
            int np = 1, nb, cat, ont, ony, onb;
            double s, e2, tt[8]; int yy[8]; char bb[64];
            if (k == TRACE_COMPOSITE_DRAWABLE && TRACE_Peek_next_composite(fp, &s, &e2, &np, &nb)) return 1;
            for (int i = 0; i < np; i++) {
                int tp = 0, yp = 0, bp = 0;
                if (TRACE_Get_next_primitive(fp, &cat, &ont, tt, &tp, 8, &ony, yy, &yp, 8, &onb, bb, &bp, 64)) return 1;
            }
        }
    }
    printf("records: %d (%s)\n", n, SLOG2_Get_err_string(SLOG2_OK));
    return TRACE_Close(&fp);
}
