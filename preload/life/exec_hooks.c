/* SPDX-License-Identifier: MIT */
/*
 * exec_hooks.c - the exec family and posix_spawn, interposed so that with
 * trace_children=yes a program exec'd with an environment of its own
 * making (env -i, a subprocess given env={}, a build tool's clean
 * environment) is traced all the same, as Valgrind, which intercepts the
 * exec itself, traces it. The environment passed on gets our LD_PRELOAD
 * and LEAKPROF_OPTIONS back (child_env.c); with trace_children=no, or in
 * a trace_children_skip'ed program, every call goes straight through.
 *
 * glibc's execv, execvp and the execl forms call its execve internally,
 * past any interposition, so each is wrapped here too: execv(p, a) is
 * execve(p, a, environ), execvp(f, a) is execvpe(f, a, environ), and the
 * execl forms gather their arguments into an array first, as glibc's do.
 * Everything runs on the caller's stack, with no allocation and no write
 * outside it: these are called in vfork children and signal handlers.
 * The real functions are looked up once, at start (dlsym allocates).
 * Context: BOOT (lp_exec_hooks_init), then any (the hooks).
 */
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include "preload/life/child_env.h"
#include "preload/life/exec_hooks.h"
#include "preload/life/outfile_kept.h"

#include "preload/scan/report_log.h"
#include "preload/life/snapshot_signal.h"
#include "preload/lp.h"

extern char **environ;

#define MAX_ENV 65536 /* entries copied on the stack; more: left alone */
#define LINE_LEN 8192  /* the merged LD_PRELOAD entry */

typedef int execve_fn(const char *, char *const[], char *const[]);
typedef int fexecve_fn(int, char *const[], char *const[]);
typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
                     const posix_spawnattr_t *, char *const[], char *const[]);

static struct {
    execve_fn *execve, *execvpe;
    fexecve_fn *fexecve;
    spawn_fn *spawn, *spawnp;
} real;

void lp_exec_hooks_init(void)
{
    real.execve = (execve_fn *)dlsym(RTLD_NEXT, "execve");
    real.execvpe = (execve_fn *)dlsym(RTLD_NEXT, "execvpe");
    real.fexecve = (fexecve_fn *)dlsym(RTLD_NEXT, "fexecve");
    real.spawn = (spawn_fn *)dlsym(RTLD_NEXT, "posix_spawn");
    real.spawnp = (spawn_fn *)dlsym(RTLD_NEXT, "posix_spawnp");
}

/* Resolved lazily too, should an exec come before our constructor. */
#define REAL(f) (real.f != NULL ? real.f : (lp_exec_hooks_init(), real.f))

/* Evaluate call with env bound to the environment to pass on: envp when
 * exec'd programs are not traced or envp already carries us, else a copy
 * with our entries, on this stack. */
#define WITH_ENV(envp, env, call) \
    do { \
        if (!lp_child_env_traced()) { \
            char *const *env = (envp); \
            return call; \
        } else { \
            size_t cap_ = lp_child_env_count(envp) + 3; \
            char *out_[cap_ <= MAX_ENV ? cap_ : 1], line_[LINE_LEN]; \
            char *const *env = lp_child_env_for_exec( \
                (envp), out_, cap_ <= MAX_ENV ? cap_ : 0, line_, sizeof(line_)); \
            return call; \
        } \
    } while (0)

/* What an exec that returned (it failed) leaves to undo. */
static int exec_failed(int rc)
{
    int e = errno;

    lp_signal_exec_failed();
    errno = e;
    return rc;
}

LP_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    execve_fn *f = REAL(execve);

    if (f == NULL) {
        errno = ENOSYS;
        return -1;
    }
    lp_signal_before_exec();
    lp_report_log_before_exec();
    lp_outfile_kept_before_exec();
    WITH_ENV(envp, env, exec_failed(f(path, argv, env)));
}

LP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    execve_fn *f = REAL(execvpe);

    if (f == NULL) {
        errno = ENOSYS;
        return -1;
    }
    lp_signal_before_exec();
    lp_report_log_before_exec();
    lp_outfile_kept_before_exec();
    WITH_ENV(envp, env, exec_failed(f(file, argv, env)));
}

LP_EXPORT int execv(const char *path, char *const argv[])
{
    return execve(path, argv, environ);
}

LP_EXPORT int execvp(const char *file, char *const argv[])
{
    return execvpe(file, argv, environ);
}

LP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    fexecve_fn *f = REAL(fexecve);

    if (f == NULL) {
        errno = ENOSYS;
        return -1;
    }
    lp_signal_before_exec();
    lp_report_log_before_exec();
    lp_outfile_kept_before_exec();
    WITH_ENV(envp, env, exec_failed(f(fd, argv, env)));
}

LP_EXPORT int posix_spawn(pid_t *pid, const char *path,
                          const posix_spawn_file_actions_t *fa,
                          const posix_spawnattr_t *attr, char *const argv[],
                          char *const envp[])
{
    spawn_fn *f = REAL(spawn);

    if (f == NULL)
        return ENOSYS;
    WITH_ENV(envp, env, f(pid, path, fa, attr, argv, env));
}

LP_EXPORT int posix_spawnp(pid_t *pid, const char *file,
                           const posix_spawn_file_actions_t *fa,
                           const posix_spawnattr_t *attr, char *const argv[],
                           char *const envp[])
{
    spawn_fn *f = REAL(spawnp);

    if (f == NULL)
        return ENOSYS;
    WITH_ENV(envp, env, f(pid, file, fa, attr, argv, env));
}

/* The execl forms gather arg0 ... NULL into an array on this stack, as
 * glibc's own do: counted first, then copied. */
static size_t count_args(const char *arg0, va_list *ap)
{
    size_t n = 0;

    if (arg0 != NULL)
        for (n = 1; va_arg(*ap, char *) != NULL; n++)
            ;
    return n + 1; /* with the NULL; *ap is then past it */
}

/* Evaluate call with argv holding arg, the variadic arguments after it
 * and their NULL: counted, then copied to this stack. */
#define WITH_ARGV(arg, argv, call) \
    do { \
        va_list ap_; \
        size_t n_, i_; \
        va_start(ap_, arg); \
        n_ = count_args(arg, &ap_); \
        va_end(ap_); \
        { \
            char *argv[n_]; \
            va_start(ap_, arg); \
            argv[0] = (char *)(arg); \
            for (i_ = 1; i_ < n_; i_++) \
                argv[i_] = va_arg(ap_, char *); \
            va_end(ap_); \
            return call; \
        } \
    } while (0)

LP_EXPORT int execl(const char *path, const char *arg, ...)
{
    WITH_ARGV(arg, argv, execve(path, argv, environ));
}

LP_EXPORT int execlp(const char *file, const char *arg, ...)
{
    WITH_ARGV(arg, argv, execvpe(file, argv, environ));
}

LP_EXPORT int execle(const char *path, const char *arg, ...)
{
    char **envp;
    va_list ap;
    size_t n, i;

    va_start(ap, arg);
    n = count_args(arg, &ap);
    envp = va_arg(ap, char **); /* after the NULL */
    va_end(ap);
    {
        char *argv[n];

        va_start(ap, arg);
        argv[0] = (char *)arg;
        for (i = 1; i < n; i++)
            argv[i] = va_arg(ap, char *);
        va_end(ap);
        return execve(path, argv, envp);
    }
}
