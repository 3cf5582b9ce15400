/* SPDX-License-Identifier: MIT */
/*
 * sample_reach.c - big blocks reached only through small ones, for
 * sampled mode (tests/e2e/sampling.sh). A global array holds 2,000 small
 * holders (16 bytes, nearly all left untracked at sample_bytes=4096),
 * each pointing at an 8 KiB block (always tracked: at least N bytes).
 * Half are made by a second thread, in glibc's second arena. One more
 * 8 KiB block is leaked for real. Exact and sampled runs must both find
 * 8,192 bytes in 1 block definitely lost, and nothing else lost.
 * "sample_reach fork": the same in a fork child, whose heap grows past
 * what it inherited (/proc/self/maps then shows [heap] as two lines).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOLDERS 2000
#define BIG 8192

struct holder {
    char *big;
    long n;
};

static struct holder *held[HOLDERS];

static void fill(int from, int to)
{
    int i;

    for (i = from; i < to; i++) {
        held[i] = malloc(sizeof(*held[i]));
        held[i]->big = malloc(BIG);
        memset(held[i]->big, 'x', 16);
        held[i]->n = i;
    }
}

static void *worker(void *arg)
{
    (void)arg;
    fill(HOLDERS / 2, HOLDERS);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t;
    char *lost;
    long sum = 0;
    int i;

    if (argc > 1 && strcmp(argv[1], "fork") == 0) {
        static char *before[100];
        int st;
        pid_t pid;

        /* A heap the child inherits, its pages written: its growth in
         * the child is then a mapping of its own. */
        for (i = 0; i < 100; i++) {
            before[i] = malloc(1000);
            memset(before[i], 0, 1000);
        }
        fflush(stdout);
        pid = fork();
        if (pid < 0)
            return 1;
        if (pid > 0) {
            if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
                return 1;
            printf("child exited %d\n", WEXITSTATUS(st));
            return 0;
        }
    }

    fill(0, HOLDERS / 2);
    if (pthread_create(&t, NULL, worker, NULL) != 0)
        return 1;
    pthread_join(t, NULL);
    lost = malloc(BIG);
    lost[0] = 'y';
    lost = NULL;
    for (i = 0; i < HOLDERS; i++)
        sum += held[i]->n + held[i]->big[0];
    printf("%d holders, sum %ld\n", HOLDERS, sum);
    return 0;
}
