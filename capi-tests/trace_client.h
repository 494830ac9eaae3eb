/*
 * trace_client.h -- safe reading of a trace through the TRACE-API for the
 * test clients (trace_print, trace_check_timeorder).
 *
 * Each tc_read_* does the Peek and the Get of one record with buffers
 * allocated from the counts the Peek reported (strings get room for a NUL),
 * validates those counts and what the Get returned, and checks every return
 * code. On any error it prints "Error: <text>" on stderr (the reader's
 * TRACE_Get_err_string text for TRACE errors), closes the trace and exits with
 * tc_error_status. Records are freed with the matching tc_free_*.
 */
#ifndef TRACE_CLIENT_H
#define TRACE_CLIENT_H

#include "trace_API.h"

typedef struct {
    double start, end;  /* time box from the Peek */
    int category;
    int nt, ny, nbytes; /* counts the Get returned */
    double *t;
    int *y;
    char *bytes;
} tc_primitive;

typedef struct {
    double start, end;
    int category;
    int nmembers;       /* the members follow: read them with tc_read_primitive */
    int nbytes;
    char *bytes;
} tc_composite;

typedef struct {
    TRACE_Category_head_t head;
    char *legend;       /* NUL-terminated */
    char *label;        /* NUL-terminated ("" when the category has none) */
    int nlabel;         /* label characters the Get returned */
    int nmethods;
    int *methods;
} tc_category;

typedef struct {
    char *title;
    int nrows, ncols;
    char **names;       /* ncols-1 column names */
    int *elems;         /* nrows*ncols, row-major: line ID, then one value per name */
    int nmethods;
    int *methods;
} tc_ycoordmap;

/* Exit status used for every error (default 1). */
extern int tc_error_status;

/* Open the trace named by argv[1..] joined with single spaces. On a help
 * request (NULL handle, code 0) print the reader's help to stdout and exit 0;
 * on failure print its error text to stderr and exit tc_error_status. */
void tc_open(int argc, char **argv);

/* Close the trace; an error exits. */
void tc_close(void);

/* Print "Error: <msg>" on stderr, close the trace, exit tc_error_status. */
void tc_fail_msg(const char *msg);

TRACE_Rec_Kind_t tc_peek_kind(void);
void tc_read_primitive(tc_primitive *p);
void tc_read_composite(tc_composite *c);
void tc_read_category(tc_category *c);
void tc_read_ycoordmap(tc_ycoordmap *m);

/* Vertex i's y coordinate (readers normally give one per time coordinate;
 * with fewer, vertex i uses y[i/2] like the Java side, clamped). */
int tc_y_of(const tc_primitive *p, int i);

void tc_free_primitive(tc_primitive *p);
void tc_free_composite(tc_composite *c);
void tc_free_category(tc_category *c);
void tc_free_ycoordmap(tc_ycoordmap *m);

#endif
