/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SIGCHAIN_H
#define LP_PRELOAD_SIGCHAIN_H
/*
 * sigchain.h - handlers of ours on signals the program may also use, kept
 * invisible: sigaction()/signal() are interposed and answer from the
 * program's view of the signal.
 * Context: install COLD/BOOT; lp_sigchain_call SIGNAL.
 */
#include <signal.h>

#include "preload/lp.h"

enum lp_sigchain_mode {
    LP_SIGCHAIN_CHAIN = 1, /* ours stays; the program's handler is chained */
    LP_SIGCHAIN_YIELD,     /* a handler of the program's replaces ours */
};

/* Install fn (SA_SIGINFO) on signo. Refused (negative errno) when the
 * signal is inherited as SIG_IGN (unless over_ign), or when mode is YIELD
 * and the program already has a handler. */
int lp_sigchain_install(int signo, void (*fn)(int, siginfo_t *, void *),
                        enum lp_sigchain_mode mode, bool over_ign);

/* From our handler: run the program's handler for signo, if it set one.
 * Returns true when one ran. */
bool lp_sigchain_call(int signo, siginfo_t *si, void *uc);

/* The program has a handler of its own for signo (in its view). */
bool lp_sigchain_program_handles(int signo);

/* signo is a YIELD signal the program took over (ours stepped aside). */
bool lp_sigchain_yielded(int signo);

/* From our YIELD handler, before it raises signo again to end the
 * process: SIG_DFL in the kernel (the program's view is SIG_DFL already).
 * SIGNAL-safe. */
void lp_sigchain_default_now(int signo);

/* The signals an instruction's fault raises (SIGSEGV, SIGBUS, SIGILL,
 * SIGFPE, SIGTRAP, SIGSYS): the ones that must stay deliverable while
 * everything sent from outside is held. SIGNAL-safe. */
bool lp_signal_faults(int signo);

/* Every signal but those. SIGNAL-safe. */
void lp_sigset_all_but_faults(sigset_t *set);

/* Put ours back on such a signal, the program's view SIG_DFL (what glibc's
 * abort() sets once the program's handler returned). */
void lp_sigchain_take_back(int signo);

/* Before a call into libc that ends in glibc's own abort() (assert): a
 * handler of the program's for signo that returns is followed by our
 * report, not by the default action glibc restores past our hook. */
void lp_sigchain_arm_abort(int signo);

#endif /* LP_PRELOAD_SIGCHAIN_H */
