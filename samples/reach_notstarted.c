/* SPDX-License-Identifier: MIT */
/*
 * reach_notstarted.c - threads created right before main returns, each
 * given a malloc'd argument. Some may not have run a single instruction
 * of their own when the leak check happens (under Memcheck, whose
 * scheduler runs one thread at a time, usually none has). Started or not,
 * a created thread is alive: glibc keeps its argument in the thread's
 * descriptor (still reachable) and its DTV is possibly lost. A thread
 * that did start keeps the argument in a local while it waits forever.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int never[2];

static void *waiter(void *arg)
{
    void *volatile mine = arg;
    char c;

    while (read(never[0], &c, 1) != 0)
        ;
    return mine;
}

int main(void)
{
    pthread_t t;
    int i;

    if (pipe(never) != 0)
        return 1;
    printf("notstarted: creating\n");
    fflush(stdout);
    for (i = 0; i < 4; i++)
        pthread_create(&t, NULL, waiter, malloc(100 + 8 * (size_t)i));
    return 0;
}
