/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_UNWIND_RULES_H
#define LP_PRELOAD_UNWIND_RULES_H
/*
 * unwind_rules.h - the process's cache of unwind rules, one per return
 * address (cfi.h says what a rule is), which every stack walk reads.
 *
 * Open addressing on the return address, slots of two words written
 * once: a writer claims an empty slot with a CAS (key 0 -> BUSY), writes
 * the rule, then publishes the key with a release store; a reader that
 * sees its key with an acquire load reads a rule that never changes
 * again. Slots are only ever retired (TOMB, after dlclose), never reused,
 * so there is no tearing and no lock. When half full the table is copied
 * into one four times larger; old tables stay mapped (a reader may still
 * be in one), a geometric series bounded by the last table's size.
 *
 * Context: HOT (lp_rule_of, and on a miss lp_rule_miss: no lock, arena
 * memory only); lp_unwind_forget_unloaded is COLD (after dlclose).
 */
#include "preload/lp.h"

enum { LP_RULE_KEY_EMPTY = 0, LP_RULE_KEY_BUSY = 1, LP_RULE_KEY_TOMB = 2 };
#define LP_RULE_PROBES 16

struct lp_rule_slot {
    uint64_t key; /* return address, or LP_RULE_KEY_* */
    uint64_t rule;
};

struct lp_rules {
    unsigned bits;
    uint64_t mask;
    uint64_t used; /* slots claimed, tombstones included */
    uint64_t pad;
    struct lp_rule_slot slots[];
};

/* The table now (acquire: NULL before the first rule; lp_no_rules then)
 * and the generation of the rules, bumped when code was unloaded (a walk
 * remembered under another generation may use rules that are gone). */
extern struct lp_rules *lp_rules_now;
extern unsigned lp_rules_gen;
extern const struct lp_rules *const lp_no_rules; /* one empty slot */
/* Rules this process computed from the CFI (not read from a rules file):
 * none, and the exit has no file to write. */
extern uint64_t lp_rules_computed;
/* In a fork child: the rules it inherited are the parent's to save (at
 * its own exit); the child writes the files only for rules it computes
 * itself. A shell's subshells each wrote every file again: 5% of a loop
 * of 100 `(true)`. */
void lp_rules_atfork_child(void);

/* Cheap on purpose: the lookup is on the walk's critical path (hash,
 * load key, load rule, load the return address, next frame), and return
 * addresses already differ in their low bits. */
static inline size_t lp_rule_slot_of(uint64_t key, uint64_t mask)
{
    return (size_t)((key ^ (key >> 13)) & mask);
}

/* Compute ra's rule from the CFI, cache it, return it. */
uint64_t lp_rule_miss(uint64_t ra);

/* ra's rule, through t: the table as the walk began (a miss may publish a
 * bigger one; the next walk uses it). */
static inline uint64_t lp_rule_of(const struct lp_rules *t, uint64_t ra)
{
    size_t mask = t->mask, i = lp_rule_slot_of(ra, mask);
    unsigned n;

    for (n = 0; n < LP_RULE_PROBES; n++, i = (i + 1) & mask) {
        uint64_t k = lp_load_acquire(&t->slots[i].key);

        if (k == ra)
            return lp_load_relaxed(&t->slots[i].rule);
        if (k == LP_RULE_KEY_EMPTY)
            break;
    }
    return lp_rule_miss(ra);
}

#endif /* LP_PRELOAD_UNWIND_RULES_H */
