/* SPDX-License-Identifier: MIT */
/*
 * unwind_dep.c - whether the program needs libunwind.so.8 too
 * (unwind_dep.h), from the DT_NEEDED entries of the loaded objects.
 * Context: COLD.
 */
#include "preload/life/unwind_dep.h"

#include <link.h>
#include <string.h>

bool lp_unwind_dep_is(const char *path)
{
    const char *base = path ? strrchr(path, '/') : NULL;

    return path && strcmp(base ? base + 1 : path, LP_UNWIND_SONAME) == 0;
}

/* The object's dynamic section, or NULL. */
static const ElfW(Dyn) *dynamic_of(const struct dl_phdr_info *info)
{
    int i;

    for (i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            return (const ElfW(Dyn) *)(info->dlpi_addr +
                                       info->dlpi_phdr[i].p_vaddr);
    return NULL;
}

/* Whether the object names soname among its DT_NEEDED. glibc relocates
 * DT_STRTAB in place in a writable dynamic section (the vDSO's is left
 * as the file has it: an offset). */
static bool needs(const struct dl_phdr_info *info, const char *soname)
{
    const ElfW(Dyn) *d = dynamic_of(info), *e;
    uintptr_t strtab = 0;

    if (d == NULL)
        return false;
    for (e = d; e->d_tag != DT_NULL; e++)
        if (e->d_tag == DT_STRTAB)
            strtab = (uintptr_t)e->d_un.d_ptr;
    if (strtab == 0)
        return false;
    if (strtab < info->dlpi_addr)
        strtab += info->dlpi_addr;
    for (e = d; e->d_tag != DT_NULL; e++)
        if (e->d_tag == DT_NEEDED &&
            strcmp((const char *)strtab + e->d_un.d_val, soname) == 0)
            return true;
    return false;
}

struct census {
    uintptr_t self_lo, self_hi; /* libleakprof.so */
    bool shared;
};

static int needs_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct census *c = arg;
    uintptr_t d = (uintptr_t)dynamic_of(info);

    (void)size;
    if ((d >= c->self_lo && d < c->self_hi) ||
        lp_unwind_dep_is(info->dlpi_name) || !needs(info, LP_UNWIND_SONAME))
        return 0;
    c->shared = true;
    return 1;
}

bool lp_unwind_dep_shared(void)
{
    struct dl_find_object obj;
    struct census c = {0, 0, false};

    if (_dl_find_object((void *)(uintptr_t)&lp_unwind_dep_shared, &obj) == 0) {
        c.self_lo = (uintptr_t)obj.dlfo_map_start;
        c.self_hi = (uintptr_t)obj.dlfo_map_end;
    }
    dl_iterate_phdr(needs_cb, &c);
    return c.shared;
}
