/* SPDX-License-Identifier: MIT */
/*
 * main.c - library constructor and destructor.
 *
 * The constructor finishes what the first allocation may already have
 * started (lp_track_init is idempotent), keeps a private copy of the
 * stderr the process started with, and installs the fork protocol and the
 * signal handlers. In secure mode (AT_SECURE) it does none of that. The
 * destructor runs from _dl_fini, before the destructors of the libraries
 * the program linked; exit.c defers the report until they have run.
 * Context: BOOT / COLD.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/config.h"
#include "preload/diag.h"
#include "preload/exit.h"
#include "preload/fatal_signal.h"
#include "preload/fork.h"
#include "preload/guard.h"
#include "preload/process.h"
#include "preload/signal.h"
#include "preload/track.h"

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
    if (lp_load_acquire(&lp_state) != LP_STATE_READY)
        return; /* secure mode: invisible */
    lp_process.pid = getpid();
    lp_diag_init();
    if (!lp_config.trace_children) {
        lp_guard_held = true;
        drop_from_ld_preload();
        lp_guard_held = false;
    }
    lp_fork_init();
    lp_signal_init();
    lp_fatal_signal_init();
}

__attribute__((destructor(101))) static void leakprof_fini(void)
{
    lp_exit_from_destructor();
}
