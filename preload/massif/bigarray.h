/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_MASSIF_BIGARRAY_H
#define LP_PRELOAD_MASSIF_BIGARRAY_H
/*
 * bigarray.h - zeroed arrays of one entry per allocation context for the
 * massif writer (python3: 170,000 contexts, a dozen MB together), mapped
 * on their own and backed by huge pages where the system lets a program
 * ask for them (transparent_hugepage=madvise).
 *
 * Why: each 4 KiB page of fresh memory costs a page fault on first touch
 * (11 us in a VM, measured; the writer's arrays took ~3,000 of them,
 * more than the writer's own work), a 2 MiB page one fault for 512 such
 * pages. Memory from glibc's malloc would also sit in the program's heap,
 * where a live dump (SIGUSR1) would move the program's later blocks.
 *
 * Context: COLD (massif writer, tests). Memory: mmap.
 */
#include <stddef.h>

/* bytes of zeroed memory, or NULL. */
void *lp_bigarray_new(size_t bytes);
/* Give back an array from lp_bigarray_new(bytes) (NULL: nothing). */
void lp_bigarray_free(void *p, size_t bytes);

#endif /* LP_PRELOAD_MASSIF_BIGARRAY_H */
