/* A consumer of the installed libslog2: opens a trace through the
 * TRACE-API, reports the kind of its first record, and uses slog2.h.
 *   usage: consumer TRACE */
#include <stdio.h>

#include "slog2.h"
#include "trace_API.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s TRACE\n", argv[0]);
        return 2;
    }
    TRACE_file fp = NULL;
    int ierr = TRACE_Open(argv[1], &fp);
    if (fp == NULL) {
        fprintf(stderr, "%s: %s\n", TRACE_Get_err_string(ierr), SLOG2_Get_last_error());
        return 1;
    }
    TRACE_Rec_Kind_t kind = TRACE_EOF;
    if ((ierr = TRACE_Peek_next_kind(fp, &kind)) != 0 || (ierr = TRACE_Close(&fp)) != 0) {
        fprintf(stderr, "%s: %s\n", TRACE_Get_err_string(ierr), SLOG2_Get_last_error());
        return 1;
    }
    printf("consumer: first record kind %d; SLOG2_OK text: %s\n", (int)kind, SLOG2_Get_err_string(SLOG2_OK));
    return 0;
}
