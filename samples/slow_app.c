/* slow_app.c - the classic profiling-lab program: CPU-bound prime count,
 * a leaky function (5,000 x 4 KiB, never freed) and an fsync-per-write
 * I/O loop. Build -g -O0; the line numbers below are part of the tests.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEAK_BLOCKS 5000
#define LEAK_SIZE 4096

/* Allocate LEAK_BLOCKS blocks and lose every pointer to them. */
void leaky_function(void)
{
    int i;

    for (i = 0; i < LEAK_BLOCKS; i++) {
        char *p = malloc(LEAK_SIZE);
        memset(p, i & 0xff, LEAK_SIZE);
    }
}

static int is_prime(int n)
{
    int d;

    if (n < 2)
        return 0;
    for (d = 2; d < n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

static int count_primes(int below)
{
    int n, count = 0;

    for (n = 0; n < below; n++)
        count += is_prime(n);
    return count;
}

int main(void)
{
    int fd, i;
    printf("primes below 80000: %d\n", count_primes(80000));
    leaky_function();
    fd = open("slow_app.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
    for (i = 0; i < 200; i++) {
        char line[64];
        int n = snprintf(line, sizeof(line), "line %d\n", i);
        if (write(fd, line, n) != n)
            return 1;
        fsync(fd);
    }
    close(fd);
    unlink("slow_app.out");
    return 0;
}
