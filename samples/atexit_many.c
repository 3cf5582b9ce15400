/* SPDX-License-Identifier: MIT */
/*
 * atexit_many.c - linked with samples/lib/atexit_lib.c, whose 80 exit
 * handlers fill three of glibc's handler blocks before main. Memcheck
 * reports after exit freed them all: 0 bytes in use at exit.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 *          build/samples/atexit_many
 */
#include <stdio.h>

int atexit_lib_count(void);

int main(void)
{
    printf("%d handlers\n", atexit_lib_count());
    return 0;
}
