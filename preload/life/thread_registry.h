/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_THREADS_H
#define LP_PRELOAD_THREADS_H
/*
 * thread_registry.h - the threads of the host process, for the leak scan.
 *
 * Two services:
 *  - A registry of the threads created through pthread_create (which we
 *    interpose): each one's kernel tid and stack range (as the thread
 *    itself sees it with pthread_getattr_np, so it includes glibc's TCB
 *    and static TLS at the top), and whether it is still alive. A thread
 *    is dead once it can never run user code again: its start routine
 *    has returned (or it called pthread_exit or was cancelled), glibc
 *    has run its key destructors, and its tid is gone. glibc keeps a dead
 *    thread's stack in a cache, and the scan must not take that stack as
 *    a root.
 *  - Stop-the-world (thread_stop.c): lp_threads_stop() sends every other
 *    thread of the process a real-time signal (LP_THREADS_STOP_SIGNAL) and waits until
 *    each has saved its registers and stack pointer and parked in the
 *    handler; lp_threads_resume() lets them go.
 *
 * Memory: registry records come from lp_arena (never freed, recycled when
 * a new thread reuses a dead thread's cached stack); the stop slots are a
 * static array. Nothing here allocates while the world is stopped.
 *
 * Context: pthread_create wrapper: any thread (HOT-like: no stdio, no
 * tracked allocation). Stop/resume/iteration: COLD, caller holds the
 * guard, one caller at a time (lp_scan_run serialises). The stop handler:
 * SIGNAL (async-signal-safe: atomics, raw syscalls).
 */
#include <sys/types.h>

#include "preload/lp.h"

/* glibc reserves SIGRTMIN..SIGRTMIN+2 (cancel, setxid) internally and
 * applications usually take SIGRTMIN upward; we take the highest one at
 * or below SIGRTMAX - 3 that the program leaves at SIG_DFL. */
#define LP_THREADS_STOP_SIGNAL_OFFSET 3

/* How long lp_threads_stop() waits for a thread that does not answer
 * (signal blocked, uninterruptible sleep, being traced). */
#define LP_THREADS_STOP_TIMEOUT_MS 200

/* Slots for stopped threads without a mapping of their own (more are
 * mapped when the process has more threads: thread_stop.c). */
#define LP_THREADS_MAX_STOPPED 1024

#if defined(__x86_64__)
#define LP_THREAD_NREGS 16 /* rax..r15 */
#elif defined(__aarch64__)
#define LP_THREAD_NREGS 31 /* x0..x30 */
#else
#define LP_THREAD_NREGS 1
#endif

/* One other thread as seen by a stop. */
struct lp_stopped_thread {
    pid_t tid;
    int state;     /* private: handshake with the handler */
    bool answered; /* parked in the handler: sp and regs are valid */
    uintptr_t sp;  /* stack pointer when it was interrupted */
    uintptr_t regs[LP_THREAD_NREGS];
    unsigned long epoch; /* private */
};

/* A getdents64 record of a /proc/PID/task directory, read raw (opendir
 * would malloc, and a stopped thread may hold the allocator's lock). */
struct lp_dirent64 {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

/* The tid a task directory entry names; 0 for "." and "..". */
static inline pid_t lp_task_tid(const char *c)
{
    pid_t tid = 0;

    if (*c < '0' || *c > '9')
        return 0;
    for (; *c >= '0' && *c <= '9'; c++)
        tid = tid * 10 + (*c - '0');
    return tid;
}

/* Write tid in decimal at out (room for 10 digits); returns its length.
 * For /proc paths built without stdio. */
static inline int lp_put_tid(char *out, pid_t tid)
{
    char digits[12];
    int nd = 0, k;

    do {
        digits[nd++] = (char)('0' + tid % 10);
        tid /= 10;
    } while (tid > 0 && nd < 10);
    for (k = 0; k < nd; k++)
        out[k] = digits[nd - 1 - k];
    return nd;
}

/* The relative path "TID/stat" (for openat on the task directory) into
 * out (room for 16). */
static inline void lp_task_stat_path(char *out, pid_t tid)
{
    int nd = lp_put_tid(out, tid), i;
    static const char tail[] = "/stat";

    for (i = 0; i < (int)sizeof(tail); i++)
        out[nd + i] = tail[i];
}

/* From the n bytes of a task's stat: its state letter (R, S, D, Z...:
 * after the name's closing parenthesis), or 0. */
static inline char lp_task_stat_state(const char *buf, long n)
{
    long i, paren = -1;

    for (i = 0; i < n; i++)
        if (buf[i] == ')')
            paren = i;
    if (paren < 0 || paren + 2 >= n)
        return 0;
    return buf[paren + 2];
}

/* Has the task left (zombie or dead)? A main thread that called
 * pthread_exit stays listed as a zombie while the process goes on: it
 * cannot be stopped, signalled or seized, and holds nothing to scan but
 * its stack, which stays mapped. */
static inline bool lp_task_stat_gone(const char *buf, long n)
{
    char st = lp_task_stat_state(buf, n);

    return st == 'Z' || st == 'X';
}

/* Read one word of our own memory that may have been unmapped (through
 * process_vm_readv: false when it is not readable). */
bool lp_peek_word(uintptr_t addr, uintptr_t *out);

/* Whether tid has one of the n slots. */
static inline bool lp_stopped_has(const struct lp_stopped_thread *s, size_t n,
                                  pid_t tid)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (s[i].tid == tid)
            return true;
    return false;
}

/*
 * Stop every other thread of the process except our own internal threads
 * (lp_threads_self_internal). Returns the number of threads signalled and
 * points *out at their slots (an array valid until lp_threads_resume()).
 * Threads created while we stop are caught by re-reading /proc/self/task
 * until it shows nothing new. A slot with answered == false is a thread
 * that did not park within the timeout: it may still be running; so may
 * threads in no slot, when lp_threads_stop_overflowed() says so.
 */
size_t lp_threads_stop(struct lp_stopped_thread **out);
/* The last stop met more threads than it could hold (no memory for
 * more slots, or threads starting faster than it stopped them): some
 * may be running and are in none of the slots. */
bool lp_threads_stop_overflowed(void);
void lp_threads_resume(void);

/* The registry, as seen by one visit. */
struct lp_thread_info {
    pid_t tid;                    /* 0 until started */
    uintptr_t stack_lo, stack_hi; /* [lo, hi); 0,0 if not known yet */
    uintptr_t tcb;                /* its thread pointer (glibc's struct
                                     pthread, at the top of [lo, hi),
                                     its static TLS below); 0: unknown */
    uintptr_t arg;                /* its start argument */
    bool started; /* it registered itself: tid and stack are known */
    /* It may still run code: created but not started yet, running, or
     * past its start routine (key and TLS destructors); such a thread is
     * dead only once its tid is gone from /proc/self/task. */
    bool alive;
    bool user_stack; /* pthread_attr_setstack: memory the user owns */
    bool internal;   /* one of leakprof's own threads */
};

/* Visit every registered thread. Lock-free; COLD. */
void lp_threads_for_each(void (*fn)(const struct lp_thread_info *, void *),
                         void *arg);

/* How many records the registry holds (an upper bound for a visit). */
size_t lp_threads_count(void);

/* Called by a thread of leakprof's own (the dumper) at its start: it is
 * never stopped and its stack is never a root. */
void lp_threads_self_internal(void);

/* How many threads of the program other than the caller are still in
 * /proc/self/task (our own threads not counted). COLD, no allocation. */
/* Is tid one of our own threads (the dumper), alive? (thread_stop.c
 * leaves them running.) */
bool lp_threads_is_internal(pid_t tid);

/* Wait (20 ms at most) for the threads past their start routine to be
 * gone from the kernel too: at exit, before counting the others. */
void lp_threads_settle(void);

size_t lp_threads_others_running(void);

/* What __libc_freeres would free of finished threads whose stacks glibc
 * keeps cached: their DTV blocks. Writes up to max block addresses to out
 * and returns how many. COLD. */
size_t lp_threads_dead_dtvs(uintptr_t *out, size_t max);

/* The interposed pthread_create (exported). */
#include <pthread.h>
int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                   void *(*start)(void *), void *arg);

#endif /* LP_PRELOAD_THREADS_H */
