/* LD_PRELOAD shim for the writer's fault-injection test (cli/tests/fault_injection.rs):
 * counts write-family calls (write, pwrite64, writev, fsync, fdatasync) on regular files
 * other than stdin/stdout/stderr and makes the Nth fail with a chosen errno.
 *   FAILWRITE_N      1-based call to fail (unset or 0: only count)
 *   FAILWRITE_ERRNO  errno to fail it with (default ENOSPC)
 *   FAILWRITE_COUNT  file that gets the number of counted calls at exit */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static long fail_at = -1, fail_errno = ENOSPC;
static long counted = 0;

__attribute__((constructor)) static void init(void) {
    const char *n = getenv("FAILWRITE_N"), *e = getenv("FAILWRITE_ERRNO");
    fail_at = n ? atol(n) : 0;
    if (e) fail_errno = atol(e);
}

__attribute__((destructor)) static void fini(void) {
    const char *p = getenv("FAILWRITE_COUNT");
    if (!p) return;
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%ld\n", __atomic_load_n(&counted, __ATOMIC_SEQ_CST));
    int fd = (int)syscall(SYS_openat, AT_FDCWD, p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) { syscall(SYS_write, fd, buf, len); syscall(SYS_close, fd); }
}

/* 1: this call must fail (errno set); 0: go on. */
static int hit(int fd) {
    struct stat st;
    if (fd <= 2 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    long k = __atomic_add_fetch(&counted, 1, __ATOMIC_SEQ_CST);
    if (fail_at > 0 && k == fail_at) { errno = (int)fail_errno; return 1; }
    return 0;
}

ssize_t write(int fd, const void *b, size_t n) {
    static ssize_t (*real)(int, const void *, size_t);
    if (!real) real = dlsym(RTLD_NEXT, "write");
    if (hit(fd)) return -1;
    return real(fd, b, n);
}
ssize_t pwrite64(int fd, const void *b, size_t n, off_t o) {
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (!real) real = dlsym(RTLD_NEXT, "pwrite64");
    if (hit(fd)) return -1;
    return real(fd, b, n, o);
}
ssize_t writev(int fd, const struct iovec *v, int c) {
    static ssize_t (*real)(int, const struct iovec *, int);
    if (!real) real = dlsym(RTLD_NEXT, "writev");
    if (hit(fd)) return -1;
    return real(fd, v, c);
}
int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = dlsym(RTLD_NEXT, "fsync");
    if (hit(fd)) return -1;
    return real(fd);
}
int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = dlsym(RTLD_NEXT, "fdatasync");
    if (hit(fd)) return -1;
    return real(fd);
}
