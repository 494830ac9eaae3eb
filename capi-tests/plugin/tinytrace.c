/* tinytrace: a minimal TRACE-API reader converted through `slog2 convert --trace-lib` by CTest (capi-tests/CMakeLists.txt) and by cli/tests/convert_cli.rs.
 *
 * Format (one record per line):  C index shape r g b a width name [label]
 *                                 S cat line t0 t1        (state)
 *                                 A cat from to t0 t1 v   (arrow, info %d = v)
 * -DOMIT_SYMBOL leaves out TRACE_Peek_next_composite (a missing-symbol test);
 * -DFAIL_AT=N makes the Nth drawable fail with an error code and text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct _trace_file { FILE *f; char line[512]; int have; int kind; int ndrawables; } *TRACE_file;
typedef struct { int index, shape, red, green, blue, alpha, width; } TRACE_Category_head_t;

static int load(TRACE_file fp) {
    if (fp->have) return 0;
    for (;;) {
        if (!fgets(fp->line, sizeof fp->line, fp->f)) { fp->kind = 0; fp->have = 1; return 0; }
        if (fp->line[0] == 'C') fp->kind = 3;
        else if (fp->line[0] == 'S' || fp->line[0] == 'A') fp->kind = 1;
        else continue;
        fp->have = 1;
        return 0;
    }
}

int TRACE_Open(const char filespec[], TRACE_file *fp) {
    *fp = NULL;
    if (strncmp(filespec, "-h", 2) == 0) return 0;
    FILE *f = fopen(filespec, "r");
    if (!f) return 1;
    *fp = calloc(1, sizeof **fp);
    (*fp)->f = f;
    return 0;
}
int TRACE_Close(TRACE_file *fp) { if (*fp) { fclose((*fp)->f); free(*fp); *fp = NULL; } return 0; }
char *TRACE_Get_err_string(int ierr) {
    switch (ierr) {
    case 0: return "usage: tinytrace FILE";
    case 1: return "tinytrace: cannot open file";
    case 7: return "tinytrace: injected failure";
    default: return "tinytrace: error";
    }
}
int TRACE_Peek_next_kind(const TRACE_file fp, int *kind) { load(fp); *kind = fp->kind; return 0; }

int TRACE_Peek_next_category(const TRACE_file fp, int *nl, int *nb, int *nm) {
    char name[128] = "", label[128] = "";
    int i, s, r, g, b, a, w;
    sscanf(fp->line, "C %d %d %d %d %d %d %d %127s %127[^\n]", &i, &s, &r, &g, &b, &a, &w, name, label);
    *nl = (int)strlen(name); *nb = (int)strlen(label); *nm = 0;
    return 0;
}
int TRACE_Get_next_category(const TRACE_file fp, TRACE_Category_head_t *h,
    int *nl, char lb[], int *lp, const int lm, int *nb, char bb[], int *bp, const int bm,
    int *nm, int mb[], int *mp, const int mm) {
    char name[128] = "", label[128] = "";
    (void)mb; (void)mp; (void)mm;
    sscanf(fp->line, "C %d %d %d %d %d %d %d %127s %127[^\n]", &h->index, &h->shape, &h->red, &h->green,
           &h->blue, &h->alpha, &h->width, name, label);
    int n = (int)strlen(name), m = (int)strlen(label);
    if (*lp + n > lm || (m > 0 && *bp + m > bm)) return 2;
    memcpy(lb + *lp, name, n); *lp += n; *nl = n;
    if (m) { memcpy(bb + *bp, label, m); *bp += m; }
    *nb = m; *nm = 0;
    fp->have = 0;
    return 0;
}
int TRACE_Peek_next_ycoordmap(TRACE_file fp, int *a, int *b, int *c, int *d, int *e) { (void)fp; (void)a; (void)b; (void)c; (void)d; (void)e; return 3; }
int TRACE_Get_next_ycoordmap(TRACE_file fp, char *t, char **c, int *s, int b[], int *p, const int m, int *n, int mb[], int *mp, const int mm) {
    (void)fp; (void)t; (void)c; (void)s; (void)b; (void)p; (void)m; (void)n; (void)mb; (void)mp; (void)mm; return 3;
}
int TRACE_Peek_next_primitive(const TRACE_file fp, double *st, double *et, int *nt, int *ny, int *nb) {
    int c, l, l2, v; double t0, t1;
    if (fp->line[0] == 'S') { sscanf(fp->line, "S %d %d %lf %lf", &c, &l, &t0, &t1); *nb = 0; }
    else { sscanf(fp->line, "A %d %d %d %lf %lf %d", &c, &l, &l2, &t0, &t1, &v); *nb = 4; }
    *st = t0 < t1 ? t0 : t1; *et = t0 < t1 ? t1 : t0; *nt = 2; *ny = 2;
    return 0;
}
int TRACE_Get_next_primitive(const TRACE_file fp, int *cat, int *nt, double tb[], int *tp, const int tm,
    int *ny, int yb[], int *yp, const int ym, int *nb, char bb[], int *bp, const int bm) {
    int l, l2 = 0, v = 0; double t0, t1;
    fp->ndrawables++;
#ifdef FAIL_AT
    if (fp->ndrawables == FAIL_AT) return 7;
#endif
    if (fp->line[0] == 'S') { sscanf(fp->line, "S %d %d %lf %lf", cat, &l, &t0, &t1); l2 = l; *nb = 0; }
    else {
        sscanf(fp->line, "A %d %d %d %lf %lf %d", cat, &l, &l2, &t0, &t1, &v);
        if (*bp + 4 > bm) return 2;
        unsigned char *u = (unsigned char *)bb + *bp;
        u[0] = (unsigned)v >> 24; u[1] = (unsigned)v >> 16; u[2] = (unsigned)v >> 8; u[3] = (unsigned)v;
        *bp += 4; *nb = 4;
    }
    if (*tp + 2 > tm || *yp + 2 > ym) return 2;
    tb[*tp] = t0; tb[*tp + 1] = t1; *tp += 2; *nt = 2;
    yb[*yp] = l; yb[*yp + 1] = l2; *yp += 2; *ny = 2;
    fp->have = 0;
    return 0;
}
#ifndef OMIT_SYMBOL
int TRACE_Peek_next_composite(const TRACE_file fp, double *s, double *e, int *n, int *b) { (void)fp; (void)s; (void)e; (void)n; (void)b; return 4; }
#endif
int TRACE_Get_next_composite(const TRACE_file fp, int *c, int *n, char b[], int *p, const int m) { (void)fp; (void)c; (void)n; (void)b; (void)p; (void)m; return 4; }
