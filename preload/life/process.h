/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_PROCESS_H
#define LP_PRELOAD_PROCESS_H
/*
 * process.h - what we know about the host process's life: its main
 * function (wrapped through __libc_start_main), where the main thread's
 * live stack ends once main has returned, and its exit status.
 *
 * Context: BOOT (wrapping), COLD (exit-time readers).
 */
#include "preload/lp.h"

struct lp_process {
    bool main_wrapped;   /* __libc_start_main went through us */
    bool main_returned;  /* main returned to our wrapper */
    uintptr_t exit_sp;   /* when main_returned: the stack pointer of our
                            wrapper after main returned; everything below
                            it is main's dead frames (not a root) */
    uintptr_t main_sp;   /* stack pointer just before main was called */
    uintptr_t report_sp; /* set by the exit report: where the reporting
                            thread's live stack begins (0: unknown, scan
                            its whole stack) */
    int report_tid;      /* the thread report_sp belongs to */
    bool stacks_freed;   /* set by the exit report: glibc's cached thread
                            stacks count as released, as Valgrind's
                            freeres unmaps them before its leak check
                            (exit and _exit; not a fatal signal, not
                            freeres=no, not a report during the run) */
    int exit_status;     /* main's return value or exit()'s argument */
    bool exit_status_known;
    int pid;             /* getpid() at start-up, or after fork() in the
                            child; differs from getpid() in a vfork child */
    bool is_child;       /* a fork() child of a profiled process */
    bool vfork_exit;     /* a vfork child left by exit(): it ran our exit
                            handlers, in this memory; the report must come
                            from this process's own exit or main's return */
};

extern struct lp_process lp_process;

/* BOOT: the report on quick_exit, after the program's at_quick_exit
 * handlers (ours is registered first, so it runs last); the real abort()
 * looked up. */
void lp_process_hooks_init(void);

/* In a fork child: no thread is inside exit(). */
void lp_process_atfork_child(void);

#endif /* LP_PRELOAD_PROCESS_H */
