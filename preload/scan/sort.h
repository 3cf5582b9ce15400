/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SCAN_SORT_H
#define LP_PRELOAD_SCAN_SORT_H
/*
 * sort.h - the scan's block addresses in ascending order: a radix sort
 * of 8-byte keys, no malloc, no other memory.
 * Context: COLD (world stopped).
 */
#include "preload/scan/classify.h"

/* Radix sort n addresses in k, with t (n more) as scratch. */
void lp_scan_sort_addrs(uintptr_t *k, uintptr_t *t, size_t n);

/* Sort n (< 2^32) addresses in k ascending, moving b[i] with k[i]; in
 * place. */
void lp_scan_sort_pairs(uintptr_t *k, struct lp_scan_block *b, size_t n);

#endif /* LP_PRELOAD_SCAN_SORT_H */
