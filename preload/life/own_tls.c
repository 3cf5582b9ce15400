/* SPDX-License-Identifier: MIT */
/*
 * own_tls.c - what our own TLS modules add to the program's threads'
 * DTVs, taken back out of the figures.
 *
 * glibc gives each new thread a dynamic thread vector: one calloc, made
 * by ld.so from pthread_create, of (TLS modules + 16) entries of 16
 * bytes. Memcheck's preloaded objects have no TLS, and neither has
 * libleakprof.so (tcb_slot.h), but libunwind.so.8, which we load at start
 * (the fallback unwinder), has a TLS segment, and so have libdw and
 * libelf once a report has loaded them: every thread's DTV was 16 bytes
 * bigger per such module than under Memcheck, so were "total heap usage"
 * and each running thread's "possibly lost" DTV, in every threaded
 * program. So the DTV calloc is recorded at the size it would have had
 * without us: the bytes are the program's figures as Memcheck gives them,
 * the 16-byte tail we leave out is a spare entry (glibc keeps 14 spare,
 * zeroed, after the last module's). Blocks already made keep their size.
 *
 * A module counts as ours when nothing but our objects names it in its
 * DT_NEEDED: a program linked with libunwind itself has the same DTV
 * under Memcheck.
 * Context: COLD: lp_own_tls_init when the process makes its first thread
 * (only threads have DTVs made by calloc), the counts around our dlopens
 * (guard held); lp_own_tls_bytes is read by the calloc hook.
 */
#include "preload/life/own_tls.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>

unsigned lp_own_tls_bytes;
uintptr_t lp_own_tls_rtld_lo, lp_own_tls_rtld_hi;

static uintptr_t self_lo, self_hi;
static unsigned lazy_bytes; /* modules our dlopens added, before init too */

/* The object with TLS that ld.so loads for us at start, by the name we
 * link it by. */
#define OUR_TLS_DEP "libunwind.so.8"

static bool is_ours(const char *path)
{
    const char *base = path ? strrchr(path, '/') : NULL;

    return path && strcmp(base ? base + 1 : path, OUR_TLS_DEP) == 0;
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
    bool ask;             /* init: does anyone but us need OUR_TLS_DEP? */
    bool needed_by_other;
    unsigned tls_ours;    /* OUR_TLS_DEP, if loaded with its TLS module */
    unsigned tls_all;     /* every object with a TLS module */
};

static bool is_self(const struct dl_phdr_info *info)
{
    uintptr_t d = (uintptr_t)dynamic_of(info);

    return d >= self_lo && d < self_hi;
}

static int count_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct census *c = arg;

    (void)size;
    if (info->dlpi_tls_modid != 0) {
        c->tls_all++;
        if (is_ours(info->dlpi_name))
            c->tls_ours++;
    }
    if (c->ask && !is_self(info) && !is_ours(info->dlpi_name) &&
        needs(info, OUR_TLS_DEP))
        c->needed_by_other = true;
    return 0;
}

static unsigned tls_modules(void)
{
    struct census c = { 0 };

    dl_iterate_phdr(count_cb, &c);
    return c.tls_all;
}

void lp_own_tls_init(void)
{
    struct dl_find_object obj;
    struct census c = { .ask = true };

    if (_dl_find_object((void *)(uintptr_t)&lp_own_tls_init, &obj) == 0) {
        self_lo = (uintptr_t)obj.dlfo_map_start;
        self_hi = (uintptr_t)obj.dlfo_map_end;
    }
    /* _r_debug is ld.so's (_dl_find_object itself is libc's). */
    if (_dl_find_object((void *)(uintptr_t)&_r_debug, &obj) != 0)
        return; /* ld.so not found: leave the figures as they are */
    lp_own_tls_rtld_lo = (uintptr_t)obj.dlfo_map_start;
    lp_own_tls_rtld_hi = (uintptr_t)obj.dlfo_map_end;
    dl_iterate_phdr(count_cb, &c);
    lp_store_relaxed(&lp_own_tls_bytes,
                     (c.needed_by_other ? 0 : 16 * c.tls_ours) + lazy_bytes);
}

unsigned lp_own_tls_count_before(void)
{
    return tls_modules();
}

void lp_own_tls_count_after(unsigned before)
{
    unsigned now = tls_modules();

    if (now <= before)
        return;
    lazy_bytes += 16 * (now - before);
    if (lp_own_tls_rtld_hi) /* after init: it has counted the rest */
        lp_store_relaxed(&lp_own_tls_bytes,
                         lp_own_tls_bytes + 16 * (now - before));
}
