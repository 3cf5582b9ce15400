/* SPDX-License-Identifier: MIT */
/*
 * fork.c - the fork protocol: every lock of leakprof's, in one order.
 *
 * fork() copies only the calling thread. A lock another thread held at
 * that moment stays held for good in the child, and what it protected may
 * be half-updated. So prepare takes every lock of ours, outermost first;
 * the parent releases them in reverse; the child, whose only thread is
 * the one that took them, re-initialises them and what depended on other
 * threads (the snapshot signal's pipe; the dumper thread is gone).
 *
 * The order is the nesting order of the code that holds them:
 *   1. massif writer        (snapshot.c, write_lock)  holds 2 while it runs
 *   2. leak report          (leakcheck.c; also the symbolizer's lock)
 *   3. leak scan            (roots.c)
 *   4. snapshot schedule    (snapshot.c, taken on the allocation path)
 *   5. stack table shards   (stack.c, spinlocks)
 *   6. block table shards   (table.c, spinlocks)
 *   7. recently-freed queue (freed.c, spinlocks; taken after the table
 *                            on the free path)
 *   8. heap-error contexts  (heap_errors.c; a short leaf section)
 *   9. arena                (arena.c, spinlock; a leaf: any of the above
 *                            may need memory while holding its lock)
 * A new lock of ours is added here, at its place in the nesting.
 *
 * A fork from a signal handler that interrupted our own bookkeeping (a
 * SIGALRM handler forking while main is in malloc) finds the thread
 * inside our code: it may hold any of these locks itself, and taking
 * them deadlocked. In a process that never had a second thread no other
 * thread can change what they protect, so none is taken then: the child
 * gets fresh ones, and the interrupted bookkeeping goes on in both once
 * the handler returns, as glibc's single-threaded malloc, which takes no
 * lock, goes on. (With other threads about such a fork is not safe with
 * glibc's malloc either.)
 * Context: COLD (fork is rare); runs with the guard held, so nothing here
 * is tracked.
 */
#include "preload/life/fork.h"

#include "preload/life/command.h"
#include "preload/life/exit.h"
#include "preload/life/outfile_kept.h"

#include <pthread.h>
#include <unistd.h>

#include "preload/hot/arena.h"
#include "preload/life/config.h"
#include "preload/hot/freed.h"
#include "preload/hot/guard.h"
#include "preload/hot/nursery.h"
#include "preload/scan/heap_errors.h"
#include "preload/scan/leakcheck.h"
#include "preload/life/process.h"
#include "preload/scan/classify.h"
#include "preload/life/snapshot_signal.h"
#include "preload/hot/snapshot.h"
#include "preload/hot/stack.h"
#include "preload/hot/table.h"
#include "preload/hot/unwind_rules.h"

#define held_before (lp_self.fork_guard) /* the forking thread's guard */

static void prepare(void)
{
    held_before = lp_guard_held;
    lp_guard_held = true; /* from here on, our allocations are ours */
    if (!held_before)
        lp_leakcheck_before_fork(); /* takes and drops the report's lock */
    lp_in_libc++; /* until parent/child: glibc's fork holds its locks */
    lp_self.fork_unlocked = held_before && !lp_load_relaxed(&lp_any_thread);
    if (lp_self.fork_unlocked)
        return;
    lp_snapshot_write_lock();
    lp_leakcheck_lock();
    lp_scan_lock();
    lp_snapshot_lock();
    lp_stack_lock_all();
    lp_table_lock_all();
    lp_freed_lock_all();
    lp_heap_errors_lock();
    lp_arena_lock();
}

static void parent(void)
{
    if (lp_self.fork_unlocked) {
        lp_in_libc--;
        lp_guard_restore(held_before);
        return;
    }
    lp_arena_unlock();
    lp_heap_errors_unlock();
    lp_freed_unlock_all();
    lp_table_unlock_all();
    lp_stack_unlock_all();
    lp_snapshot_unlock();
    lp_scan_unlock();
    lp_leakcheck_unlock();
    lp_snapshot_write_unlock();
    lp_in_libc--;
    lp_guard_restore(held_before);
}

static void child(void)
{
    lp_arena_atfork_child();
    lp_heap_errors_atfork_child();
    lp_freed_atfork_child();
    lp_table_atfork_child();
    lp_stack_atfork_child();
    lp_rules_atfork_child();
    lp_snapshot_atfork_child(); /* both snapshot locks */
    lp_outfile_kept_atfork_child(); /* the parent's kept files */
    lp_scan_atfork_child();
    lp_leakcheck_atfork_child();
    lp_process.pid = getpid();
    lp_process.is_child = true;
    lp_process_atfork_child();
    lp_exit_atfork_child();
    lp_command_atfork_child();
    /* Forked children are profiled, whatever trace_children says (as
     * under Valgrind): they run the program's own code. */
    lp_signal_atfork_child();
    lp_in_libc--;
    lp_self.deferred_signal = 0; /* it was the parent's */
    lp_guard_restore(held_before);
}

void lp_fork_init(void)
{
    bool held = lp_guard_held;

    lp_guard_held = true; /* pthread_atfork allocates */
    pthread_atfork(prepare, parent, child);
    lp_guard_restore(held);
}
