/* SPDX-License-Identifier: MIT */
/*
 * signame.c - parsing and printing signal names.
 * Context: any.
 */
#include "report/signame.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    int signo;
} names[] = {
    {"HUP", SIGHUP},     {"INT", SIGINT},       {"QUIT", SIGQUIT},
    {"ILL", SIGILL},     {"TRAP", SIGTRAP},     {"ABRT", SIGABRT},
    {"IOT", SIGIOT},     {"BUS", SIGBUS},       {"FPE", SIGFPE},
    {"KILL", SIGKILL},   {"USR1", SIGUSR1},     {"SEGV", SIGSEGV},
    {"USR2", SIGUSR2},   {"PIPE", SIGPIPE},     {"ALRM", SIGALRM},
    {"TERM", SIGTERM},   {"STKFLT", SIGSTKFLT}, {"CHLD", SIGCHLD},
    {"CONT", SIGCONT},   {"STOP", SIGSTOP},     {"TSTP", SIGTSTP},
    {"TTIN", SIGTTIN},   {"TTOU", SIGTTOU},     {"URG", SIGURG},
    {"XCPU", SIGXCPU},   {"XFSZ", SIGXFSZ},     {"VTALRM", SIGVTALRM},
    {"PROF", SIGPROF},   {"WINCH", SIGWINCH},   {"IO", SIGIO},
    {"POLL", SIGPOLL},   {"PWR", SIGPWR},       {"SYS", SIGSYS},
};

/* A decimal number filling all of s, in [lo, hi]; -1 otherwise. */
static int number(const char *s, int lo, int hi)
{
    char *end;
    long v;

    if (*s < '0' || *s > '9')
        return -1;
    v = strtol(s, &end, 10);
    return *end || v < lo || v > hi ? -1 : (int)v;
}

int lp_signal_parse(const char *text)
{
    const char *v = text;
    size_t i;
    int n;

    if (!v || !*v)
        return -1;
    if ((n = number(v, 0, SIGRTMAX)) >= 0)
        return n;
    if (!strncasecmp(v, "SIG", 3))
        v += 3;
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcasecmp(v, names[i].name))
            return names[i].signo;
    if (!strncasecmp(v, "RTMIN", 5) || !strncasecmp(v, "RTMAX", 5)) {
        int base = (v[4] == 'N' || v[4] == 'n') ? SIGRTMIN : SIGRTMAX;
        int off = 0, s;

        v += 5;
        if (*v == '+' || *v == '-') {
            off = number(v + 1, 0, SIGRTMAX - SIGRTMIN);
            if (off < 0)
                return -1;
            if (*v == '-')
                off = -off;
        } else if (*v) {
            return -1;
        }
        s = base + off;
        return s >= SIGRTMIN && s <= SIGRTMAX ? s : -1;
    }
    return -1;
}

int lp_signal_usable_for_snapshot(int signo)
{
    switch (signo) {
    case SIGKILL: case SIGSTOP: case SIGSEGV: case SIGBUS: case SIGFPE:
    case SIGILL: case SIGTRAP: case SIGCHLD: case SIGCONT: case SIGTSTP:
    case SIGTTIN: case SIGTTOU:
        return 0;
    default:
        return signo > 0 && signo <= SIGRTMAX;
    }
}

const char *lp_signal_name(int signo, char *buf, size_t n)
{
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].signo == signo && strcmp(names[i].name, "IOT") != 0 &&
            strcmp(names[i].name, "POLL") != 0) {
            snprintf(buf, n, "SIG%s", names[i].name);
            return buf;
        }
    if (signo >= SIGRTMIN && signo <= SIGRTMAX) {
        if (signo - SIGRTMIN <= SIGRTMAX - signo)
            snprintf(buf, n, "SIGRTMIN+%d", signo - SIGRTMIN);
        else
            snprintf(buf, n, "SIGRTMAX-%d", SIGRTMAX - signo);
        return buf;
    }
    snprintf(buf, n, "signal %d", signo);
    return buf;
}
