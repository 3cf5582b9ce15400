/* SPDX-License-Identifier: MIT */
/*
 * reach_keydtor.c - a thread still running its pthread-key destructor
 * when main returns. Its start routine has returned, but the thread is
 * not dead: glibc runs key destructors on it afterwards, and this one
 * blocks. Memcheck scans it like any live thread: the value handed to the
 * destructor and a block the destructor holds in a local are still
 * reachable, so is its start argument (glibc keeps it in the thread's
 * descriptor) and a block in its __thread variable; its DTV is possibly
 * lost.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_key_t key;
static __thread void *tls_block;
static int never[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int in_destructor;

static void destructor(void *value)
{
    void *volatile mine = malloc(56);
    char c;

    pthread_mutex_lock(&lock);
    in_destructor = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    while (read(never[0], &c, 1) != 0)
        ;
    free(mine);
    free(value);
}

static void *worker(void *arg)
{
    pthread_setspecific(key, malloc(40));
    tls_block = malloc(24);
    return arg;
}

int main(void)
{
    pthread_t t;

    if (pipe(never) != 0)
        return 1;
    pthread_key_create(&key, destructor);
    pthread_create(&t, NULL, worker, malloc(72));
    pthread_mutex_lock(&lock);
    while (!in_destructor)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    printf("keydtor: in destructor\n");
    return 0;
}
