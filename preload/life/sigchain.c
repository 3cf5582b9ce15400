/* SPDX-License-Identifier: MIT */
/*
 * sigchain.c - signals we handle without the program noticing.
 *
 * We put handlers on signals the program has not claimed: the snapshot
 * signal, and the fatal signals (to write the report before the process
 * dies). A program asking sigaction() or signal() about such a signal
 * must still see what it would see without us (SIG_DFL, or what it set
 * itself): a runtime that installs its SIGINT handler only over SIG_DFL
 * (Python does) would otherwise change behaviour under us. So sigaction
 * and signal are interposed; for a signal we own they answer from the
 * program's view, and what the program sets goes:
 *  - LP_SIGCHAIN_CHAIN (the snapshot signal): into the view; our handler
 *    stays and calls the program's handler after its own work.
 *  - LP_SIGCHAIN_YIELD (fatal signals): to the kernel; we step aside and
 *    the program's handler decides, as without us. SIG_DFL keeps ours,
 *    and brings ours back once we stepped aside: a program's cleanup
 *    handler that puts SIG_DFL back and raises the signal again (GNU
 *    sort's on SIGPIPE, many daemons' on SIGTERM) dies of the default
 *    action, where Memcheck reports. A handler of the program's with
 *    SA_RESETHAND (the kernel puts SIG_DFL back as it calls it, past our
 *    hook: "handle once, then die" crash handlers) is called through a
 *    trampoline of ours (RESET below), which brings ours back first.
 * Signals the program sets through glibc-internal paths (abort, system)
 * or raw syscalls bypass this; those paths restore what they found.
 * Context: the interposers run in any thread (COLD: no allocation, no
 * lock but a spinlock of ours around the view); lp_sigchain_call runs in
 * a handler (SIGNAL).
 */
#include "preload/life/sigchain.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "preload/hot/guard.h"

#define NSIGS 65

/* A YIELD signal whose program handler has SA_RESETHAND: the kernel runs
 * on_reset, which stands for it; queries answer from the view. */
#define MODE_RESET 3
/* A YIELD signal armed for one libc-internal abort() (lp_sigchain_arm_
 * abort): the kernel runs on_abort_once; queries answer from the view. */
#define MODE_ABORT 4

/* The modes of a YIELD signal whose kernel handler is the program's, or
 * a wrapper of ours standing for it. */
static bool stepped_aside(int mode)
{
    return mode == 0 || mode == MODE_RESET || mode == MODE_ABORT;
}

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static struct {
    int lock;
    sigaction_fn real;
    struct {
        int mode; /* 0: not ours, else enum lp_sigchain_mode */
        struct sigaction view;
        /* YIELD: ours, for when the program sets SIG_DFL again */
        void (*yielded)(int, siginfo_t *, void *);
    } sig[NSIGS];
} chain;

static sigaction_fn real_sigaction(void)
{
    sigaction_fn f = lp_load_acquire(&chain.real);

    if (!f) {
        bool held = lp_guard_held;

        lp_guard_held = true; /* dlsym may allocate */
        f = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
        lp_guard_restore(held);
        lp_store_release(&chain.real, f);
    }
    return f;
}

static const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS};

bool lp_signal_faults(int signo)
{
    size_t i;

    for (i = 0; i < LP_ARRAY_SIZE(faults); i++)
        if (signo == faults[i])
            return true;
    return false;
}

void lp_sigset_all_but_faults(sigset_t *set)
{
    size_t i;

    sigfillset(set);
    for (i = 0; i < LP_ARRAY_SIZE(faults); i++)
        sigdelset(set, faults[i]);
}

static void fill_ours(struct sigaction *sa,
                      void (*fn)(int, siginfo_t *, void *),
                      enum lp_sigchain_mode mode)
{
    memset(sa, 0, sizeof(*sa));
    sa->sa_sigaction = fn;
    sa->sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigemptyset(&sa->sa_mask);
    if (mode == LP_SIGCHAIN_YIELD) {
        /* Ours stays on while it runs, and signals sent from outside
         * wait until it returns (the kernel blocks them as it enters):
         * with SA_RESETHAND, a second SIGTERM in the microseconds before
         * the kernel had blocked anything found SIG_DFL and ended the
         * process before its report had a line (timeout(1) sends one to
         * the process, one to its group: 11 runs in 16). Faults stay
         * deliverable (SA_NODEFER too): one inside the handler ends it.
         * The handler itself puts SIG_DFL back before it re-raises
         * (lp_sigchain_default_now). */
        sa->sa_flags |= SA_NODEFER;
        lp_sigset_all_but_faults(&sa->sa_mask);
    }
}

static bool is_dfl(const struct sigaction *act)
{
    return !(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_DFL;
}

static bool is_reset_handler(const struct sigaction *act)
{
    return (act->sa_flags & SA_RESETHAND) &&
           ((act->sa_flags & SA_SIGINFO) ||
            (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN));
}

/* From a handler (no lock): ours back on signo, the program's view
 * SIG_DFL, as the kernel or glibc would leave it. False if it could not. */
static bool ours_in_handler(sigaction_fn real, int signo)
{
    struct sigaction sa;

    if (!real || !chain.sig[signo].yielded)
        return false;
    fill_ours(&sa, chain.sig[signo].yielded, LP_SIGCHAIN_YIELD);
    if (real(signo, &sa, NULL) != 0)
        return false;
    memset(&chain.sig[signo].view, 0, sizeof(chain.sig[signo].view));
    chain.sig[signo].view.sa_handler = SIG_DFL;
    lp_store_release(&chain.sig[signo].mode, (int)LP_SIGCHAIN_YIELD);
    return true;
}

/*
 * The program's SA_RESETHAND handler is called. The kernel has just put
 * SIG_DFL back: ours goes there instead (the program's view: SIG_DFL, as
 * natively), so that its re-raise, or the fault it returns to, ends in
 * our report. No lock: this is a signal handler (the view is copied
 * first; a sigaction() racing with a signal only mixes two of the
 * program's own settings).
 */
static void on_reset(int signo, siginfo_t *si, void *uc)
{
    struct sigaction prog = chain.sig[signo].view;
    sigaction_fn real = lp_load_acquire(&chain.real);
    int saved = errno;

    (void)ours_in_handler(real, signo);
    errno = saved;
    if (prog.sa_flags & SA_SIGINFO)
        prog.sa_sigaction(signo, si, uc);
    else
        prog.sa_handler(signo);
}

/* Install act through on_reset (lock held): the same flags and mask, so
 * the kernel blocks and resets as it would for the program's handler. */
static int wrap_reset(sigaction_fn real, int signo, const struct sigaction *act,
                      struct sigaction *old)
{
    struct sigaction sa = *act, prev;

    sa.sa_sigaction = on_reset;
    sa.sa_flags |= SA_SIGINFO;
    if (real(signo, &sa, &prev) != 0)
        return -1;
    if (old)
        *old = prev;
    chain.sig[signo].view = *act;
    lp_store_release(&chain.sig[signo].mode, MODE_RESET);
    return 0;
}

/*
 * glibc's own abort() (called by __assert_fail, inside libc, past our
 * exported abort) raises the signal; the program's handler returns; glibc
 * puts SIG_DFL back itself and raises again: the process died with no
 * report. Armed just before such a call, the kernel runs this instead of
 * the program's handler, once: the program's handler goes back where it
 * was (should it longjmp away, all is as before), runs, and when it
 * returns ours takes SIG_DFL's place and the signal is raised again. It
 * waits, blocked in this handler, until the handler returns into glibc's
 * first raise, then ends in our report (the program's view: SIG_DFL, as
 * glibc would leave it). No lock: a signal handler (see on_reset).
 */
static void on_abort_once(int signo, siginfo_t *si, void *uc)
{
    struct sigaction prog = chain.sig[signo].view;
    sigaction_fn real = lp_load_acquire(&chain.real);
    int saved = errno;

    if (real && real(signo, &prog, NULL) == 0)
        lp_store_release(&chain.sig[signo].mode, 0);
    errno = saved;
    if (prog.sa_flags & SA_SIGINFO)
        prog.sa_sigaction(signo, si, uc);
    else
        prog.sa_handler(signo);
    saved = errno;
    if (lp_load_relaxed(&chain.sig[signo].mode) == 0 &&
        ours_in_handler(real, signo))
        raise(signo);
    errno = saved;
}

void lp_sigchain_arm_abort(int signo)
{
    sigaction_fn real = real_sigaction();
    struct sigaction cur, sa;

    if (!real || !lp_sigchain_yielded(signo))
        return;
    lp_spin_lock(&chain.lock);
    /* Only a handler of the program's as it set it (mode 0): not
     * SIG_IGN, not an SA_RESETHAND one (on_reset serves that). */
    if (chain.sig[signo].mode == 0 && real(signo, NULL, &cur) == 0 &&
        ((cur.sa_flags & SA_SIGINFO) ||
         (cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN))) {
        sa = cur;
        sa.sa_sigaction = on_abort_once;
        sa.sa_flags |= SA_SIGINFO;
        if (real(signo, &sa, NULL) == 0) {
            chain.sig[signo].view = cur;
            lp_store_release(&chain.sig[signo].mode, MODE_ABORT);
        }
    }
    lp_spin_unlock(&chain.lock);
}

/* The program sets SIG_DFL on a fatal signal we had yielded: ours again,
 * with SIG_DFL as its view (lock held). 0, or -1 with errno set. */
static int take_back(sigaction_fn real, int signo, const struct sigaction *act,
                     struct sigaction *old)
{
    struct sigaction sa, prev;

    fill_ours(&sa, chain.sig[signo].yielded, LP_SIGCHAIN_YIELD);
    if (real(signo, &sa, &prev) != 0)
        return -1;
    if (old)
        *old = prev;
    chain.sig[signo].view = *act;
    lp_store_release(&chain.sig[signo].mode, (int)LP_SIGCHAIN_YIELD);
    return 0;
}

int lp_sigchain_install(int signo, void (*fn)(int, siginfo_t *, void *),
                        enum lp_sigchain_mode mode, bool over_ign)
{
    struct sigaction old, sa;
    sigaction_fn real = real_sigaction();

    if (signo <= 0 || signo >= NSIGS || !real || real(signo, NULL, &old))
        return -EINVAL;
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN &&
        !over_ign)
        return -EPERM; /* inherited SIG_IGN: the program asked for it */
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL &&
        old.sa_handler != SIG_IGN && mode == LP_SIGCHAIN_YIELD)
        return -EBUSY; /* the program's own handler decides */
    fill_ours(&sa, fn, mode);
    lp_spin_lock(&chain.lock);
    chain.sig[signo].view = old;
    if (mode == LP_SIGCHAIN_YIELD)
        chain.sig[signo].yielded = fn;
    if (real(signo, &sa, NULL) == 0)
        lp_store_release(&chain.sig[signo].mode, (int)mode);
    lp_spin_unlock(&chain.lock);
    return chain.sig[signo].mode ? 0 : -errno;
}

bool lp_sigchain_call(int signo, siginfo_t *si, void *uc)
{
    struct sigaction v;

    if (signo <= 0 || signo >= NSIGS)
        return false;
    v = chain.sig[signo].view; /* a torn read only mixes two handlers of
                                  the program's: it set both */
    if (v.sa_flags & SA_SIGINFO) {
        if (v.sa_sigaction) {
            v.sa_sigaction(signo, si, uc);
            return true;
        }
        return false;
    }
    if (v.sa_handler == SIG_DFL || v.sa_handler == SIG_IGN)
        return false;
    v.sa_handler(signo);
    return true;
}

bool lp_sigchain_yielded(int signo)
{
    int mode;

    if (signo <= 0 || signo >= NSIGS)
        return false;
    mode = lp_load_acquire(&chain.sig[signo].mode);
    return stepped_aside(mode) &&
           lp_load_relaxed(&chain.sig[signo].yielded) != NULL &&
           lp_load_acquire(&lp_state) == LP_STATE_READY;
}

void lp_sigchain_default_now(int signo)
{
    sigaction_fn real = lp_load_acquire(&chain.real);
    struct sigaction dfl;

    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    if (real)
        (void)real(signo, &dfl, NULL);
    else
        (void)signal(signo, SIG_DFL);
}

void lp_sigchain_take_back(int signo)
{
    sigaction_fn real = real_sigaction();
    struct sigaction dfl;

    if (!real || !lp_sigchain_yielded(signo))
        return;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    lp_spin_lock(&chain.lock);
    if (stepped_aside(chain.sig[signo].mode))
        (void)take_back(real, signo, &dfl, NULL);
    lp_spin_unlock(&chain.lock);
}

bool lp_sigchain_program_handles(int signo)
{
    const struct sigaction *v;

    if (signo <= 0 || signo >= NSIGS)
        return false;
    v = &chain.sig[signo].view;
    return (v->sa_flags & SA_SIGINFO) ||
           (v->sa_handler != SIG_DFL && v->sa_handler != SIG_IGN);
}

LP_EXPORT int sigaction(int signo, const struct sigaction *act,
                        struct sigaction *old)
{
    sigaction_fn real = real_sigaction();
    int mode, rc = 0;

    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    if (signo <= 0 || signo >= NSIGS)
        return real(signo, act, old);
    if ((mode = lp_load_acquire(&chain.sig[signo].mode)) == 0 &&
        !(act && (is_dfl(act) || is_reset_handler(act)) &&
          lp_load_relaxed(&chain.sig[signo].yielded)))
        return real(signo, act, old);
    lp_spin_lock(&chain.lock);
    mode = chain.sig[signo].mode;
    if (mode == 0) {
        /* A signal we yielded: SIG_DFL or an SA_RESETHAND handler brings
         * ours back (lp_sigchain_yielded says whether we may). */
        bool ours_again = act && lp_sigchain_yielded(signo);

        if (ours_again && is_dfl(act))
            rc = take_back(real, signo, act, old);
        else if (ours_again && is_reset_handler(act))
            rc = wrap_reset(real, signo, act, old);
        else
            rc = real(signo, act, old);
        lp_spin_unlock(&chain.lock);
        return rc;
    }
    if (old)
        *old = chain.sig[signo].view;
    if (act) {
        bool dfl = is_dfl(act);

        if (mode != LP_SIGCHAIN_CHAIN && is_reset_handler(act)) {
            rc = wrap_reset(real, signo, act, NULL);
        } else if ((mode == MODE_RESET || mode == MODE_ABORT) && dfl) {
            rc = take_back(real, signo, act, NULL);
        } else if (mode != LP_SIGCHAIN_CHAIN && !dfl) {
            /* The program takes the signal over: ours goes. */
            rc = real(signo, act, NULL);
            if (rc == 0)
                lp_store_release(&chain.sig[signo].mode, 0);
        }
        if (rc == 0)
            chain.sig[signo].view = *act;
    }
    lp_spin_unlock(&chain.lock);
    return rc;
}

static __sighandler_t set_handler(int signo, __sighandler_t h, int flags)
{
    struct sigaction sa, old;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = h;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    if (signo > 0 && signo < NSIGS)
        sigaddset(&sa.sa_mask, signo);
    if (sigaction(signo, &sa, &old) != 0)
        return SIG_ERR;
    /* sa_handler and sa_sigaction share storage: either way, this is the
     * old handler's address, as glibc's signal() returns it. */
    return old.sa_handler;
}

/* glibc's signal() has BSD semantics: handler stays, calls restart. */
LP_EXPORT __sighandler_t signal(int signo, __sighandler_t h)
{
    return set_handler(signo, h, SA_RESTART);
}

__sighandler_t bsd_signal(int signo, __sighandler_t h);
LP_EXPORT __sighandler_t bsd_signal(int signo, __sighandler_t h)
{
    return set_handler(signo, h, SA_RESTART);
}
