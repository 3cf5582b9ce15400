/* SPDX-License-Identifier: MIT */
/*
 * process.c - wrapping main and the exit functions.
 *
 * __libc_start_main is interposed so that main runs under our wrapper:
 * once main returns, its frames are dead, and the leak scan must not take
 * what they held as roots (Memcheck never sees them). The wrapper records
 * its own stack pointer at that moment, which bounds the main thread's
 * scan. exit() and _exit() are interposed to learn the exit status (for
 * error_exitcode) and, for _exit in a child that never ran destructors,
 * to write its report. quick_exit runs the at_quick_exit handlers, then
 * glibc's own _exit, past our hook: the report comes from a handler of
 * ours, the last to run, which then leaves as _exit would (Memcheck
 * reports a quick_exit like any other).
 * abort(): glibc raises SIGABRT and, when a handler of the program's
 * returns, puts SIG_DFL back itself (not through sigaction(), so our
 * handler stayed away) and raises it again: the process died with no
 * report. Here the first raise is ours to make; when the program's
 * handler returns, ours comes back (the program's view: SIG_DFL, as
 * glibc would leave it) and glibc's abort does the rest. The program's
 * handler runs once, as natively.
 * __assert_fail(), __assert_perror_fail(), __stack_chk_fail(): glibc's
 * call its own abort, past ours, with the same end when the program's
 * SIGABRT handler returns; sigchain.c arms a one-shot wrapper of that handler instead
 * (lp_sigchain_arm_abort), and the real function is entered by a tail
 * call, so the program's stack shows no frame of ours, as Memcheck's.
 * daemon(): glibc's parent leaves by its internal _exit, past our hook,
 * and wrote no report, where Memcheck reports both processes. Ours does
 * what glibc's does (fork, the parent leaves by _exit, the child starts
 * a session, goes to "/" and puts /dev/null on 0, 1 and 2, unless told
 * not to), with the parent's _exit through our hook.
 * Context: BOOT / COLD.
 */
#include "preload/life/process.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/hot/guard.h"
#include "preload/life/exit.h"
#include "preload/life/sigchain.h"
#include "report/symbolize.h"


typedef int (*main_fn)(int, char **, char **);
typedef int (*start_main_fn)(main_fn, int, char **, void (*)(void),
                             void (*)(void), void (*)(void), void *);
static main_fn real_main;

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
                      void (*fini)(void), void (*rtld_fini)(void),
                      void *stack_end);

/* A vfork child left by exit() and ran our exit handlers in this memory
 * (see exit()): the report comes from here, as after _exit. */
static void report_if_handlers_gone(void)
{
    if (__atomic_load_n(&lp_process.vfork_exit, __ATOMIC_ACQUIRE))
        lp_exit_report(LP_EXIT_QUICK, 0);
}

static int wrapped_main(int argc, char **argv, char **envp)
{
    int rc;

    lp_process.main_sp = (uintptr_t)__builtin_frame_address(0);
    rc = real_main(argc, argv, envp);
    report_if_handlers_gone();
    lp_process.exit_status = rc;
    lp_process.exit_status_known = true;
    /* Everything below this frame belonged to main and is dead now. */
    lp_process.exit_sp = (uintptr_t)__builtin_frame_address(0);
    __atomic_store_n(&lp_process.main_returned, true, __ATOMIC_RELEASE);
    return rc;
}

/*
 * show_below_main: what Memcheck shows past _start. _start (glibc's
 * x86-64 start.S) aligns the stack at argc's slot, pushes a filler word
 * (rax) and then the stack pointer (stack_end, our argument), and calls
 * us. Memcheck's unwinder finds no return address for _start and takes
 * the words from there on as return addresses instead, up to argc's slot
 * (measured with Valgrind 3.19: "by 0x1FFF0005F7: ???", "by 0x37: ???",
 * and "by 0x2: ???" more with argc 3), ending early at a 0 or 1. The
 * words are read here, where they are known to be that frame.
 */
static void note_past_start(int argc, void *stack_end)
{
    static uintptr_t past[3];
    struct lp_sym_below_main b = *lp_sym_below_main();
    uintptr_t w[3];
    int i;

    if (!b.on || stack_end == NULL || ((uintptr_t)stack_end & 15) != 8)
        return;
    w[0] = (uintptr_t)stack_end;
    w[1] = *(const uintptr_t *)stack_end;
    w[2] = (uintptr_t)argc;
    for (i = 0; i < 3 && w[i] > 1; i++)
        past[i] = w[i];
    b.past = past;
    b.n = i;
    lp_sym_set_below_main(&b);
}

LP_EXPORT int __libc_start_main(main_fn main, int argc, char **argv,
                                void (*init)(void), void (*fini)(void),
                                void (*rtld_fini)(void), void *stack_end)
{
    start_main_fn real =
        (start_main_fn)dlsym(RTLD_NEXT, "__libc_start_main");

    real_main = main;
    lp_process.main_wrapped = true;
    note_past_start(argc, stack_end);
    return real(wrapped_main, argc, argv, init, fini, rtld_fini, stack_end);
}

/* The thread inside exit(), 0 before. glibc 2.36 lets two threads run
 * the exit handlers at once: the one that finishes first ends the process
 * while the other may be writing our report (nothing came out when four
 * threads and main called exit together, where Memcheck reports). A
 * second thread calling exit waits for the process to end, as glibc does
 * since 2.41; the same thread again (exit from an atexit handler) goes
 * on, as before. */
static int exiting_tid;

LP_EXPORT _Noreturn void exit(int status)
{
    void (*real)(int) = (void (*)(int))dlsym(RTLD_NEXT, "exit");
    int self = (int)gettid(), prev = 0;

    if (getpid() != lp_process.pid) {
        /* A vfork child: its exit runs the exit handlers, ours among
         * them, in its parent's memory, and the parent's own exit will
         * find them gone. Ours do nothing in the child; the parent
         * reports from its exit() or main's return (without glibc's
         * freeres, whose handlers are gone too: as after _exit). */
        __atomic_store_n(&lp_process.vfork_exit, true, __ATOMIC_RELEASE);
        real(status);
    }
    if (!__atomic_compare_exchange_n(&exiting_tid, &prev, self, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
        prev != self)
        for (;;)
            pause();
    report_if_handlers_gone();
    lp_process.exit_status = status;
    lp_process.exit_status_known = true;
    real(status);
    __builtin_unreachable();
}

static _Noreturn void exit_now(const char *name, int status)
{
    void (*real)(int) = (void (*)(int))dlsym(RTLD_NEXT, name);

    lp_process.exit_status = status;
    lp_process.exit_status_known = true;
    /* A vfork child shares our memory with its parent: hands off. */
    real(lp_exit_final_status(status, getpid() == lp_process.pid));
    __builtin_unreachable();
}

LP_EXPORT _Noreturn void _exit(int status) { exit_now("_exit", status); }
LP_EXPORT _Noreturn void _Exit(int status) { exit_now("_Exit", status); }

static int quick_status;

/* The last at_quick_exit handler: the report, then what glibc does next. */
static void quick_exit_last(void)
{
    exit_now("_exit", quick_status);
}

LP_EXPORT _Noreturn void quick_exit(int status)
{
    void (*real)(int) = (void (*)(int))dlsym(RTLD_NEXT, "quick_exit");

    quick_status = status;
    real(status);
    __builtin_unreachable();
}

/* Looked up at start: abort() may come from a handler or with a lock of
 * glibc's held, where dlsym could allocate. */
static void (*real_abort)(void);

LP_EXPORT _Noreturn void abort(void)
{
    void (*real)(void) = real_abort;

    if (real == NULL)
        real = (void (*)(void))dlsym(RTLD_NEXT, "abort");

    if (lp_sigchain_yielded(SIGABRT)) {
        sigset_t abrt;

        sigemptyset(&abrt);
        sigaddset(&abrt, SIGABRT);
        pthread_sigmask(SIG_UNBLOCK, &abrt, NULL);
        raise(SIGABRT); /* the program's handler, or its SIG_IGN */
        lp_sigchain_take_back(SIGABRT);
    }
    real();
    __builtin_unreachable();
}

/* Not <assert.h>'s noreturn prototypes: the calls below must be tail
 * calls, and GCC keeps a frame for a call to a noreturn function. */
typedef void (*assert_fn)(const char *, const char *, unsigned int,
                          const char *);
typedef void (*assert_perror_fn)(int, const char *, unsigned int,
                                 const char *);
static assert_fn real_assert;
static assert_perror_fn real_assert_perror;
static void (*real_stack_chk)(void);

void __assert_fail(const char *expr, const char *file, unsigned int line,
                   const char *func);
LP_EXPORT void __assert_fail(const char *expr, const char *file,
                             unsigned int line, const char *func)
{
    assert_fn real = real_assert;

    if (real == NULL)
        real = (assert_fn)dlsym(RTLD_NEXT, "__assert_fail");
    lp_sigchain_arm_abort(SIGABRT);
    real(expr, file, line, func);
}

void __assert_perror_fail(int err, const char *file, unsigned int line,
                          const char *func);
LP_EXPORT void __assert_perror_fail(int err, const char *file,
                                    unsigned int line, const char *func)
{
    assert_perror_fn real = real_assert_perror;

    if (real == NULL)
        real = (assert_perror_fn)dlsym(RTLD_NEXT, "__assert_perror_fail");
    lp_sigchain_arm_abort(SIGABRT);
    real(err, file, line, func);
}

/* A function's stack protector found its canary overwritten. */
void __stack_chk_fail(void);
LP_EXPORT void __stack_chk_fail(void)
{
    void (*real)(void) = real_stack_chk;

    if (real == NULL)
        real = (void (*)(void))dlsym(RTLD_NEXT, "__stack_chk_fail");
    lp_sigchain_arm_abort(SIGABRT);
    real();
}

LP_EXPORT int daemon(int nochdir, int noclose)
{
    struct stat st;
    int fd;

    switch (fork()) {
    case -1:
        return -1;
    case 0:
        break;
    default:
        _exit(0);
    }
    if (setsid() == -1)
        return -1;
    if (!nochdir)
        (void)chdir("/");
    if (noclose)
        return 0;
    fd = open("/dev/null", O_RDWR); /* as glibc: fd may be 0, 1 or 2 */
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
        close(fd);
        errno = ENODEV; /* as glibc: /dev/null is not what it should be */
        return -1;
    }
    (void)dup2(fd, STDIN_FILENO);
    (void)dup2(fd, STDOUT_FILENO);
    (void)dup2(fd, STDERR_FILENO);
    if (fd > STDERR_FILENO)
        close(fd);
    return 0;
}

void lp_process_hooks_init(void)
{
    bool held = lp_guard_held;

    lp_guard_held = true; /* dlsym may allocate: not the program's */
    real_abort = (void (*)(void))dlsym(RTLD_NEXT, "abort");
    real_assert = (assert_fn)dlsym(RTLD_NEXT, "__assert_fail");
    real_assert_perror =
        (assert_perror_fn)dlsym(RTLD_NEXT, "__assert_perror_fail");
    real_stack_chk = (void (*)(void))dlsym(RTLD_NEXT, "__stack_chk_fail");
    lp_guard_restore(held);
    (void)at_quick_exit(quick_exit_last);
}

void lp_process_atfork_child(void)
{
    exiting_tid = 0; /* a thread of the parent in exit() is not ours */
}
