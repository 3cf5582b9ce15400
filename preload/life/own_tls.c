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

#include "preload/life/unwind_dep.h"

#include <dlfcn.h>
#include <link.h>

unsigned lp_own_tls_bytes;
uintptr_t lp_own_tls_rtld_lo, lp_own_tls_rtld_hi;

static unsigned lazy_bytes; /* modules our dlopens added, before init too */

struct census {
    unsigned tls_ours; /* libunwind, if loaded with its TLS module */
    unsigned tls_all;  /* every object with a TLS module */
};

static int count_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct census *c = arg;

    (void)size;
    if (info->dlpi_tls_modid != 0) {
        c->tls_all++;
        if (lp_unwind_dep_is(info->dlpi_name))
            c->tls_ours++;
    }
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
    struct census c = { 0 };

    /* _r_debug is ld.so's (_dl_find_object itself is libc's). */
    if (_dl_find_object((void *)(uintptr_t)&_r_debug, &obj) != 0)
        return; /* ld.so not found: leave the figures as they are */
    lp_own_tls_rtld_lo = (uintptr_t)obj.dlfo_map_start;
    lp_own_tls_rtld_hi = (uintptr_t)obj.dlfo_map_end;
    dl_iterate_phdr(count_cb, &c);
    lp_store_relaxed(&lp_own_tls_bytes,
                     (lp_unwind_dep_shared() ? 0 : 16 * c.tls_ours) +
                         lazy_bytes);
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
