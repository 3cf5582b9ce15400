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
#include <libunwind.h>
#include <pthread.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/config.h"
#include "preload/exit.h"
#include "preload/process.h"
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
    lp_process.pid = getpid();
    lp_process.is_child = true;
    if (!lp_config.trace_children)
        lp_store_release(&lp_state, LP_STATE_DONE);
    lp_table_atfork_child();
    lp_stack_atfork_child();
    lp_signal_atfork_child();
}

/* trace_children=no: programs this one execs must not load us again. */
static void drop_from_ld_preload(void)
{
    const char *v = getenv("LD_PRELOAD");
    char buf[4096], out[4096];
    char *tok, *save = NULL;
    size_t o = 0;

    if (!v || strlen(v) >= sizeof(buf))
        return;
    strcpy(buf, v);
    out[0] = 0;
    for (tok = strtok_r(buf, ": ", &save); tok; tok = strtok_r(NULL, ": ", &save)) {
        const char *base = strrchr(tok, '/');

        if (strcmp(base ? base + 1 : tok, "libleakprof.so") == 0)
            continue;
        o += snprintf(out + o, sizeof(out) - o, "%s%s", o ? ":" : "", tok);
    }
    if (o)
        setenv("LD_PRELOAD", out, 1);
    else
        unsetenv("LD_PRELOAD");
}

__attribute__((constructor(101))) static void leakprof_init(void)
{
    lp_track_init();
    lp_process.pid = getpid();
    if (!lp_config.trace_children) {
        lp_guard_held = true;
        drop_from_ld_preload();
        lp_guard_held = false;
    }
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    lp_signal_init();
    /* libunwind's unw_backtrace creates a pthread key on its first use and
     * sets it in every thread that unwinds. Created after the program's
     * first 32 keys, its pthread_setspecific would calloc the thread's
     * second-level key array with our guard held: untracked, so the
     * program's own values for keys 32-63 would sit in memory the scan
     * never reaches (definitely lost where Memcheck says reachable).
     * Unwinding once now, before the program creates keys, gives it a
     * key below 32, which glibc keeps inside the thread descriptor. */
    if (!lp_config.unwind_fp) {
        void *pc[2];

        lp_guard_held = true;
        (void)unw_backtrace(pc, 2); /* no stack interned: nothing shows */
        lp_guard_held = false;
    }
}

__attribute__((destructor(101))) static void leakprof_fini(void)
{
    lp_exit_report();
}
