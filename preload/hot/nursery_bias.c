/* SPDX-License-Identifier: MIT */
/*
 * nursery_bias.c - the nurseries' biased lock: the visitors' side.
 *
 * A nursery has one owner, the thread whose lp_self.nursery it is (a
 * thread record's nursery passes to another thread only once the first
 * is gone), and it is the owner that touches it on every allocation and
 * free. Others come by seldom: a free of a young block another thread
 * made, the leak scan, a live report, fork. So the owner does not lock
 * (nursery.h: lp_nursery_own); it marks the nursery busy and looks at
 * lp_nursery_locking, and a visitor turns every owner back to the
 * spinlock for as long as it is about:
 *
 *   visitor:  locking = 1; membarrier(); wait until each busy is 0
 *   owner:    busy = 1; (compiler barrier) if (locking) -> spinlock
 *
 * membarrier(PRIVATE_EXPEDITED) runs a full memory barrier on every CPU
 * that runs one of our threads, so either the visitor sees the owner's
 * mark (and waits for its operation to end) or the owner sees the flag
 * (and takes the lock, as a visitor does): the asymmetric Dekker of
 * liburcu's membarrier flavour. The owner's side costs two plain stores
 * and a load of a line nobody writes; the visitor's a system call.
 *
 * When the bias is off for good (lp_nursery_locking stays 1, the lock
 * taken by every owner, as before the bias):
 *  - membarrier cannot be registered (a kernel before 4.14, or a seccomp
 *    filter at start: we never issue it under one; see barrier());
 *  - threads hand young blocks to each other often (a producer and a
 *    consumer): each such free is a visit, and past HANDOVER_LIMIT the
 *    system calls would cost more than the lock.
 * Context: COLD (visitors, boot, fork child), called from the hot path
 * only for a handed-over block.
 */
#include "preload/hot/nursery.h"
#include "preload/life/seccomp_state.h"

#include <linux/membarrier.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

uint8_t lp_nursery_locking = 1; /* until lp_nursery_bias_init says */

static int visit_lock;     /* lp_spin_lock: the fields below */
static unsigned visitors;  /* nested and concurrent visits */
static bool bias_on;       /* membarrier registered; not given up */
static unsigned handovers; /* young blocks freed by another thread */

#define HANDOVER_LIMIT 256

static long membarrier(int cmd)
{
    return syscall(SYS_membarrier, cmd, 0, 0);
}

static bool register_barrier(void)
{
    long q;

    if (lp_seccomp_mode() != 0)
        return false; /* a filter may kill on membarrier: never ask */
    q = membarrier(MEMBARRIER_CMD_QUERY);
    if (q < 0 || !(q & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
        return false;
    return membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

/*
 * Every running thread's stores made visible. membarrier, unless the
 * program has put itself under seccomp since we started (a filter may
 * kill on a call it does not list): then a TLB shootdown, which
 * interrupts every CPU that runs the process (an IPI is a full barrier;
 * how .NET flushed write buffers before membarrier), and should even
 * mprotect fail, a pause long past any store buffer's drain.
 */
static void barrier(void)
{
    static void *page;

    if (lp_seccomp_mode() == 0 &&
        membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0)
        return;
    if (page == NULL) {
        void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        page = p == MAP_FAILED ? NULL : p;
    }
    if (page) {
        *(volatile char *)page = 1; /* present: its change needs a flush */
        if (mprotect(page, 4096, PROT_READ) == 0 &&
            mprotect(page, 4096, PROT_READ | PROT_WRITE) == 0)
            return;
    }
    {
        struct timespec ts = { 0, 2000000 };

        nanosleep(&ts, NULL);
    }
}

void lp_nursery_bias_init(void)
{
    handovers = 0;
    bias_on = register_barrier();
    lp_store_release(&lp_nursery_locking, bias_on ? 0 : 1);
}

void lp_nursery_bias_atfork_child(void)
{
    /* The child is a new process to membarrier: register again. */
    visit_lock = 0;
    visitors = 0;
    if (bias_on)
        bias_on = register_barrier();
    lp_store_release(&lp_nursery_locking, bias_on ? 0 : 1);
}

/* Owners out of their biased sections (lp_nursery_locking is set). */
static void wait_owners(void)
{
    struct lp_nursery *n;

    barrier();
    for (n = lp_nursery_first(); n; n = n->next) {
        unsigned spins = 0;

        while (lp_load_acquire(&n->busy)) {
            if (++spins < 100)
                __builtin_ia32_pause();
            else
                sched_yield();
        }
    }
}

void lp_nursery_visit_begin(void)
{
    lp_spin_lock(&visit_lock);
    if (visitors++ == 0 && bias_on) {
        lp_store_relaxed(&lp_nursery_locking, 1);
        /* Before a second thread exists no owner marks anything. */
        if (lp_load_acquire(&lp_any_thread))
            wait_owners();
    }
    lp_spin_unlock(&visit_lock);
}

void lp_nursery_visit_end(void)
{
    lp_spin_lock(&visit_lock);
    if (--visitors == 0 && bias_on)
        lp_store_release(&lp_nursery_locking, 0);
    lp_spin_unlock(&visit_lock);
}

/* Inside the visit that took the block: lp_nursery_locking is 1 and the
 * owners have been waited for; with the bias off, visit_end leaves it 1. */
void lp_nursery_bias_note_handover(void)
{
    lp_spin_lock(&visit_lock);
    if (bias_on && ++handovers > HANDOVER_LIMIT)
        bias_on = false;
    lp_spin_unlock(&visit_lock);
}
