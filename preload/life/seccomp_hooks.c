/* SPDX-License-Identifier: MIT */
/*
 * seccomp_hooks.c - prctl(PR_SET_SECCOMP) and syscall(SYS_seccomp),
 * interposed: before a process puts itself in a seccomp sandbox, the
 * files it will write at exit are made and kept open (cred_hooks.h:
 * lp_keep_outputs_now), as before a change of credentials.
 *
 * Why: a sandbox may refuse to open files for writing. man-db's (through
 * libseccomp: the seccomp system call, else prctl) fails every open that
 * asks to write with ENOSYS, so `man` under the library printed its exit
 * report on stderr with "cannot open ...: Function not implemented", and
 * its massif.out was lost: output the program never makes. With the
 * files kept, the report and the profile are written through them (and a
 * fork child of the sandboxed process, which cannot make its own log
 * file either, appends to its parent's: report_log.c).
 *
 * Each hook then does what the real function does, errno included: the
 * arguments are read as the six words the kernel takes (glibc's syscall
 * reads as many), and passed on.
 * Context: BOOT (lp_seccomp_hooks_init), then COLD (any thread; a
 * signal handler may call syscall: no lock here).
 */
#include "preload/life/seccomp_hooks.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/life/cred_hooks.h"
#include "preload/life/dl_next.h"
#include "preload/lp.h"

typedef int prctl_fn(int, unsigned long, unsigned long, unsigned long,
                     unsigned long);
typedef long syscall_fn(long, long, long, long, long, long, long);

static struct {
    prctl_fn *prctl;
    syscall_fn *syscall;
} real;

void lp_seccomp_hooks_init(void)
{
    real.prctl = lp_dl_next("prctl");
    real.syscall = lp_dl_next("syscall");
}

/* Both hooks, for a call before lp_seccomp_hooks_init (another library's
 * constructor): looked up then. */
static bool resolve(void **fn, const char *name)
{
    if (*fn == NULL)
        *fn = lp_dl_next(name);
    if (*fn != NULL)
        return true;
    errno = ENOSYS;
    return false;
}

LP_EXPORT int prctl(int option, ...)
{
    unsigned long a[4];
    va_list ap;
    int i;

    va_start(ap, option);
    for (i = 0; i < 4; i++)
        a[i] = va_arg(ap, unsigned long);
    va_end(ap);
    if (!resolve((void **)&real.prctl, "prctl"))
        return -1;
    if (option == PR_SET_SECCOMP)
        lp_keep_outputs_now();
    return real.prctl(option, a[0], a[1], a[2], a[3]);
}

LP_EXPORT long syscall(long nr, ...)
{
    long a[6];
    va_list ap;
    int i;

    va_start(ap, nr);
    for (i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (!resolve((void **)&real.syscall, "syscall"))
        return -1;
    if (nr == SYS_seccomp &&
        (a[0] == SECCOMP_SET_MODE_STRICT || a[0] == SECCOMP_SET_MODE_FILTER))
        lp_keep_outputs_now();
    return real.syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
