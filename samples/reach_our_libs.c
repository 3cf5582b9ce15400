/* SPDX-License-Identifier: MIT */
/*
 * reach_our_libs.c - a word in the memory of a library that only the
 * profiler loaded is no root. Under a profiler that loads libunwind (and
 * the program does not), the program parks the only pointer to a block
 * in the unused tail of libunwind's last data page, as libunwind's own
 * caches keep copies of register values: the block is lost all the same,
 * as under Memcheck, which has no libunwind in the process (and natively
 * nothing is parked). A second block, parked in the same tail of a
 * library the program itself uses (libm), stays reachable.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#define _GNU_SOURCE
#include <link.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tail {
    const char *soname; /* the object's file name */
    uintptr_t *slot;
};

/* The last 8-byte word of the page that holds the end of the object's
 * writable segment, if the segment leaves it unused. By dl_iterate_phdr,
 * not dlopen: that allocates, differently where the object is absent. */
static int tail_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct tail *t = arg;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const char *base = strrchr(info->dlpi_name, '/');
    int i;

    (void)size;
    if (base == NULL || strcmp(base + 1, t->soname) != 0)
        return 0;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t end, page_end;

        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
            continue;
        end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        page_end = (end + page - 1) & ~(page - 1);
        if (page_end - end >= 16)
            t->slot = (uintptr_t *)(page_end - 8);
    }
    return 1;
}

static uintptr_t *tail_of(const char *soname)
{
    struct tail t = {soname, NULL};

    dl_iterate_phdr(tail_cb, &t);
    return t.slot;
}

__attribute__((noinline)) static void park(const char *soname, size_t size,
                                           const char *what)
{
    uintptr_t *slot = tail_of(soname);
    char *p = malloc(size);

    memset(p, 'x', size);
    if (slot != NULL)
        *slot = (uintptr_t)p;
    else if (strcmp(what, "kept") == 0)
        free(p); /* no such library: nothing may look lost */
}

int main(int argc, char **argv)
{
    (void)argv;
    park("libunwind.so.8", 48, "lost");
    park("libm.so.6", 96, "kept");
    /* The program uses libm: it stays loaded, as natively. */
    printf("parked, sqrt(%d) = %.3f\n", argc + 1, sqrt((double)argc + 1));
    return 0;
}
