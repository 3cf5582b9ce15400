/* SPDX-License-Identifier: MIT */
/*
 * unwind_rules.c - the cache of unwind rules (unwind_rules.h): filling it
 * on a miss from the CFI (cfi.c), growing it, forgetting unloaded code.
 * Context: HOT on a miss (no lock: CAS on a slot; arena memory only);
 * lp_unwind_forget_unloaded COLD.
 */
#include "preload/hot/unwind_rules.h"

#include <link.h>
#include <sched.h>

#include "preload/hot/arena.h"
#include "preload/hot/cfi.h"
#include "preload/hot/stack_walk.h"
#include "preload/hot/unwind_rules_file.h"

#define FIRST_BITS 13 /* 8192 slots, 128 KiB */
#define MAX_BITS 21   /* 2M slots, 32 MiB */

struct lp_rules *lp_rules_now;
unsigned lp_rules_gen;

static struct {
    int growing; /* a table copy or a forget runs; copies do not wait */
    unsigned long long subs; /* objects unloaded, at the last forget */
} rules;

/* A table of one empty slot, for walks before the first rule exists. */
static const union {
    struct lp_rules r;
    char bytes[sizeof(struct lp_rules) + sizeof(struct lp_rule_slot)];
} empty;
const struct lp_rules *const lp_no_rules = &empty.r;

static struct lp_rules *rules_new(unsigned bits)
{
    struct lp_rules *t = lp_arena_alloc(sizeof(struct lp_rules) +
                                     (sizeof(struct lp_rule_slot) << bits));

    if (t) {
        t->bits = bits;
        t->mask = ((uint64_t)1 << bits) - 1;
    }
    return t;
}

/* Insert into t; false when no slot was free within LP_RULE_PROBES. */
static bool rules_put(struct lp_rules *t, uint64_t key, uint64_t rule)
{
    size_t mask = t->mask, i = lp_rule_slot_of(key, mask);
    unsigned n;

    for (n = 0; n < LP_RULE_PROBES; n++, i = (i + 1) & mask) {
        struct lp_rule_slot *s = &t->slots[i];
        uint64_t k = lp_load_acquire(&s->key);

        if (k == key)
            return true;
        if (k != LP_RULE_KEY_EMPTY)
            continue;
        if (!lp_cas(&s->key, &k, (uint64_t)LP_RULE_KEY_BUSY)) {
            if (k == key)
                return true;
            continue;
        }
        lp_store_relaxed(&s->rule, rule);
        lp_store_release(&s->key, key);
        lp_add_relaxed(&t->used, 1);
        return true;
    }
    return false;
}

/* Copy t into a table four times larger and publish it. */
static LP_COLD void rules_grow(struct lp_rules *t)
{
    struct lp_rules *g;
    size_t i;
    int expect = 0;

    if (t->bits >= MAX_BITS || !lp_cas(&rules.growing, &expect, 1))
        return;
    g = rules_new(t->bits + 2);
    if (g) {
        for (i = 0; i < ((size_t)1 << t->bits); i++) {
            uint64_t k = lp_load_acquire(&t->slots[i].key);

            if (k > LP_RULE_KEY_TOMB)
                rules_put(g, k, t->slots[i].rule);
        }
        lp_store_release(&lp_rules_now, g);
    }
    lp_store_release(&rules.growing, 0);
}

uint64_t lp_rules_computed;

void lp_rules_atfork_child(void)
{
    lp_store_relaxed(&lp_rules_computed, 0);
    lp_rules_file_atfork_child();
}

LP_COLD uint64_t lp_rule_miss(uint64_t ra)
{
    struct lp_rules *t = lp_load_acquire(&lp_rules_now);
    uint64_t rule;

    /* What an earlier process of this object computed, else the CFI. */
    if (!lp_rules_file_find(ra, &rule)) {
        rule = lp_cfi_rule(ra);
        if (!(rule & LP_RULE_NO_OBJECT))
            lp_add_relaxed(&lp_rules_computed, 1);
    }
    if (rule & LP_RULE_NO_OBJECT)
        return rule; /* JIT code: an object may be mapped there later */

    if (t == NULL) {
        struct lp_rules *fresh = rules_new(FIRST_BITS), *expect = NULL;

        if (fresh == NULL)
            return rule;
        if (lp_cas(&lp_rules_now, &expect, fresh))
            t = fresh;
        else {
            lp_arena_free(fresh, sizeof(struct lp_rules) +
                                     (sizeof(struct lp_rule_slot) << FIRST_BITS));
            t = expect;
        }
    }
    if (!rules_put(t, ra, rule) ||
        lp_load_relaxed(&t->used) * 2 > ((uint64_t)1 << t->bits))
        rules_grow(t);
    return rule;
}

static int count_subs(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(unsigned long long *)arg = info->dlpi_subs;
    return 1;
}

void lp_unwind_forget_unloaded(void)
{
    unsigned long long subs = 0;
    struct lp_rules *t;
    size_t i;
    int expect = 0;

    /* dlclose may unload nothing (other references): then keep all. */
    dl_iterate_phdr(count_subs, &subs);
    if (subs == lp_load_relaxed(&rules.subs))
        return;
    /* No table copy may run meanwhile, or it could carry stale rules
     * into the next table. */
    while (!lp_cas(&rules.growing, &expect, 1)) {
        expect = 0;
        sched_yield();
    }
    lp_store_relaxed(&rules.subs, subs);
    lp_add_relaxed(&lp_rules_gen, 1);
    t = lp_load_acquire(&lp_rules_now);
    for (i = 0; t && i < ((size_t)1 << t->bits); i++) {
        uint64_t k = lp_load_acquire(&t->slots[i].key);
        struct dl_find_object obj;

        if (k > LP_RULE_KEY_TOMB && _dl_find_object((void *)(k - 1), &obj) != 0)
            lp_store_release(&t->slots[i].key, (uint64_t)LP_RULE_KEY_TOMB);
    }
    lp_store_release(&rules.growing, 0);
}

uint64_t lp_unwind_rule(uintptr_t ra)
{
    const struct lp_rules *t = lp_load_acquire(&lp_rules_now);

    return lp_rule_of(t ? t : lp_no_rules, ra);
}

bool lp_unwind_rule_cached(uintptr_t ra)
{
    const struct lp_rules *t = lp_load_acquire(&lp_rules_now);
    size_t i, n;

    if (t == NULL)
        return false;
    for (n = 0, i = lp_rule_slot_of(ra, t->mask); n < LP_RULE_PROBES;
         n++, i = (i + 1) & t->mask) {
        uint64_t k = lp_load_acquire(&t->slots[i].key);

        if (k == ra)
            return true;
        if (k == LP_RULE_KEY_EMPTY)
            break;
    }
    return false;
}
