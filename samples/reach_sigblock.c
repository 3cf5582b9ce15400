/* SPDX-License-Identifier: MIT */
/*
 * reach_sigblock.c - threads that block every signal and are still
 * running when main returns. A checker that stops threads with a signal
 * cannot stop these; their stacks must still be scanned (Memcheck sees
 * them, and their registers). Each holds one block in a local on its
 * stack (still reachable) and waits on a pipe that is never written.
 * The program must exit normally, without a hang.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int never[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready;

static void *blocker(void *arg)
{
    void *volatile mine = malloc((size_t)arg);
    sigset_t all;
    char c;

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_mutex_lock(&lock);
    ready++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    while (read(never[0], &c, 1) != 0)
        ;
    return mine;
}

int main(void)
{
    pthread_t t;
    long i;

    if (pipe(never) != 0)
        return 1;
    for (i = 0; i < 2; i++)
        pthread_create(&t, NULL, blocker, (void *)(40 + 8 * i));
    pthread_mutex_lock(&lock);
    while (ready < 2)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    printf("sigblock: %d threads\n", ready);
    return 0;
}
