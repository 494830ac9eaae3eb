/*
 * trace_symcheck -- does a shared library export all fifteen functions that
 * trace_API.h declares?
 *
 *   usage: trace_symcheck LIBRARY.so
 *
 * Loads the library with dlopen and looks every TRACE_* name up with dlsym.
 * Prints "ok: all 15 TRACE-API functions" and exits 0, or names each missing
 * function on stderr ("missing: TRACE_...") and exits 1; exit 2 if the
 * library cannot be loaded.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>

static const char *const names[] = {
    "TRACE_Open",
    "TRACE_Close",
    "TRACE_Peek_next_kind",
    "TRACE_Get_next_method",
    "TRACE_Peek_next_category",
    "TRACE_Get_next_category",
    "TRACE_Peek_next_ycoordmap",
    "TRACE_Get_next_ycoordmap",
    "TRACE_Peek_next_primitive",
    "TRACE_Get_next_primitive",
    "TRACE_Peek_next_composite",
    "TRACE_Get_next_composite",
    "TRACE_Get_position",
    "TRACE_Set_position",
    "TRACE_Get_err_string",
};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIBRARY.so\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
        return 2;
    }
    int n = (int)(sizeof names / sizeof *names), missing = 0;
    for (int i = 0; i < n; i++) {
        dlerror();
        if (!dlsym(lib, names[i]) || dlerror() != NULL) {
            fprintf(stderr, "missing: %s\n", names[i]);
            missing++;
        }
    }
    dlclose(lib);
    if (missing) return 1;
    printf("ok: all %d TRACE-API functions\n", n);
    return 0;
}
