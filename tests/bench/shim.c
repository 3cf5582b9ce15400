/* SPDX-License-Identifier: MIT */
/*
 * shim.c - the floor under every LD_PRELOAD allocation hook, for `make
 * bench` (mode "shim"): malloc and friends interposed and forwarded to
 * glibc's own entry points, nothing else. Whatever the program pays
 * here (a PLT call into this object, a call on to glibc, the lost
 * inlining of glibc's tcache fast path into one call) any preloaded
 * profiler pays before it records anything; the ratio of the sampled
 * mode should be read against this one.
 */
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

void *malloc(size_t n) { return __libc_malloc(n); }
void *calloc(size_t n, size_t m) { return __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
