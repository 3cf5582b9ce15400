/* SPDX-License-Identifier: MIT */
/*
 * signal_exit.c - a program that ends from a signal handler while it
 * allocates: SIGALRM after US microseconds (argv[2]) of a malloc/free
 * loop, and the handler calls exit(42) or _exit(42) (argv[1]: "exit",
 * "_exit"), or there is no handler and the process dies of the signal
 * ("die", status 142). With a third argument "threads", a second thread allocates
 * too. The signal lands anywhere: in the program, in the real allocator,
 * in the checker's bookkeeping. Natively it always ends with status 42
 * and the same output.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static void *live[1000];
static int quick;

static void on_alarm(int sig)
{
    static const char msg[] = "alarm: exiting\n";

    (void)sig;
    if (quick) {
        (void)!write(1, msg, sizeof(msg) - 1);
        _exit(42);
    }
    printf("%s", msg);
    exit(42);
}

static void *churn(void *arg)
{
    void *w[64] = {0};
    unsigned long i;

    (void)arg;
    for (i = 0;; i++) {
        free(w[i % 64]);
        w[i % 64] = malloc(i % 700 + 1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    struct itimerval it = {{0, 0}, {0, 50000}};
    unsigned long i;

    if (argc < 3 || (strcmp(argv[1], "exit") && strcmp(argv[1], "_exit") &&
                     strcmp(argv[1], "die"))) {
        fprintf(stderr, "usage: signal_exit exit|_exit|die US [threads]\n");
        return 2;
    }
    quick = strcmp(argv[1], "exit") != 0;
    it.it_value.tv_usec = atoi(argv[2]) % 1000000;
    printf("start\n");
    if (quick)
        fflush(stdout); /* _exit flushes nothing */
    if (argc > 3) {
        pthread_t t;

        pthread_create(&t, NULL, churn, NULL);
    }
    if (strcmp(argv[1], "die"))
        signal(SIGALRM, on_alarm);
    setitimer(ITIMER_REAL, &it, NULL);
    for (i = 0;; i++) {
        free(live[i % 1000]);
        live[i % 1000] = malloc(i % 2000 + 1);
    }
}
