/* SPDX-License-Identifier: MIT */
/*
 * reach_main_exited.c - main leaves by pthread_exit while a thread goes
 * on; the process ends when that thread returns (glibc calls exit(0) in
 * it). Under the checker: the process must end (a thread of ours must not
 * keep it alive), and the scan runs in that thread while the main thread
 * is a zombie whose /proc/PID entries read empty (maps, memory). Expected
 * (Memcheck): main's dropped block definitely lost, its global still
 * reachable, the thread's dropped block definitely lost, the thread's
 * own DTV possibly lost; the C runtime's buffers freed (no other thread
 * is left).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *keep;

static void *worker(void *arg)
{
    char *p = malloc(100);

    strcpy(p, "dropped");
    usleep(50 * 1000); /* main has left by then */
    p = NULL;
    printf("worker returns\n");
    return arg;
}

int main(void)
{
    pthread_t t;
    char *q = malloc(33);

    strcpy(q, "dropped");
    q = NULL;
    keep = malloc(44);
    if (pthread_create(&t, NULL, worker, NULL) != 0)
        return 1;
    printf("main leaves\n");
    fflush(stdout);
    pthread_exit(NULL);
}
