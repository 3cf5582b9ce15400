/* SPDX-License-Identifier: MIT */
/*
 * symbolize_chroot.c - symbolizing a process that chrooted itself, or
 * whose main thread has left: where the maps are read from.
 *
 * Past its chroot, a program's libraries, their debug files, libdw itself
 * (loaded lazily) and /proc are out of reach. lp_sym_prime, called just
 * before the chroot, opens everything the symbolizer will want; the
 * opened files stay usable (mapped). A later refresh (a dlopen since)
 * reports the modules again from the maps read through lp_sym_open (the
 * preload library's start-up root); a module reported as it was keeps
 * what it opened.
 * Context: COLD.
 */
#include "report/symbolize_impl.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int (*lp_sym_open)(const char *path, int flags, mode_t mode);

/* Once the main thread has left by pthread_exit, /proc/self is that
 * zombie's and its maps read empty: the calling thread's are the same
 * and stay. /proc/self where thread-self is unknown (before 3.17). */
int lp_sym_open_maps(void)
{
    static const char *const paths[] = { "/proc/thread-self/maps",
                                         "/proc/self/maps" };
    unsigned i;
    int fd = -1;

    for (i = 0; i < 2 && fd < 0; i++) {
        fd = open(paths[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0 && lp_sym_open != NULL) /* chrooted: the start-up root */
            fd = lp_sym_open(paths[i], O_RDONLY | O_CLOEXEC, 0);
    }
    return fd;
}

/* The maps, read through lp_sym_open, handed to libdwfl (which cannot
 * open /proc/PID/maps itself any more). */
bool lp_sym_maps_report(Dwfl *dwfl)
{
    int fd = lp_sym_open != NULL ? lp_sym_open_maps() : -1;
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    bool ok;

    if (f == NULL) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    ok = dwfl_linux_proc_maps_report(dwfl, f) == 0;
    fclose(f);
    return ok;
}

static int prime_module(Dwfl_Module *mod, void **ud, const char *name,
                        Dwarf_Addr start, void *arg)
{
    Dwarf_Addr bias;

    (void)ud, (void)name, (void)start, (void)arg;
    (void)dwfl_module_getelf(mod, &bias);
    (void)dwfl_module_getsymtab(mod);
    (void)dwfl_module_getdwarf(mod, &bias);
    return DWARF_CB_OK;
}

void lp_sym_prime(struct lp_sym *sym)
{
    (void)lp_sym_demangle(sym, "_Z1fv"); /* finds the demangler */
    if (lp_sym_ensure(sym))
        (void)dwfl_getmodules(sym->dwfl, prime_module, NULL, 0);
}

