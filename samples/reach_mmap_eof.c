/* SPDX-License-Identifier: MIT */
/*
 * reach_mmap_eof.c - a writable shared file mapping longer than its file.
 * The first page is backed by the file and holds a pointer to a block
 * (still reachable: a file mapping is a root like any other writable
 * mapping); the pages past the end of the file raise SIGBUS when touched,
 * and a scan of the mapping must skip them, never touch them. A block
 * whose only pointer lives in an anonymous mapping's page that was given
 * back (madvise DONTNEED) is lost: the page reads as zeros.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void)
{
    char path[] = "/tmp/reach_mmap_eof.XXXXXX";
    long page = sysconf(_SC_PAGESIZE);
    int fd = mkstemp(path);
    void **map, **anon;

    if (fd < 0 || ftruncate(fd, page) != 0)
        return 1;
    map = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    unlink(path);
    close(fd);
    if (map == MAP_FAILED)
        return 1;
    map[0] = malloc(64);
    map[page / sizeof(void *) - 1] = malloc(32);
    anon = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (anon == MAP_FAILED)
        return 1;
    anon[0] = malloc(16);
    anon[page / sizeof(void *)] = malloc(24);
    madvise(anon, page, MADV_DONTNEED);
    printf("mmap past EOF: %d\n", anon[0] == NULL);
    return 0;
}
