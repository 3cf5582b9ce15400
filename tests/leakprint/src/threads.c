/* SPDX-License-Identifier: MIT */
/* thread_registry.c - allocations from threads (stacks end at clone) and main. */
#include <pthread.h>
#include <stdlib.h>

__attribute__((noinline)) static void *work(void *arg)
{
    void *p[32];

    for (int i = 0; i < 32; i++)
        p[i] = malloc(100 * (size_t)(i + 1) + (size_t)(long)arg);
    for (int i = 0; i < 32; i++)
        free(p[i]);
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    void *m = malloc(5000);

    for (long i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, work, (void *)i);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    free(m);
    return 0;
}
