/* SPDX-License-Identifier: MIT */
/*
 * reach_thread_exit.c - _exit from a thread while other threads allocate
 * and free as fast as they can. The process ends at once with the status
 * given to _exit; the report must come out whole (no crash, no hang).
 * What is stable from run to run: the exit status, stdout, one block kept
 * in a global (still reachable) and one dropped by main (definitely
 * lost). The busy threads' blocks in flight vary, under Memcheck too.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void *kept;
static volatile int go;

static void *churn(void *arg)
{
    (void)arg;
    go = 1;
    for (;;) {
        void *p = malloc(128);

        free(p);
    }
    return NULL;
}

static void *quitter(void *arg)
{
    (void)arg;
    while (!go)
        sched_yield();
    usleep(20000);
    _exit(7);
}

int main(void)
{
    pthread_t t;
    void *volatile drop;
    int i;

    kept = malloc(512);
    drop = malloc(1000);
    drop = NULL; /* dropped */
    printf("thread _exit: started\n");
    fflush(stdout);
    for (i = 0; i < 2; i++)
        pthread_create(&t, NULL, churn, NULL);
    pthread_create(&t, NULL, quitter, NULL);
    for (;;)
        pause();
}
