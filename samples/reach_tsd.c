/* SPDX-License-Identifier: MIT */
/*
 * reach_tsd.c - blocks held only as pthread-specific data. glibc keeps
 * the values of the first 32 keys inside the thread's descriptor and
 * allocates a second-level array (a heap block) for higher keys, so 40
 * keys are created. The main thread and a thread still running at exit
 * each set a low and a high key: still reachable. A finished thread's
 * values without a destructor are lost with it.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_key_t keys[40];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready;

static void set_two(size_t base)
{
    pthread_setspecific(keys[1], malloc(base));
    pthread_setspecific(keys[39], malloc(base + 8));
}

static void *runner(void *arg)
{
    (void)arg;
    set_two(48);
    pthread_mutex_lock(&lock);
    ready = 1;
    pthread_cond_broadcast(&cond);
    for (;;)
        pthread_cond_wait(&cond, &lock);
    return NULL;
}

static void *finisher(void *arg)
{
    (void)arg;
    set_two(80);
    return NULL;
}

int main(void)
{
    pthread_t t;
    int i;

    for (i = 0; i < 40; i++)
        pthread_key_create(&keys[i], NULL);
    set_two(16);
    pthread_create(&t, NULL, finisher, NULL);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, runner, NULL);
    pthread_mutex_lock(&lock);
    while (!ready)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    printf("tsd: ready\n");
    return 0;
}
