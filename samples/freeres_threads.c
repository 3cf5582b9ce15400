/* SPDX-License-Identifier: MIT */
/*
 * freeres_threads.c - a program that ends with a thread still waiting
 * and the C library's own memory in use: a locale loaded, a gettext
 * domain bound and looked up, output pending in stdout and in a file.
 * Memcheck frees that memory at exit with __libc_freeres (it has stopped
 * the thread for good by then). leakprof may not run freeres while the
 * thread could still use what it frees: it learns what freeres frees from
 * a copy of the process, which must write nothing - the file's line and
 * stdout's appear once. Its own leak: 40 bytes.
 * freeres_threads [return|_exit [FILE]]: with "_exit" it ends by _exit(0)
 * (nothing flushed, natively or under Valgrind, which runs its freeres
 * there too).
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <libintl.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int started;

static void *waiter(void *arg)
{
    pthread_mutex_lock(&mu);
    started = 1;
    pthread_cond_broadcast(&cv);
    for (;;)
        pthread_cond_wait(&cv, &mu); /* until the process ends */
    return arg;
}

int main(int argc, char **argv)
{
    pthread_t t;
    FILE *f;
    char *volatile lost;

    setlocale(LC_ALL, "C.UTF-8");
    bindtextdomain("leakprof-sample", "/nonexistent");
    textdomain("leakprof-sample");
    printf("%s\n", gettext("hello"));
    if (pthread_create(&t, NULL, waiter, NULL) != 0)
        return 1;
    pthread_mutex_lock(&mu);
    while (!started)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    f = fopen(argc > 2 ? argv[2] : "freeres_threads.txt", "w");
    if (f)
        fprintf(f, "written once\n"); /* pending at exit, never closed */
    lost = malloc(40);
    lost = NULL;
    printf("done\n");
    if (argc > 1 && strcmp(argv[1], "_exit") == 0)
        _exit(0);
    return 0;
}
