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

/*
 * A record keeps each frame in 32 bits: the index of its 64 MiB region
 * of the address space (lp_frame_region, shared by every record) and its
 * offset there. A program's code lies in a few such regions, and a
 * Python run's 170,000 stacks of ~30 frames took 49 MB of records with
 * whole words (41 MB of frames), memory each process touches and a VM
 * pays for at every first touch. A stack with a frame in none of the
 * LP_FRAME_REGIONS known regions, when the table is full, keeps whole
 * words instead (wide). Read a frame with lp_stack_frame.
 */
#define LP_FRAME_OFFSET_BITS 26
#define LP_FRAME_OFFSET_MASK ((1u << LP_FRAME_OFFSET_BITS) - 1)
#define LP_FRAME_REGIONS (1u << (32 - LP_FRAME_OFFSET_BITS))

struct lp_stack {
    uint32_t id;
    uint16_t nframes;
    uint16_t wide; /* frames in whole words, two slots each */
    /* Counters: see stack_count.h (read them with lp_stack_counts). */
    uint64_t live_bytes, live_blocks;
    uint64_t total_bytes, total_blocks;
    uint64_t temp_blocks; /* freed by their thread before its next alloc */
    uint32_t packed[];    /* the frames: lp_stack_frame */
};

/* The start of each region a frame was found in, in order of first use;
 * an entry is written once, before any record that names it is
 * published. */
extern uintptr_t lp_frame_region[LP_FRAME_REGIONS];

/* Frame i (< s->nframes) of s. */
static inline uintptr_t lp_stack_frame(const struct lp_stack *s, unsigned i)
{
    uint32_t v;

    if (LP_UNLIKELY(s->wide)) {
        uintptr_t w;

        __builtin_memcpy(&w, &s->packed[2 * i], sizeof(w));
        return w;
    }
    v = s->packed[i];
    return lp_frame_region[v >> LP_FRAME_OFFSET_BITS] +
           (v & LP_FRAME_OFFSET_MASK);
}

/* Every frame of s into out[0..s->nframes). */
void lp_stack_frames(const struct lp_stack *s, uintptr_t *out);

/* The first n frames of s (all when it has fewer): their count, a hash
 * of them, and whether a and b agree on them (leak_resolution's
 * grouping of loss records). */
static inline unsigned lp_stack_prefix_len(const struct lp_stack *s,
                                           unsigned n)
{
    return s->nframes < n ? s->nframes : n;
}

static inline uint64_t lp_stack_prefix_hash(const struct lp_stack *s,
                                            unsigned n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    unsigned i;

    n = lp_stack_prefix_len(s, n);
    for (i = 0; i < n; i++) {
        h ^= lp_stack_frame(s, i);
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h ^ n;
}

static inline bool lp_stack_same_prefix(const struct lp_stack *a,
                                        const struct lp_stack *b, unsigned n)
{
    unsigned k = lp_stack_prefix_len(a, n), i;

    if (k != lp_stack_prefix_len(b, n))
        return false;
    for (i = 0; i < k; i++)
        if (lp_stack_frame(a, i) != lp_stack_frame(b, i))
            return false;
    return true;
}

/* Capture the caller's stack (our own frames removed but the hook's) and
 * return its id, creating the record on first sight; 0 on failure. */
uint32_t lp_stack_capture(void);

/* Intern an explicit frame array (tests, fork). */
uint32_t lp_stack_intern(const uintptr_t *frames, unsigned n);

/* The record for id, or NULL. Lock-free. */
struct lp_stack *lp_stack_get(uint32_t id);

/* Number of records so far (ids are 1..lp_stack_count()). */
uint32_t lp_stack_count(void);

/* Range of our own library's text, to recognise our frames. */
bool lp_stack_is_self(uintptr_t pc);

void lp_stack_lock_all(void);
void lp_stack_unlock_all(void);
void lp_stack_atfork_child(void);

#endif /* LP_PRELOAD_STACK_H */
