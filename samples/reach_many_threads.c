/* SPDX-License-Identifier: MIT */
/*
 * reach_many_threads.c - more threads busy at exit than the stop's first
 * slots hold (1,024). 1,500 threads each keep a 40-byte block in a local
 * and sleep; main returns. Every thread is stopped and its stack scanned:
 * the blocks are still reachable, the threads' DTVs possibly lost (the
 * TCB points one entry into each), as Memcheck says (run with
 * --max-threads=1600). Threads beyond the 1,024th used to be left
 * running, their stacks taken for dead threads': 476 DTVs "definitely
 * lost".
 * Compare: valgrind --max-threads=1600 --leak-check=full --show-leak-kinds=all
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define THREADS 1500

static pthread_barrier_t all_up;

static void *worker(void *arg)
{
    void *volatile keep = malloc(40);

    (void)arg;
    pthread_barrier_wait(&all_up);
    for (;;)
        pause();
    return (void *)keep;
}

int main(void)
{
    pthread_attr_t attr;
    int i;

    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 65536);
    pthread_barrier_init(&all_up, NULL, THREADS + 1);
    for (i = 0; i < THREADS; i++) {
        pthread_t t;

        if (pthread_create(&t, &attr, worker, NULL) != 0) {
            printf("pthread_create failed at %d\n", i);
            return 1;
        }
    }
    pthread_barrier_wait(&all_up);
    printf("%d threads busy at exit\n", THREADS);
    return 0;
}
