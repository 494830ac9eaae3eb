/* The SLOG2 output and input APIs end to end: read a sample trace through the
 * TRACE-API, write it through SLOG2_Write_*, read the file back through
 * SLOG2_Get_* and the bulk queries, and exercise every error path.
 * Usage: test_slog2_api DATA.TXT OUT.slog2 */
#include <math.h>
#include <string.h>
#include "trace_API.h"
#include "slog2.h"
#include "check.h"

static int write_from_trace(const char *in, const char *out) {
    TRACE_file tf;
    SLOG2_File sf;
    if (TRACE_Open(in, &tf) != 0 || !tf) return -1;
    CHECK_EQ(SLOG2_Open(out, 'w', &sf), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_header(sf, "written by test_slog2_api"), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_header_ex(sf, 2, 65536), SLOG2_OK);
    int drawables = 0;
    for (;;) {
        TRACE_Rec_Kind_t k;
        CHECK_EQ(TRACE_Peek_next_kind(tf, &k), 0);
        if (k == TRACE_EOF) break;
        if (k == TRACE_CATEGORY) {
            TRACE_Category_head_t h; char legend[128], label[128]; int m[4];
            int ol, ob, om, lp = 0, bp = 0, mp = 0;
            CHECK_EQ(TRACE_Get_next_category(tf, &h, &ol, legend, &lp, 127, &ob, label, &bp, 127, &om, m, &mp, 4), 0);
            legend[lp] = 0; label[bp] = 0;
            SLOG2_Category_head_t sh = {h.index, h.shape, h.red, h.green, h.blue, h.alpha, h.width, 0, 0, 0};
            if (h.index == 184) {
                /* the draft form: name NUL label, method names */
                const char *methods[] = {"CONNECT_COMPOSITE_STATE", NULL};
                char text[256]; int n = (int)strlen(legend);
                memcpy(text, legend, (size_t)n + 1);
                CHECK_EQ(SLOG2_Write_category(sf, &sh, n, text, methods, NULL), SLOG2_OK);
            } else {
                CHECK_EQ(SLOG2_Write_category_ex(sf, &sh, legend, ob ? label : NULL, om, m), SLOG2_OK);
            }
        } else if (k == TRACE_YCOORDMAP) {
            int nr, nc, mc, mt, nm;
            CHECK_EQ(TRACE_Peek_next_ycoordmap(tf, &nr, &nc, &mc, &mt, &nm), 0);
            char title[64], n1[32], n2[32], n3[32]; char *names[3] = {n1, n2, n3};
            int e[64], sz, ep = 0, om, mp = 0, m[2];
            CHECK_EQ(TRACE_Get_next_ycoordmap(tf, title, names, &sz, e, &ep, 64, &om, m, &mp, 2), 0);
            const char *labels[3] = {n1, n2, n3};
            CHECK_EQ(SLOG2_Write_ycoordmap_ex(sf, title, nr, nc, labels, e, om, m), SLOG2_OK);
        } else if (k == TRACE_PRIMITIVE_DRAWABLE) {
            double st, et, t[8]; int nt, ny, nb, cat, ont, ony, onb, tp = 0, yp = 0, bp = 0, y[8]; char b[64];
            CHECK_EQ(TRACE_Peek_next_primitive(tf, &st, &et, &nt, &ny, &nb), 0);
            CHECK_EQ(TRACE_Get_next_primitive(tf, &cat, &ont, t, &tp, 8, &ony, y, &yp, 8, &onb, b, &bp, 64), 0);
            CHECK_EQ(SLOG2_Write_drawable_object(sf, st, et, cat, ont, t, ony, y, onb, b), SLOG2_OK);
            drawables++;
        } else {
            double st, et, t[32]; int np, nb, cat, onb, bp = 0, y[32], mcat[16], mnv[16], mni[16]; char info[16], minfo[256];
            CHECK_EQ(TRACE_Peek_next_composite(tf, &st, &et, &np, &nb), 0);
            CHECK_EQ(TRACE_Get_next_composite(tf, &cat, &onb, info, &bp, 16), 0);
            int tp = 0, yp = 0, ip = 0;
            for (int i = 0; i < np; i++) {
                double ms, me; int nt, ny, mnb, ont, ony, monb;
                CHECK_EQ(TRACE_Peek_next_primitive(tf, &ms, &me, &nt, &ny, &mnb), 0);
                CHECK_EQ(TRACE_Get_next_primitive(tf, &mcat[i], &ont, t, &tp, 32, &ony, y, &yp, 32, &monb, minfo, &ip, 256), 0);
                mnv[i] = ont; mni[i] = monb;
            }
            CHECK_EQ(SLOG2_Write_composite_ex(sf, st, et, cat, onb, info, np, mcat, mnv, t, y, mni, minfo), SLOG2_OK);
            drawables++;
        }
    }
    SLOG2_Category_head_t close_list = {-1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK_EQ(SLOG2_Write_category_ex(sf, &close_list, NULL, NULL, 0, NULL), SLOG2_OK);
    SLOG2_Category_head_t late = {500, 1, 1, 2, 3, 4, 1, 0, 0, 0};
    CHECK_EQ(SLOG2_Write_category_ex(sf, &late, "late", NULL, 0, NULL), SLOG2_ERR_STATE);
    /* Input calls on a write handle. */
    double a, b;
    CHECK_EQ(SLOG2_Get_total_time(sf, &a, &b), SLOG2_ERR_WRONG_MODE);
    CHECK_EQ(SLOG2_Close(&sf), SLOG2_OK);
    CHECK(sf == NULL);
    TRACE_Close(&tf);
    return drawables;
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    CHECK_EQ(write_from_trace(argv[1], argv[2]), 9);

    SLOG2_File f;
    CHECK_EQ(SLOG2_Open(argv[2], 'r', &f), SLOG2_OK);
    char desc[128]; int version = 0;
    CHECK(SLOG2_Get_header(f, desc, 4, &version) < -4); /* too small: negative needed length */
    CHECK_EQ(version, 0);
    CHECK_EQ(SLOG2_Get_header(f, desc, sizeof desc, &version), SLOG2_OK);
    CHECK_EQ(version, 206);
    CHECK(strncmp(desc, "SLOG 2.0.6", 10) == 0);
    double t0, t1;
    CHECK_EQ(SLOG2_Get_total_time(f, &t0, &t1), SLOG2_OK);
    CHECK(t0 == 0.0005 && t1 == 0.008);

    int nn = 0;
    CHECK_EQ(SLOG2_Read_dir(f, NULL, 0, &nn), SLOG2_ERR_ARRAY_TOO_SMALL);
    CHECK_EQ(nn, 1);
    SLOG2_Treedir_node dir[4];
    CHECK_EQ(SLOG2_Read_dir(f, dir, 4, &nn), SLOG2_OK);
    CHECK_EQ(dir[0].parent, -1);
    CHECK_EQ(dir[0].block_offset, 108);

    /* Categories: 7 used + 2 preview. */
    int ncat = 0, rc;
    SLOG2_Category_head_t h; char text[64], legend[64];
    for (;;) {
        int tp = 0, lp = 0;
        rc = SLOG2_Get_next_category(f, &h, text, &tp, 64, legend, &lp, 64);
        if (rc == SLOG2_ERR_EOF) break;
        CHECK_EQ(rc, SLOG2_OK);
        legend[lp] = 0;
        if (strcmp(legend, "message") == 0) { CHECK_EQ(h.count, 6); CHECK(fabs(h.incl_ratio - 1.6666666) < 1e-5); }
        ncat++;
    }
    CHECK_EQ(ncat, 9);

    /* Drawables in drawing order. */
    int nd = 0;
    double st, et; int nt, ny, ntext;
    CHECK_EQ(SLOG2_Peek_next_drawable(f, &st, &et, &nt, &ny, &ntext), SLOG2_OK);
    CHECK(st == 0.0005 && et == 0.001);
    double coords[64]; char info[64];
    int cat, nc, cp = 0, ip = 0;
    CHECK_EQ(SLOG2_Get_next_drawable(f, &st, &et, &cat, &nc, coords, &cp, 3, info, &ip, 64), SLOG2_ERR_ARRAY_TOO_SMALL);
    CHECK_EQ(cp, 0);
    while ((rc = SLOG2_Get_next_drawable(f, &st, &et, &cat, &nc, coords, &cp, 64, info, &ip, 64)) == SLOG2_OK) {
        nd++; cp = 0; ip = 0;
    }
    CHECK_EQ(rc, SLOG2_ERR_EOF);
    CHECK_EQ(nd, 9);
    CHECK_EQ(SLOG2_Get_position(f), 9);
    SLOG2_Set_position(f, 3);
    CHECK_EQ(SLOG2_Get_position(f), 3);
    CHECK_EQ(SLOG2_Set_position_ex(f, 99), SLOG2_ERR_BAD_ARG);
    CHECK_EQ(SLOG2_Get_position(NULL), -1);

    /* Popup text. */
    const char payload[8] = {0, 0, 0, 3, 0, 0, 0x07, (char)0xd0};
    char out[64];
    CHECK_EQ(SLOG2_Get_drawable_text_ex(f, 0, payload, 8, out, sizeof out), SLOG2_OK);
    CHECK(strcmp(out, "msg_tag=3, msg_size=2000") == 0);
    CHECK_EQ(SLOG2_Get_drawable_text_ex(f, 0, payload, 8, out, 5), SLOG2_ERR_ARRAY_TOO_SMALL);
    SLOG2_Get_drawable_text(f, 0, payload, out, sizeof out);
    CHECK(strcmp(out, "msg_tag=3, msg_size=2000") == 0);

    /* Y-maps: 3 from the trace + identity. */
    int nmaps = 0;
    CHECK_EQ(SLOG2_Get_ycoordmap_count(f, &nmaps), SLOG2_OK);
    CHECK_EQ(nmaps, 4);
    char title[64]; int nr, ncol, ne, e[64], ep = 0;
    CHECK_EQ(SLOG2_Get_ycoordmap(f, 3, title, 64, &nr, &ncol, &ne, e, &ep, 64), SLOG2_OK);
    CHECK(strcmp(title, "Identity Map") == 0);
    CHECK_EQ(nr, 5);
    CHECK_EQ(SLOG2_Get_ycoordmap_label(f, 2, 2, title, 64), SLOG2_OK);
    CHECK(strcmp(title, "lblCC") == 0);
    CHECK_EQ(SLOG2_Get_ycoordmap(f, 9, title, 64, &nr, &ncol, &ne, e, &ep, 64), SLOG2_ERR_BAD_ARG);

    /* Bulk window query: size, too small, then the real thing. */
    int rows = 0, ib = 0;
    CHECK_EQ(SLOG2_Query_window_size(f, 0.0015, 0.002, -1, &rows, &ib), SLOG2_OK);
    /* 6 drawables; the composites' 10 members follow them as rows of their own. */
    CHECK_EQ(rows, 16);
    CHECK_EQ(ib, 48);
    int kind[32], qcat[32], l0[32], l1[32], ioff[32], ilen[32]; double qs[32], qe[32]; long long nreal[32];
    SLOG2_Query_columns cols = {kind, qcat, qs, qe, l0, l1, (int64_t *)nreal, ioff, ilen, NULL, NULL, NULL};
    char qinfo[128]; int pos = 0, qip = 0, n_out = 0;
    SLOG2_Query_stats stats;
    CHECK_EQ(SLOG2_Query_window(f, 0.0015, 0.002, &n_out, &cols, &pos, 3, qinfo, &qip, 64, &stats), SLOG2_ERR_ARRAY_TOO_SMALL);
    CHECK_EQ(n_out, 16);
    CHECK_EQ(pos, 0);
    CHECK_EQ(SLOG2_Query_window(f, 0.0015, 0.002, &n_out, &cols, &pos, 32, qinfo, &qip, 128, &stats), SLOG2_OK);
    CHECK_EQ(n_out, 16);
    CHECK_EQ(pos, 16);
    CHECK_EQ(qip, 48);
    CHECK_EQ(stats.nodes_read, 1);
    CHECK(qs[0] <= qs[1]);
    /* Preview at depth 0 = the window. */
    pos = 0; qip = 0;
    CHECK_EQ(SLOG2_Query_preview(f, 0.0, 1.0, 0, &n_out, &cols, &pos, 32, qinfo, &qip, 128, NULL), SLOG2_OK);
    CHECK_EQ(n_out, 23);
    int wn = 0, wpos = 0;
    CHECK_EQ(SLOG2_Query_preview_weights(f, 0.0, 1.0, 0, &wn, NULL, NULL, NULL, NULL, NULL, &wpos, 0), SLOG2_OK);
    CHECK_EQ(wn, 0);
    CHECK_EQ(SLOG2_Query_preview(f, 0.0, 1.0, -1, &n_out, &cols, &pos, 16, qinfo, &qip, 64, NULL), SLOG2_ERR_BAD_ARG);
    CHECK_EQ(SLOG2_Query_window(f, 2.0, 1.0, &n_out, &cols, &pos, 16, qinfo, &qip, 64, NULL), SLOG2_ERR_BAD_ARG);

    /* Output calls on a read handle; NULLs. */
    CHECK_EQ(SLOG2_Write_start_treenode(f), SLOG2_ERR_WRONG_MODE);
    CHECK_EQ(SLOG2_Get_total_time(f, NULL, &t1), SLOG2_ERR_NULL_ARG);
    CHECK(strlen(SLOG2_Get_last_error()) > 0);
    CHECK(SLOG2_Get_err_string(SLOG2_ERR_ORDER) != NULL);
    CHECK(SLOG2_Get_err_string(999) != NULL);

    SLOG2_File saved = f;
    CHECK_EQ(SLOG2_Close(&f), SLOG2_OK);
    CHECK_EQ(SLOG2_Close(&saved), SLOG2_ERR_BAD_HANDLE); /* double close */
    CHECK_EQ(SLOG2_Get_total_time(saved, &t0, &t1), SLOG2_ERR_BAD_HANDLE);
    CHECK_EQ(SLOG2_Close(NULL), SLOG2_ERR_NULL_ARG);

    /* Error paths of the output API. */
    SLOG2_File w;
    CHECK_EQ(SLOG2_Open(argv[2], 'x', &w), SLOG2_ERR_BAD_ARG);
    CHECK(w == NULL);
    CHECK_EQ(SLOG2_Open("/nonexistent-dir/x.slog2", 'w', &w), SLOG2_ERR_IO);
    CHECK_EQ(SLOG2_Open("/nonexistent-dir/x.slog2", 'r', &w), SLOG2_ERR_IO);
    char bad_out[512];
    snprintf(bad_out, sizeof bad_out, "%s.bad", argv[2]);
    CHECK_EQ(SLOG2_Open(bad_out, 'w', &w), SLOG2_OK);
    SLOG2_Category_head_t s1 = {1, 1, 255, 0, 0, 255, 1, 0, 0, 0};
    CHECK_EQ(SLOG2_Write_category_ex(w, &s1, "S", NULL, 0, NULL), SLOG2_OK);
    SLOG2_Category_head_t badshape = {2, 7, 0, 0, 0, 0, 1, 0, 0, 0};
    CHECK_EQ(SLOG2_Write_category_ex(w, &badshape, "X", NULL, 0, NULL), SLOG2_ERR_BAD_ARG);
    SLOG2_Category_head_t badcolor = {2, 1, 300, 0, 0, 0, 1, 0, 0, 0};
    CHECK_EQ(SLOG2_Write_category_ex(w, &badcolor, "X", NULL, 0, NULL), SLOG2_ERR_BAD_ARG);
    double tt[2] = {1.0, 2.0}; int yy[2] = {0, 0};
    CHECK_EQ(SLOG2_Write_drawable_object(w, 1.0, 2.0, 1, 2, tt, 2, yy, 0, NULL), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_drawable_object(w, 1.0, 3.0, 1, 2, tt, 2, yy, 0, NULL), SLOG2_ERR_BAD_ARG); /* box != envelope */
    CHECK_EQ(SLOG2_Write_drawable_object(w, 1.0, 2.0, 1, -2, tt, 2, yy, 0, NULL), SLOG2_ERR_BAD_ARG);
    CHECK_EQ(SLOG2_Write_drawable_object(w, 1.0, 2.0, 1, 2, NULL, 2, yy, 0, NULL), SLOG2_ERR_NULL_ARG);
    double early[2] = {0.0, 0.5};
    CHECK_EQ(SLOG2_Write_drawable_object(w, 0.0, 0.5, 1, 2, early, 2, yy, 0, NULL), SLOG2_ERR_ORDER);
    CHECK(strstr(SLOG2_Get_last_error(), "end time") != NULL);
    CHECK_EQ(SLOG2_Write_header_ex(w, 3, 1024), SLOG2_ERR_STATE); /* too late */
    CHECK_EQ(SLOG2_Write_end_treenode(w), SLOG2_ERR_STATE);
    CHECK_EQ(SLOG2_Write_start_treenode(w), SLOG2_OK);
    CHECK_EQ(SLOG2_Close(&w), SLOG2_ERR_STATE); /* unbalanced: no file */
    FILE *chk = fopen(bad_out, "rb");
    CHECK(chk == NULL);
    if (chk) fclose(chk);

    /* A caller directory that does not match the tree: close fails, no file. */
    CHECK_EQ(SLOG2_Open(bad_out, 'w', &w), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_drawable_object(w, 1.0, 2.0, 1, 2, tt, 2, yy, 0, NULL), SLOG2_OK);
    SLOG2_Treedir_node wrong = {3, 0, 0.0, 9.0, 0, 0, -1, -1, -1};
    CHECK_EQ(SLOG2_Write_dir(w, &wrong, 1), SLOG2_OK);
    CHECK_EQ(SLOG2_Close(&w), SLOG2_ERR_STATE);
    chk = fopen(bad_out, "rb");
    CHECK(chk == NULL);
    if (chk) fclose(chk);
    /* A matching one is accepted. */
    CHECK_EQ(SLOG2_Open(bad_out, 'w', &w), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_drawable_object(w, 1.0, 2.0, 1, 2, tt, 2, yy, 0, NULL), SLOG2_OK);
    SLOG2_Treedir_node right = {0, 0, 1.0, 2.0, 0, 0, -1, -1, -1};
    CHECK_EQ(SLOG2_Write_dir(w, &right, 1), SLOG2_OK);
    /* The draft's coordinate class: a one-column y-map. */
    int in_lines[2] = {0, 1}, out_vals[2] = {10, 11};
    const char *clabel[1] = {"node"};
    CHECK_EQ(SLOG2_Write_coord_class(w, "Nodes", 2, in_lines, out_vals, clabel), SLOG2_OK);
    CHECK_EQ(SLOG2_Write_coord_class(w, "Nodes", 0, in_lines, out_vals, clabel), SLOG2_ERR_BAD_ARG);
    CHECK_EQ(SLOG2_Close(&w), SLOG2_OK);
    CHECK_EQ(SLOG2_Open(bad_out, 'r', &w), SLOG2_OK);
    CHECK_EQ(SLOG2_Get_ycoordmap_count(w, &nmaps), SLOG2_OK);
    CHECK_EQ(nmaps, 2);
    ep = 0;
    CHECK_EQ(SLOG2_Get_ycoordmap(w, 0, title, 64, &nr, &ncol, &ne, e, &ep, 64), SLOG2_OK);
    CHECK(strcmp(title, "Nodes") == 0);
    CHECK_EQ(e[3], 11);
    CHECK_EQ(SLOG2_Close(&w), SLOG2_OK);
    remove(bad_out);
    /* No drawables: no file. */
    CHECK_EQ(SLOG2_Open(bad_out, 'w', &w), SLOG2_OK);
    CHECK_EQ(SLOG2_Close(&w), SLOG2_ERR_NO_DRAWABLES);
    return check_report("test_slog2_api");
}
