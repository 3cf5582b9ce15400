/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SCAN_SORT_H
#define LP_PRELOAD_SCAN_SORT_H
/*
 * sort.h - the scan's blocks in address order, sorted inside their
 * own buffer (sort.c says how): no malloc, no other memory.
 * Context: COLD (world stopped).
 */
#include "preload/scan/classify.h"

/* Radix sort n addresses in k, with t (n more) as scratch. */
void lp_scan_sort_addrs(uintptr_t *k, uintptr_t *t, size_t n);

/* a holds n addresses (uintptr_t) at its start. Sort them and make a[i]
 * the block at the i-th address, written by fill(addr, &a[i], arg); fill
 * must set every field it needs (the memory holds key bytes). */
void lp_scan_sort_fill(struct lp_scan_block *a, size_t n,
                       void (*fill)(uintptr_t addr, struct lp_scan_block *out,
                                    void *arg),
                       void *arg);

#endif /* LP_PRELOAD_SCAN_SORT_H */
