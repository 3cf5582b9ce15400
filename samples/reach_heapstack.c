/* SPDX-License-Identifier: MIT */
/*
 * reach_heapstack.c - a thread running on a stack the program malloc'd
 * (pthread_attr_setstack), still running at exit. Its stack is a heap
 * block, kept in a global (still reachable); the thread holds another
 * block in a local on that stack, which is scanned as a live thread's
 * stack (still reachable), and glibc puts its descriptor and DTV pointer
 * at the top of that memory. A second thread ran on a malloc'd stack and
 * finished; that stack block stays reachable from its global, and what
 * the dead thread left on it is scanned as the block's contents.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define STACK (256 * 1024)

void *stack_live, *stack_done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready;

static void *live(void *arg)
{
    void *volatile mine = malloc(48);

    (void)arg;
    pthread_mutex_lock(&lock);
    ready = 1;
    pthread_cond_broadcast(&cond);
    while (mine)
        pthread_cond_wait(&cond, &lock);
    return NULL;
}

static void *done(void *arg)
{
    (void)arg;
    return NULL;
}

static void start(void **stack, void *(*fn)(void *), pthread_t *t)
{
    pthread_attr_t a;

    *stack = malloc(STACK);
    pthread_attr_init(&a);
    pthread_attr_setstack(&a, *stack, STACK);
    pthread_create(t, &a, fn, NULL);
    pthread_attr_destroy(&a);
}

int main(void)
{
    pthread_t t1, t2;

    start(&stack_done, done, &t2);
    pthread_join(t2, NULL);
    start(&stack_live, live, &t1);
    pthread_mutex_lock(&lock);
    while (!ready)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    printf("heapstack: running\n");
    return 0;
}
