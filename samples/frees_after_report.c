/* SPDX-License-Identifier: MIT */
/*
 * frees_after_report.c - the program keeps allocating and freeing after
 * the leak report was written, on two paths:
 *  - two worker threads churn blocks (free one, allocate another,
 *    realloc it) from before main returns until the process is gone, so
 *    they run while the exit's leak check stops, scans and resumes them,
 *    and after it;
 *  - stdout is a cookie stream whose write callback runs in the C
 *    library's final flush, after every exit handler (the report's
 *    included): it frees the blocks main kept, reallocs and allocates
 *    more, and says so on fd 1.
 * A checker that throws its block table away at the final check must
 * still let all of this through: natively it prints two lines and exits 0.
 * One block is leaked on purpose (definitely lost, 24 bytes).
 * "frees_after_report live": also raise SIGUSR1 (ignored: natively
 * nothing happens) just before main returns, so that a live report may
 * still be running when the exit's check begins.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KEPT 20000
#define RING 512

static void *kept[KEPT];
static void *ring[2][RING];
static volatile unsigned long churned[2];

static void *churn(void *arg)
{
    long t = (long)arg;
    unsigned long i;

    for (i = 0;; i++) {
        size_t k = i % RING;

        free(ring[t][k]);
        ring[t][k] = malloc(16 + i % 200);
        if (i % 7 == 0)
            ring[t][k] = realloc(ring[t][k], 300 + i % 50);
        churned[t]++;
    }
    return NULL;
}

/* Runs in the final flush, after the report: frees what main kept. */
static ssize_t late_write(void *cookie, const char *buf, size_t len)
{
    size_t i, freed = 0;
    char line[128];
    int n;

    (void)cookie;
    for (i = 0; i < KEPT; i++) {
        void *p = realloc(kept[i], 8 + i % 40);

        if (p) {
            kept[i] = NULL;
            free(p);
            freed++;
        }
    }
    for (i = 0; i < 1000; i++)
        free(malloc(64));
    if (write(1, buf, len) != (ssize_t)len)
        return -1;
    n = snprintf(line, sizeof(line), "after the report: %zu blocks freed\n",
                 freed);
    if (write(1, line, (size_t)n) != n)
        return -1;
    return (ssize_t)len;
}

static void *leak_once(void)
{
    return malloc(24);
}

int main(int argc, char **argv)
{
    cookie_io_functions_t io = {.write = late_write};
    FILE *late = fopencookie(NULL, "w", io);
    struct timespec ts = {0, 2 * 1000 * 1000};
    pthread_t th[2];
    size_t i;
    long t;

    if (!late)
        return 1;
    setvbuf(late, NULL, _IOFBF, 4096);
    for (i = 0; i < KEPT; i++)
        kept[i] = malloc(16 + i % 100);
    for (t = 0; t < 2; t++)
        pthread_create(&th[t], NULL, churn, (void *)t);
    while (churned[0] < 10000 || churned[1] < 10000)
        nanosleep(&ts, NULL);
    (void)leak_once();
    fprintf(late, "kept %d blocks until exit\n", KEPT);
    if (argc > 1 && strcmp(argv[1], "live") == 0) {
        signal(SIGUSR1, SIG_IGN); /* leakprof's then: a live report */
        raise(SIGUSR1);
        nanosleep(&ts, NULL);
    }
    return 0; /* the workers are still churning */
}
