/* SPDX-License-Identifier: MIT */
/*
 * fatal_ways.c - leaks one block, then dies the way argv[1] says:
 * "abort" (abort()), "term" (raise(SIGTERM)), "segv" (a NULL read in a
 * function of its own), "thread_segv" (the same in a second thread),
 * "overflow" (endless recursion in the main thread), "thread_overflow"
 * (the same in a second thread), "cleanup_term" (a SIGTERM handler of
 * its own that cleans up, puts SIG_DFL back and raises SIGTERM again, as
 * GNU sort and many daemons do), "abort_handler" (a SIGABRT handler of
 * its own that returns, then abort(): glibc puts SIG_DFL back itself),
 * "assert_handler" (the same handler, then a failed assert(): glibc's
 * __assert_fail calls glibc's abort directly),
 * "resethand" (a SIGSEGV handler installed with SA_RESETHAND that
 * returns: the kernel put SIG_DFL back, the NULL read faults again).
 * The report opens with Memcheck's "Process terminating with default
 * action of signal N" block: the signal, the fault's detail and the
 * stack of the thread it hit.
 * The recursion's frames are smaller than a page, so the fault is in the
 * page just below the stack's largest size (main thread) or in its guard
 * page (second thread), natively and under Memcheck alike; which
 * instruction of the frame faults depends on the stack's alignment.
 */
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int *volatile nowhere;

__attribute__((noinline)) static int read_nowhere(void)
{
    return *nowhere;
}

static void *thread_read(void *arg)
{
    (void)arg;
    return (void *)(long)read_nowhere();
}

__attribute__((noinline)) static int recurse(int depth)
{
    volatile char frame[256];
    unsigned i;

    /* All of it: a word an earlier call left in this stretch of stack
     * stays out of the scan (leakprof's malloc runs on the program's
     * stack and leaves copies of its pointers below its caller, where
     * Memcheck's leaves none). */
    for (i = 0; i < sizeof(frame); i++)
        frame[i] = (char)depth;
    return recurse(depth + 1) + frame[0];
}

static void cleanup_then_die(int sig)
{
    struct sigaction now;

    signal(sig, SIG_DFL);
    /* What the program sees: the default it just set. */
    sigaction(sig, NULL, &now);
    printf("handler: %s\n", now.sa_handler == SIG_DFL ? "SIG_DFL" : "other");
    fflush(stdout);
    raise(sig);
}

static void note_abort(int sig)
{
    struct sigaction now;

    /* What the program sees from inside its handler: itself, natively. */
    sigaction(sig, NULL, &now);
    printf("abort handler (%s)\n",
           now.sa_handler == note_abort ? "itself" : "something else");
    fflush(stdout);
}

static void segv_once(int sig, siginfo_t *si, void *uc)
{
    struct sigaction now;

    (void)si;
    (void)uc;
    sigaction(sig, NULL, &now);
    printf("SA_RESETHAND handler: %s\n",
           now.sa_handler == SIG_DFL ? "SIG_DFL" : "other");
    fflush(stdout);
}

static void *thread_recurse(void *arg)
{
    (void)arg;
    return (void *)(long)recurse(0);
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "abort";
    char *p = malloc(64);
    pthread_t t;

    strcpy(p, "dropped");
    p = NULL;
    printf("dying by %s\n", how);
    fflush(stdout);
    if (!strcmp(how, "term"))
        raise(SIGTERM);
    else if (!strcmp(how, "segv"))
        return read_nowhere();
    else if (!strcmp(how, "thread_segv")) {
        pthread_create(&t, NULL, thread_read, NULL);
        pthread_join(t, NULL);
    } else if (!strcmp(how, "resethand")) {
        struct sigaction sa, now;

        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = segv_once;
        sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
        sigaction(SIGSEGV, &sa, NULL);
        sigaction(SIGSEGV, NULL, &now);
        printf("installed: %s\n", now.sa_sigaction == segv_once &&
                                         (now.sa_flags & SA_RESETHAND)
                                     ? "its own, SA_RESETHAND"
                                     : "something else");
        fflush(stdout);
        return read_nowhere();
    } else if (!strcmp(how, "abort_handler")) {
        signal(SIGABRT, note_abort);
    } else if (!strcmp(how, "assert_handler")) {
        signal(SIGABRT, note_abort);
        assert(strcmp(how, "assert_handler") != 0);
    } else if (!strcmp(how, "cleanup_term")) {
        signal(SIGTERM, cleanup_then_die);
        raise(SIGTERM);
    } else if (!strcmp(how, "overflow"))
        return recurse(0);
    else if (!strcmp(how, "thread_overflow")) {
        pthread_create(&t, NULL, thread_recurse, NULL);
        pthread_join(t, NULL);
    }
    abort();
}
