/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_EXIT_H
#define LP_PRELOAD_EXIT_H
/*
 * exit.h - the end of the run: leak report, massif file, exit status.
 * Context: COLD.
 */
#include "preload/lp.h"

enum lp_exit_how {
    LP_EXIT_NORMAL, /* exit() or return from main: after all destructors */
    LP_EXIT_QUICK,  /* _exit/_Exit: no stdio flush, no runtime freeing */
    LP_EXIT_SIGNAL, /* dying of a fatal signal: as QUICK, own stack */
};

/*
 * __gnu_cxx::__freeres, when the program was started with libstdc++ (its
 * own DT_NEEDED or a preload): a weak reference, which the loader binds
 * as it loads us along with the program's libraries and leaves null
 * otherwise. Valgrind's preload finds it just so: a libstdc++ that a
 * dlopen brings in later (with RTLD_GLOBAL, where a lookup at exit would
 * find it; or as a plugin's dependency: binutils' nm loads LLVM) keeps
 * its emergency pool under Memcheck, "still reachable", and so here: not
 * freed, not counted freed, not suppressed.
 */
extern void _ZN9__gnu_cxx9__freeresEv(void) __attribute__((weak));

static inline bool lp_exit_cxx_freeres_known(void)
{
    return _ZN9__gnu_cxx9__freeresEv != NULL;
}

/* Write the exit-time outputs once (later calls do nothing). live_sp, when
 * not 0, is where the calling thread's live stack begins (the interrupted
 * stack pointer of a fatal signal); 0 means "here". */
void lp_exit_report(enum lp_exit_how how, uintptr_t live_sp);

/* Call fn(arg) with the stack pointer at top (x86-64); elsewhere, call it
 * on the current stack. */
void lp_exit_call_on_stack(void (*fn)(void *), void *arg, void *top);

/* From our library destructor: arrange for the report to be written once
 * every other destructor has run (or now, if that cannot be arranged). */
void lp_exit_from_destructor(void);

/* Instead of the report: one line to the report's destination saying why
 * there is none (SIGNAL-safe: a format and a write). */
void lp_exit_no_report(const char *why);

/* In a fork child: no report is being written. */
void lp_exit_atfork_child(void);

/* The status the process should leave with: status, or error_exitcode
 * when the report found errors and status is 0. When run_report is true
 * and the report has not been written yet (a child leaving by _exit), it
 * is written first, the quick way. */
int lp_exit_final_status(int status, bool run_report);

#endif /* LP_PRELOAD_EXIT_H */
