/* SPDX-License-Identifier: MIT */
/*
 * scan_sort.c - the scan's block snapshot sorted by address.
 * Context: COLD (the leak scan, other threads stopped: no malloc, which
 * is why this is not qsort). Memory: mmap, released before returning.
 */
#include "preload/scan_sort.h"

#include <sys/mman.h>

/* Heapsort by address: the fallback when radix_sort cannot map its
 * buffers (qsort may malloc, and we run with the world stopped). */
static void sift(struct lp_scan_block *a, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        struct lp_scan_block t;

        if (child >= n)
            return;
        if (child + 1 < n && a[child + 1].addr > a[child].addr)
            child++;
        if (a[root].addr >= a[child].addr)
            return;
        t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

static void heap_sort(struct lp_scan_block *a, size_t n)
{
    size_t i;

    for (i = n / 2; i-- > 0;)
        sift(a, i, n);
    for (i = n; i-- > 1;) {
        struct lp_scan_block t = a[0];

        a[0] = a[i];
        a[i] = t;
        sift(a, 0, i);
    }
}

struct sort_key {
    uintptr_t addr;
    size_t idx;
};

/*
 * Sort by address: an LSD radix sort of (address, index) pairs, one byte
 * a pass, skipping the bytes all addresses share, then the blocks are
 * permuted in place along the permutation's cycles. Linear, and it moves
 * 16-byte keys instead of whole blocks: at a million live blocks the
 * heapsort of 56-byte records was most of the exit time (cache misses).
 */
void lp_scan_sort_blocks(struct lp_scan_block *a, size_t n)
{
    size_t bytes = 2 * n * sizeof(struct sort_key), i, shift;
    struct sort_key *k, *t, *sw, *keys;

    if (n < 2)
        return;
    keys = n < 64 ? MAP_FAILED
                  : mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (keys == MAP_FAILED) {
        heap_sort(a, n);
        return;
    }
    k = keys;
    t = keys + n;
    for (i = 0; i < n; i++) {
        k[i].addr = a[i].addr;
        k[i].idx = i;
    }
    for (shift = 0; shift < sizeof(uintptr_t) * 8; shift += 8) {
        size_t count[256] = {0}, sum = 0, d;

        for (i = 0; i < n; i++)
            count[(k[i].addr >> shift) & 255]++;
        if (count[(k[0].addr >> shift) & 255] == n)
            continue; /* every address has this byte: order unchanged */
        for (d = 0; d < 256; d++) {
            size_t c = count[d];

            count[d] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++)
            t[count[(k[i].addr >> shift) & 255]++] = k[i];
        sw = k;
        k = t;
        t = sw;
    }
    /* a'[j] = a[k[j].idx]: follow each cycle once, marking done slots
     * with idx == j. */
    for (i = 0; i < n; i++) {
        struct lp_scan_block tmp;
        size_t j = i;

        if (k[i].idx == i)
            continue;
        tmp = a[i];
        for (;;) {
            size_t src = k[j].idx;

            k[j].idx = j;
            if (src == i) {
                a[j] = tmp;
                break;
            }
            a[j] = a[src];
            j = src;
        }
    }
    munmap(keys, bytes);
}
