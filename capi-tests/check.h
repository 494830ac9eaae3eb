/* Minimal test assertions for the C tests: count failures, report at exit. */
#ifndef CHECK_H
#define CHECK_H
#include <stdio.h>
#include <stdlib.h>
static int check_failures = 0, check_count = 0;
#define CHECK(cond) do { check_count++; if (!(cond)) { check_failures++; \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_EQ(a, b) do { long long _a = (long long)(a), _b = (long long)(b); check_count++; if (_a != _b) { \
    check_failures++; fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, %s == %lld\n", __FILE__, __LINE__, #a, _a, #b, _b); } } while (0)
static int check_report(const char *name) {
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}
#endif
