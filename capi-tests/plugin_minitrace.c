/*
 * plugin_minitrace.c -- a small, complete TRACE-API reader (trace_API.h) for
 * "minitrace", a made-up line format. Built as a shared library
 * (libminitrace.so) that TRACE-API clients link against, or that
 * `slog2 convert --trace-lib` loads. It does not use libslog2.
 *
 * FILESPEC: one path (the whole string, spaces included). Help is requested
 * when the first blank-separated word is -h, --h, -help or --help: TRACE_Open
 * then stores a NULL handle and returns 0, and TRACE_Get_err_string(0) is the
 * help text.
 *
 * FORMAT. One record per line, fields separated by blanks (spaces or tabs).
 * Empty lines and lines whose first non-blank character is '#' are ignored.
 *
 *   cat INDEX NAME SHAPE R G B A WIDTH [method=ID]... [LABEL...]
 *       A category. SHAPE is state, arrow or event; R G B A are 0..255;
 *       WIDTH >= 0; INDEX >= 0. NAME is the legend. The optional method=ID
 *       words give method IDs; the rest of the line (if any) is the label, the
 *       popup format of the category's drawables, in which only the 4-byte
 *       tokens %d and %x are supported.
 *   ymap TITLE NROWS NCOLS COLNAME... [method=ID]...
 *       A y-coordinate map with exactly NCOLS-1 column names (NROWS >= 1,
 *       NCOLS >= 2), followed by NROWS lines of NCOLS integers each: the line
 *       ID, then the values of the named columns.
 *   state CAT LINE T0 T1 [INT...]
 *       A state on line LINE from T0 to T1; vertices (T0,LINE) (T1,LINE);
 *       time box (T0,T1) exactly as written (T0 > T1 gives an inverted box).
 *   arrow CAT FROM TO T0 T1 [INT...]
 *       An arrow from (T0,FROM) to (T1,TO); T1 < T0 is a backwards arrow.
 *       Time box: (min(T0,T1), max(T0,T1)).
 *   event CAT LINE T [INT...]
 *       An event: one vertex (T,LINE), time box (T,T).
 *   comp CAT T0 T1 N [INT...]
 *       A composite with time box (T0,T1) as written, followed by exactly N >= 1
 *       state/arrow/event lines: its members.
 *
 *   CAT must be the index of a category defined on an earlier line. INT... are
 *   the info values: exactly one per %d/%x token of the category's label, each
 *   delivered as 4 bytes, big-endian (the SLOG-2 popup encoding).
 *
 * API behaviour (trace-api.md, "Our rule" paragraphs): peeks are idempotent;
 * a record is consumed only by its successful Get; a Peek/Get for a kind other
 * than the current record's fails and changes nothing; a Get without its Peek
 * does the peek itself; inside a composite, Get_next_composite is optional and
 * the first Peek_next_primitive enters it. Four-argument arrays are checked
 * before anything is written: on failure nothing is written, *pos and *n_out
 * are unchanged, and the record stays current. Every n_out is always stored.
 * Get_next_method returns a "not supported" code. Get_position returns a
 * cookie (byte offset) for the record the next Peek_next_kind announces (not
 * inside a composite); Set_position accepts only cookies this handle returned.
 * Handles are checked against a list of open handles, so a NULL, closed or
 * made-up handle gives an error code, never a crash. A syntax error is
 * reported (file and line) by the call that reaches the bad line and is sticky
 * for the handle. The library is not thread-safe (one global handle list and
 * one buffer for the last syntax error text).
 *
 * Test variants (same source):
 *   -DOMIT_GET_ERR_STRING   leaves TRACE_Get_err_string out (missing symbol);
 *   -DFAIL_AT_RECORD=N      the Nth top-level drawable fails in its
 *                           Peek/Get_next_primitive/composite with a code of
 *                           its own ("injected failure"); sticky afterwards.
 */
#define _POSIX_C_SOURCE 200809L /* getline, fseeko, ftello */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "trace_API.h"

/* Return codes (0 = success). */
enum {
    ERR_OPEN = 1,        /* cannot open the file */
    ERR_ARG = 2,         /* NULL argument, or a handle that is not open */
    ERR_SYNTAX = 3,      /* bad input line (details in syntax_text) */
    ERR_KIND = 4,        /* call does not match the kind of the current record */
    ERR_ARRAY = 5,       /* a four-argument array is too small, or pos/max invalid */
    ERR_EOF_COMP = 6,    /* end of file inside a composite */
    ERR_METHOD = 7,      /* TRACE_Get_next_method is not supported */
    ERR_POSITION = 8,    /* position inside a composite, or unknown cookie */
    ERR_NOMEM = 9,       /* out of memory */
    ERR_IO = 10,         /* read or seek error */
    ERR_INJECTED = 11    /* FAIL_AT_RECORD */
};

#define STR_(x) #x
#define STR(x) STR_(x)

static char syntax_text[512] = "minitrace: syntax error";

/* The current record (one line, or a ymap with its rows). */
typedef struct {
    TRACE_Rec_Kind_t kind;
    long line;            /* line number of the record's first line */
    long long offset;     /* byte offset of that line */
    int nmethods;         /* category, ymap */
    int *methods;
    TRACE_Category_head_t head; /* category */
    char *legend, *label;       /* label: "" when none */
    char *title;                /* ymap */
    int nrows, ncols;
    char **colnames;            /* ncols-1 names */
    int *elems;                 /* nrows*ncols, row-major */
    int category;               /* primitive, composite */
    int nverts;                 /* primitive: 1 or 2 */
    double t[2];
    int y[2];
    double start, end;
    int nmembers;               /* composite */
    int nbytes;
    char *bytes;
} record;

typedef struct { int index, ntokens; } catinfo;
typedef struct { long long offset; long line, drawables; } cookie;

struct _trace_file {
    char *path;
    FILE *f;
    char *buf;              /* getline buffer */
    size_t cap;
    long line_no;           /* lines read so far */
    long drawables;         /* top-level drawables loaded so far */
    int have;               /* rec is loaded and not consumed */
    int eof;                /* end of input reached (between records) */
    int members_left;       /* > 0 inside an entered composite: members not yet consumed */
    int failed;             /* sticky error code */
    record rec;
    catinfo *cats;          /* categories defined so far */
    size_t ncats;
    cookie *cookies;        /* positions handed out by TRACE_Get_position */
    size_t ncookies;
    struct _trace_file *next;
};

static struct _trace_file *open_handles = NULL;

static int valid(const struct _trace_file *fp)
{
    for (const struct _trace_file *h = open_handles; h; h = h->next)
        if (h == fp) return 1;
    return 0;
}

static int syntax(const TRACE_file fp, const char *fmt, ...)
{
    int n = snprintf(syntax_text, sizeof syntax_text, "minitrace: %s:%ld: ", fp->path, fp->line_no);
    if (n < 0 || (size_t)n >= sizeof syntax_text) n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(syntax_text + n, sizeof syntax_text - (size_t)n, fmt, ap);
    va_end(ap);
    return ERR_SYNTAX;
}

static void rec_clear(record *r)
{
    free(r->methods);
    free(r->legend);
    free(r->label);
    free(r->title);
    if (r->colnames)
        for (int i = 0; i < r->ncols - 1; i++) free(r->colnames[i]);
    free(r->colnames);
    free(r->elems);
    free(r->bytes);
    memset(r, 0, sizeof *r);
}

/* ---- tokens ------------------------------------------------------------ */

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* Next blank-separated word of *p (NUL-terminated in place), or NULL. */
static char *word(char **p)
{
    char *s = *p;
    while (is_blank(*s)) s++;
    if (*s == '\0') { *p = s; return NULL; }
    char *w = s;
    while (*s && !is_blank(*s)) s++;
    if (*s) *s++ = '\0';
    *p = s;
    return w;
}

static int to_int(const char *w, int *out)
{
    if (!w) return 0;
    char *end;
    errno = 0;
    long v = strtol(w, &end, 10);
    if (end == w || *end || errno || v < INT_MIN || v > INT_MAX) return 0;
    *out = (int)v;
    return 1;
}

static int to_double(const char *w, double *out)
{
    if (!w) return 0;
    char *end;
    errno = 0;
    double v = strtod(w, &end);
    if (end == w || *end || errno || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* Read the next line that is not empty or a comment into fp->buf; *text is
 * its content without the line end, *offset its position. 0 at end of file. */
static int next_line(TRACE_file fp, char **text, long long *offset, int *rc)
{
    for (;;) {
        off_t off = ftello(fp->f);
        ssize_t n = getline(&fp->buf, &fp->cap, fp->f);
        if (n < 0) {
            *rc = ferror(fp->f) ? ERR_IO : 0;
            return 0;
        }
        fp->line_no++;
        while (n > 0 && (fp->buf[n - 1] == '\n' || fp->buf[n - 1] == '\r')) fp->buf[--n] = '\0';
        char *s = fp->buf;
        while (is_blank(*s)) s++;
        if (*s == '\0' || *s == '#') continue;
        *text = s;
        *offset = (long long)off;
        *rc = 0;
        return 1;
    }
}

/* ---- records ------------------------------------------------------------ */

static catinfo *find_cat(TRACE_file fp, int index)
{
    for (size_t i = 0; i < fp->ncats; i++)
        if (fp->cats[i].index == index) return &fp->cats[i];
    return NULL;
}

/* Append method=ID words (while they come) to r->methods; *p is advanced
 * past them. Returns 0 or an error code. */
static int parse_methods(TRACE_file fp, record *r, char **p)
{
    for (;;) {
        char *s = *p;
        while (is_blank(*s)) s++;
        if (strncmp(s, "method=", 7) != 0) { *p = s; return 0; }
        char *w = word(p);
        int id;
        if (!to_int(w + 7, &id)) return syntax(fp, "bad method ID '%s'", w + 7);
        int *m = realloc(r->methods, sizeof(int) * (size_t)(r->nmethods + 1));
        if (!m) return ERR_NOMEM;
        r->methods = m;
        r->methods[r->nmethods++] = id;
    }
}

static int parse_category(TRACE_file fp, record *r, char *p)
{
    static const char *const shapes[] = { "event", "state", "arrow" }; /* = TRACE_SHAPE_* */
    int v[7];
    char *name, *shape;
    if (!to_int(word(&p), &v[0]) || v[0] < 0) return syntax(fp, "cat: bad INDEX");
    if (!(name = word(&p))) return syntax(fp, "cat: missing NAME");
    if (!(shape = word(&p))) return syntax(fp, "cat: missing SHAPE");
    for (v[1] = 0; v[1] < 3 && strcmp(shape, shapes[v[1]]) != 0; v[1]++) {}
    if (v[1] == 3) return syntax(fp, "cat: SHAPE must be state, arrow or event, not '%s'", shape);
    for (int i = 2; i < 6; i++)
        if (!to_int(word(&p), &v[i]) || v[i] < 0 || v[i] > 255)
            return syntax(fp, "cat: colour components must be integers 0..255");
    if (!to_int(word(&p), &v[6]) || v[6] < 0) return syntax(fp, "cat: bad WIDTH");
    r->kind = TRACE_CATEGORY;
    r->head.index = v[0];
    r->head.shape = v[1];
    r->head.red = v[2];
    r->head.green = v[3];
    r->head.blue = v[4];
    r->head.alpha = v[5];
    r->head.width = v[6];
    int rc = parse_methods(fp, r, &p);
    if (rc) return rc;
    /* The label: the rest of the line, trailing blanks removed. */
    size_t n = strlen(p);
    while (n > 0 && is_blank(p[n - 1])) p[--n] = '\0';
    int ntokens = 0;
    for (const char *s = p; (s = strchr(s, '%')) != NULL; s += 2) {
        if (s[1] != 'd' && s[1] != 'x') return syntax(fp, "cat: label tokens must be %%d or %%x");
        ntokens++;
    }
    if (!(r->legend = dup_str(name)) || !(r->label = dup_str(p))) return ERR_NOMEM;
    /* Register the category (a repeated index replaces the earlier one). */
    catinfo *c = find_cat(fp, v[0]);
    if (!c) {
        catinfo *cats = realloc(fp->cats, sizeof *cats * (fp->ncats + 1));
        if (!cats) return ERR_NOMEM;
        fp->cats = cats;
        c = &fp->cats[fp->ncats++];
        c->index = v[0];
    }
    c->ntokens = ntokens;
    return 0;
}

static int parse_ymap(TRACE_file fp, record *r, char *p)
{
    char *title = word(&p);
    if (!title) return syntax(fp, "ymap: missing TITLE");
    if (!to_int(word(&p), &r->nrows) || r->nrows < 1) return syntax(fp, "ymap: NROWS must be >= 1");
    if (!to_int(word(&p), &r->ncols) || r->ncols < 2 || r->ncols > 1000)
        return syntax(fp, "ymap: NCOLS must be 2..1000");
    if (r->nrows > INT_MAX / r->ncols) return syntax(fp, "ymap: table too large");
    r->kind = TRACE_YCOORDMAP;
    if (!(r->title = dup_str(title))) return ERR_NOMEM;
    if (!(r->colnames = calloc((size_t)r->ncols - 1, sizeof(char *)))) return ERR_NOMEM;
    for (int i = 0; i < r->ncols - 1; i++) {
        char *w = word(&p);
        if (!w || strncmp(w, "method=", 7) == 0) return syntax(fp, "ymap: expected %d column names", r->ncols - 1);
        if (!(r->colnames[i] = dup_str(w))) return ERR_NOMEM;
    }
    int rc = parse_methods(fp, r, &p);
    if (rc) return rc;
    if (*p) return syntax(fp, "ymap: unexpected '%s'", p);
    if (!(r->elems = malloc(sizeof(int) * (size_t)r->nrows * (size_t)r->ncols))) return ERR_NOMEM;
    for (int row = 0; row < r->nrows; row++) {
        long long off;
        char *line;
        if (!next_line(fp, &line, &off, &rc)) return rc ? rc : syntax(fp, "ymap: end of file in the rows");
        for (int c = 0; c < r->ncols; c++)
            if (!to_int(word(&line), &r->elems[row * r->ncols + c]))
                return syntax(fp, "ymap: a row needs %d integers", r->ncols);
        if (word(&line)) return syntax(fp, "ymap: a row needs %d integers", r->ncols);
    }
    return 0;
}

/* The info values that end a drawable line, checked against the label. */
static int parse_info(TRACE_file fp, record *r, char *p)
{
    catinfo *c = find_cat(fp, r->category);
    if (!c) return syntax(fp, "category %d is not defined before its first use", r->category);
    if (c->ntokens > 0 && !(r->bytes = malloc(4 * (size_t)c->ntokens))) return ERR_NOMEM;
    char *w;
    int v;
    while ((w = word(&p)) != NULL) {
        if (!to_int(w, &v)) return syntax(fp, "bad info value '%s'", w);
        if (r->nbytes / 4 == c->ntokens)
            return syntax(fp, "more info values than the %d token(s) of category %d", c->ntokens, r->category);
        unsigned u = (unsigned)v;
        unsigned char *b = (unsigned char *)r->bytes + r->nbytes;
        b[0] = (unsigned char)(u >> 24);
        b[1] = (unsigned char)(u >> 16);
        b[2] = (unsigned char)(u >> 8);
        b[3] = (unsigned char)u;
        r->nbytes += 4;
    }
    if (r->nbytes / 4 != c->ntokens)
        return syntax(fp, "category %d needs %d info value(s)", r->category, c->ntokens);
    return 0;
}

static int parse_drawable(TRACE_file fp, record *r, const char *kw, char *p)
{
    int ok;
    if (!to_int(word(&p), &r->category)) return syntax(fp, "%s: bad CAT", kw);
    if (strcmp(kw, "state") == 0) {
        ok = to_int(word(&p), &r->y[0]) && to_double(word(&p), &r->t[0]) && to_double(word(&p), &r->t[1]);
        r->y[1] = r->y[0];
        r->nverts = 2;
        r->start = r->t[0];
        r->end = r->t[1];
    } else if (strcmp(kw, "arrow") == 0) {
        ok = to_int(word(&p), &r->y[0]) && to_int(word(&p), &r->y[1]) && to_double(word(&p), &r->t[0]) &&
             to_double(word(&p), &r->t[1]);
        r->nverts = 2;
        r->start = fmin(r->t[0], r->t[1]);
        r->end = fmax(r->t[0], r->t[1]);
    } else if (strcmp(kw, "event") == 0) {
        ok = to_int(word(&p), &r->y[0]) && to_double(word(&p), &r->t[0]);
        r->nverts = 1;
        r->start = r->end = r->t[0];
    } else { /* comp */
        ok = to_double(word(&p), &r->start) && to_double(word(&p), &r->end) && to_int(word(&p), &r->nmembers);
        if (ok && r->nmembers < 1) return syntax(fp, "comp: N must be >= 1");
    }
    if (!ok) return syntax(fp, "%s: missing or bad fields", kw);
    r->kind = strcmp(kw, "comp") == 0 ? TRACE_COMPOSITE_DRAWABLE : TRACE_PRIMITIVE_DRAWABLE;
    return parse_info(fp, r, p);
}

/* Make sure fp->rec holds the current record (or fp->eof is set). */
static int current(TRACE_file fp)
{
    if (fp->failed) return fp->failed;
    if (fp->have || fp->eof) return 0;
    int member = fp->members_left > 0, rc;
    record *r = &fp->rec;
    rec_clear(r);
    char *p;
    long long off;
    if (!next_line(fp, &p, &off, &rc)) {
        if (rc == 0 && member) {
            snprintf(syntax_text, sizeof syntax_text, "minitrace: %s: end of file inside a composite", fp->path);
            rc = ERR_EOF_COMP;
        }
        if (rc) return fp->failed = rc;
        fp->eof = 1;
        return 0;
    }
    r->line = fp->line_no;
    r->offset = off;
    char *kw = word(&p);
    if (strcmp(kw, "state") == 0 || strcmp(kw, "arrow") == 0 || strcmp(kw, "event") == 0)
        rc = parse_drawable(fp, r, kw, p);
    else if (member)
        rc = syntax(fp, "a composite member must be a state, arrow or event line");
    else if (strcmp(kw, "comp") == 0)
        rc = parse_drawable(fp, r, kw, p);
    else if (strcmp(kw, "cat") == 0)
        rc = parse_category(fp, r, p);
    else if (strcmp(kw, "ymap") == 0)
        rc = parse_ymap(fp, r, p);
    else
        rc = syntax(fp, "unknown record '%s'", kw);
    if (rc) {
        rec_clear(r);
        return fp->failed = rc;
    }
    if (!member && (r->kind == TRACE_PRIMITIVE_DRAWABLE || r->kind == TRACE_COMPOSITE_DRAWABLE)) fp->drawables++;
    fp->have = 1;
    return 0;
}

/* Current record, which must be of kind `kind`; 0 or an error code. For a
 * primitive, a pending (not yet entered) composite is entered first. */
static int current_of(TRACE_file fp, TRACE_Rec_Kind_t kind)
{
    if (!valid(fp)) return ERR_ARG;
    int rc = current(fp);
    if (rc) return rc;
    if (fp->eof) return ERR_KIND;
    if (kind == TRACE_PRIMITIVE_DRAWABLE && fp->rec.kind == TRACE_COMPOSITE_DRAWABLE) {
        /* Enter the composite: its members become the current record in turn. */
        fp->members_left = fp->rec.nmembers;
        fp->have = 0;
        if ((rc = current(fp)) != 0) return rc;
    }
    if (fp->rec.kind != kind) return ERR_KIND;
#ifdef FAIL_AT_RECORD
    if ((kind == TRACE_PRIMITIVE_DRAWABLE || kind == TRACE_COMPOSITE_DRAWABLE) && fp->drawables == FAIL_AT_RECORD)
        return fp->failed = ERR_INJECTED;
#endif
    return 0;
}

/* The current record has been delivered. */
static void consume(TRACE_file fp)
{
    fp->have = 0;
    if (fp->members_left > 0) fp->members_left--;
}

/* ---- four-argument arrays ------------------------------------------------ */

/* Can n elements be stored at base[*pos] with max elements in total? */
static int fits(int n, const void *base, const int *pos, int max)
{
    if (n == 0) return 1;
    return base && pos && *pos >= 0 && max >= 0 && *pos <= max && n <= max - *pos;
}

/* Store n elements of size sz (call only after fits()). */
static void put(int n, size_t sz, const void *src, int *n_out, void *base, int *pos)
{
    *n_out = n;
    if (n == 0) return;
    memcpy((char *)base + (size_t)*pos * sz, src, (size_t)n * sz);
    *pos += n;
}

/* ---- the TRACE-API -------------------------------------------------------- */

int TRACE_Open(const char filespec[], TRACE_file *fp)
{
    if (!fp) return ERR_ARG;
    *fp = NULL;
    if (!filespec) return ERR_ARG;
    char first[8] = "";
    sscanf(filespec, "%7s", first);
    if (strcmp(first, "-h") == 0 || strcmp(first, "--h") == 0 || strcmp(first, "-help") == 0 ||
        strcmp(first, "--help") == 0)
        return 0;
    struct _trace_file *h = calloc(1, sizeof *h);
    if (!h) return ERR_NOMEM;
    if (!(h->path = dup_str(filespec))) { free(h); return ERR_NOMEM; }
    if (!(h->f = fopen(filespec, "r"))) {
        free(h->path);
        free(h);
        return ERR_OPEN;
    }
    h->next = open_handles;
    open_handles = h;
    *fp = h;
    return 0;
}

int TRACE_Close(TRACE_file *fp)
{
    if (!fp) return ERR_ARG;
    if (!*fp) return 0;
    struct _trace_file **link = &open_handles;
    while (*link && *link != *fp) link = &(*link)->next;
    if (!*link) return ERR_ARG;
    struct _trace_file *h = *link;
    *link = h->next;
    fclose(h->f);
    rec_clear(&h->rec);
    free(h->buf);
    free(h->cats);
    free(h->cookies);
    free(h->path);
    free(h);
    *fp = NULL;
    return 0;
}

int TRACE_Peek_next_kind(const TRACE_file fp, TRACE_Rec_Kind_t *next_kind)
{
    if (!valid(fp) || !next_kind) return ERR_ARG;
    int rc = current(fp);
    if (rc) return rc;
    *next_kind = fp->eof ? TRACE_EOF : fp->rec.kind;
    return 0;
}

int TRACE_Get_next_method(const TRACE_file fp, char method_name[], char method_extra[], int *methodID)
{
    (void)method_name;
    (void)method_extra;
    (void)methodID;
    return valid(fp) ? ERR_METHOD : ERR_ARG;
}

int TRACE_Peek_next_category(const TRACE_file fp, int *n_legend, int *n_label, int *n_methodIDs)
{
    if (!n_legend || !n_label || !n_methodIDs) return ERR_ARG;
    int rc = current_of(fp, TRACE_CATEGORY);
    if (rc) return rc;
    *n_legend = (int)strlen(fp->rec.legend);
    *n_label = (int)strlen(fp->rec.label);
    *n_methodIDs = fp->rec.nmethods;
    return 0;
}

int TRACE_Get_next_category(const TRACE_file fp, TRACE_Category_head_t *head,
                            int *n_legend, char legend_base[], int *legend_pos, const int legend_max,
                            int *n_label, char label_base[], int *label_pos, const int label_max,
                            int *n_methodIDs, int methodID_base[], int *methodID_pos, const int methodID_max)
{
    if (!head || !n_legend || !n_label || !n_methodIDs) return ERR_ARG;
    int rc = current_of(fp, TRACE_CATEGORY);
    if (rc) return rc;
    const record *r = &fp->rec;
    int nl = (int)strlen(r->legend), nb = (int)strlen(r->label);
    if (!fits(nl, legend_base, legend_pos, legend_max) || !fits(nb, label_base, label_pos, label_max) ||
        !fits(r->nmethods, methodID_base, methodID_pos, methodID_max))
        return ERR_ARRAY;
    *head = r->head;
    put(nl, 1, r->legend, n_legend, legend_base, legend_pos);
    put(nb, 1, r->label, n_label, label_base, label_pos);
    put(r->nmethods, sizeof(int), r->methods, n_methodIDs, methodID_base, methodID_pos);
    consume(fp);
    return 0;
}

int TRACE_Peek_next_ycoordmap(TRACE_file fp, int *n_rows, int *n_columns, int *max_column_name,
                              int *max_title_name, int *n_methodIDs)
{
    if (!n_rows || !n_columns || !max_column_name || !max_title_name || !n_methodIDs) return ERR_ARG;
    int rc = current_of(fp, TRACE_YCOORDMAP);
    if (rc) return rc;
    const record *r = &fp->rec;
    size_t longest = 0;
    for (int i = 0; i < r->ncols - 1; i++)
        if (strlen(r->colnames[i]) > longest) longest = strlen(r->colnames[i]);
    *n_rows = r->nrows;
    *n_columns = r->ncols;
    *max_column_name = r->ncols > 1 ? (int)longest + 1 : 0;
    *max_title_name = (int)strlen(r->title) + 1;
    *n_methodIDs = r->nmethods;
    return 0;
}

int TRACE_Get_next_ycoordmap(TRACE_file fp, char *title_name, char **column_names,
                             int *coordmap_sz, int coordmap_base[], int *coordmap_pos, const int coordmap_max,
                             int *n_methodIDs, int methodID_base[], int *methodID_pos, const int methodID_max)
{
    if (!title_name || !column_names || !coordmap_sz || !n_methodIDs) return ERR_ARG;
    int rc = current_of(fp, TRACE_YCOORDMAP);
    if (rc) return rc;
    const record *r = &fp->rec;
    for (int i = 0; i < r->ncols - 1; i++)
        if (!column_names[i]) return ERR_ARG;
    int n = r->nrows * r->ncols;
    if (!fits(n, coordmap_base, coordmap_pos, coordmap_max) ||
        !fits(r->nmethods, methodID_base, methodID_pos, methodID_max))
        return ERR_ARRAY;
    /* The names are plain C strings in buffers sized by the peek. */
    strcpy(title_name, r->title);
    for (int i = 0; i < r->ncols - 1; i++) strcpy(column_names[i], r->colnames[i]);
    put(n, sizeof(int), r->elems, coordmap_sz, coordmap_base, coordmap_pos);
    put(r->nmethods, sizeof(int), r->methods, n_methodIDs, methodID_base, methodID_pos);
    consume(fp);
    return 0;
}

int TRACE_Peek_next_primitive(const TRACE_file fp, double *starttime, double *endtime,
                              int *n_tcoords, int *n_ycoords, int *n_bytes)
{
    if (!starttime || !endtime || !n_tcoords || !n_ycoords || !n_bytes) return ERR_ARG;
    int rc = current_of(fp, TRACE_PRIMITIVE_DRAWABLE);
    if (rc) return rc;
    *starttime = fp->rec.start;
    *endtime = fp->rec.end;
    *n_tcoords = *n_ycoords = fp->rec.nverts;
    *n_bytes = fp->rec.nbytes;
    return 0;
}

int TRACE_Get_next_primitive(const TRACE_file fp, int *category_index,
                             int *n_tcoords, double tcoord_base[], int *tcoord_pos, const int tcoord_max,
                             int *n_ycoords, int ycoord_base[], int *ycoord_pos, const int ycoord_max,
                             int *n_bytes, char byte_base[], int *byte_pos, const int byte_max)
{
    if (!category_index || !n_tcoords || !n_ycoords || !n_bytes) return ERR_ARG;
    int rc = current_of(fp, TRACE_PRIMITIVE_DRAWABLE);
    if (rc) return rc;
    const record *r = &fp->rec;
    if (!fits(r->nverts, tcoord_base, tcoord_pos, tcoord_max) ||
        !fits(r->nverts, ycoord_base, ycoord_pos, ycoord_max) ||
        !fits(r->nbytes, byte_base, byte_pos, byte_max))
        return ERR_ARRAY;
    *category_index = r->category;
    put(r->nverts, sizeof(double), r->t, n_tcoords, tcoord_base, tcoord_pos);
    put(r->nverts, sizeof(int), r->y, n_ycoords, ycoord_base, ycoord_pos);
    put(r->nbytes, 1, r->bytes, n_bytes, byte_base, byte_pos);
    consume(fp);
    return 0;
}

int TRACE_Peek_next_composite(const TRACE_file fp, double *starttime, double *endtime,
                              int *n_primitives, int *n_bytes)
{
    if (!starttime || !endtime || !n_primitives || !n_bytes) return ERR_ARG;
    int rc = current_of(fp, TRACE_COMPOSITE_DRAWABLE);
    if (rc) return rc;
    *starttime = fp->rec.start;
    *endtime = fp->rec.end;
    *n_primitives = fp->rec.nmembers;
    *n_bytes = fp->rec.nbytes;
    return 0;
}

int TRACE_Get_next_composite(const TRACE_file fp, int *category_index,
                             int *n_bytes, char byte_base[], int *byte_pos, const int byte_max)
{
    if (!category_index || !n_bytes) return ERR_ARG;
    int rc = current_of(fp, TRACE_COMPOSITE_DRAWABLE);
    if (rc) return rc;
    if (!fits(fp->rec.nbytes, byte_base, byte_pos, byte_max)) return ERR_ARRAY;
    *category_index = fp->rec.category;
    put(fp->rec.nbytes, 1, fp->rec.bytes, n_bytes, byte_base, byte_pos);
    /* Not consumed: the members follow (the first member peek enters it). */
    return 0;
}

int TRACE_Get_position(TRACE_file fp, TRACE_int64_t *offset)
{
    if (!valid(fp) || !offset) return ERR_ARG;
    if (fp->failed) return fp->failed;
    if (fp->members_left > 0) return ERR_POSITION;
    cookie c;
    if (fp->have) {
        /* The record was read but not consumed: point at its first line. */
        int drawable = fp->rec.kind == TRACE_PRIMITIVE_DRAWABLE || fp->rec.kind == TRACE_COMPOSITE_DRAWABLE;
        c.offset = fp->rec.offset;
        c.line = fp->rec.line - 1;
        c.drawables = fp->drawables - drawable;
    } else {
        off_t off = ftello(fp->f);
        if (off < 0) return ERR_IO;
        c.offset = (long long)off;
        c.line = fp->line_no;
        c.drawables = fp->drawables;
    }
    size_t i = 0;
    while (i < fp->ncookies && fp->cookies[i].offset != c.offset) i++;
    if (i == fp->ncookies) {
        cookie *cs = realloc(fp->cookies, sizeof *cs * (fp->ncookies + 1));
        if (!cs) return ERR_NOMEM;
        fp->cookies = cs;
        fp->cookies[fp->ncookies++] = c;
    }
    *offset = c.offset;
    return 0;
}

int TRACE_Set_position(TRACE_file fp, TRACE_int64_t offset)
{
    if (!valid(fp)) return ERR_ARG;
    if (fp->failed) return fp->failed;
    size_t i = 0;
    while (i < fp->ncookies && fp->cookies[i].offset != offset) i++;
    if (i == fp->ncookies) return ERR_POSITION;
    if (fseeko(fp->f, (off_t)offset, SEEK_SET) != 0) return ERR_IO;
    rec_clear(&fp->rec);
    fp->have = fp->eof = fp->members_left = 0;
    fp->line_no = fp->cookies[i].line;
    fp->drawables = fp->cookies[i].drawables;
    return 0;
}

#ifndef OMIT_GET_ERR_STRING
char *TRACE_Get_err_string(int ierr)
{
    static char help[] =
        "usage: FILE -- a trace in the minitrace line format (libminitrace, see plugin_minitrace.c):\n"
        "  cat INDEX NAME state|arrow|event R G B A WIDTH [method=ID]... [LABEL]\n"
        "  ymap TITLE NROWS NCOLS COLNAME... [method=ID]...   then NROWS rows of NCOLS integers\n"
        "  state CAT LINE T0 T1 [INT...] | arrow CAT FROM TO T0 T1 [INT...] | event CAT LINE T [INT...]\n"
        "  comp CAT T0 T1 N [INT...]   then N state/arrow/event lines";
    static char open_text[] = "minitrace: cannot open the trace file";
    static char arg_text[] = "minitrace: NULL argument, or a handle that is not open";
    static char kind_text[] = "minitrace: the call does not match the kind of the current record";
    static char array_text[] = "minitrace: a four-argument array is too small (nothing was written)";
    static char method_text[] = "minitrace: TRACE_Get_next_method is not supported";
    static char position_text[] = "minitrace: no position inside a composite, or not a position of this handle";
    static char nomem_text[] = "minitrace: out of memory";
    static char io_text[] = "minitrace: read or seek error";
#ifdef FAIL_AT_RECORD
    static char injected_text[] = "minitrace: injected failure at drawable " STR(FAIL_AT_RECORD)
                                  " (built with -DFAIL_AT_RECORD)";
#else
    static char injected_text[] = "minitrace: injected failure";
#endif
    static char unknown_text[] = "minitrace: unknown error code";
    switch (ierr) {
    case 0: return help;
    case ERR_OPEN: return open_text;
    case ERR_ARG: return arg_text;
    case ERR_SYNTAX:
    case ERR_EOF_COMP: return syntax_text;
    case ERR_KIND: return kind_text;
    case ERR_ARRAY: return array_text;
    case ERR_METHOD: return method_text;
    case ERR_POSITION: return position_text;
    case ERR_NOMEM: return nomem_text;
    case ERR_IO: return io_text;
    case ERR_INJECTED: return injected_text;
    default: return unknown_text;
    }
}
#endif
