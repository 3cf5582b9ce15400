/* SPDX-License-Identifier: MIT */
/*
 * fatal_ways.c - leaks one block, then dies the way argv[1] says:
 * "abort" (abort()), "term" (raise(SIGTERM)), "segv" (a NULL read in a
 * function of its own), "thread_segv" (the same in a second thread).
 * The report opens with Memcheck's "Process terminating with default
 * action of signal N" block: the signal, the fault's detail and the
 * stack of the thread it hit.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int *volatile nowhere;

__attribute__((noinline)) static int read_nowhere(void)
{
    return *nowhere;
}

static void *thread_read(void *arg)
{
    (void)arg;
    return (void *)(long)read_nowhere();
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "abort";
    char *p = malloc(64);
    pthread_t t;

    strcpy(p, "dropped");
    p = NULL;
    printf("dying by %s\n", how);
    fflush(stdout);
    if (!strcmp(how, "term"))
        raise(SIGTERM);
    else if (!strcmp(how, "segv"))
        return read_nowhere();
    else if (!strcmp(how, "thread_segv")) {
        pthread_create(&t, NULL, thread_read, NULL);
        pthread_join(t, NULL);
    }
    abort();
}
