/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_TABLE_SLOT_H
#define LP_PRELOAD_TABLE_SLOT_H
/*
 * table_slot.h - one live block packed in 24 bytes, and the open-addressing
 * array of them that both the shared table (table.c) and each thread's
 * nursery (nursery.c) are made of: linear probing from a home slot,
 * deletion by backward shift (no tombstones).
 *
 * Internal to the live-block table: everything else sees struct lp_block.
 * Context: HOT.
 */
#include "preload/hot/table.h"

/*
 * A slot is 24 bytes: the block packed into three words.
 *   w0: address (low 48 bits; 0 = empty) | table generation << 48
 *   w1: requested size (47 bits) | how << 47 | time bits 32..46 << 49
 *   w2: stack id | time bits 0..31 << 32
 * Every address malloc hands out lies below 2^47 on x86-64 and no block
 * reaches 2^47 bytes; the 47-bit byte time wraps after 128 TiB of
 * allocation traffic (table.h). A third fewer bytes per slot than the
 * unpacked struct: fewer lines per probe run and, with a million live
 * blocks, a third less memory to map, fault in and miss on.
 */
#define LP_SLOT_ADDR_BITS 48
#define LP_SLOT_ADDR_MASK ((1ull << LP_SLOT_ADDR_BITS) - 1)
#define LP_SLOT_SIZE_MASK ((1ull << 47) - 1)
#define LP_SLOT_TIME_MASK ((1ull << 47) - 1)

struct lp_slot {
    uint64_t w0, w1, w2;
};

static inline uintptr_t lp_slot_addr(const struct lp_slot *s)
{
    return (uintptr_t)(s->w0 & LP_SLOT_ADDR_MASK);
}

static inline void lp_slot_pack(struct lp_slot *s, uintptr_t addr,
                                size_t size, uint32_t stack_id, unsigned how,
                                uint64_t time, uint16_t gen)
{
    uint64_t t = time & LP_SLOT_TIME_MASK;

    if (size > LP_SLOT_SIZE_MASK)
        size = LP_SLOT_SIZE_MASK;
    s->w0 = (uint64_t)addr | (uint64_t)gen << LP_SLOT_ADDR_BITS;
    s->w1 = (uint64_t)size | (uint64_t)(how & 3) << 47 | (t >> 32) << 49;
    s->w2 = (uint64_t)stack_id | (t & 0xffffffffull) << 32;
}

static inline void lp_slot_unpack(const struct lp_slot *s, struct lp_block *b)
{
    uint64_t t = (s->w1 >> 49) << 32 | s->w2 >> 32;

    b->addr = lp_slot_addr(s);
    b->size = (size_t)(s->w1 & LP_SLOT_SIZE_MASK);
    b->stack_id = (uint32_t)s->w2;
    b->how = (uint32_t)(s->w1 >> 47) & 3;
    b->time = t | (s->w0 >> LP_SLOT_ADDR_BITS) << LP_BLOCK_TIME_BITS;
}

/* A hash's home slot in an array of cap slots: the low 32 bits scaled to
 * [0, cap) (a multiply, not a mask, so cap need not be a power of two;
 * the shared table's high bits chose the shard). */
static inline size_t lp_slot_home(uint64_t h, size_t cap)
{
    return (size_t)(((uint64_t)(uint32_t)h * cap) >> 32);
}

static inline size_t lp_slot_next(size_t i, size_t cap)
{
    return i + 1 == cap ? 0 : i + 1;
}

/* Index of addr's slot, or of the empty slot ending its probe run, from
 * its home slot (the array is never full). */
static inline size_t lp_slots_probe(const struct lp_slot *slots, size_t cap,
                                    uintptr_t addr, size_t home)
{
    size_t i = home;
    uintptr_t a;

    while ((a = lp_slot_addr(&slots[i])) != 0 && a != addr)
        i = lp_slot_next(i, cap);
    return i;
}

/* Empty slot i and shift the rest of its probe run back; home_of gives a
 * block's home slot in an array of cap (the shared table's hash, the
 * nursery's granule index): inlined with the constant function. */
static inline void lp_slots_erase(struct lp_slot *slots, size_t cap, size_t i,
                                  size_t (*home_of)(uintptr_t, size_t))
{
    size_t j = i;

    for (;;) {
        size_t home;
        uintptr_t a;

        j = lp_slot_next(j, cap);
        if (!(a = lp_slot_addr(&slots[j])))
            break;
        home = home_of(a, cap);
        /* Move j into the hole at i unless its home lies in (i, j]. */
        if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
            slots[i] = slots[j];
            i = j;
        }
    }
    slots[i].w0 = 0;
}

#endif /* LP_PRELOAD_TABLE_SLOT_H */
