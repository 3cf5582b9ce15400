/* SPDX-License-Identifier: MIT */
/*
 * secure_probe.c - for tests/e2e/secure_exec.sh: run set-user-ID, so that
 * the kernel sets AT_SECURE. Leaks a block and exits 3; stdout says what
 * the process saw, stderr whether libleakprof.so is mapped (the only line
 * stderr may hold: in secure mode the library prints nothing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

int main(void)
{
    char line[512];
    int loaded = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    void *leak = malloc(100);

    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "leakprof"))
            loaded = 1;
    if (f)
        fclose(f);
    printf("secure=%lu leak=%s\n", getauxval(AT_SECURE), leak ? "yes" : "no");
    fprintf(stderr, "loaded=%d\n", loaded);
    return 3;
}
