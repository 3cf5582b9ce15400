/* SPDX-License-Identifier: MIT */
/*
 * reach_own_libunwind.c - a program linked with libunwind itself (it
 * takes its registers with it), two threads still running at exit. libunwind's TLS
 * module is then the program's own: each DTV has its entry under
 * Memcheck too, and the DTVs (possibly lost) must keep it here.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int never[2];

static void *waiter(void *arg)
{
    char c;

    (void)arg;
    while (read(never[0], &c, 1) != 0)
        ;
    return NULL;
}

int main(void)
{
    unw_context_t ctx;
    pthread_t t;
    int i;

    if (pipe(never) != 0)
        return 1;
    /* Not a walk: libunwind probes memory through system calls there,
     * which Memcheck reports as errors. */
    printf("own libunwind: %s\n", unw_getcontext(&ctx) == 0 ? "a context" : "none");
    fflush(stdout);
    for (i = 0; i < 2; i++)
        pthread_create(&t, NULL, waiter, NULL);
    sleep(1);
    return 0;
}
