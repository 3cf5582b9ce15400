/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_STACK_H
#define LP_PRELOAD_STACK_H
/*
 * stack.h - allocation call stacks: capture (DWARF-exact through
 * stack_walk.c, or frame pointers), deduplicate into a table of stack
 * records with ids 1..N in creation order, and per-stack live/total
 * counters.
 *
 * A record's frames[0] is a pc inside our allocator hook (malloc, calloc,
 * ...); frames[1..] are return addresses, innermost first. Records are
 * never freed, so pointers from lp_stack_get() stay valid.
 *
 * Context: HOT (capture, intern, counters), COLD (iteration).
 * Memory: lp_arena.
 */
#include "preload/lp.h"

#define LP_STACK_MAX_DEPTH 256

struct lp_stack {
    uint32_t id;
    uint32_t nframes;
    /* Counters: see stack_count.h (read them with lp_stack_counts). */
    uint64_t live_bytes, live_blocks;
    uint64_t total_bytes, total_blocks;
    uint64_t temp_blocks; /* freed by their thread before its next alloc */
    uintptr_t frames[];
};

/* Capture the caller's stack (our own frames removed but the hook's) and
 * return its id, creating the record on first sight; 0 on failure. */
uint32_t lp_stack_capture(void);

/* Intern an explicit frame array (tests, fork). */
uint32_t lp_stack_intern(const uintptr_t *frames, unsigned n);

/* The record for id, or NULL. Lock-free. */
struct lp_stack *lp_stack_get(uint32_t id);

/* Number of records so far (ids are 1..lp_stack_count()). */
uint32_t lp_stack_count(void);

/* A temporary allocation (heaptrack's definition): the block freed was
 * its thread's last allocation, none in between. Rare next to the other
 * counters: a plain add to the record. blocks: 1, or with sample_bytes=N
 * what the tracked block stands for (sample.h: fixed point, read it
 * through lp_sample_blocks_out). */
static inline void lp_stack_note_temp(struct lp_stack *s, uint64_t blocks)
{
    lp_count_add(&s->temp_blocks, blocks);
}

/* Range of our own library's text, to recognise our frames. */
bool lp_stack_is_self(uintptr_t pc);

void lp_stack_lock_all(void);
void lp_stack_unlock_all(void);
void lp_stack_atfork_child(void);

#endif /* LP_PRELOAD_STACK_H */
