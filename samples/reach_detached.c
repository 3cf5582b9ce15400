/* SPDX-License-Identifier: MIT */
/*
 * reach_detached.c - detached threads. Two are still running at exit,
 * each holding a block in a local and one in a __thread variable (still
 * reachable), their arguments reachable through their descriptors and
 * their DTVs possibly lost. One finished before: what it left in its
 * __thread variable died with it (definitely lost), and glibc has put
 * its stack in its cache, which is no root.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static __thread void *tls_block;
static int never[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int running, finished;

static void *stay(void *arg)
{
    void *volatile mine = malloc(40);
    char c;

    tls_block = malloc(48);
    pthread_mutex_lock(&lock);
    running++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    while (read(never[0], &c, 1) != 0)
        ;
    free(mine);
    return arg;
}

static void *leave(void *arg)
{
    tls_block = malloc(24);
    pthread_mutex_lock(&lock);
    finished = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    return arg;
}

static void start(void *(*fn)(void *), void *arg)
{
    pthread_attr_t a;
    pthread_t t;

    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &a, fn, arg);
    pthread_attr_destroy(&a);
}

int main(void)
{
    if (pipe(never) != 0)
        return 1;
    start(leave, NULL);
    pthread_mutex_lock(&lock);
    while (!finished)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    usleep(100000); /* let it finish exiting */
    start(stay, malloc(80));
    start(stay, malloc(88));
    pthread_mutex_lock(&lock);
    while (running < 2)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    printf("detached: %d running\n", running);
    return 0;
}
