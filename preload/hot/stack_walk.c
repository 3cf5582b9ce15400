/* SPDX-License-Identifier: MIT */
/*
 * stack_walk.c - the stack walker, and its memos of earlier walks.
 *
 * Why not libunwind on every allocation: unw_backtrace costs 8-23 ns a
 * frame (quiet to loaded machine; this walk 3.5-4 and 10-12), and on a
 * cache miss it takes its own lock and then the loader lock
 * (dl_iterate_phdr): a program that allocates inside a dl_iterate_phdr
 * callback while another thread allocates deadlocks.
 *
 * The walk: start from our own frame (frame pointer, return address),
 * and per frame look up the rule of its return address (unwind_rules.h),
 * compute the CFA from rsp or rbp, read the caller's return address at
 * CFA-8 and, if the frame saved it, the caller's rbp; the caller's rsp is
 * the CFA. Stop at max frames, at an undefined return address (the
 * outermost frame, as _start and clone mark it) or at a return address
 * below 0x4000 - where libunwind stops. Every read is checked to lie in
 * the thread's stack, above where the walk began. Anything else - an
 * unknown thread, a stack that is not the thread's (sigaltstack, a
 * coroutine), a rule that is FALLBACK - and the whole capture goes to
 * libunwind instead.
 * Context: HOT.
 */
#include "preload/hot/stack_walk.h"

#include <dlfcn.h>
#include <string.h>

#include "preload/hot/tcb_slot.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/hot/cfi.h"
#include "preload/hot/guard.h"
#include "preload/hot/unwind_rules.h"
#include "preload/life/config.h"

#define MAIN_STACK_MAX ((uintptr_t)1 << 30)
/* libunwind's bound on a guessed frame pointer above the frame's rsp. */
#define GUESS_RBP_MAX 0x4000

static uint64_t fallbacks; /* captures handed to libunwind */

/* The calling thread's stack; state 0: not looked at, 1: known, 2: not
 * known (libunwind walks it). */
#define stack_lo (lp_self.unw_lo)
#define stack_hi (lp_self.unw_hi)
#define stack_state (lp_self.unw_state)

/*
 * The thread's earlier walks, frame by frame: the state on entering each
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
 * end resumes ordinary stepping at that frame, with its rule known.
 *
 * Which earlier walk: the previous one for our own frames, then, from
 * frame KEY_FRAME on (the program's frame that called the hook), one of
 * the latest walks that were in the same state there: KEYS memos per
 * thread, in sets by that frame's (sp, return address) - a call site at
 * a given stack depth - of WAYS walks each, the most recent first. The
 * previous walk alone shared only our frames and the outermost ones with
 * the next (sqlite3: 8.7 of 21 frames stepped, each a rule lookup that
 * misses the cache).
 *
 * And a walk that finds every word an earlier walk from there read
 * unchanged (still_there: a tight loop of loads whose addresses are all
 * known) is that walk: it stops there and answers with that walk's stack
 * id (lp_unwind_capture), so the capture neither walks on nor hashes nor
 * interns. Of the walks of the bench's sqlite3 (40k inserts) 32% were
 * such repeats with one memo per call site and depth, 99.9% with sets of
 * 8; of python3's, 76%. The price: up to KEYS + 1 memos of 1.6 KiB per
 * thread (206 KiB), touched only as they are used.
 */
#define MEMO 48
#define MEMO_BPK ((uint64_t)1 << 8) /* in entry.rule: rbp was known */
#define KEYS 128 /* SETS sets of WAYS memos */
#define WAYS 8
#define SETS (KEYS / WAYS)
#define KEY_FRAME 3
struct memo {
    unsigned n; /* entries */
    unsigned gen;
    int frames, max; /* the walk's result: frames of max */
    uintptr_t last_pc; /* its last frame (without an entry at max) */
    uintptr_t fin_at, fin_val; /* its last read, beyond the entries */
    uint32_t id;       /* its stack id, once the capture told us */
    bool needs_bp;     /* from KEY_FRAME on it used that frame's rbp */
    uint64_t bp_reads; /* bit i: the rbp frame i read off the stack mattered */
    /* Frame i's state on entry and its rule (| MEMO_BPK), one array a
     * field: the fast check streams through sp and pc only. */
    uintptr_t sp[MEMO], pc[MEMO], bp[MEMO];
    uint64_t rule[MEMO];
};
/* Per thread (tcb_slot.h holds a pointer: the TCB area is too small for
 * them): in the thread's registry record, the main thread's here, none
 * for threads we did not start (they walk without a memo). Buffers are
 * handed out from pool in order; each is then in at most one slot, or
 * the spare the next walk fills (a walk stores its memo in its slot and
 * the one it replaces becomes the spare): so at most KEYS + 1 are ever
 * handed out. Only the header is reset at thread start: a memo is read
 * only through a slot or prev. */
struct thread_area {
    uint64_t scratch[LP_UNWIND_SCRATCH_BYTES / 8]; /* stack.c's */
    struct memo *prev;  /* the previous walk (also in a slot) */
    struct memo *spare; /* the next walk fills it */
    struct memo_set {
        uint32_t tag[WAYS]; /* key_of() of each way's state; 0: none */
        struct memo *m[WAYS];
        /* Each way's probe (see probe_for): the return address its walk
         * read at psp - 8 from a frame where it differs from another way
         * in the same state; psp 0: none. */
        uintptr_t psp[WAYS], ppc[WAYS];
    } set[SETS];
    unsigned pool_used;
    struct memo pool[KEYS + 1];
    /* Not reset at thread start (a record's next thread reuses them):
     * libunwind's own stack (by_libunwind), mapped on first need, and the
     * registers it starts from. */
    void *unw_stack;
    bool unw_stack_busy;
    unw_context_t unw_ctx;
};
static struct thread_area main_area;

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
    if (memos)
        memset(memos, 0, offsetof(struct thread_area, pool));
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
struct unw_job {
    unw_context_t *ctx;
    void **buf;
    int max, n;
};

/* Step a cursor from job->ctx: frames 0 and 1 are by_libunwind's and its
 * caller's, buf begins at frame 2. */
static LP_COLD void unw_steps(struct unw_job *job)
{
    unw_cursor_t cur;
    int m = 0;

    if (unw_init_local(&cur, job->ctx) != 0)
        return;
    do {
        unw_word_t ip;

        if (unw_get_reg(&cur, UNW_REG_IP, &ip) != 0 || ip == 0)
            break;
        if (m >= 2)
            job->buf[m - 2] = (void *)ip;
        m++;
    } while (m < job->max + 2 && unw_step(&cur) > 0);
    job->n = m > 2 ? m - 2 : 0;
}

/*
 * libunwind's cursor and its DWARF stepping take 6-8 KiB of stack, which
 * a fallback's stack may not have: a signal handler on an 8 KiB
 * sigaltstack that allocates overflowed it (our own fatal-signal handler
 * then faulted on it again and again: a spin), and a coroutine on a
 * small makecontext stack crashed. So the steps run on a stack of the
 * thread's own (UNW_STACK, mapped on first need, a guard page below),
 * from registers taken on the program's: only the context capture and
 * our frames stay there. Threads we did not see start, and a capture
 * nested in one (a signal handler's), step where they are, as before.
 */
#define UNW_STACK (128 * 1024)

static LP_COLD void *unw_stack_of(struct thread_area *a)
{
    void *p;

    if (a->unw_stack)
        return a->unw_stack;
    p = mmap(NULL, UNW_STACK + 4096, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    (void)mprotect(p, 4096, PROT_NONE);
    a->unw_stack = p;
    return p;
}

/* fn(arg) on the stack whose top is top (16-byte aligned). */
static LP_COLD void call_on_stack(void *top, void (*fn)(struct unw_job *),
                                  struct unw_job *arg)
{
    __asm__ volatile("mov %%rsp, %%rbx\n\t"
                     "mov %0, %%rsp\n\t"
                     "call *%1\n\t"
                     "mov %%rbx, %%rsp"
                     :
                     : "r"(top), "r"(fn), "D"(arg)
                     : "rbx", "rax", "rcx", "rdx", "rsi", "r8", "r9", "r10",
                       "r11", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
                       "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
                       "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc");
}

/* The fallback's fallback, where it is (its context on the stack). */
static LP_NOINLINE LP_COLD int unw_here(void **buf, int max)
{
    unw_context_t ctx;
    struct unw_job job = { &ctx, buf, max, 0 };

    if (unw_getcontext(&ctx) != 0)
        return 0;
    unw_steps(&job);
    /* Frame 0 is here: the caller's frames are one further. */
    if (job.n > 0)
        memmove(buf, buf + 1, sizeof(*buf) * (size_t)--job.n);
    return job.n;
}

static LP_NOINLINE LP_COLD int by_libunwind(void **buf, int max)
{
    struct thread_area *a = lp_self.unw_memos;
    struct unw_job job = { NULL, buf, max, 0 };
    char *stack;
    int n;

    lp_add_relaxed(&fallbacks, 1);
    if (a == NULL || a->unw_stack_busy || (stack = unw_stack_of(a)) == NULL) {
        n = unw_here(buf, max + 1 < LP_UNWIND_MAX ? max + 1 : max);
        __asm__ volatile("" ::: "memory"); /* no tail call: a frame less */
        return n > max ? max : n;
    }
    a->unw_stack_busy = true;
    job.ctx = &a->unw_ctx;
    if (unw_getcontext(job.ctx) == 0)
        call_on_stack(stack + 4096 + UNW_STACK, unw_steps, &job);
    a->unw_stack_busy = false;
    return job.n;
}

/* The rule of a frame with a frame pointer, at a call: CFA = rbp + 16,
 * rbp saved at CFA - 16. */
#define FP_RULE \
    ((uint64_t)LP_RULE_FRAME | LP_RULE_CFA_RBP | LP_RULE_RBP_SAVED | \
     (uint64_t)(uint16_t)-16 << 16 | (uint64_t)16 << 32)

/* This library's own code (found once, lock-free: _dl_find_object, so
 * no loader lock even on the first allocation): the frames the walk
 * steps through by frame pointers (it is built with them everywhere),
 * and the frames stack.c drops from a stack (lp_stack_is_self). Tests
 * narrow it (lp_unwind_set_self_range): in a test binary, test code
 * without frame pointers shares the object. */
uintptr_t lp_unwind_self_lo, lp_unwind_self_hi;
int lp_unwind_self_known;

LP_COLD void lp_unwind_find_self(void)
{
    struct dl_find_object obj;

    if (_dl_find_object((void *)(uintptr_t)&lp_unwind_find_self, &obj) == 0) {
        lp_unwind_self_lo = (uintptr_t)obj.dlfo_map_start;
        lp_unwind_self_hi = (uintptr_t)obj.dlfo_map_end;
    }
    lp_store_release(&lp_unwind_self_known, 1);
}

void lp_unwind_set_self_range(uintptr_t lo, uintptr_t hi)
{
    lp_unwind_self_lo = lo;
    lp_unwind_self_hi = hi;
    lp_store_release(&lp_unwind_self_known, 1);
}

static inline bool is_self(uintptr_t pc)
{
    return lp_unwind_is_self(pc);
}

/* Read one word of the stack, if it lies in [lo, hi). */
#define STACK_WORD(addr, lo, hi, out) \
    ((addr) >= (lo) && (addr) <= (hi) - 8 && !((addr) & 7) && \
     ((out) = *(const uintptr_t *)(addr), true))

/* A walk's slot: its frame KEY_FRAME's state hashed (the stack pointer's
 * low bits are mostly alignment: multiply, take the top bits). */
static inline uint64_t key_of(uintptr_t sp, uintptr_t pc)
{
    return ((sp ^ (pc << 9)) * 0x9e3779b97f4a7c15ull) | 1;
}
/* Its set (the top bits) and its tag in the set (the low 32, never 0):
 * the ways' tags share a cache line, so a set is searched without
 * touching the memos that are not in the same state. */
#define SET_OF(key) ((unsigned)((key) >> 60))
#define TAG_OF(key) ((uint32_t)(key))
_Static_assert(SETS == 16, "SET_OF takes 4 bits");
_Static_assert(MEMO < 64, "bp_reads has a bit an entry");

/* Put m first in its set, in place of way w (the ways before it move
 * down one), as the thread's latest walk. */
static inline void to_front(struct thread_area *area, struct memo_set *set,
                            unsigned w, uint32_t tag, struct memo *m)
{
    uintptr_t psp = set->psp[w], ppc = set->ppc[w];

    for (; w > 0; w--) {
        set->tag[w] = set->tag[w - 1];
        set->m[w] = set->m[w - 1];
        set->psp[w] = set->psp[w - 1];
        set->ppc[w] = set->ppc[w - 1];
    }
    set->tag[0] = tag;
    set->m[0] = m;
    set->psp[0] = psp;
    set->ppc[0] = ppc;
    area->prev = m;
}

/*
 * Probes. Walks in the same state at KEY_FRAME (one call site at one
 * depth) share a set and a tag, so a walk tried each of them in turn, and
 * each that was not its own cost the reads of its memo's lines before it
 * failed (sqlite3: 1.54 tries a walk, failing at frames 7-10; python3:
 * 1.6, mostly at frame 4). A way's probe is one word its walk read - the
 * return address at a frame where its memo and another way's differ - and
 * the set keeps it beside the tag: a walk whose stack has another word
 * there is not that way's, which the set's own line tells. A probe can
 * only turn a way down that still_there would have turned down (it is one
 * of the words still_there compares); one that does not discriminate
 * only costs the full check, as before.
 */
static void probe_for(struct memo_set *set, unsigned w, const struct memo *x,
                      const struct memo *y)
{
    unsigned i, n = x->n < y->n ? x->n : y->n;

    set->psp[w] = 0;
    for (i = KEY_FRAME + 1; i < n; i++)
        if (x->sp[i] != y->sp[i] || x->pc[i] != y->pc[i]) {
            set->psp[w] = x->sp[i];
            set->ppc[w] = x->pc[i];
            return;
        }
}

/* fill just became way 0 of set: its probe against the way it met first
 * in its state, and every such way whose probe would let fill's stack
 * through gets one against fill (a walk that was not a repeat: rare). */
static void probes_update(struct memo_set *set, const struct memo *fill)
{
    uint32_t tag = set->tag[0];
    bool met = false;
    unsigned w;

    set->psp[0] = 0;
    for (w = 1; w < WAYS; w++) {
        if (set->tag[w] != tag || set->m[w]->gen != fill->gen ||
            set->m[w]->sp[KEY_FRAME] != fill->sp[KEY_FRAME] ||
            set->m[w]->pc[KEY_FRAME] != fill->pc[KEY_FRAME])
            continue;
        if (!met) {
            met = true;
            probe_for(set, 0, fill, set->m[w]);
        }
        if (set->psp[w] == 0 ||
            *(const uintptr_t *)(set->psp[w] - 8) == set->ppc[w])
            probe_for(set, w, set->m[w], fill);
    }
}

/* The walk just filled found the frames was found: the same stack. */
static inline bool same_frames(const struct memo *was, const struct memo *now)
{
    unsigned i;

    if (was->n != now->n || was->frames != now->frames ||
        was->max != now->max || was->last_pc != now->last_pc)
        return false;
    for (i = 0; i < now->n; i++)
        if (was->pc[i] != now->pc[i])
            return false;
    return true;
}

/* Whether a walk from KEY_FRAME in the state x had there would read what
 * x's walk read: every return address and saved rbp above that frame and
 * its last read. Then it finds x's frames again, and nothing of the walk
 * needs to be done: those reads were its only inputs (the rules depend on
 * the addresses alone, and x->gen says they still hold; the frame's rbp
 * is the caller's to compare when x->needs_bp). The frames below, buf's
 * first KEY_FRAME, must be x's too: the same site and depth reached
 * through another hook (malloc or calloc through one pointer) is
 * another stack. */
static inline bool still_there(const struct memo *x, void *const *buf,
                               uintptr_t lo)
{
    unsigned i, n = x->n;
    /* In locals: the loads through the stack words could alias them, and
     * the bit test reloaded bp_reads on every frame (a sixth of a
     * repeat's samples). The return addresses first, in a loop of loads
     * and compares only; then the few saved rbp words that mattered. */
    uint64_t bits = x->bp_reads & ~(((uint64_t)2 << KEY_FRAME) - 1);

    for (i = 0; i < KEY_FRAME; i++)
        if (x->pc[i] != (uintptr_t)buf[i])
            return false;
    for (i = KEY_FRAME + 1; i < n; i++)
        if (*(const uintptr_t *)(x->sp[i] - 8) != x->pc[i])
            return false;
    bits &= n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
    for (; bits; bits &= bits - 1) {
        uintptr_t at;

        i = (unsigned)__builtin_ctzll(bits);
        at = x->sp[i] + LP_RULE_RBP_OFF(x->rule[i - 1]);
        if (at < lo || *(const uintptr_t *)at != x->bp[i])
            return false;
    }
    return x->fin_at == 0 || *(const uintptr_t *)x->fin_at == x->fin_val;
}

/* The walk's next frame state, in the memo it fills while there is room
 * (k < MEMO; fill is never NULL then: k starts at MEMO without one). */
static inline void memo_put(struct memo *fill, unsigned *k, uintptr_t sp,
                            uintptr_t pc, uintptr_t bp, uint64_t rule)
{
    if (*k < MEMO) {
        fill->sp[*k] = sp;
        fill->pc[*k] = pc;
        fill->bp[*k] = bp;
        fill->rule[*k] = rule;
        ++*k;
    }
}

/* Which rbp values m's walk used: a frame's rbp matters when its CFA is
 * rbp-based or when it leaves rbp alone for a caller it matters to. So the
 * words a replay must compare are the saved rbp of those frames only (in
 * code without frame pointers rbp holds data, a different value each
 * time, that no step ever uses), and the state at KEY_FRAME must agree on
 * rbp only when that frame's mattered. */
static void note_bp_use(struct memo *m)
{
    bool need = false;
    unsigned i;

    m->bp_reads = 0;
    for (i = m->n; i-- > KEY_FRAME;) {
        uint64_t r = m->rule[i];

        if (r & (LP_RULE_RBP_SAVED | LP_RULE_RBP_LOST)) {
            if (need && (r & LP_RULE_RBP_SAVED))
                m->bp_reads |= (uint64_t)1 << (i + 1);
            need = false;
        }
        if (r & LP_RULE_CFA_RBP)
            need = true;
    }
    m->needs_bp = need;
}

/*
 * The walk from the frame fp of the function it is inlined into (pc: that
 * function's return address); *out: the memo that describes it now (its
 * id field the capture's), or NULL.
 */
static inline __attribute__((always_inline)) int
walk(void **buf, int max, uintptr_t *fp, uintptr_t pc, struct memo **out,
     bool all_frames)
{
    /* The caller's registers as they will be when we return: rsp just
     * above our return address, rbp as our prologue saved it. */
    uintptr_t sp = (uintptr_t)(fp + 2), bp = fp[0], lo = sp, hi;
    const struct lp_rules *t = lp_load_acquire(&lp_rules_now);
    struct thread_area *area = lp_self.unw_memos;
    const struct memo *old = NULL, *pv = NULL; /* pv: the previous walk */
    struct memo *fill = NULL;
    unsigned gen = lp_load_acquire(&lp_rules_gen), old_n = 0, j = 0, k = MEMO;
    unsigned pv_n = 0;
    uintptr_t fin_at = 0, fin_val = 0;
    uint64_t bpk = MEMO_BPK; /* rbp known */
    int n = 0;

    *out = NULL;
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
        t = lp_no_rules;
    if (sp < stack_lo || sp >= hi)
        goto fallback; /* on another stack: sigaltstack, a coroutine */
    if (area) {
        fill = area->spare;
        if (fill == NULL && area->pool_used <= KEYS) /* never more */
            fill = &area->pool[area->pool_used++];
        if (fill) {
            area->spare = NULL;
            k = 0;
            old = pv = area->prev;
            if (old && old->gen == gen)
                old_n = pv_n = old->n;
        } else {
            area = NULL;
        }
    }
    /* Our own frames first (the capture, the tracking, the hook), by
     * their frame pointers: this library keeps them everywhere
     * (-fno-omit-frame-pointer), so at each of its call sites CFA = rbp +
     * 16, the return address at CFA - 8, the caller's rbp at CFA - 16 -
     * the very rule the CFI gives, without looking it up (three steps a
     * capture, a third of a repeat's cost on sqlite3). Up to KEY_FRAME
     * only: the program's frame there keys the memos as before. */
    while (n < KEY_FRAME && n + 1 < max && is_self(pc)) {
        uintptr_t cfa = bp + 16, npc, nbp;

        if (bp < sp || bp & 7 || !STACK_WORD(cfa - 8, lo, hi, npc) ||
            !STACK_WORD(bp, lo, hi, nbp))
            goto fallback;
        buf[n++] = (void *)pc;
        memo_put(fill, &k, sp, pc, bp, FP_RULE | MEMO_BPK);
        sp = cfa;
        pc = npc;
        bp = nbp;
    }
    while (n < max) {
        uint64_t rule;
        uintptr_t cfa;

        buf[n++] = (void *)pc;
        if (n == max) {
            fin_at = sp - 8;
            fin_val = pc;
            break;
        }
        if (n == KEY_FRAME + 1 && area) {
            /* The program's frame: the latest walks that were here. */
            uint64_t key = key_of(sp, pc);
            struct memo_set *set = &area->set[SET_OF(key)];
            const struct memo *first = NULL;
            unsigned w, rejected = WAYS; /* the first way a probe refused */

            for (w = 0; w < WAYS; w++) {
                struct memo *c;

                if (set->tag[w] != TAG_OF(key))
                    continue;
                if (set->psp[w] &&
                    *(const uintptr_t *)(set->psp[w] - 8) != set->ppc[w]) {
                    if (rejected == WAYS)
                        rejected = w;
                    continue; /* not that walk's stack: see probe_for */
                }
                c = set->m[w];
                if (c->gen != gen || c->sp[KEY_FRAME] != sp ||
                    c->pc[KEY_FRAME] != pc)
                    continue;
                if (!first)
                    first = c;
                if (!all_frames && c->id && c->max == max &&
                    (!c->needs_bp || (c->bp[KEY_FRAME] == bp &&
                                      (c->rule[KEY_FRAME] & MEMO_BPK) == bpk)) &&
                    still_there(c, (void *const *)buf, lo)) {
                    /* That walk again: its frames and its id. */
                    to_front(area, set, w, TAG_OF(key), c);
                    area->spare = fill;
                    *out = c;
                    return c->frames;
                }
            }
            if (!first && rejected < WAYS) {
                /* A way in this state all the same: to replay from. */
                struct memo *c = set->m[rejected];

                if (c->gen == gen && c->sp[KEY_FRAME] == sp &&
                    c->pc[KEY_FRAME] == pc)
                    first = c;
            }
            if (first && first != old) {
                old = first;
                old_n = first->n;
                j = KEY_FRAME;
            }
        }
        while (j < old_n && old->sp[j] < sp)
            j++;
        if (j < old_n && old->sp[j] == sp && old->pc[j] == pc &&
            old->bp[j] == bp && (old->rule[j] & MEMO_BPK) == bpk) {
            /* The state the previous walk had here: replay it while the
             * words it read are unchanged. */
            for (; j + 1 < old_n; j++) {
                uint64_t r = old->rule[j];
                uintptr_t at, nsp = old->sp[j + 1], npc = old->pc[j + 1];

                if (*(const uintptr_t *)(nsp - 8) != npc)
                    break;
                if (r & LP_RULE_RBP_SAVED) {
                    at = nsp + LP_RULE_RBP_OFF(r);
                    if (at < lo || *(const uintptr_t *)at != old->bp[j + 1])
                        break;
                }
                memo_put(fill, &k, old->sp[j], old->pc[j], old->bp[j], r);
                buf[n++] = (void *)npc;
                if (n == max) {
                    fin_at = nsp - 8;
                    fin_val = npc;
                    goto done;
                }
            }
            /* Here the state is old's at j. */
            sp = old->sp[j];
            pc = old->pc[j];
            bp = old->bp[j];
            rule = old->rule[j] & ~MEMO_BPK;
        } else if (j < old_n && old->sp[j] == sp && old->pc[j] == pc) {
            /* Only rbp differs (a register the frame's code uses for
             * data): the rule is the return address's all the same. */
            rule = old->rule[j] & ~MEMO_BPK;
        } else if (n - 1 < (int)pv_n && pv->pc[n - 1] == pc) {
            /* The previous walk had this return address at this depth
             * of the walk, in another state: our own frames, mostly,
             * over a program that allocates at another stack depth. The
             * rule depends on the address alone. */
            rule = pv->rule[n - 1] & ~MEMO_BPK;
        } else {
            rule = lp_rule_of(t, pc);
        }
        memo_put(fill, &k, sp, pc, bp, rule | bpk);
        if (LP_UNLIKELY(LP_RULE_KIND(rule) != LP_RULE_FRAME)) {
            if (LP_RULE_KIND(rule) == LP_RULE_LAST)
                break;
            if (!(rule & LP_RULE_NO_INFO))
                goto fallback;
            /* Code no FDE covers (JIT, V8's builtins): libunwind's
             * frame-chain guess (cfi.h). Where it cannot be made (both
             * words it reads, [rbp] and [rbp + 8], must lie in the stack
             * too) the walk ends, as libunwind's does; where it can, the
             * rule already has the frame-pointer shape: step by it. */
            if (!bpk || bp == 0 || bp < sp || bp - sp > GUESS_RBP_MAX ||
                (bp & 7) || bp + 16 > hi)
                break;
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
        if (pc < 0x4000) {
            fin_at = sp - 8;
            fin_val = pc;
            break;
        }
    }
done:
    if (fill) {
        fill->n = k;
        fill->gen = gen;
        fill->frames = n;
        fill->max = max;
        fill->last_pc = (uintptr_t)buf[n - 1];
        fill->fin_at = fin_at;
        fill->fin_val = fin_val;
        fill->id = 0;
        if (k > KEY_FRAME) {
            /* First in its set, in place of a walk with the same frames
             * (whose id it takes) or else of the least recent one. */
            uint64_t key = key_of(fill->sp[KEY_FRAME], fill->pc[KEY_FRAME]);
            struct memo_set *set = &area->set[SET_OF(key)];
            unsigned w;

            for (w = 0; w < WAYS - 1; w++)
                if (set->tag[w] == TAG_OF(key) && same_frames(set->m[w], fill))
                    break;
            if (set->tag[w] == TAG_OF(key) && same_frames(set->m[w], fill))
                fill->id = set->m[w]->id;
            note_bp_use(fill);
            area->spare = set->m[w];
            to_front(area, set, w, TAG_OF(key), fill);
            probes_update(set, fill);
            /* Only a memo of every frame (the last may lack an entry: its
             * read is fin_at) can vouch for a stack: deeper than MEMO,
             * frames past it were never recorded, and the id stays 0. */
            if (k + 1 >= (unsigned)n)
                *out = fill;
        } else {
            area->spare = fill;
        }
    }
    return n;

fallback:
    if (fill)
        area->spare = fill;
    n = by_libunwind(buf, max);
    __asm__ volatile("" ::: "memory"); /* no tail call: see by_libunwind */
    return n;
}

LP_NOINLINE int lp_unwind_backtrace(void **buf, int max)
{
    struct memo *m;

    return walk(buf, max, __builtin_frame_address(0),
                (uintptr_t)__builtin_return_address(0), &m, true);
}

LP_NOINLINE int lp_unwind_capture(void **buf, int max, uint32_t **id)
{
    struct memo *m;
    int n = walk(buf, max, __builtin_frame_address(0),
                 (uintptr_t)__builtin_return_address(0), &m, false);

    *id = m ? &m->id : NULL;
    return n;
}

uint64_t lp_unwind_fallback_count(void)
{
    return lp_load_relaxed(&fallbacks);
}
