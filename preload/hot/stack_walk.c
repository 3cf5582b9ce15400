/* SPDX-License-Identifier: MIT */
/*
 * stack_walk.c - the stack walker and its cache of unwind rules.
 *
 * Why not libunwind on every allocation: unw_backtrace costs 8-23 ns a
 * frame (quiet to loaded machine; this walk 3.5-4 and 10-12), and on a
 * cache miss it takes its own lock and then the loader lock
 * (dl_iterate_phdr): a program that allocates inside a dl_iterate_phdr
 * callback while another thread allocates deadlocks.
 *
 * The walk: start from our own frame (frame pointer, return address),
 * and per frame look up the rule of its return address, compute the CFA
 * from rsp or rbp, read the caller's return address at CFA-8 and, if the
 * frame saved it, the caller's rbp; the caller's rsp is the CFA. Stop at
 * max frames, at an undefined return address (the outermost frame, as
 * _start and clone mark it) or at a return address below 0x4000 - where
 * libunwind stops. Every read is checked to lie in the thread's stack,
 * above where the walk began. Anything else - an unknown thread, a stack
 * that is not the thread's (sigaltstack, a coroutine), a rule that is
 * FALLBACK - and the whole capture goes to unw_backtrace instead.
 *
 * The cache: open addressing on the return address, slots of two words
 * written once: a writer claims an empty slot with a CAS (key 0 -> BUSY),
 * writes the rule, then publishes the key with a release store; a reader
 * that sees its key with an acquire load reads a rule that never changes
 * again. Slots are only ever retired (TOMB, after dlclose), never reused,
 * so there is no tearing and no lock. When half full the table is copied
 * into one four times larger; old tables stay mapped (a reader may still
 * be in one), a geometric series bounded by the last table's size.
 * Context: HOT.
 */
#include "preload/hot/stack_walk.h"

#include <string.h>

#include "preload/hot/tcb_slot.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <link.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/hot/arena.h"
#include "preload/hot/cfi.h"
#include "preload/life/config.h"
#include "preload/hot/guard.h"

enum { KEY_EMPTY = 0, KEY_BUSY = 1, KEY_TOMB = 2 };
#define PROBES 16
#define FIRST_BITS 13 /* 8192 slots, 128 KiB */
#define MAX_BITS 21   /* 2M slots, 32 MiB */
#define MAIN_STACK_MAX ((uintptr_t)1 << 30)

struct slot {
    uint64_t key; /* return address, or KEY_* */
    uint64_t rule;
};

struct rules {
    unsigned bits;
    uint64_t mask;
    uint64_t used; /* slots claimed, tombstones included */
    uint64_t pad;
    struct slot slots[];
};

static struct {
    struct rules *now; /* acquire/release */
    int growing; /* a table copy or a forget runs; copies do not wait */
    uint64_t fallbacks;
    unsigned long long subs; /* objects unloaded, at the last forget */
    unsigned gen;            /* bumped when code was unloaded */
} unwind;

/* The calling thread's stack; state 0: not looked at, 1: known, 2: not
 * known (libunwind walks it). */
#define stack_lo (lp_self.unw_lo)
#define stack_hi (lp_self.unw_hi)
#define stack_state (lp_self.unw_state)

/*
 * The thread's previous walk, frame by frame: the state on entering each
 * frame (sp, return address, rbp and whether rbp is known) and the frame's
 * rule. Consecutive captures share their outer frames (the same
 * activations of main, the loop, the interpreter's outer calls), so:
 *  - a frame found in the same state takes its rule from here, and
 *  - from there on the walk replays the memo instead of stepping: it is a
 *    deterministic function of that state, of the rules (which depend on
 *    the address only and stay while gen does: no dlclose since) and of
 *    the stack words it reads. So it only has to check that each word the
 *    previous walk read (the return address at CFA-8, rbp where the frame
 *    saved it) still holds what that walk found there, loads whose
 *    addresses are all known ahead - not one dependent step per frame.
 * A word that differs (another caller at the same depth) or the memo's
 * end resumes ordinary stepping at that frame, with its rule known. Two
 * buffers: the walk reads one, fills the other.
 */
#define MEMO 48
#define MEMO_BPK ((uint64_t)1 << 8) /* in entry.rule: rbp was known */
struct memo_entry {
    uintptr_t sp, pc, bp;
    uint64_t rule; /* | MEMO_BPK */
};
struct memo {
    unsigned n;
    unsigned gen;
    struct memo_entry e[MEMO];
};
/* Per thread (tcb_slot.h holds a pointer: the TCB area is too small for
 * them): a pair in the thread's registry record, the main thread's here,
 * none for threads we did not start (they walk without a memo). */
#define memo_now (lp_self.unw_memo_now)
/* The thread's area: two memos, then stack.c's scratch. */
struct thread_area {
    struct memo memos[2];
    uint64_t scratch[LP_UNWIND_SCRATCH_BYTES / 8];
};
static struct thread_area main_area;
static struct memo no_memo; /* never read: old_n is 0 without memos */

size_t lp_unwind_memo_size(void) { return sizeof(struct thread_area); }

void *lp_unwind_thread_scratch(void)
{
    struct thread_area *a = lp_self.unw_memos;

    return a ? a->scratch : NULL;
}

extern void *__libc_stack_end;

void lp_unwind_set_thread_stack(uintptr_t lo, uintptr_t hi, void *memos)
{
    lp_self.unw_memos = memos;
    memo_now = 0;
    if (memos)
        memset(memos, 0, lp_unwind_memo_size());
    stack_lo = lo;
    stack_hi = hi;
    stack_state = hi > lo ? 1 : 2;
}

/* The main thread's stack ends just above __libc_stack_end (argv, the
 * environment); it grows down at most RLIMIT_STACK. Other threads that
 * did not come through our pthread_create are not known. */
static LP_COLD void probe_stack(void)
{
    struct rlimit rl;
    uintptr_t hi, size = MAIN_STACK_MAX;

    if (syscall(SYS_gettid) != getpid() || __libc_stack_end == NULL) {
        stack_state = 2;
        return;
    }
    hi = ((uintptr_t)__libc_stack_end + 4095) & ~(uintptr_t)4095;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur < size)
        size = rl.rlim_cur;
    lp_unwind_set_thread_stack(hi - size, hi, &main_area);
}

/* Cheap on purpose: the lookup is on the walk's critical path (hash,
 * load key, load rule, load the return address, next frame), and return
 * addresses already differ in their low bits. */
static inline size_t slot_of(uint64_t key, uint64_t mask)
{
    return (size_t)((key ^ (key >> 13)) & mask);
}

static struct rules *rules_new(unsigned bits)
{
    struct rules *t = lp_arena_alloc(sizeof(struct rules) +
                                     (sizeof(struct slot) << bits));

    if (t) {
        t->bits = bits;
        t->mask = ((uint64_t)1 << bits) - 1;
    }
    return t;
}

/* Insert into t; false when no slot was free within PROBES. */
static bool rules_put(struct rules *t, uint64_t key, uint64_t rule)
{
    size_t mask = t->mask, i = slot_of(key, mask);
    unsigned n;

    for (n = 0; n < PROBES; n++, i = (i + 1) & mask) {
        struct slot *s = &t->slots[i];
        uint64_t k = lp_load_acquire(&s->key);

        if (k == key)
            return true;
        if (k != KEY_EMPTY)
            continue;
        if (!lp_cas(&s->key, &k, (uint64_t)KEY_BUSY)) {
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
static LP_COLD void rules_grow(struct rules *t)
{
    struct rules *g;
    size_t i;
    int expect = 0;

    if (t->bits >= MAX_BITS || !lp_cas(&unwind.growing, &expect, 1))
        return;
    g = rules_new(t->bits + 2);
    if (g) {
        for (i = 0; i < ((size_t)1 << t->bits); i++) {
            uint64_t k = lp_load_acquire(&t->slots[i].key);

            if (k > KEY_TOMB)
                rules_put(g, k, t->slots[i].rule);
        }
        lp_store_release(&unwind.now, g);
    }
    lp_store_release(&unwind.growing, 0);
}

static LP_COLD uint64_t rule_miss(uint64_t ra)
{
    struct rules *t = lp_load_acquire(&unwind.now);
    uint64_t rule = lp_cfi_rule(ra);

    if (t == NULL) {
        struct rules *fresh = rules_new(FIRST_BITS), *expect = NULL;

        if (fresh == NULL)
            return rule;
        if (lp_cas(&unwind.now, &expect, fresh))
            t = fresh;
        else {
            lp_arena_free(fresh, sizeof(struct rules) +
                                     (sizeof(struct slot) << FIRST_BITS));
            t = expect;
        }
    }
    if (!rules_put(t, ra, rule) ||
        lp_load_relaxed(&t->used) * 2 > ((uint64_t)1 << t->bits))
        rules_grow(t);
    return rule;
}

/* t: the table as the walk began (a miss may publish a bigger one; the
 * next walk uses it). */
static inline uint64_t rule_of(const struct rules *t, uint64_t ra)
{
    size_t mask = t->mask, i = slot_of(ra, mask);
    unsigned n;

    for (n = 0; n < PROBES; n++, i = (i + 1) & mask) {
        uint64_t k = lp_load_acquire(&t->slots[i].key);

        if (k == ra)
            return lp_load_relaxed(&t->slots[i].rule);
        if (k == KEY_EMPTY)
            break;
    }
    return rule_miss(ra);
}

/* A table of one empty slot, for walks before the first rule exists. */
static const union {
    struct rules r;
    char bytes[sizeof(struct rules) + sizeof(struct slot)];
} no_rules;

/*
 * The whole capture by libunwind, from lp_unwind_backtrace's frame: frame
 * 0 is here, frame 1 returns into lp_unwind_backtrace, frame 2 into its
 * caller, where buf begins. Its own frame, so the walk's fast path does
 * not carry libunwind's cursor on the program's stack.
 *
 * Stepping a cursor (what unw_backtrace itself does whenever its trace
 * cache cannot describe a frame) rather than unw_backtrace: the same
 * addresses, without the trace cache, which on first use creates a
 * pthread key and, per thread, maps and fills a 256 KiB table - 0.4 ms
 * and 64 pages in every process when it was warmed up at start, and a
 * key among the program's own otherwise (a key above 31 makes glibc
 * calloc the thread's second-level key array under our guard).
 * Fallbacks are rare (signal frames, threads we did not see start,
 * sigaltstack): the per-frame cost of stepping does not matter there.
 */
static LP_NOINLINE LP_COLD int by_libunwind(void **buf, int max)
{
    unw_context_t ctx;
    unw_cursor_t cur;
    int m = 0;

    lp_add_relaxed(&unwind.fallbacks, 1);
    if (unw_getcontext(&ctx) != 0 || unw_init_local(&cur, &ctx) != 0)
        return 0;
    do {
        unw_word_t ip;

        if (unw_get_reg(&cur, UNW_REG_IP, &ip) != 0 || ip == 0)
            break;
        if (m >= 2)
            buf[m - 2] = (void *)ip;
        m++;
    } while (m < max + 2 && unw_step(&cur) > 0);
    return m > 2 ? m - 2 : 0;
}

/* Read one word of the stack, if it lies in [lo, hi). */
#define STACK_WORD(addr, lo, hi, out) \
    ((addr) >= (lo) && (addr) <= (hi) - 8 && !((addr) & 7) && \
     ((out) = *(const uintptr_t *)(addr), true))

LP_NOINLINE int lp_unwind_backtrace(void **buf, int max)
{
    uintptr_t *fp = __builtin_frame_address(0);
    uintptr_t pc = (uintptr_t)__builtin_return_address(0);
    /* The caller's registers as they will be when we return: rsp just
     * above our return address, rbp as our prologue saved it. */
    uintptr_t sp = (uintptr_t)(fp + 2), bp = fp[0], lo = sp, hi;
    const struct rules *t = lp_load_acquire(&unwind.now);
    struct memo *memos = lp_self.unw_memos;
    const struct memo *old = memos ? &memos[memo_now] : &no_memo;
    struct memo *fill = memos ? &memos[memo_now ^ 1] : NULL;
    unsigned gen = lp_load_acquire(&unwind.gen), old_n, j = 0, k = 0;
    uint64_t bpk = MEMO_BPK; /* rbp known */
    int n = 0;

    if (max > LP_UNWIND_MAX)
        max = LP_UNWIND_MAX;
    if (LP_UNLIKELY(stack_state != 1)) {
        if (stack_state == 0)
            probe_stack();
        if (stack_state != 1)
            goto fallback;
    }
    hi = stack_hi;
    if (LP_UNLIKELY(t == NULL))
        t = &no_rules.r;
    if (sp < stack_lo || sp >= hi)
        goto fallback; /* on another stack: sigaltstack, a coroutine */
    old_n = old->gen == gen ? old->n : 0;
    if (fill == NULL)
        k = MEMO; /* nothing to fill */
    while (n < max) {
        uint64_t rule;
        uintptr_t cfa;

        buf[n++] = (void *)pc;
        if (n == max)
            break;
        while (j < old_n && old->e[j].sp < sp)
            j++;
        if (j < old_n && old->e[j].sp == sp && old->e[j].pc == pc &&
            old->e[j].bp == bp && (old->e[j].rule & MEMO_BPK) == bpk) {
            /* The state the previous walk had here: replay it while the
             * words it read are unchanged. */
            for (; j + 1 < old_n; j++) {
                const struct memo_entry *e = &old->e[j], *nx = e + 1;
                uintptr_t at;

                if (*(const uintptr_t *)(nx->sp - 8) != nx->pc)
                    break;
                if (e->rule & LP_RULE_RBP_SAVED) {
                    at = nx->sp + LP_RULE_RBP_OFF(e->rule);
                    if (at < lo || *(const uintptr_t *)at != nx->bp)
                        break;
                }
                if (k < MEMO)
                    fill->e[k++] = *e;
                buf[n++] = (void *)nx->pc;
                if (n == max)
                    goto done;
            }
            /* Here the state is old->e[j]'s. */
            sp = old->e[j].sp;
            pc = old->e[j].pc;
            bp = old->e[j].bp;
            rule = old->e[j].rule & ~MEMO_BPK;
        } else {
            rule = rule_of(t, pc);
        }
        if (k < MEMO) {
            fill->e[k].sp = sp;
            fill->e[k].pc = pc;
            fill->e[k].bp = bp;
            fill->e[k].rule = rule | bpk;
            k++;
        }
        if (LP_UNLIKELY(LP_RULE_KIND(rule) != LP_RULE_FRAME)) {
            if (LP_RULE_KIND(rule) == LP_RULE_LAST)
                break;
            goto fallback;
        }
        if (rule & LP_RULE_CFA_RBP) {
            if (!bpk)
                goto fallback;
            cfa = bp + LP_RULE_CFA_OFF(rule);
        } else {
            cfa = sp + LP_RULE_CFA_OFF(rule);
        }
        if (cfa <= sp || !STACK_WORD(cfa - 8, lo, hi, pc))
            goto fallback;
        if (rule & LP_RULE_RBP_SAVED) {
            if (!STACK_WORD(cfa + LP_RULE_RBP_OFF(rule), lo, hi, bp))
                goto fallback;
            bpk = MEMO_BPK;
        } else if (rule & LP_RULE_RBP_LOST) {
            bpk = 0;
        }
        sp = cfa;
        if (pc < 0x4000)
            break;
    }
done:
    if (fill) {
        fill->n = k;
        fill->gen = gen;
        memo_now ^= 1;
    }
    return n;

fallback:
    n = by_libunwind(buf, max);
    __asm__ volatile("" ::: "memory"); /* no tail call: see by_libunwind */
    return n;
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
    struct rules *t;
    size_t i;
    int expect = 0;

    /* dlclose may unload nothing (other references): then keep all. */
    dl_iterate_phdr(count_subs, &subs);
    if (subs == lp_load_relaxed(&unwind.subs))
        return;
    /* No table copy may run meanwhile, or it could carry stale rules
     * into the next table. */
    while (!lp_cas(&unwind.growing, &expect, 1)) {
        expect = 0;
        sched_yield();
    }
    lp_store_relaxed(&unwind.subs, subs);
    lp_add_relaxed(&unwind.gen, 1);
    t = lp_load_acquire(&unwind.now);
    for (i = 0; t && i < ((size_t)1 << t->bits); i++) {
        uint64_t k = lp_load_acquire(&t->slots[i].key);
        struct dl_find_object obj;

        if (k > KEY_TOMB && _dl_find_object((void *)(k - 1), &obj) != 0)
            lp_store_release(&t->slots[i].key, (uint64_t)KEY_TOMB);
    }
    lp_store_release(&unwind.growing, 0);
}

uint64_t lp_unwind_rule(uintptr_t ra)
{
    const struct rules *t = lp_load_acquire(&unwind.now);

    return rule_of(t ? t : &no_rules.r, ra);
}

bool lp_unwind_rule_cached(uintptr_t ra)
{
    const struct rules *t = lp_load_acquire(&unwind.now);
    size_t i, n;

    if (t == NULL)
        return false;
    for (n = 0, i = slot_of(ra, t->mask); n < PROBES;
         n++, i = (i + 1) & t->mask) {
        uint64_t k = lp_load_acquire(&t->slots[i].key);

        if (k == ra)
            return true;
        if (k == KEY_EMPTY)
            break;
    }
    return false;
}

uint64_t lp_unwind_fallback_count(void)
{
    return lp_load_relaxed(&unwind.fallbacks);
}
