/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_HEAP_ERRORS_H
#define LP_PRELOAD_HEAP_ERRORS_H
/*
 * heap_errors.h - invalid and mismatched frees, found on the free path
 * and reported at once, as Memcheck reports them.
 *
 * track.c calls in here only off the common path: when a pointer being
 * freed is not a live block of the table, or when a live block is
 * released by the wrong family (free of new'd memory, delete of new[]'d
 * memory, ...). A pointer is declared bad only when we are sure it is not
 * one of glibc's blocks: it is in the recently-freed queue (freed.h), on
 * a thread's stack, inside a loaded object, inside a live block but not
 * at its start, or not mapped at all. Anything else (blocks from before
 * we were ready, our own blocks freed by the program) goes to the real
 * allocator as before.
 *
 * Each error is written to the log when it happens (text format; the
 * JSON log only counts them), deduplicated by context as Memcheck does
 * (kind + the first 4 frames of the bad call): a repeat is counted, not
 * printed. The counts join the leak errors in ERROR SUMMARY and for
 * error_exitcode; the calls join "total heap usage" as Memcheck counts
 * them (every free call is a free, every realloc an alloc and a free).
 *
 * Context: COLD, called with the guard held (from track.c). Memory:
 * plain malloc under the guard; contexts in a static array.
 */
#include "preload/lp.h"
#include "preload/life/config.h"
#include "preload/hot/table.h"

/* Heap errors are looked for only when every block is tracked: with
 * sample_bytes, a block missing from the table is normal. */
static inline bool lp_heap_errors_on(void)
{
    return lp_config.sample_bytes == 0;
}

/*
 * p is not a live block. Decide, report if bad. is_realloc: the caller is
 * realloc (new_size is its size argument). Returns true when p must go
 * to the real allocator (we cannot be sure it is bad), false when the
 * call must return without touching it (the error is reported).
 */
bool lp_heap_error_bad_free(void *p, unsigned how, bool is_realloc,
                            size_t new_size);

/* The live block b is released by a call of family how (enum lp_how)
 * that does not match b->how; at_stack is that call's stack id. The block
 * is still freed by the caller, as Memcheck frees it. */
void lp_heap_error_mismatch(const struct lp_block *b, unsigned how,
                            uint32_t at_stack);

/* Errors so far and distinct contexts, and the suppressed ones apart
 * (lock-free reads). */
void lp_heap_errors_count(unsigned *errors, unsigned *contexts,
                          unsigned *supp_errors, unsigned *supp_contexts);

/* What the bad calls add to "total heap usage". */
void lp_heap_errors_totals(uint64_t *allocs, uint64_t *frees,
                           uint64_t *bytes);

/* In a fork child: the error lock may have been held by a thread that
 * does not exist there. */
void lp_heap_errors_lock(void);   /* fork.c only */
void lp_heap_errors_unlock(void); /* fork.c only */
void lp_heap_errors_atfork_child(void);

#endif /* LP_PRELOAD_HEAP_ERRORS_H */
