/* SPDX-License-Identifier: MIT */
/*
 * thread_registry.c - leaks and threads, the cases where thread liveness changes
 * the verdict:
 *  - a joined thread returns a malloc'd block that main drops: definitely
 *    lost (the dead thread's cached stack is no root);
 *  - a finished thread kept a block in a __thread variable: lost too (its
 *    static TLS died with it);
 *  - a thread still running at exit holds one block in a stack local and
 *    one in a __thread variable: both still reachable, and its glibc DTV
 *    (allocated by pthread_create) shows up as possibly lost, as in
 *    Memcheck;
 *  - worker threads allocate into a shared global list: still reachable.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 *          build/samples/threads
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct item {
    struct item *next;
    int worker;
};

static struct item *shared_list; /* reachable */
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cond = PTHREAD_COND_INITIALIZER;
static int parked;
static __thread void *tls_block;

__attribute__((noinline)) static void *worker(void *arg)
{
    int i;

    for (i = 0; i < 4; i++) {
        struct item *it = malloc(sizeof(*it));

        it->worker = (int)(long)arg;
        pthread_mutex_lock(&list_lock);
        it->next = shared_list;
        shared_list = it;
        pthread_mutex_unlock(&list_lock);
    }
    return NULL;
}

/* Returns a block; main drops it after the join. */
__attribute__((noinline)) static void *producer(void *arg)
{
    char *p = malloc(72);

    (void)arg;
    memset(p, 'x', 72);
    tls_block = malloc(24); /* dies with the thread */
    return p;
}

/* Still running when main returns. */
__attribute__((noinline)) static void *sleeper(void *arg)
{
    void *volatile local = malloc(40);

    (void)arg;
    tls_block = malloc(56);
    pthread_mutex_lock(&park_lock);
    parked = 1;
    pthread_cond_broadcast(&park_cond);
    for (;;)
        pthread_cond_wait(&park_cond, &park_lock);
    return (void *)local;
}

int main(void)
{
    pthread_t w[3], prod, sl;
    void *ret;
    long i;

    for (i = 0; i < 3; i++)
        pthread_create(&w[i], NULL, worker, (void *)i);
    for (i = 0; i < 3; i++)
        pthread_join(w[i], NULL);

    /* The sleeper first: a thread created after the producer's join would
     * reuse its cached stack, and glibc's TCB there still holds the
     * producer's return value (both Memcheck and leakprof then call the
     * 72-byte block still reachable). */
    pthread_create(&sl, NULL, sleeper, NULL);
    pthread_mutex_lock(&park_lock);
    while (!parked)
        pthread_cond_wait(&park_cond, &park_lock);
    pthread_mutex_unlock(&park_lock);

    pthread_create(&prod, NULL, producer, NULL);
    pthread_join(prod, &ret);
    ((char *)ret)[0] = 'y';
    ret = NULL; /* the 72-byte block is now definitely lost */
    return 0;
}
