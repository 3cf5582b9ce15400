/* SPDX-License-Identifier: MIT */
/*
 * seccomp_hooks.c - prctl(PR_SET_SECCOMP) and syscall(SYS_seccomp),
 * interposed (and syscall's descriptor calls: below): before a process puts itself in a seccomp sandbox, the
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
 * The program's raw close, close_range, dup2 and dup3 through syscall()
 * (a daemon's "close every descriptor" loop written with syscall) go to
 * our hooks of those functions (fs_hooks.c), which leave our own
 * descriptors alone: before, the loop closed our copy of stderr and our
 * kept files, our next pipe took their numbers, and the report came out
 * on the program's stderr with "leak search failed". Our own code's
 * calls (the guard held) stay raw.
 *
 * Each hook then does what the real function does, errno included: the
 * arguments are read as the six words the kernel takes (glibc's syscall
 * reads as many). syscall makes the system call itself, as glibc's does,
 * with no lookup: our own code calls syscall() too (the unwinder's rules
 * files, a rule miss inside an allocation), and those calls bind to this
 * hook; a dlsym there, before the library is up, could allocate inside
 * our allocator's hook.
 * Context: BOOT (lp_seccomp_hooks_init), then COLD (any thread; a
 * signal handler may call syscall: no lock, no lookup there).
 */
#include "preload/life/seccomp_hooks.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <unistd.h>

#include "preload/life/cred_hooks.h"
#include "preload/life/dl_next.h"
#include "preload/hot/guard.h"
#include "preload/lp.h"

typedef int prctl_fn(int, unsigned long, unsigned long, unsigned long,
                     unsigned long);

typedef long syscall_fn(long, long, long, long, long, long, long);

static prctl_fn *real_prctl;
static syscall_fn *real_syscall; /* glibc's: for the calls that return twice */

void lp_seccomp_hooks_init(void)
{
    real_prctl = lp_dl_next("prctl");
    real_syscall = lp_dl_next("syscall");
}

/* The system call nr with six arguments, as the kernel returns it. */
static long raw_syscall(long nr, const long a[6])
{
    register long r10 __asm__("r10") = a[3];
    register long r8 __asm__("r8") = a[4];
    register long r9 __asm__("r9") = a[5];
    long ret;

    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"(nr), "D"(a[0]), "S"(a[1]), "d"(a[2]), "r"(r10),
                       "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
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
    /* Before lp_seccomp_hooks_init (another library's constructor):
     * looked up now. */
    if (real_prctl == NULL && (real_prctl = lp_dl_next("prctl")) == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (option == PR_SET_SECCOMP)
        lp_keep_outputs_now();
    return real_prctl(option, a[0], a[1], a[2], a[3]);
}

LP_EXPORT long syscall(long nr, ...)
{
    long a[6], ret;
    va_list ap;
    int i;

    va_start(ap, nr);
    for (i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (nr == SYS_seccomp &&
        (a[0] == SECCOMP_SET_MODE_STRICT || a[0] == SECCOMP_SET_MODE_FILTER))
        lp_keep_outputs_now();
    if (!lp_guard_held) {
        switch (nr) {
        case SYS_close:
            return close((int)a[0]);
        case SYS_close_range:
            return close_range((unsigned)a[0], (unsigned)a[1], (int)a[2]);
        case SYS_dup2:
            return dup2((int)a[0], (int)a[1]);
        case SYS_dup3:
            return dup3((int)a[0], (int)a[1], (int)a[2]);
        default:
            break;
        }
    }
    /* A call that returns twice, the child perhaps on a stack of its own
     * where glibc's syscall pops what the program put there: glibc's own
     * code makes it, as without us. */
    if ((nr == SYS_clone || nr == SYS_clone3 || nr == SYS_vfork ||
         nr == SYS_fork) &&
        real_syscall != NULL)
        return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
    ret = raw_syscall(nr, a);
    if ((unsigned long)ret > -4096UL) {
        errno = (int)-ret;
        return -1;
    }
    return ret;
}
