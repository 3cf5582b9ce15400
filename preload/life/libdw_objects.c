/* SPDX-License-Identifier: MIT */
/*
 * libdw_objects.c - the objects our lazy load of libdw brought into the
 * process, which no frame of the program may be named after.
 *
 * Why: libdw (with libelf, libz, liblzma, libbz2 where the program had
 * not loaded them) is loaded when the first report is symbolized, at
 * exit for most programs; by then the program may have unloaded objects
 * whose addresses its stacks still hold. glibc's freeres unloads the
 * gconv modules iconv loaded (UTF-16.so), and libdw was then mapped over
 * the module's old range: its frames came out "??? (in libdw-0.188.so)"
 * (`iconv -t UTF-16LE`; a 1.2 MB plugin dlclose'd before exit: 7 of 10
 * records "in libz.so.1" or libelf), where Memcheck, which forgets an
 * object when it is unmapped, prints "???". An address in one of these
 * objects is the program's only if it came after them: so the spans
 * count only while the loader has loaded nothing since our dlopen (a
 * program that dlopens a plugin later may use our libz itself; its
 * frames there are named again, as any object's).
 * Context: COLD; the caller holds the guard (malloc here is untracked).
 */
#include "preload/life/libdw_objects.h"

#include <link.h>
#include <stdint.h>
#include <stdlib.h>

#include "report/symbolize.h"

#define LATE_MAX 16

static uintptr_t *before; /* span starts of the objects before the load */
static size_t nbefore, capbefore;
static struct {
    uintptr_t lo, hi;
} late[LATE_MAX];
static unsigned nlate;
static unsigned long long late_adds; /* the loader's count after our load */

static int note_before(struct dl_phdr_info *info, size_t size, void *arg)
{
    uintptr_t lo, hi;

    (void)size;
    (void)arg;
    lp_sym_object_span(info, &lo, &hi);
    if (lo >= hi)
        return 0;
    if (nbefore == capbefore) {
        size_t cap = capbefore ? capbefore * 2 : 64;
        uintptr_t *p = realloc(before, cap * sizeof(*p));

        if (p == NULL)
            return 1; /* stop: the list is short, nothing is kept after */
        before = p;
        capbefore = cap;
    }
    before[nbefore++] = lo;
    return 0;
}

static bool was_there(uintptr_t lo)
{
    size_t i;

    for (i = 0; i < nbefore; i++)
        if (before[i] == lo)
            return true;
    return false;
}

static int note_after(struct dl_phdr_info *info, size_t size, void *arg)
{
    uintptr_t lo, hi;

    (void)arg;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
        late_adds = info->dlpi_adds;
    lp_sym_object_span(info, &lo, &hi);
    if (lo < hi && !was_there(lo) && nlate < LATE_MAX) {
        late[nlate].lo = lo;
        late[nlate].hi = hi;
        nlate++;
    }
    return 0;
}

static bool loaded_by_us(uintptr_t addr, unsigned long long adds)
{
    unsigned i;

    if (adds != late_adds)
        return false; /* loaded since: the program may use them too */
    for (i = 0; i < nlate; i++)
        if (addr >= late[i].lo && addr < late[i].hi)
            return true;
    return false;
}

static bool listed; /* the list before the load is whole */

void lp_libdw_objects_before(void)
{
    nbefore = 0;
    listed = dl_iterate_phdr(note_before, NULL) == 0;
}

void lp_libdw_objects_after(void)
{
    if (listed && before != NULL) {
        nlate = 0;
        dl_iterate_phdr(note_after, NULL);
        if (nlate > 0)
            lp_sym_loaded_by_us = loaded_by_us;
    }
    free(before);
    before = NULL;
    nbefore = capbefore = 0;
}
