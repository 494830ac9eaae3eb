/*
 * otf2_errors.c -- the plugin's error texts, the bottom of its files.
 *
 * TRACE_Get_err_string(code) takes only a code, so the text of the last
 * failure lives in one buffer (err_text) besides the sticky copy on the
 * handle; fail() stores both. libotf2 reports its own failures through a
 * callback, usually several nested ones for one failure, before it returns an
 * error code: they are collected in otf2_msg and appended to the next text
 * fail() stores ("... (libotf2: ...)"), so a message says what OTF2 itself
 * saw. Callers clear otf2_msg where libotf2 reports something that is not a
 * failure for this reader. Every other file may call this one; it calls none.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_internal.h"

char err_text[2048];
char otf2_msg[1024]; /* last error libotf2 reported */

/* Store an error text on the handle (sticky) and return the code. */
int fail(struct _trace_file *fp, int code, const char *fmt, ...)
{
    char buf[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (otf2_msg[0]) {
        size_t l = strlen(buf);
        snprintf(buf + l, sizeof buf - l, " (libotf2: %s)", otf2_msg);
        otf2_msg[0] = 0;
    }
    if (fp) {
        if (!fp->err) {
            fp->err = code;
            free(fp->errtext);
            fp->errtext = strdup(buf);
        }
        code = fp->err;
    }
    snprintf(err_text, sizeof err_text, "%s", fp && fp->errtext ? fp->errtext : buf);
    return code;
}

static OTF2_ErrorCode otf2_error_cb(void *user, const char *file, uint64_t line,
                                    const char *function, OTF2_ErrorCode code,
                                    const char *fmt, va_list va)
{
    (void)user;
    (void)file;
    (void)line;
    (void)function;
    char text[768];
    vsnprintf(text, sizeof text, fmt ? fmt : "", va);
    /* keep every report since the last error was stored (innermost first) */
    size_t at = strlen(otf2_msg);
    if (at + 8 < sizeof otf2_msg)
        snprintf(otf2_msg + at, sizeof otf2_msg - at, "%s%s: %s%s%s", at ? "; " : "", OTF2_Error_GetName(code),
                 OTF2_Error_GetDescription(code), text[0] ? ": " : "", text);
    return code;
}

/* Redirect libotf2's error printing into otf2_msg (once per process). */
void catch_otf2_errors(void)
{
    static int registered;
    if (!registered) {
        OTF2_Error_RegisterCallback(otf2_error_cb, NULL);
        registered = 1;
    }
}
