/* SPDX-License-Identifier: MIT */
/*
 * thread_leak.c - a block lost in a thread: its stack ends in the frame
 * where the thread started, glibc's clone3 natively, clone under Valgrind
 * (3.19 fails clone3 so that glibc falls back to clone). A suppression
 * Memcheck generates for it ends in fun:clone and must silence it under
 * leakprof too (tests/e2e/cigate.sh).
 * Compare: valgrind --leak-check=full --gen-suppressions=all
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *work(void *arg)
{
    char *p = malloc(77);

    memset(p, 1, 77);
    p = NULL; /* lost */
    return arg;
}

int main(void)
{
    pthread_t t;

    if (pthread_create(&t, NULL, work, NULL) != 0)
        return 1;
    pthread_join(t, NULL);
    puts("thread done");
    return 0;
}
