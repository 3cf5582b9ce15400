/* SPDX-License-Identifier: MIT */
/*
 * service.c - a long-running program for the SIGUSR1 path.
 *
 * Holds 1,000 reachable blocks (a global array) and leaks 100 blocks of
 * 512 bytes, prints "ready" and then runs until SIGTERM/SIGINT or for
 * SECONDS (default 30), exiting normally so the exit-time outputs are
 * written. With THREADS > 0 that many threads allocate and free in a loop
 * (the signal stress test).
 *
 *   service [SECONDS] [THREADS]
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *reachable[1000];
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

__attribute__((noinline)) static void *hold_block(size_t n)
{
    return malloc(n);
}

__attribute__((noinline)) static void leak_blocks(void)
{
    int i;

    for (i = 0; i < 100; i++) {
        char *volatile p = malloc(512);

        memset(p, i, 512);
        p = NULL;
    }
}

/* Overwrite dead stack slots so no stale copy of a leaked pointer is
 * found by the leak scan. */
__attribute__((noinline)) static void scrub_stack(void)
{
    volatile char pad[16384];

    memset((char *)pad, 0, sizeof(pad));
}

__attribute__((noinline)) static void *churn(void *arg)
{
    void *slot[64] = { 0 };
    unsigned s = (unsigned)(uintptr_t)arg * 2654435761u + 1;

    while (!stop) {
        unsigned k;

        s = s * 1103515245u + 12345u;
        k = (s >> 8) % 64;
        if (slot[k]) {
            free(slot[k]);
            slot[k] = NULL;
        } else {
            slot[k] = malloc(16 + (s >> 16) % 2000);
        }
    }
    for (unsigned k = 0; k < 64; k++)
        free(slot[k]);
    return NULL;
}

int main(int argc, char **argv)
{
    int seconds = argc > 1 ? atoi(argv[1]) : 30;
    int nthreads = argc > 2 ? atoi(argv[2]) : 0, i;
    pthread_t t[64];
    struct sigaction sa;
    struct timespec tick = { 0, 10 * 1000 * 1000 };
    long ticks;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    for (i = 0; i < 1000; i++)
        reachable[i] = hold_block(32);
    leak_blocks();
    scrub_stack();
    if (nthreads > 64)
        nthreads = 64;
    for (i = 0; i < nthreads; i++)
        pthread_create(&t[i], NULL, churn, (void *)(uintptr_t)(i + 1));
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    for (ticks = 0; !stop && ticks < seconds * 100L; ticks++)
        nanosleep(&tick, NULL);
    stop = 1;
    for (i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    for (i = 0; i < 1000; i++)
        free(reachable[i]);
    return 0;
}
