/* SPDX-License-Identifier: MIT */
/*
 * bigarray.c - the massif writer's per-context arrays, in mappings of
 * their own with huge pages asked for (bigarray.h).
 *
 * An array of 128 KiB and more takes whole 2 MiB pages on a 2 MiB
 * boundary (mapped 2 MiB larger, the slack cut off again), so that all
 * of it can be backed by huge pages, not only an aligned middle: the
 * kernel clears a huge page in about the time two dozen 4 KiB faults
 * take (0.25 ms against 11 us each, measured in a VM), so from about
 * 100 KiB on a huge page costs less even when mostly unused. Smaller
 * arrays take whole 4 KiB pages. The writer has a handful of arrays, not
 * many small ones.
 * Context: COLD (massif writer, tests). Memory: mmap.
 */
#include "preload/massif/bigarray.h"

#include <stdint.h>
#include <sys/mman.h>

#define HUGE ((size_t)2 << 20)
#define HUGE_FROM ((size_t)128 << 10)
#define PAGE ((size_t)4096)

static size_t mapped_len(size_t bytes)
{
    size_t unit = bytes >= HUGE_FROM ? HUGE : PAGE;

    return (bytes + unit - 1) & ~(unit - 1);
}

void *lp_bigarray_new(size_t bytes)
{
    size_t len = mapped_len(bytes ? bytes : 1);
    size_t extra = len >= HUGE ? HUGE : 0;
    uintptr_t p, a;
    void *m;

    m = mmap(NULL, len + extra, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    if (!extra)
        return m;
    p = (uintptr_t)m;
    a = (p + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
    if (a > p)
        munmap(m, a - p);
    if (a + len < p + len + extra)
        munmap((void *)(a + len), p + len + extra - (a + len));
    (void)madvise((void *)a, len, MADV_HUGEPAGE);
    return (void *)a;
}

void lp_bigarray_free(void *p, size_t bytes)
{
    if (p)
        munmap(p, mapped_len(bytes ? bytes : 1));
}
