/* SPDX-License-Identifier: MIT */
/*
 * cred_hooks.c - setuid, setgid and the rest of the set*id family.
 *
 * A process that drops its privileges (nginx's and apache's workers,
 * daemons started as root) may no longer create files in the directory
 * it started in, and its massif.out file was lost at exit: "cannot write
 * massif.out.PID: Permission denied". Before the first change of
 * credentials, each output's final file (massif.out, pprof, HTML, SARIF)
 * is made and kept open (outfile_kept.c); the exit writes through it when
 * the directory refuses a new file. The leak report's log file is opened
 * then too (lp_report_log_keep_file), where a fork has not opened it.
 * Each hook then does exactly what the real function does, errno
 * included.
 * Context: BOOT (lp_cred_hooks_init), then COLD (any thread; glibc's own
 * set*id broadcast to the other threads is untouched).
 */
#include "preload/life/cred_hooks.h"

#include <errno.h>
#include <grp.h>
#include <sys/types.h>
#include <unistd.h>

#include "preload/life/dl_next.h"
#include "preload/hot/massif_state.h"
#include "preload/life/outfile_kept.h"
#include "preload/scan/report_log.h"
#include "preload/lp.h"

typedef int id1_fn(unsigned);
typedef int id2_fn(unsigned, unsigned);
typedef int id3_fn(unsigned, unsigned, unsigned);
typedef int groups_fn(size_t, const gid_t *);

static struct {
    id1_fn *setuid, *setgid, *seteuid, *setegid;
    id2_fn *setreuid, *setregid;
    id3_fn *setresuid, *setresgid;
    groups_fn *setgroups;
} real;


void lp_cred_hooks_init(void)
{
    real.setuid = lp_dl_next("setuid");
    real.setgid = lp_dl_next("setgid");
    real.seteuid = lp_dl_next("seteuid");
    real.setegid = lp_dl_next("setegid");
    real.setreuid = lp_dl_next("setreuid");
    real.setregid = lp_dl_next("setregid");
    real.setresuid = lp_dl_next("setresuid");
    real.setresgid = lp_dl_next("setresgid");
    real.setgroups = lp_dl_next("setgroups");
}

void lp_keep_outputs_now(void)
{
    int saved = errno;

    lp_report_log_keep_file();
    lp_outfile_keep_all(lp_massif_enabled());
    errno = saved;
}

/* Before any change: our files while we may still make them. */
static void before_change(void)
{
    lp_keep_outputs_now();
}

/* Without the real function: a call before lp_cred_hooks_init (another
 * library's constructor) looks it up then. */
static int missing(void)
{
    errno = ENOSYS;
    return -1;
}

#define HOOK1(name) \
    LP_EXPORT int name(uid_t a) \
    { \
        if (!real.name && !(real.name = lp_dl_next(#name))) \
            return missing(); \
        before_change(); \
        return real.name(a); \
    }
#define HOOK2(name) \
    LP_EXPORT int name(uid_t a, uid_t b) \
    { \
        if (!real.name && !(real.name = lp_dl_next(#name))) \
            return missing(); \
        before_change(); \
        return real.name(a, b); \
    }
#define HOOK3(name) \
    LP_EXPORT int name(uid_t a, uid_t b, uid_t c) \
    { \
        if (!real.name && !(real.name = lp_dl_next(#name))) \
            return missing(); \
        before_change(); \
        return real.name(a, b, c); \
    }

/* uid_t and gid_t are both unsigned int on Linux. */
HOOK1(setuid)
HOOK1(seteuid)
HOOK2(setreuid)
HOOK3(setresuid)
HOOK1(setgid)
HOOK1(setegid)
HOOK2(setregid)
HOOK3(setresgid)

int setgroups(size_t n, const gid_t *list);
LP_EXPORT int setgroups(size_t n, const gid_t *list)
{
    if (!real.setgroups && !(real.setgroups = lp_dl_next("setgroups")))
        return missing();
    before_change();
    return real.setgroups(n, list);
}
