/* SPDX-License-Identifier: MIT */
/*
 * reach_tls.c - blocks held only in thread-local storage:
 *   - static TLS (__thread in the program) of the main thread and of a
 *     thread still running at exit: still reachable;
 *   - dynamic TLS: a dlopen'd library's __thread variable, set by main and
 *     by the running thread. glibc allocates such TLS blocks with malloc
 *     on first use and reaches them through each thread's DTV, so they
 *     are heap blocks themselves (the library's blocks show as such);
 *   - static TLS of a thread that has finished: dead, definitely lost.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __thread void *tls_static;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready;
static void (*tls_set)(size_t);

static void *runner(void *arg)
{
    (void)arg;
    tls_static = malloc(40);
    tls_set(56);
    pthread_mutex_lock(&lock);
    ready++;
    pthread_cond_broadcast(&cond);
    for (;;)
        pthread_cond_wait(&cond, &lock);
    return NULL;
}

static void *finisher(void *arg)
{
    (void)arg;
    tls_static = malloc(24); /* dies with the thread */
    return NULL;
}

int main(int argc, char **argv)
{
    char path[4096];
    const char *slash;
    void *h;
    pthread_t t;

    (void)argc;
    slash = strrchr(argv[0], '/');
    snprintf(path, sizeof(path), "%.*s/libreach_tls.so",
             slash ? (int)(slash - argv[0]) : 1, slash ? argv[0] : ".");
    h = dlopen(path, RTLD_NOW);
    if (h == NULL) {
        printf("tls: %s\n", dlerror());
        return 1;
    }
    tls_set = (void (*)(size_t))dlsym(h, "reach_tls_set");
    tls_static = malloc(16);
    tls_set(32);
    pthread_create(&t, NULL, finisher, NULL);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, runner, NULL);
    pthread_mutex_lock(&lock);
    while (!ready)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    printf("tls: ready\n");
    return 0;
}
