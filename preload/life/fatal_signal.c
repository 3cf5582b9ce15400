/* SPDX-License-Identifier: MIT */
/*
 * fatal_signal.c - a report even when the program dies of a signal.
 *
 * Memcheck prints its leak report when the program is killed by SIGSEGV,
 * SIGABRT, SIGTERM... and the process still dies of that signal. We do the
 * same for every signal whose default action ends the process, where the
 * program leaves it at SIG_DFL (a handler of the program's, or an
 * inherited SIG_IGN, is left alone; sigchain.c keeps ours invisible and
 * steps aside when the program installs its own later).
 *
 * The report opens with Memcheck's "Process terminating with default
 * action of signal N (SIGX)", the fault's detail when the kernel raised
 * it, and the stack of the thread it hit.
 *
 * A stack overflow too: the handler runs on a stack of ours (alt_stack.c).
 * There, as Memcheck does, the stack shown is the interrupted instruction
 * alone (Memcheck walks no further once the stack pointer has left the
 * stack: a push or call that faulted has already moved it), and a main
 * thread that could not grow its stack says so ("Stack overflow in
 * thread #1: can't grow stack to ...").
 *
 * The handler is installed with SA_NODEFER and every signal but the
 * faults in its mask (sigchain.c: a second SIGTERM waits for the report
 * instead of ending the process under it). It writes the report the
 * quick way (no stdio flush, no freeing of the runtime's buffers: the
 * program is dying, not exiting) on a stack of our own, then sends the
 * signal to its own thread again, which ends the process with the native
 * status. A signal sent from outside (SIGTERM, SIGINT, a timer's) while
 * the thread is inside our bookkeeping of an allocation waits for its end
 * (on_fatal). A fault inside leakprof itself, or a signal while the
 * report is already being written: no report, a line saying so, and die.
 *
 * This is the one place where a report is written from a signal handler,
 * which is not async-signal-safe. A crash inside the real allocator (a
 * corrupted heap) leaves its heap alone: the report allocates from one of
 * its own (exit_heap.c). The report runs only when the crash happened
 * outside our code; it is what Memcheck users expect.
 * Context: BOOT (install), SIGNAL (handler).
 */
#include "preload/life/fatal_signal.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "preload/hot/arena.h"
#include "preload/life/alt_stack.h"
#include "preload/life/config.h"
#include "preload/life/exit.h"
#include "preload/hot/guard.h"
#include "preload/hot/stack_walk.h"
#include "preload/life/root_dir.h"
#include "preload/life/sigchain.h"
#include "preload/life/thread_registry.h"

#define RED_ZONE 128
extern void *__libc_stack_end;

static const int fatal_signals[] = {
    SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,  SIGABRT, SIGTRAP,   SIGSYS,
    SIGPIPE, SIGTERM, SIGINT,  SIGQUIT, SIGHUP,  SIGALRM,   SIGXCPU,
    SIGXFSZ, SIGUSR1, SIGUSR2, SIGVTALRM, SIGPROF, SIGSTKFLT, SIGPWR,
};

/* Where the signal stopped the thread: its stack pointer and the
 * instruction (0 and 0 where unknown). */
static void interrupted_at(void *ucv, uintptr_t *sp, uintptr_t *pc)
{
    const ucontext_t *uc = ucv;

    *sp = *pc = 0;
    if (uc == NULL)
        return;
#if defined(__x86_64__)
    *sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
    *pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    *sp = (uintptr_t)uc->uc_mcontext.sp;
    *pc = (uintptr_t)uc->uc_mcontext.pc;
#endif
}

static struct lp_fatal_info fatal;

const struct lp_fatal_info *lp_fatal_signal_info(void)
{
    return fatal.signo > 0 ? &fatal : NULL;
}

/* A SIGSEGV whose thread's stack pointer is off its stack, as Memcheck
 * would see it: unreadable, or just above the fault of a push or a call
 * (Memcheck's stack pointer has moved by then; the kernel's has not). */
static bool sp_off_stack(int signo, uintptr_t sp, uintptr_t addr)
{
    uintptr_t w;

    if (signo != SIGSEGV || sp == 0)
        return false;
    return addr == sp - sizeof(uintptr_t) || !lp_peek_word(sp, &w);
}

/* The end of the mapping that holds addr, from /proc/self/maps (0:
 * none). Read in small pieces, each line's "lo-hi" parsed as it streams
 * by: no allocation, no stdio (a signal handler). */
static uintptr_t mapping_end(uintptr_t addr)
{
    char buf[1024];
    uintptr_t v[2] = {0, 0};
    int fd = lp_proc_self_open("maps", O_RDONLY), field = 0;
    bool skip = false;
    ssize_t n, i;

    if (fd < 0)
        return 0;
    while ((n = read(fd, buf, sizeof(buf))) > 0)
        for (i = 0; i < n; i++) {
            char c = buf[i];
            int d = c >= '0' && c <= '9' ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

            if (c == '\n') {
                field = 0;
                skip = false;
                v[0] = v[1] = 0;
            } else if (skip) {
                continue;
            } else if (d >= 0) {
                v[field] = v[field] << 4 | (uintptr_t)d;
            } else if (c == '-' && field == 0) {
                field = 1;
            } else {
                skip = true; /* the rest of the line */
                if (field == 1 && v[0] <= addr && addr < v[1]) {
                    close(fd);
                    return v[1];
                }
            }
        }
    close(fd);
    return 0;
}

/* The page the main thread's stack could not grow to, or 0: a SIGSEGV
 * outside any mapping, in the main thread, in the page just below the
 * largest stack the limit allows. Where Memcheck says so: a fault further
 * down (a frame larger than a page jumped the boundary) is only "not
 * within mapped region" there too. */
static uintptr_t overflow_page(int signo, int code, uintptr_t addr)
{
    struct rlimit rl;
    uintptr_t end, low;

    if (signo != SIGSEGV || code != SEGV_MAPERR || __libc_stack_end == NULL ||
        syscall(SYS_gettid) != getpid() ||
        getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 0;
    end = mapping_end((uintptr_t)__libc_stack_end);
    if (end == 0 || rl.rlim_cur >= end)
        return 0;
    low = end - (uintptr_t)rl.rlim_cur; /* the stack at its largest */
    if (addr >= low || low - addr > 4096)
        return 0;
    return addr & ~(uintptr_t)4095;
}

/* What Memcheck shows of the signal: which, why, and where the thread
 * was, from the interrupted instruction out (the walk from here passes
 * our handler and the kernel's signal frame first). Guard held. */
static void note_fatal(int signo, const siginfo_t *si, uintptr_t sp,
                       uintptr_t pc)
{
    void *buf[LP_ARRAY_SIZE(fatal.ips) + 16];
    int n, i, k = -1;

    fatal.code = si ? si->si_code : 0;
    fatal.addr = si ? (uintptr_t)si->si_addr : 0;
    fatal.overflow_page = overflow_page(signo, fatal.code, fatal.addr);
    if (pc && sp_off_stack(signo, sp, fatal.addr)) {
        fatal.ips[0] = pc;
        fatal.nips = 1;
        fatal.signo = signo;
        return;
    }
    n = lp_unwind_backtrace(buf, (int)LP_ARRAY_SIZE(buf));
    for (i = 0; i < n && k < 0; i++)
        if ((uintptr_t)buf[i] == pc)
            k = i;
    fatal.nips = 0;
    if (k < 0 && pc) /* the walk did not get past the signal frame */
        fatal.ips[fatal.nips++] = pc;
    /* Past it, our own frames (a thread's start wrapper) are left out, as
     * from every stack we show. */
    for (i = k < 0 ? n : k; i < n && fatal.nips < LP_ARRAY_SIZE(fatal.ips);
         i++)
        if (i == k || !lp_unwind_is_self((uintptr_t)buf[i]))
            fatal.ips[fatal.nips++] = (uintptr_t)buf[i];
    fatal.signo = signo;
}

struct fatal_call {
    int signo;
    const siginfo_t *si;
    uintptr_t sp, pc;
};

/* Guard held on entry, released before the report takes it for good. */
static void fatal_on_our_stack(void *arg)
{
    const struct fatal_call *c = arg;

    note_fatal(c->signo, c->si, c->sp, c->pc);
    lp_guard_held = false;
    lp_exit_report(LP_EXIT_SIGNAL, c->sp > RED_ZONE ? c->sp - RED_ZONE : 0);
}

/* The walk (libunwind's, from a signal frame) takes a few KiB, and so
 * does the report's start: more than is left on a program's own small
 * alternate stack when its handler calls abort() there (Rust's
 * stack-overflow handler does). So both run on a stack of ours (the
 * report then switches to its own, exit.c). */
#define NOTE_STACK ((size_t)256 << 10)

/* A signal that no instruction of this thread raised: sent (kill,
 * tgkill, sigqueue, a timer) or, for the signals faults never raise,
 * whatever its origin. */
static bool asynchronous(int signo, const siginfo_t *si)
{
    if (lp_signal_faults(signo))
        return si && si->si_code <= 0; /* SI_USER, SI_QUEUE, ... */
    return true;
}

void lp_fatal_signal_deliver(void)
{
    int signo = lp_self.deferred_signal;

    lp_self.deferred_signal = 0;
    if (signo)
        syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), signo);
}

static void on_fatal(int signo, siginfo_t *si, void *ucv)
{
    uintptr_t sp, pc;

    /* Inside our bookkeeping of an allocation (the guard held, not for
     * good): a signal sent from outside waits for the bookkeeping's end
     * (lp_guard_leave raises it again), then writes the report as
     * anywhere else. Before, it died there with no report (perl killed
     * by SIGTERM while allocating: 8 runs in 12). After the final scan
     * (DONE) too: a thread resumed inside a hook ends its bookkeeping,
     * then waits for the report below. */
    if (lp_guard_held && !lp_self.guard_forever && asynchronous(signo, si) &&
        lp_load_acquire(&lp_state) != LP_STATE_BOOT) {
        if (lp_self.deferred_signal == 0) { /* else one waits already */
            lp_self.deferred_tid = (int)syscall(SYS_gettid);
            lp_self.deferred_signal = signo;
        }
        return;
    }
    interrupted_at(ucv, &sp, &pc);
    if (!lp_guard_held && lp_load_acquire(&lp_state) == LP_STATE_READY) {
        struct fatal_call c = {signo, si, sp, pc};
        void *stack;

        lp_guard_held = true;
        stack = lp_arena_alloc(NOTE_STACK);
        if (stack != NULL)
            lp_exit_call_on_stack(fatal_on_our_stack, &c,
                                  (char *)stack + NOTE_STACK);
        else
            fatal_on_our_stack(&c);
    } else if (lp_guard_held &&
               lp_load_acquire(&lp_state) == LP_STATE_READY) {
        char why[160];

        snprintf(why, sizeof(why),
                 "signal %d arrived while leakprof itself was running "
                 "(inside an allocation's bookkeeping): no leak report",
                 signo);
        lp_exit_no_report(why);
    } else if (!lp_guard_held &&
               lp_load_acquire(&lp_state) == LP_STATE_DONE) {
        /* Another thread is writing the report: the final scan stops
         * tracking (DONE) and resumes the threads before the report is
         * written out, and a signal pending for one of them (timeout(1)
         * sends its SIGTERM twice) ended the process there with no
         * report at all (2 runs in 200 with both cores busy). It waits
         * for the report, as a signal taken before the scan does. */
        lp_exit_report(LP_EXIT_SIGNAL, 0);
    }
    /* The default action now: a fault is not blocked (SA_NODEFER) and
     * ends the process here; a signal sent from outside is blocked until
     * this handler returns, and ends it then. */
    lp_sigchain_default_now(signo);
    syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), signo);
}

void lp_fatal_signal_init(void)
{
    static void *first_stack; /* the thread that starts the library */
    size_t i;

    lp_alt_stack_give(&first_stack);

    for (i = 0; i < LP_ARRAY_SIZE(fatal_signals); i++) {
        int signo = fatal_signals[i];

        if (signo == lp_config.snapshot_signal)
            continue; /* snapshot_signal.c owns it */
        (void)lp_sigchain_install(signo, on_fatal, LP_SIGCHAIN_YIELD, false);
    }
}
