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
#include <sys/auxv.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/life/child_env.h"
#include "preload/life/command.h"
#include "preload/life/config.h"
#include "preload/life/cred_hooks.h"
#include "preload/life/seccomp_hooks.h"
#include "preload/scan/xml_out.h"
#include "preload/life/diag.h"
#include "preload/life/exec_hooks.h"
#include "preload/life/fs_hooks.h"
#include "preload/life/root_dir.h"
#include "report/symbolize.h"
#include "preload/life/exit.h"
#include "preload/life/go_exit.h"
#include "preload/life/fatal_signal.h"
#include "preload/life/fork.h"
#include "preload/hot/guard.h"
#include "preload/scan/leakcheck.h"
#include "preload/scan/report_log.h"
#include "preload/life/process.h"
#include "preload/life/snapshot_signal.h"
#include "preload/hot/track.h"
#include "preload/hot/stack_walk.h"

/* trace_children_skip: is this exec'd program one to leave alone? Its
 * path is the one it was exec'd with, as Valgrind matches it. With
 * trace_children_skip_by_arg, the same for any of its arguments: argv[0]
 * too (Valgrind 3.19 skips a child exec'd with argv[0] "zeta0" for the
 * pattern zeta0). */
static bool skipped_child(char **argv)
{
    const char *path = (const char *)getauxval(AT_EXECFN);
    const char *by_arg = lp_config.trace_children_skip_by_arg;

    if (!lp_config.exec_child)
        return false;
    if (lp_config.trace_children_skip[0] && path &&
        lp_config_glob_list(lp_config.trace_children_skip, path))
        return true;
    for (; by_arg[0] && argv != NULL && *argv != NULL; argv++)
        if (lp_config_glob_list(by_arg, *argv))
            return true;
    return false;
}

/* glibc calls an object's constructors with the program's argc, argv
 * and environment. */
__attribute__((constructor(101))) static void leakprof_init(int argc,
                                                            char **argv,
                                                            char **envp)
{
    (void)argc;
    (void)envp;
    lp_track_init();
    /* In every mode, secure too: the hooks pass through to these. dlsym's
     * own allocations, if any, are not the program's. */
    lp_guard_held = true;
    lp_exec_hooks_init();
    lp_fs_hooks_init();
    lp_guard_restore(false);
    if (lp_load_acquire(&lp_state) != LP_STATE_READY)
        return; /* secure mode: invisible */
    lp_process.pid = getpid();
    lp_diag_init();
    lp_root_dir_init();
    lp_sym_open = lp_root_open; /* a chrooted program's maps */
    if (skipped_child(argv)) {
        /* Run as if we were not loaded, and so do its own children. */
        lp_store_release(&lp_state, LP_STATE_DONE);
        lp_guard_held = true;
        lp_child_env_untraced();
        lp_guard_restore(false);
        return;
    }
    lp_command_capture(lp_config.exec_child);
    lp_guard_held = true;
    if (!lp_config.trace_children) {
        lp_child_env_untraced();
    } else {
        if (!lp_config.exec_child)
            lp_child_env_mark_exec_child();
        lp_child_env_keep_for_exec();
    }
    lp_guard_restore(false);
    lp_report_log_begin();
    lp_xml_out_begin();
    lp_fork_init();
    lp_signal_init();
    lp_fatal_signal_init();
    lp_process_hooks_init();
    lp_cred_hooks_init();
    lp_seccomp_hooks_init();
    lp_go_exit_init();
}

__attribute__((destructor(101))) static void leakprof_fini(void)
{
    lp_exit_from_destructor();
}
