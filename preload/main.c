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
#include <sys/auxv.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/command.h"
#include "preload/config.h"
#include "preload/exit.h"
#include "preload/process.h"
#include "preload/guard.h"
#include "preload/leakcheck.h"
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
    lp_process.is_child = true; /* profiled whatever trace_children says */
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

/*
 * trace_children=yes: mark the environment, so that the programs this one
 * execs know they are not the first process (their Command: line shows
 * the exec'd path, log= without %p is appended to, trace_children_skip
 * applies to them).
 */
static void mark_exec_children(void)
{
    const char *v = getenv("LEAKPROF_OPTIONS");
    char buf[4096];
    int n;

    if (lp_config.exec_child)
        return;
    n = snprintf(buf, sizeof(buf), "%s%sexec_child=yes", v ? v : "",
                 v && *v ? ":" : "");
    if (n > 0 && (size_t)n < sizeof(buf))
        setenv("LEAKPROF_OPTIONS", buf, 1);
}

/* trace_children_skip: is this exec'd program one to leave alone? Its
 * path is the one it was exec'd with, as Valgrind matches it. */
static bool skipped_child(void)
{
    const char *path = (const char *)getauxval(AT_EXECFN);

    return lp_config.exec_child && lp_config.trace_children_skip[0] && path &&
           lp_config_glob_list(lp_config.trace_children_skip, path);
}

__attribute__((constructor(101))) static void leakprof_init(void)
{
    lp_track_init();
    lp_process.pid = getpid();
    if (skipped_child()) {
        /* Run as if we were not loaded, and so do its own children. */
        lp_store_release(&lp_state, LP_STATE_DONE);
        lp_guard_held = true;
        drop_from_ld_preload();
        lp_guard_held = false;
        return;
    }
    lp_command_capture(lp_config.exec_child);
    lp_guard_held = true;
    if (!lp_config.trace_children)
        drop_from_ld_preload();
    else
        mark_exec_children();
    lp_guard_held = false;
    lp_leakcheck_log_begin();
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    lp_signal_init();
}

__attribute__((destructor(101))) static void leakprof_fini(void)
{
    lp_exit_report();
}
