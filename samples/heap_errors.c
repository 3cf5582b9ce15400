/* SPDX-License-Identifier: MIT */
/*
 * heap_errors.c - the bad frees Memcheck reports as "Invalid free() /
 * delete / delete[] / realloc()": each one natively aborts the program in
 * glibc; under Memcheck (and under libleakprof.so) it is reported and the
 * program goes on to print its last line and exit 0.
 * heap_errors CASE, CASE one of: double stack global interior realloc
 * thread_stack repeat all (default all).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"
#pragma GCC diagnostic ignored "-Wuse-after-free"

static char global_buf[64];

__attribute__((noinline)) static void double_free(void)
{
    char *p = malloc(16);
    free(p);
    free(p);
}

__attribute__((noinline)) static void stack_free(void)
{
    char buf[32];

    memset(buf, 0, sizeof(buf));
    free(buf);
}

__attribute__((noinline)) static void global_free(void)
{
    free(global_buf);
}

__attribute__((noinline)) static void interior_free(void)
{
    char *p = malloc(40);

    free(p + 8);
    free(p);
}

__attribute__((noinline)) static void realloc_freed(void)
{
    char *p = malloc(24);
    char *q;

    free(p);
    errno = 0;
    q = realloc(p, 48);
    printf("realloc of a freed block returned %s, errno %d\n",
           q ? "a block" : "NULL", errno);
}

__attribute__((noinline)) static void *thread_body(void *arg)
{
    (void)arg;
    stack_free();
    return NULL;
}

__attribute__((noinline)) static void thread_stack(void)
{
    pthread_t t;

    pthread_create(&t, NULL, thread_body, NULL);
    pthread_join(t, NULL);
}

/* The same bad call three times: one context, three errors. */
__attribute__((noinline)) static void repeat(void)
{
    int i;

    for (i = 0; i < 3; i++)
        global_free();
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "all";
    int all = strcmp(w, "all") == 0;

    if (all || strcmp(w, "double") == 0)
        double_free();
    if (all || strcmp(w, "stack") == 0)
        stack_free();
    if (all || strcmp(w, "global") == 0)
        global_free();
    if (all || strcmp(w, "interior") == 0)
        interior_free();
    if (all || strcmp(w, "realloc") == 0)
        realloc_freed();
    if (strcmp(w, "thread_stack") == 0)
        thread_stack();
    if (strcmp(w, "repeat") == 0)
        repeat();
    printf("heap_errors %s: done\n", w);
    return 0;
}
