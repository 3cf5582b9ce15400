/* SPDX-License-Identifier: MIT */
/*
 * exit.c - the end of the run: leak check, report, massif file, status.
 * Context: COLD.
 */
#include "preload/exit.h"

#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

#include "preload/config.h"
#include "preload/guard.h"
#include "preload/track.h"
#include "report/leaks.h"

static int report_done;

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
static unsigned report_errors;

void lp_exit_report(void)
{
    struct lp_totals t;

    if (__atomic_exchange_n(&report_done, 1, __ATOMIC_ACQ_REL))
        return;
    runtime_freeres(); /* its frees are the program's: before the guard */
    lp_guard_hold_forever();
    lp_track_totals(&t);
    fprintf(stderr, "==%d== HEAP SUMMARY:\n==%d==     in use at exit: %lu bytes in %lu blocks\n", getpid(), getpid(), t.live_bytes, t.live_blocks);
    fprintf(stderr, "==%d==   total heap usage: %lu allocs, %lu frees, %lu bytes allocated\n", getpid(), t.allocs, t.frees, t.bytes_allocated);
}

int lp_exit_final_status(int status, bool run_report)
{
    if (run_report)
        lp_exit_report();
    if (status == 0 && report_errors > 0 && lp_config.error_exitcode)
        return lp_config.error_exitcode;
    return status;
}
