/* SPDX-License-Identifier: MIT */
/*
 * exit.c - the end of the run: leak check, report, massif file, status.
 *
 * One exit path for the three ways a process ends:
 *  - normally (return from main, exit()): our destructor runs early in
 *    _dl_fini (a preloaded object is finalised before the libraries the
 *    program linked), so it does not report there: it registers one more
 *    exit handler, which glibc runs after _dl_fini has returned, i.e. after
 *    every library destructor and before stdio's final flush. Only then is
 *    the heap what Memcheck would see.
 *  - by _exit/_Exit (fork children) or quick_exit: nothing of the
 *    program's may run any more: no stdio flush; the runtime's buffers
 *    are counted as freed, as Valgrind's freeres frees them there.
 *  - by a fatal signal (fatal_signal.c): as _exit, then the signal is
 *    raised again.
 * The runtimes' long-lived memory (stdio buffers, libstdc++'s emergency
 * pool) is given back first, as Valgrind does, but only on a normal exit of
 * a process with no other thread left: another thread may still be inside
 * localtime() or strerror() using exactly those buffers.
 * The report runs on a stack of our own when the current one may be small
 * (a sigaltstack, a signal handler).
 * Context: COLD.
 */
#include "preload/life/eh_pool.h"
#include "preload/life/exit_lists.h"
#include "preload/life/exit.h"
#include "preload/life/exit_heap.h"
#include "preload/life/freeres_child.h"
#include "preload/life/printf_hooks.h"
#include "preload/scan/report_log.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "preload/hot/arena.h"
#include "preload/life/alt_stack.h"
#include "preload/life/config.h"
#include "preload/life/diag.h"
#include "preload/massif/export.h"
#include "preload/hot/guard.h"
#include "preload/scan/leakcheck.h"
#include "preload/life/process.h"
#include "preload/life/snapshot_signal.h"
#include "preload/life/sigchain.h"
#include "preload/hot/snapshot.h"
#include "preload/life/thread_registry.h"
#include "preload/hot/track.h"
#include "preload/hot/unwind_rules_file.h"

#define REPORT_STACK_SIZE (8u << 20)

int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);

static int report_tid;       /* the thread writing the report; 0: none yet */
static int report_finished;  /* it is written (or was not to be) */
static int report_ending;    /* it is the exit's: the process ends next */
#define REPORT_WAIT_MS 60000 /* a thread waiting for another's report */
static unsigned report_errors;
static bool deferred;

/* glibc's, exported (GLIBC_2.1): referenced, not looked up. A dlsym here
 * ran _dlerror_run, which frees the program's last dlerror message (a
 * failed dlsym of its own, earlier) under our guard, so untracked: that
 * block and its holder then read "definitely lost", 70 bytes in 2 blocks
 * where Memcheck shows all freed. Weak: a C library without it (musl)
 * leaves it null. */
extern void __libc_freeres(void) __attribute__((weak));

/*
 * Give back what the C and C++ runtimes keep for the life of the process
 * (stdio buffers, libstdc++'s emergency exception pool, ...), as Valgrind
 * does before its leak search, so "in use at exit" means what it means
 * under Memcheck. Both functions exist for exactly this purpose; neither
 * may run while another thread can still use what they free.
 */
static void runtime_freeres(void)
{
    fflush(NULL);
    if (lp_exit_cxx_freeres_known())
        _ZN9__gnu_cxx9__freeresEv();
    if (__libc_freeres)
        __libc_freeres();
}

#if defined(__x86_64__)
__asm__(".text\n"
        ".globl lp_exit_call_on_stack\n"
        ".hidden lp_exit_call_on_stack\n"
        ".type lp_exit_call_on_stack,@function\n"
        "lp_exit_call_on_stack:\n"
        "  .cfi_startproc\n"
        "  push %rbp\n"
        "  .cfi_def_cfa_offset 16\n"
        "  .cfi_offset %rbp, -16\n"
        "  mov %rsp, %rbp\n"
        "  .cfi_def_cfa_register %rbp\n"
        "  mov %rdx, %rsp\n"
        "  and $-16, %rsp\n"
        "  mov %rdi, %rax\n"
        "  mov %rsi, %rdi\n"
        "  call *%rax\n"
        "  mov %rbp, %rsp\n"
        "  pop %rbp\n"
        "  .cfi_def_cfa %rsp, 8\n"
        "  ret\n"
        "  .cfi_endproc\n"
        ".size lp_exit_call_on_stack, .-lp_exit_call_on_stack\n");
#else
void lp_exit_call_on_stack(void (*fn)(void *), void *arg, void *top)
{
    (void)top;
    fn(arg);
}
#endif

static void write_outputs(void *arg)
{
    (void)arg;
    if (lp_arena_failed())
        lp_diag("the system refused memory for leakprof's own tables: some "
                "allocations were not tracked, every figure below is "
                "incomplete");
    report_errors = lp_leakcheck_run(false);
    lp_snapshot_write_final();
    lp_export_write(0); /* pprof=, html= */
    lp_rules_file_save();
}

/* The current stack may be small: an alternate signal stack, or a signal
 * handler's frame on a thread stack we know nothing about. */
static bool stack_may_be_small(enum lp_exit_how how)
{
    if (how == LP_EXIT_SIGNAL)
        return true;
    return lp_alt_stack_on();
}

/*
 * With other threads still running, the runtime's buffers stay (they may
 * be in use), but what __libc_freeres would free is counted as freed, as
 * Memcheck counts it (Valgrind frees them once the other threads are
 * gone): the stdio streams' buffers, the DTVs of finished threads whose
 * stacks glibc keeps cached, and libstdc++'s emergency pool. Counted
 * only: the memory stays allocated, since another thread may still use a
 * stream, and a thread created later may reuse a cached stack with its DTV.
 */
/* glibc's list of open streams (exported since 2.2.5; the FILE part of
 * each entry is the public struct). */
extern FILE *_IO_list_all;
#define LP_IO_USER_BUF 0x0001 /* the stream's buffer is not glibc's */

static void forget_runtime_buffers(void)
{
    uintptr_t dtv[256];
    size_t i, n = lp_threads_dead_dtvs(dtv, LP_ARRAY_SIZE(dtv));
    FILE *f;
    unsigned guard = 0;

    for (i = 0; i < n; i++)
        lp_track_forget((void *)dtv[i]);
    if (lp_exit_cxx_freeres_known())
        lp_eh_pool_forget(); /* what __gnu_cxx::__freeres frees */
    /* The stdio buffers glibc's _IO_cleanup would release (a racing
     * fopen/fclose elsewhere only makes us count one more or one less). */
    for (f = lp_load_acquire(&_IO_list_all); f && guard < 100000;
         f = f->_chain, guard++)
        if (f->_IO_buf_base && !(f->_flags & LP_IO_USER_BUF))
            lp_track_forget(f->_IO_buf_base);
}

/* What the runtimes' freeres would free, counted as freed where it may
 * not run: glibc's learned from a copy of the process that runs it
 * (freeres_child.c; not when the real heap was left to the exit heap),
 * then what forget_runtime_buffers finds itself. */
static void count_runtime_freeres(void)
{
    if (!lp_exit_heap_on())
        (void)lp_freeres_learn(__libc_freeres);
    forget_runtime_buffers();
}

/* Another thread writes the report: the process must not end under it
 * (an _exit, a crash or a second exit elsewhere meanwhile would cut it
 * off, where Memcheck reports at the very end). Wait until it is written,
 * within bounds: a report that never ends must not keep the process. */
static void wait_for_report(void)
{
    struct timespec ms = { 0, 1000 * 1000 };
    unsigned i;

    for (i = 0; i < REPORT_WAIT_MS && !lp_load_acquire(&report_finished); i++)
        nanosleep(&ms, NULL);
}

/*
 * The exit's report takes time the program's own exit does not: a signal
 * that would natively come after the process had gone (a parent's
 * SIGTERM to a worker that is leaving - Python's multiprocessing pool
 * does that -, a timer) arrived in the middle of it, and the process died
 * of it with no report and a status of the signal's. So the thread that
 * writes the exit's report blocks every signal but the ones a fault
 * raises: the report ends, and the process with its own status (what the
 * program asked for; the signal stays pending, as it would have been too
 * late natively). A signal another thread takes waits for the report
 * (lp_exit_report from on_fatal), then gives the ending process a moment
 * to finish with its own status before it takes effect.
 */
static void block_async_signals(void)
{
    sigset_t all;

    lp_sigset_all_but_faults(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
}

#define ENDING_GRACE_MS 2000

void lp_exit_no_report(const char *why)
{
    char buf[512];
    int n = snprintf(buf, sizeof(buf), "==%d== leakprof: %s\n", (int)getpid(),
                     why);

    if (n > 0)
        lp_report_log_write(buf, (size_t)n < sizeof(buf) ? (size_t)n
                                                         : sizeof(buf) - 1,
                            false);
}

void lp_exit_report(enum lp_exit_how how, uintptr_t live_sp)
{
    int self = (int)gettid(), prev = 0;
    void *stack = NULL;

    if (getpid() != lp_process.pid)
        return; /* a vfork child: its parent's memory, hands off */
    if (!__atomic_compare_exchange_n(&report_tid, &prev, self, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        if (prev != self) { /* the same thread: a crash inside the report */
            wait_for_report();
            if (how == LP_EXIT_SIGNAL && lp_load_acquire(&report_ending)) {
                struct timespec ms = {0, 1000 * 1000};
                unsigned i;

                for (i = 0; i < ENDING_GRACE_MS; i++)
                    nanosleep(&ms, NULL);
            }
        }
        return;
    }
    if (how != LP_EXIT_SIGNAL) {
        block_async_signals();
        lp_store_release(&report_ending, 1);
    }
    if (lp_load_acquire(&lp_state) != LP_STATE_READY) {
        lp_store_release(&report_finished, 1);
        return;
    }
    if (lp_guard_held) {
        /* exit or _exit from a signal handler that interrupted our own
         * bookkeeping of an allocation: the tables are mid-update and
         * their locks may be held by this very thread, below us on this
         * stack - a scan would hang on them (a threaded program did, 5
         * runs in 40). The program ends as it asked, with a line that
         * says why there is no report. */
        lp_exit_no_report("the program ended in a signal handler that "
                          "interrupted leakprof inside an allocation: no "
                          "leak report or massif snapshot at exit");
        lp_store_release(&report_finished, 1);
        return;
    }
    /* exit() from a signal handler that interrupted this thread's malloc,
     * free or fork: the real heap is left alone from here on. */
    if (lp_allocator_interrupted())
        (void)lp_exit_heap_take();
    /* No dump from the dumper thread from here on (one under way ends
     * first), and a snapshot asked for and not made yet is made here, of
     * the heap as the program left it: before the runtime's buffers go.
     * Not above: a dump may wait for a lock this thread holds. */
    if (how != LP_EXIT_SIGNAL)
        lp_signal_close_and_serve();
    else
        lp_signal_close();
    /* Its frees are the program's: before the guard. */
    if (how == LP_EXIT_NORMAL) {
        lp_threads_settle(); /* a thread joined a moment ago is gone */
        lp_exit_lists_forget();
    }
    if (how == LP_EXIT_NORMAL && lp_config.freeres >= 0) {
        /* Not here when printf was extended: the report's printf would
         * read the tables freeres frees (printf_hooks.c). */
        if (!lp_exit_heap_on() && !lp_printf_extended() &&
            (lp_config.freeres > 0 || lp_threads_others_running() == 0))
            runtime_freeres();
        else
            count_runtime_freeres();
    }
    /* _exit, quick_exit: Valgrind runs its freeres there too (its figures
     * count the stdio buffers freed), but glibc's would flush the streams
     * (a fork child printing its parent's pending output once more, as
     * under Valgrind) and move shared file offsets: counted only. A fatal
     * signal frees nothing under Valgrind either. */
    if (how == LP_EXIT_QUICK && lp_config.freeres >= 0)
        count_runtime_freeres();
    /* Valgrind's freeres, run at exit and _exit, unmaps the stacks glibc
     * keeps cached (their DTVs freed, counted above); a finished thread's
     * TCB and static TLS are no root from then on (roots.c). */
    lp_process.stacks_freed = how != LP_EXIT_SIGNAL && lp_config.freeres >= 0;
    lp_guard_hold_forever();
    if (stack_may_be_small(how))
        stack = lp_arena_alloc(REPORT_STACK_SIZE);
    /* Where this thread's live stack begins, for the scan. */
    lp_process.report_tid = (int)gettid();
    lp_process.report_sp =
        live_sp ? live_sp
                : (stack ? 0 : (uintptr_t)__builtin_frame_address(0));
    if (stack)
        lp_exit_call_on_stack(write_outputs, NULL,
                              (char *)stack + REPORT_STACK_SIZE);
    else
        write_outputs(NULL);
    lp_freeres_reap();
    /* From here on nothing is tracked: later frees are not the program's
     * business any more, and tables must not change under a reader. The
     * leak check already stopped tracking when it stopped the threads (it
     * consumes the block table: classify.h, lp_scan_run_final); this
     * covers leak_check=no and a check that could not run. */
    lp_store_release(&lp_state, LP_STATE_DONE);
    lp_store_release(&report_finished, 1);
}

void lp_exit_atfork_child(void)
{
    /* A report a thread of the parent was writing is not the child's. */
    report_tid = 0;
    report_finished = 0;
    report_ending = 0;
}

/* Registered from our destructor: runs after _dl_fini returned. */
static void after_all_destructors(void *unused)
{
    (void)unused;
    lp_exit_report(LP_EXIT_NORMAL, 0);
    if (lp_process.exit_status_known && lp_process.exit_status == 0 &&
        report_errors > 0 && lp_config.error_exitcode) {
        fflush(NULL); /* what exit() would still have done */
        _exit(lp_config.error_exitcode);
    }
}

void lp_exit_from_destructor(void)
{
    bool held = lp_guard_held;

    if (deferred)
        return;
    deferred = true;
    /* glibc runs exit handlers registered while _dl_fini runs once it has
     * returned. No DSO handle: our own __cxa_finalize, still to come in
     * this _dl_fini, must not run it. The list node it may allocate is
     * not the program's. Registration fails once the last handler ran
     * (exit already done): then report now. */
    lp_guard_held = true;
    if (__cxa_atexit(after_all_destructors, NULL, NULL) == 0) {
        lp_guard_restore(held);
        return;
    }
    lp_guard_restore(held);
    after_all_destructors(NULL);
}

int lp_exit_final_status(int status, bool run_report)
{
    if (run_report)
        lp_exit_report(LP_EXIT_QUICK, 0);
    if (status == 0 && report_errors > 0 && lp_config.error_exitcode)
        return lp_config.error_exitcode;
    return status;
}
