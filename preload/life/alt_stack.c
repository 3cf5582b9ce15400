/* SPDX-License-Identifier: MIT */
/*
 * alt_stack.c - a stack for the fatal-signal handler when the thread's own
 * is used up.
 *
 * A program that overflows its stack gets SIGSEGV, and the kernel must
 * push the handler's frame somewhere: on the stack that just ran out, it
 * cannot, and the process dies with no report. Memcheck, which runs on
 * stacks of its own, still prints its "Stack overflow in thread #1"
 * block and the leak report. So every thread that comes through our
 * pthread_create, and the thread that starts the library, gets an
 * alternate signal stack of ours when it has none; our fatal handlers ask
 * for it (SA_ONSTACK, sigchain.c).
 *
 * The program never sees it. sigaltstack() is interposed:
 *  - asked what the thread has, it answers as natively: "disabled" where
 *    ours is installed;
 *  - the program's own stack replaces ours, as it would replace nothing;
 *  - when the program turns its stack off (SS_DISABLE, or a restore of
 *    the "disabled" it was told), ours is put back instead.
 * What remains visible: a handler the program installs with SA_ONSTACK
 * without ever giving the thread a stack of its own runs on ours, where
 * it would natively run on the thread's stack (and, at a stack overflow,
 * not at all: the process would die of the SIGSEGV); asked from there,
 * sigaltstack() tells it the truth.
 *
 * The stacks: STACK_SIZE each, the lowest page a guard, carved from
 * slabs of the arena (whose mappings the leak scan skips: our handler's
 * frames are no roots). Never freed: a thread's stack stays with its
 * registry record for the next thread. Untouched pages cost no memory.
 * Context: BOOT, thread start (lp_alt_stack_give); any thread and
 * SIGNAL (sigaltstack, lp_alt_stack_on: one system call, no lock).
 */
#include "preload/life/alt_stack.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/hot/arena.h"
#include "preload/hot/tcb_slot.h"
#include "preload/lp.h"

#define STACK_SIZE ((size_t)128 << 10)
#define GUARD 4096
#define PER_SLAB 8 /* one arena mapping (and one excluded range) a slab */

static struct {
    int lock;
    unsigned char *slab; /* the current slab */
    unsigned used;       /* its stacks handed out */
} pool;

static void *stack_new(void)
{
    unsigned char *s = NULL;

    lp_spin_lock(&pool.lock);
    if (pool.slab == NULL || pool.used == PER_SLAB) {
        pool.slab = lp_arena_alloc(STACK_SIZE * PER_SLAB);
        pool.used = 0;
    }
    if (pool.slab != NULL)
        s = pool.slab + STACK_SIZE * pool.used++;
    lp_spin_unlock(&pool.lock);
    if (s != NULL)
        (void)mprotect(s, GUARD, PROT_NONE); /* slabs are page-aligned */
    return s;
}

static long raw_sigaltstack(const stack_t *ss, stack_t *old)
{
    return syscall(SYS_sigaltstack, ss, old);
}

static stack_t ours(void *base)
{
    stack_t ss = {
        .ss_sp = (char *)base + GUARD,
        .ss_size = STACK_SIZE - GUARD,
        .ss_flags = 0,
    };

    return ss;
}

void lp_alt_stack_give(void **slot)
{
    stack_t cur, ss;

    if (raw_sigaltstack(NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE))
        return; /* the thread has one already (inherited across fork) */
    if (*slot == NULL)
        *slot = stack_new();
    if (*slot == NULL)
        return;
    ss = ours(*slot);
    if (raw_sigaltstack(&ss, NULL) == 0)
        lp_self.alt_stack = *slot;
}

bool lp_alt_stack_on(void)
{
    stack_t cur;

    return raw_sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_ONSTACK);
}

LP_EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
    void *mine = lp_self.alt_stack;
    stack_t back;
    long rc;

    if (mine != NULL && ss != NULL && (ss->ss_flags & SS_DISABLE)) {
        /* Off, as the program asks: back to ours (which it cannot see). */
        back = ours(mine);
        ss = &back;
    }
    rc = raw_sigaltstack(ss, old);
    if (rc == 0 && old != NULL && mine != NULL &&
        old->ss_sp == (char *)mine + GUARD && !(old->ss_flags & SS_ONSTACK)) {
        /* Ours: what the thread would have natively is none. (A handler
         * that runs on it and asks is told the truth: a runtime that
         * checks its stack pointer against the answer, as Go's handler
         * does, must find it there.) */
        old->ss_sp = NULL;
        old->ss_size = 0;
        old->ss_flags = SS_DISABLE;
    }
    return (int)rc;
}
