/* SPDX-License-Identifier: MIT */
/*
 * busy_threads_exit.c - main returns while other threads are inside libc.
 *
 * Three workers loop on localtime(), strerror() of unknown errnos and
 * getpwuid(), all of which use buffers the C library frees in
 * __libc_freeres. main returns after about 25 ms with the workers still
 * running: a checker that frees those buffers now crashes the program.
 * Natively the program always prints "done" and exits 0.
 */
#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static void *tz_loop(void *arg)
{
    time_t t = 0;

    (void)arg;
    for (;;) {
        struct tm *tm = localtime(&t);

        sink += tm ? (unsigned long)tm->tm_hour : 0;
        t += 3600;
    }
    return NULL;
}

static void *strerror_loop(void *arg)
{
    int e = 1000;

    (void)arg;
    for (;;)
        sink += strlen(strerror(e++ % 5000 + 200));
    return NULL;
}

static void *pw_loop(void *arg)
{
    (void)arg;
    for (;;) {
        struct passwd *pw = getpwuid(0);

        sink += pw ? strlen(pw->pw_name) : 0;
    }
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    struct timespec ts = {0, 25 * 1000 * 1000};

    pthread_create(&t[0], NULL, tz_loop, NULL);
    pthread_create(&t[1], NULL, strerror_loop, NULL);
    pthread_create(&t[2], NULL, pw_loop, NULL);
    nanosleep(&ts, NULL);
    printf("done\n");
    return 0;
}
