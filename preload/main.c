/* SPDX-License-Identifier: MIT */
/*
 * main.c - library constructor and destructor.
 *
 * The constructor finishes what the first allocation may already have
 * started (lp_track_init is idempotent) and installs the fork handlers.
 * The destructor runs from _dl_fini, after the program's atexit handlers
 * and the destructors of objects loaded after us, and writes the exit-time
 * outputs.
 * Context: BOOT / COLD.
 */
#include <pthread.h>
#include <unistd.h>

#include "preload/exit.h"
#include "preload/guard.h"
#include "preload/signal.h"
#include "preload/stack.h"
#include "preload/table.h"
#include "preload/track.h"

static void atfork_prepare(void)
{
    bool held = lp_guard_held;

    lp_guard_held = true;
    lp_stack_lock_all();
    lp_table_lock_all();
    lp_guard_held = held;
}

static void atfork_parent(void)
{
    lp_table_unlock_all();
    lp_stack_unlock_all();
}

static void atfork_child(void)
{
    lp_table_atfork_child();
    lp_stack_atfork_child();
    lp_signal_atfork_child();
}

__attribute__((constructor(101))) static void leakprof_init(void)
{
    lp_track_init();
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    lp_signal_init();
}

__attribute__((destructor(101))) static void leakprof_fini(void)
{
    lp_exit_report();
}
