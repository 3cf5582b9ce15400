/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SCAN_BLOCKS_H
#define LP_PRELOAD_SCAN_BLOCKS_H
/*
 * blocks.h - the scan's copy of the live blocks, and the mmap'd arrays
 * the scan works in (roots.c: never the heap, never the arena).
 * Context: COLD; lp_scan_blocks_collect() runs with the world stopped.
 */
#include "preload/scan/classify.h"

/* An mmap'd growable array. */
struct lp_scan_buf {
    void *p;
    size_t len; /* mapped bytes */
};

/* Room for at least bytes (mremap keeps the contents); 0 or -ENOMEM. */
int lp_scan_buf_reserve(struct lp_scan_buf *b, size_t bytes);
void lp_scan_buf_free(struct lp_scan_buf *b);

/* The block arrays: per block 24 bytes of struct lp_scan_block, 8 of
 * address, 4 of clique link, 2 of address directory, and, touched only as
 * far as used, at most 8 of mark stack and 8 of clique counts; the
 * addresses, the directory and the mark stack go when the scan is done. */
struct lp_scan_blocks {
    struct lp_scan_buf blocks; /* struct lp_scan_block: the result's */
    struct lp_scan_buf keys;   /* the blocks' addresses (core.addrs) */
    struct lp_scan_buf work;   /* the mark stack, then the directory */
    struct lp_scan_buf links;  /* link[] then ind[]: the result's */
};

/* Map the arrays for cap blocks (before the world stops: the count is a
 * hint). 0 or -ENOMEM. */
int lp_scan_blocks_reserve(struct lp_scan_blocks *bb, size_t cap);

/* World stopped: copy every live block out of the table in address
 * order, growing the arrays if blocks came since the reserve, and point
 * c's blocks, addrs, link, ind and stack at them. 0 or -ENOMEM. */
int lp_scan_blocks_collect(struct lp_scan_blocks *bb, struct lp_scan_core *c);

/* The same for the final leak check, which consumes the table (world
 * stopped, lp_state DONE: table.h, lp_table_drain): one pass copies the
 * blocks out in the table's order while the table's pages are given back,
 * then the copy is sorted in place, so the exit's memory peak stays near
 * the table's own size. 0 or -ENOMEM (the table is gone either way). */
int lp_scan_blocks_drain(struct lp_scan_blocks *bb, struct lp_scan_core *c);

void lp_scan_blocks_free(struct lp_scan_blocks *bb);

#endif /* LP_PRELOAD_SCAN_BLOCKS_H */
