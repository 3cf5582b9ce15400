/* SPDX-License-Identifier: MIT */
/*
 * process_life.c - the ways a program lives and dies that a checker must
 * not change. One case per run:
 *
 *   process_life exit_flush        printf without newline, fork, the child
 *                                  leaves by _exit: "x" must appear once
 *   process_life fork_after_signal raise the snapshot signal, fork at once;
 *                                  the child must exit, not hang
 *   process_life rt_signals        after a live leak report stopped the
 *                                  threads, the program's own real-time
 *                                  signals must still reach its handler
 *   process_life raise_usr1        raise SIGUSR1 (inherited SIG_IGN: lives)
 *   process_life altstack_exit     exit(3) from a handler on a 64 KiB
 *                                  alternate stack
 *   process_life segv_leak         leak, then die of SIGSEGV
 *   process_life close_stderr      leak, close fd 2, open a data file that
 *                                  becomes fd 2, write to it, exit 0
 *   process_life close_all DATA    leak, then a daemon's housekeeping:
 *                                  close every descriptor from 3 up to the
 *                                  limit, close_range, closefrom, dup2 onto
 *                                  990..1009, close 2 and open DATA as 2
 *   process_life close_all_raw DATA  the same with the closes made by
 *                                  syscall(SYS_close), syscall(SYS_close_range)
 *   process_life chroot_leak DIR   leak 77 bytes, keep 55 reachable, fail a
 *                                  dlsym, chroot into the empty DIR, exit 0 (prints
 *                                  "no chroot" and exits 3 without the
 *                                  privilege)
 *   process_life exit_race         leak, then four threads and main call
 *                                  exit(7) at once: one report, status 7
 *   process_life vfork_exit        leak, vfork, the child leaves by exit(3)
 *                                  (running the exit handlers in its
 *                                  parent's memory), the parent prints its
 *                                  status and exits 0: the parent's report
 *   process_life python_sigint     what a runtime sees of SIGINT at start
 *   process_life worker_setuid     fork a worker that drops to uid 65534
 *                                  (as nginx's do), leaks 17 bytes and
 *                                  exits; prints "no setuid" and exits 3
 *                                  without the privilege
 *   process_life drop_privileges   setgid and setuid to 65534 itself (a
 *                                  daemon started as root), leak 19
 *                                  bytes and exit; "no setuid" and 3
 *                                  without the privilege
 *   process_life drop_snapshot     as drop_privileges (23 bytes), then
 *                                  ignore SIGUSR1 and raise it: under
 *                                  leakprof a snapshot past the setuid
 *   process_life daemon_leak       keep 11 bytes, daemon(0, 0), leak 13
 *                                  in the daemon: a report from each
 *   process_life chdir_leak DIR    leak 21 bytes, chdir into DIR, exit 0:
 *                                  a relative log= and the massif file
 *                                  stay in the start-up directory
 *   process_life altstack_view     what main and a second thread see of
 *                                  their alternate signal stacks: none at
 *                                  first, their own once set, none again
 *                                  once turned off
 *   process_life sleepers          a thread in pause(), one in a 1.5 s
 *                                  nanosleep; under leakprof the test sends
 *                                  SIGUSR1 meanwhile (a live report stops
 *                                  them): pause must not return, the
 *                                  sleep must not end early
 *   process_life sleepers_nobody   the same after setgid/setuid(65534)
 *                                  when run as root (the process is then
 *                                  not dumpable, as a server's worker),
 *                                  and whether it is dumpable at the end
 *   process_life fork_in_handler   single-threaded: a SIGALRM handler
 *                                  forks (the child _exits) every 3 ms
 *                                  while main mallocs, 100 times: "forked
 *                                  100" (the handler often interrupts our
 *                                  bookkeeping of an allocation)
 *   process_life small_stacks      malloc and free from a SIGUSR2 handler
 *                                  on an 8 KiB sigaltstack (SIGSTKSZ's old
 *                                  value) 50 times, and from a coroutine
 *                                  on an 8 KiB makecontext stack: "small
 *                                  stacks: 50 51" (a capture that falls
 *                                  back to libunwind overflowed them)
 *   process_life nonblock_leaks    make stderr non-blocking, then leak
 *                                  100 blocks at 100 call depths (a long
 *                                  report at depth=100): "leaked 100"
 *   process_life snapshot_at_exit  in the C.UTF-8 locale, with a thread
 *                                  run and joined, 20,000 blocks kept:
 *                                  raise SIGUSR1 (ignored) and return at
 *                                  once, "done"
 *   process_life snapshot_exec     keep 20,000 blocks, raise SIGUSR1
 *                                  (ignored), exec a program that is not
 *                                  there (fails), raise it again, exec
 *                                  echo: "exec failed" and "execd"
 */
#define _GNU_SOURCE /* close_range, closefrom */
#include <dlfcn.h>
#include <fcntl.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static void *volatile sink;
static volatile sig_atomic_t got, stop_threads;

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

static int exit_flush(void)
{
    pid_t pid;

    printf("x");
    pid = fork();
    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    printf("y\n");
    return 0;
}

static int fork_after_signal(void)
{
    int i, status, done = 0;

    for (i = 0; i < 5; i++) {
        pid_t pid;

        raise(SIGUSR1);
        pid = fork();
        if (pid == 0) {
            sink = malloc(64);
            exit(0);
        }
        if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
            WEXITSTATUS(status) == 0)
            done++;
    }
    printf("children exited: %d\n", done);
    return 0;
}

static void on_rt(int sig)
{
    (void)sig;
    got++;
}

static void *spin(void *arg)
{
    (void)arg;
    while (!stop_threads) {
        sink = malloc(32);
        free(sink);
    }
    return NULL;
}

/* The program owns a few real-time signals from the start (the ones a
 * checker might pick to stop threads with), then a live leak report stops
 * the threads once; each of its signals must still reach its handler. */
static int rt_signals(void)
{
    pthread_t t;
    int sig, delivered = 0, i, n = 0;

    for (sig = SIGRTMAX; sig >= SIGRTMAX - 4; sig--) {
        struct sigaction sa;

        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_rt;
        sigaction(sig, &sa, NULL);
    }
    pthread_create(&t, NULL, spin, NULL);
    raise(SIGUSR1); /* a live report: the threads are stopped once */
    nap_ms(300);
    for (sig = SIGRTMAX; sig >= SIGRTMAX - 4; sig--, n += 2) {
        got = 0;
        raise(sig);
        pthread_kill(t, sig);
        for (i = 0; i < 200 && got < 2; i++)
            nap_ms(1);
        delivered += got;
    }
    stop_threads = 1;
    pthread_join(t, NULL);
    printf("delivered %d of %d\n", delivered, n);
    return 0;
}

static int raise_usr1(void)
{
    raise(SIGUSR1);
    printf("alive\n");
    return 0;
}

static void on_usr2_exit(int sig)
{
    (void)sig;
    sink = malloc(77);
    sink = NULL;
    exit(3);
}

static int altstack_exit(void)
{
    stack_t ss;
    struct sigaction sa;

    ss.ss_sp = malloc(64 * 1024);
    ss.ss_size = 64 * 1024;
    ss.ss_flags = 0;
    sigaltstack(&ss, NULL);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_usr2_exit;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR2, &sa, NULL);
    printf("raising\n");
    fflush(stdout);
    raise(SIGUSR2);
    return 0;
}

static int segv_leak(void)
{
    sink = malloc(100);
    sink = NULL;
    printf("crashing\n");
    fflush(stdout);
    *(volatile int *)(uintptr_t)8 = 1;
    return 0;
}

static int close_stderr(const char *data)
{
    int fd;

    sink = malloc(123);
    sink = NULL;
    close(2);
    fd = open(data, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd != 2)
        return 1;
    (void)!write(2, "program data\n", 13);
    printf("closed\n");
    return 0;
}

static int python_sigint(void)
{
    struct sigaction old;

    sigaction(SIGINT, NULL, &old);
    printf("SIGINT is %s\n", old.sa_handler == SIG_DFL ? "default" : "taken");
    printf("signal(SIGTERM) was %s\n",
           signal(SIGTERM, SIG_DFL) == SIG_DFL ? "default" : "taken");
    return 0;
}

static volatile int pause_returned;

static void *in_pause(void *arg)
{
    (void)arg;
    pause();
    pause_returned = 1;
    return NULL;
}

static void *in_sleep(void *arg)
{
    struct timespec t0, t1, d = {1, 500000000};
    double slept;

    (void)arg;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    nanosleep(&d, NULL); /* once: an early return shows */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    slept = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("nanosleep: %s\n", slept >= 1.45 ? "slept in full" : "cut short");
    return NULL;
}

static int sleepers(void)
{
    pthread_t p, n;

    pthread_create(&p, NULL, in_pause, NULL);
    pthread_create(&n, NULL, in_sleep, NULL);
    pthread_join(n, NULL);
    usleep(100 * 1000);
    printf("pause: %s\n", pause_returned ? "returned" : "still waiting");
    return 0;
}

static int sleepers_nobody(void)
{
    int rc;

    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
        return 1;
    rc = sleepers();
    printf("dumpable: %d\n", prctl(PR_GET_DUMPABLE));
    return rc;
}

#define LP_SAMPLE_NOINLINE __attribute__((noinline))
static void *deep_leaks[100];

static LP_SAMPLE_NOINLINE void leak_at(int d, int i)
{
    if (d > 0) {
        leak_at(d - 1, i);
        __asm__ volatile("" ::: "memory"); /* a frame a level */
        return;
    }
    deep_leaks[i] = malloc(16);
}

static int nonblock_leaks(void)
{
    int i;

    if (fcntl(2, F_SETFL, fcntl(2, F_GETFL) | O_NONBLOCK) != 0)
        return 1;
    for (i = 0; i < 100; i++)
        leak_at(i, i);
    memset(deep_leaks, 0, sizeof(deep_leaks));
    printf("leaked %d\n", i);
    return 0;
}

static volatile sig_atomic_t small_calls;
static ucontext_t small_main, small_co;

static void alloc_on_small_stack(int sig)
{
    (void)sig;
    free(malloc(100));
    small_calls++;
}

static void small_coroutine(void)
{
    free(malloc(200));
    small_calls++;
}

static int small_stacks(void)
{
    stack_t ss = { .ss_sp = malloc(8192), .ss_size = 8192 };
    struct sigaction sa;
    void *co = malloc(8192);
    int i, in_handler;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = alloc_on_small_stack;
    sa.sa_flags = SA_ONSTACK;
    if (ss.ss_sp == NULL || co == NULL || sigaltstack(&ss, NULL) != 0 ||
        sigaction(SIGUSR2, &sa, NULL) != 0)
        return 1;
    for (i = 0; i < 50; i++)
        raise(SIGUSR2);
    in_handler = small_calls;
    getcontext(&small_co);
    small_co.uc_stack.ss_sp = co;
    small_co.uc_stack.ss_size = 8192;
    small_co.uc_link = &small_main;
    makecontext(&small_co, small_coroutine, 0);
    swapcontext(&small_main, &small_co);
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, NULL);
    free(ss.ss_sp);
    free(co);
    printf("small stacks: %d %d\n", in_handler, (int)small_calls);
    return 0;
}

static volatile sig_atomic_t handler_forks;

static void fork_on_alarm(int sig)
{
    pid_t c = fork();

    (void)sig;
    if (c == 0)
        _exit(7);
    if (c > 0)
        handler_forks++;
}

static int fork_in_handler(void)
{
    struct itimerval every = {{0, 3000}, {0, 3000}}, off = {{0, 0}, {0, 0}};
    void *keep[64] = {0};
    unsigned long i;
    int k;

    signal(SIGALRM, fork_on_alarm);
    setitimer(ITIMER_REAL, &every, NULL);
    for (i = 0; handler_forks < 100; i++) {
        k = (int)(i & 63);
        free(keep[k]);
        keep[k] = malloc(i % 1000 + 1);
    }
    setitimer(ITIMER_REAL, &off, NULL);
    while (wait(NULL) > 0)
        ;
    for (k = 0; k < 64; k++)
        free(keep[k]);
    /* A last alarm may come between the loop's test and the timer's
     * stop: at least 100 is what the run shows. */
    printf("forked %s100\n", handler_forks >= 100 ? "" : "fewer than ");
    return 0;
}

static int close_all(const char *data, bool raw)
{
    long fd, max = sysconf(_SC_OPEN_MAX);
    int nul;

    sink = malloc(123);
    sink = NULL;
    for (fd = 3; fd < (max > 0 && max < 65536 ? max : 1024); fd++)
        if (raw)
            syscall(SYS_close, (int)fd);
        else
            close((int)fd);
    if (raw)
        syscall(SYS_close_range, 3u, ~0u, 0u);
    else
        close_range(3, ~0u, 0);
    closefrom(3);
    nul = open("/dev/null", O_WRONLY);
    for (fd = 990; fd < 1010; fd++)
        if (dup2(nul, (int)fd) != fd)
            return 1;
    for (fd = 990; fd < 1010; fd++)
        close((int)fd);
    close(nul);
    close(2);
    if (open(data, O_WRONLY | O_CREAT | O_TRUNC, 0644) != 2)
        return 1;
    (void)!write(2, "program data\n", 13);
    printf("closed all\n");
    return 0;
}

static void *keep_reachable;

static void *exit_now_too(void *arg)
{
    (void)arg;
    exit(7);
}

static int exit_race(void)
{
    pthread_t t[4];
    int i;

    sink = malloc(31);
    sink = NULL;
    printf("racing\n");
    fflush(stdout);
    for (i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, exit_now_too, NULL);
    exit(7);
}

static int vfork_exit(void)
{
    int st = 0;
    pid_t p;

    sink = malloc(5);
    sink = NULL;
    p = vfork();
    if (p == 0)
        exit(3); /* wrong (_exit is meant), and common */
    waitpid(p, &st, 0);
    printf("child %d\n", WEXITSTATUS(st));
    return 0;
}

/* What sigaltstack says, one line: none, or ours (a stack we set). */
static void show_altstack(const char *who, const void *mine)
{
    stack_t old;

    if (sigaltstack(NULL, &old) != 0) {
        printf("%s: sigaltstack failed\n", who);
        return;
    }
    printf("%s: %s%s size %zu\n", who,
           (old.ss_flags & SS_DISABLE) ? "disabled" : "enabled",
           old.ss_sp == NULL ? " no stack"
           : old.ss_sp == mine ? " our stack" : " another stack",
           old.ss_size);
}

static void *altstack_thread(void *arg)
{
    static char mine[32768];
    stack_t ss = { .ss_sp = mine, .ss_size = sizeof(mine), .ss_flags = 0 };
    stack_t off = { .ss_flags = SS_DISABLE };
    stack_t was;

    show_altstack(arg, mine);
    sigaltstack(&ss, &was);
    printf("%s: replaced %s\n", (char *)arg,
           (was.ss_flags & SS_DISABLE) ? "nothing" : "a stack");
    show_altstack(arg, mine);
    sigaltstack(&off, NULL);
    show_altstack(arg, mine);
    sigaltstack(&was, NULL); /* restore what it was told it had */
    show_altstack(arg, mine);
    return NULL;
}

static int altstack_view(void)
{
    pthread_t t;

    altstack_thread("main");
    pthread_create(&t, NULL, altstack_thread, "thread");
    pthread_join(t, NULL);
    return 0;
}

/* Become uid and gid 65534 (nobody); false without the privilege. */
static bool drop_to_nobody(void)
{
    return setgid(65534) == 0 && setuid(65534) == 0;
}

static int worker_setuid(void)
{
    int st = 0;
    pid_t p = fork();

    if (p == 0) {
        if (!drop_to_nobody())
            _exit(3);
        sink = malloc(17);
        sink = NULL;
        exit(0);
    }
    waitpid(p, &st, 0);
    if (WEXITSTATUS(st) == 3) {
        printf("no setuid\n");
        return 3;
    }
    printf("worker %d\n", WEXITSTATUS(st));
    return 0;
}

static int drop_snapshot(void)
{
    signal(SIGUSR1, SIG_IGN); /* natively: nothing; under leakprof: ours */
    if (!drop_to_nobody()) {
        printf("no setuid\n");
        return 3;
    }
    sink = malloc(23);
    sink = NULL;
    raise(SIGUSR1);
    printf("uid %d, SIGUSR1 raised\n", (int)getuid());
    return 0;
}

static int drop_privileges(void)
{
    if (!drop_to_nobody()) {
        printf("no setuid\n");
        return 3;
    }
    sink = malloc(19);
    sink = NULL;
    printf("uid %d\n", (int)getuid());
    return 0;
}

static int daemon_leak(void)
{
    keep_reachable = malloc(11);
    if (daemon(0, 0) != 0)
        return 3;
    sink = malloc(13);
    sink = NULL;
    return 0;
}

static int chdir_leak(const char *dir)
{
    sink = malloc(21);
    sink = NULL;
    if (chdir(dir) != 0) {
        printf("no chdir\n");
        return 3;
    }
    printf("moved\n");
    return 0;
}

static int chroot_leak(const char *dir)
{
    sink = malloc(77);
    keep_reachable = malloc(55);
    /* A dl error pending at the chroot (glibc keeps its message until
     * the thread's next dl call). */
    if (dlsym(RTLD_DEFAULT, "process_life_no_such_symbol") != NULL)
        printf("found?\n");
    if (chroot(dir) != 0 || chdir("/") != 0) {
        printf("no chroot\n");
        return 3;
    }
    sink = NULL;
    printf("in the jail\n");
    return 0;
}

/* Under leakprof the dumper thread (started with the program's first
 * thread) writes the snapshot while main is already exiting: the exit's
 * freeres unmaps the locale files that thread's ctype tables point into. */

static void *nothing(void *arg) { return arg; }

static void *kept[20000];

/* SIGUSR1 ignored (natively it does nothing; a program that ignores the
 * signal leaves it to leakprof's snapshots), a thread run and joined
 * (under leakprof the dumper thread starts with it), kept[] filled. */
static void keep_with_dumper(void)
{
    pthread_t t;
    size_t i;

    signal(SIGUSR1, SIG_IGN);
    if (pthread_create(&t, NULL, nothing, NULL) == 0)
        pthread_join(t, NULL);
    for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
        kept[i] = malloc(16 + i % 64);
}

static int snapshot_at_exit(void)
{
    if (!setlocale(LC_ALL, "C.UTF-8"))
        printf("no C.UTF-8 locale\n");
    keep_with_dumper();
    raise(SIGUSR1);
    printf("done\n");
    return 0;
}

static int snapshot_exec(void)
{
    keep_with_dumper();
    raise(SIGUSR1);
    execl("/nonexistent/program", "program", (char *)NULL);
    printf("exec failed\n");
    fflush(stdout);
    raise(SIGUSR1);
    execl("/bin/echo", "echo", "execd", (char *)NULL);
    return 1;
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";

    if (!strcmp(c, "exit_flush"))
        return exit_flush();
    if (!strcmp(c, "fork_after_signal"))
        return fork_after_signal();
    if (!strcmp(c, "rt_signals"))
        return rt_signals();
    if (!strcmp(c, "raise_usr1"))
        return raise_usr1();
    if (!strcmp(c, "altstack_exit"))
        return altstack_exit();
    if (!strcmp(c, "segv_leak"))
        return segv_leak();
    if (!strcmp(c, "close_stderr"))
        return close_stderr(argc > 2 ? argv[2] : "data.out");
    if (!strcmp(c, "close_all"))
        return close_all(argc > 2 ? argv[2] : "data.out", false);
    if (!strcmp(c, "close_all_raw"))
        return close_all(argc > 2 ? argv[2] : "data.out", true);
    if (!strcmp(c, "chroot_leak"))
        return chroot_leak(argc > 2 ? argv[2] : "jail");
    if (!strcmp(c, "exit_race"))
        return exit_race();
    if (!strcmp(c, "vfork_exit"))
        return vfork_exit();
    if (!strcmp(c, "python_sigint"))
        return python_sigint();
    if (!strcmp(c, "drop_snapshot"))
        return drop_snapshot();
    if (!strcmp(c, "drop_privileges"))
        return drop_privileges();
    if (!strcmp(c, "worker_setuid"))
        return worker_setuid();
    if (!strcmp(c, "daemon_leak"))
        return daemon_leak();
    if (!strcmp(c, "chdir_leak"))
        return chdir_leak(argc > 2 ? argv[2] : "/");
    if (!strcmp(c, "altstack_view"))
        return altstack_view();
    if (!strcmp(c, "sleepers"))
        return sleepers();
    if (!strcmp(c, "nonblock_leaks"))
        return nonblock_leaks();
    if (!strcmp(c, "small_stacks"))
        return small_stacks();
    if (!strcmp(c, "fork_in_handler"))
        return fork_in_handler();
    if (!strcmp(c, "sleepers_nobody"))
        return sleepers_nobody();
    if (!strcmp(c, "snapshot_at_exit"))
        return snapshot_at_exit();
    if (!strcmp(c, "snapshot_exec"))
        return snapshot_exec();
    fprintf(stderr, "usage: process_life CASE\n");
    return 2;
}
