/* SPDX-License-Identifier: MIT */
/*
 * exit.c - the end of the run: leak check, report, massif file, status.
 *
 * Runs once, from our destructor (after the program's atexit handlers and
 * the destructors of everything loaded after us), or from _exit in a fork
 * child. The runtimes' own long-lived memory is given back first, as
 * Valgrind does before its leak search.
 * Context: COLD.
 */
#include "preload/exit.h"

#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

#include "preload/config.h"
#include "preload/export.h"
#include "preload/guard.h"
#include "preload/leakcheck.h"
#include "preload/process.h"
#include "preload/snapshot.h"

static int report_done;
static unsigned report_errors;

/*
 * Give back what the C and C++ runtimes keep for the life of the process
 * (stdio buffers, libstdc++'s emergency exception pool, ...), as Valgrind
 * does before its leak search, so "in use at exit" means what it means
 * under Memcheck. Both functions exist for exactly this purpose.
 */
static void runtime_freeres(void)
{
    void (*cxx)(void), (*libc)(void);

    /* A failed dlsym allocates its error message: look up as ourselves. */
    lp_guard_held = true;
    cxx = (void (*)(void))dlsym(RTLD_DEFAULT, "_ZN9__gnu_cxx9__freeresEv");
    libc = (void (*)(void))dlsym(RTLD_DEFAULT, "__libc_freeres");
    lp_guard_held = false;
    fflush(NULL);
    if (cxx)
        cxx();
    if (libc)
        libc();
}

void lp_exit_report(void)
{
    if (__atomic_exchange_n(&report_done, 1, __ATOMIC_ACQ_REL))
        return;
    if (lp_load_acquire(&lp_state) != LP_STATE_READY)
        return;
    runtime_freeres(); /* its frees are the program's: before the guard */
    lp_guard_hold_forever();
    report_errors = lp_leakcheck_run(false);
    lp_snapshot_write_final();
    lp_export_write(0); /* pprof=, html= */
    /* From here on nothing is tracked: later frees are not the program's
     * business any more, and tables must not change under a reader. */
    lp_store_release(&lp_state, LP_STATE_DONE);
    if (lp_process.exit_status_known && lp_process.exit_status == 0 &&
        report_errors > 0 && lp_config.error_exitcode) {
        fflush(NULL);
        _exit(lp_config.error_exitcode);
    }
}

int lp_exit_final_status(int status, bool run_report)
{
    if (run_report)
        lp_exit_report();
    if (status == 0 && report_errors > 0 && lp_config.error_exitcode)
        return lp_config.error_exitcode;
    return status;
}
