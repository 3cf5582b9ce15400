/* SPDX-License-Identifier: MIT */
/*
 * heap_errors.c - deciding that a free is bad, and reporting it.
 *
 * The order of the checks follows what each costs and how sure it is:
 *   1. the recently-freed queue, exact start: a double free (O(1));
 *   2. a thread's stack: the main thread's [stack] mapping or a stack in
 *      the thread registry; for the current thread, the frame holding
 *      the address (an unwind with stack pointers, as Memcheck finds it);
 *   3. a loaded object (dladdr): a global, named by its ELF symbol;
 *   4. inside a live block but not its start (one walk of the table:
 *      this path is rare, since a table miss almost never happens);
 *   5. not mapped at all (msync says ENOMEM): glibc would crash on it.
 * Nothing else is called bad: memory glibc handed out before we were
 * ready, or to our own guarded calls, also misses the table.
 * Context: COLD, guard held.
 */
#include "preload/scan/heap_errors.h"
#include "preload/scan/xml_out.h"

#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libunwind.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/hot/freed.h"
#include "preload/hot/guard.h"
#include "preload/scan/leakcheck.h"
#include "preload/hot/stack.h"
#include "preload/life/thread_registry.h"
#include "preload/life/root_dir.h"
#include "report/heap_errors.h"
#include "report/suppress.h"

#define MAX_CONTEXTS 1000
#define CONTEXT_FRAMES 4 /* Memcheck compares errors at --error-resolution
                            medium: the first four frames */
#define MAX_UNWIND 64

#define NOT_MATCHED (-2) /* he.supp: the context's stack not matched yet */

struct context {
    int kind;
    unsigned nips;
    uintptr_t ips[CONTEXT_FRAMES];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    struct context ctx[MAX_CONTEXTS];
    int supp[MAX_CONTEXTS]; /* each context's suppression, -1: none,
                               NOT_MATCHED: not looked for yet */
    unsigned ncontexts;
    unsigned errors, contexts;           /* shown (not suppressed) */
    unsigned supp_errors, supp_contexts; /* suppressed */
    int last_thread; /* of the last error printed; Valgrind starts at 1 */
    uint64_t allocs, frees, bytes;
} he = { .last_thread = 1 };

void lp_heap_errors_count(unsigned *errors, unsigned *contexts,
                          unsigned *supp_errors, unsigned *supp_contexts)
{
    *errors = lp_load_relaxed(&he.errors);
    *contexts = lp_load_relaxed(&he.contexts);
    *supp_errors = lp_load_relaxed(&he.supp_errors);
    *supp_contexts = lp_load_relaxed(&he.supp_contexts);
}

void lp_heap_errors_totals(uint64_t *allocs, uint64_t *frees, uint64_t *bytes)
{
    *allocs = lp_load_relaxed(&he.allocs);
    *frees = lp_load_relaxed(&he.frees);
    *bytes = lp_load_relaxed(&he.bytes);
}

void lp_heap_errors_lock(void) { pthread_mutex_lock(&lock); }
void lp_heap_errors_unlock(void) { pthread_mutex_unlock(&lock); }

void lp_heap_errors_atfork_child(void)
{
    pthread_mutex_init(&lock, NULL);
    lp_xml_out_atfork_child();
}

/* Lock held. The context of an error of kind at stack at: its index
 * (*fresh: it is new), or -1 when the table is full (Memcheck stops
 * showing new ones, too). */
static int find_context(int kind, const struct lp_stack *at, bool *fresh)
{
    struct context c;
    unsigned i;

    memset(&c, 0, sizeof(c));
    c.kind = kind;
    c.nips = at ? (at->nframes < CONTEXT_FRAMES ? at->nframes : CONTEXT_FRAMES)
                : 0;
    for (i = 0; i < c.nips; i++)
        c.ips[i] = lp_stack_frame(at, i);
    *fresh = false;
    for (i = 0; i < he.ncontexts; i++)
        if (memcmp(&he.ctx[i], &c, sizeof(c)) == 0)
            return (int)i;
    if (he.ncontexts == MAX_CONTEXTS)
        return -1;
    he.ctx[he.ncontexts] = c;
    he.supp[he.ncontexts] = NOT_MATCHED;
    *fresh = true;
    return (int)he.ncontexts++;
}

/* s: the frames of stack id, in memory of its own (stack_done frees
 * it), or none. */
static void set_stack(struct lp_heap_error_stack *s, uint32_t id)
{
    const struct lp_stack *st = lp_stack_get(id);
    uintptr_t *ips = st ? malloc(sizeof(*ips) * (st->nframes + 1u)) : NULL;

    if (ips)
        lp_stack_frames(st, ips);
    s->ips = ips;
    s->nips = ips ? st->nframes : 0;
}

static void stack_done(struct lp_heap_error_stack *s)
{
    free((void *)s->ips);
    s->ips = NULL;
    s->nips = 0;
}

/* gen_suppressions=yes: the Memcheck:Free entry that would suppress an
 * error at stack at, after it, as Memcheck prints it. */
static void gen_suppression(FILE *out, struct lp_sym *sym,
                            const struct lp_heap_error_stack *at)
{
    int cap = (lp_config.depth + 10) * LP_SYM_MAX_INLINE;
    struct lp_sym_frame *f = malloc(sizeof(*f) * (size_t)cap);
    unsigned nips;

    if (!f)
        return;
    nips = lp_leaks_nips(sym, at->ips, at->nips, lp_config.depth);
    (void)lp_supp_gen_free(out, f, lp_leaks_frames(sym, at->ips, nips, f, cap));
    free(f);
}

/* Format e and write it to the log, through the leak report's writer. */
static void emit(struct lp_heap_error *e, int ci, int tid)
{
    struct lp_sym *sym;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem;

    if (lp_config.log_json)
        return; /* counted; the JSON log has no place for them yet */
    e->pid = getpid();
    sym = lp_leakcheck_sym_get();
    if (lp_xml_out_on()) { /* kept for the XML; no text (as Memcheck) */
        lp_xml_out_heap_error(ci, e, tid, sym, lp_leakcheck_self_obj());
        lp_leakcheck_sym_put();
        return;
    }
    mem = open_memstream(&buf, &len);
    if (mem) {
        lp_heap_error_print(mem, e, sym, lp_leakcheck_self_obj(),
                            lp_config.depth);
        if (lp_config.gen_suppressions)
            gen_suppression(mem, sym, &e->at);
        fclose(mem);
        lp_leakcheck_write_locked(buf, len);
        free(buf);
    }
    lp_leakcheck_sym_put();
}

static int thread_number(pid_t tid);

/*
 * An error: shown when its context is new, counted either way; or
 * suppressed (a Memcheck:Free entry of the user's matches its stack),
 * counted apart and not shown, as Memcheck does. A context's stack is
 * matched when it first occurs, outside our lock (matching symbolizes);
 * each suppressed error counts one use of its entry (-s).
 */
static void report(struct lp_heap_error *e, uint32_t at_id)
{
    const struct lp_stack *at = lp_stack_get(at_id);
    int me = thread_number((pid_t)syscall(SYS_gettid)), ci, verdict;
    bool fresh, show = false;

    pthread_mutex_lock(&lock);
    ci = find_context(e->kind, at, &fresh);
    verdict = ci >= 0 ? he.supp[ci] : -1;
    pthread_mutex_unlock(&lock);
    if (verdict == NOT_MATCHED) {
        verdict = -1;
        if (at && lp_config.nsuppressions > 0) {
            struct lp_heap_error_stack st;

            set_stack(&st, at_id);
            if (st.ips)
                verdict = lp_leakcheck_free_suppression(st.ips, st.nips);
            stack_done(&st);
        }
        pthread_mutex_lock(&lock);
        if (he.supp[ci] == NOT_MATCHED)
            he.supp[ci] = verdict;
        pthread_mutex_unlock(&lock);
    } else if (verdict >= 0) {
        lp_leakcheck_note_free_suppression(verdict);
    }
    pthread_mutex_lock(&lock);
    if (verdict >= 0) {
        lp_store_relaxed(&he.supp_errors, he.supp_errors + 1);
        if (fresh)
            lp_store_relaxed(&he.supp_contexts, he.supp_contexts + 1);
    } else {
        lp_store_relaxed(&he.errors, he.errors + 1);
        if (fresh)
            lp_store_relaxed(&he.contexts, he.contexts + 1);
        show = fresh;
        if (!fresh && lp_xml_out_on())
            lp_xml_out_heap_repeat(ci);
        if (show && me != he.last_thread) {
            e->thread_header = me;
            he.last_thread = me;
        }
    }
    pthread_mutex_unlock(&lock);
    if (show) {
        set_stack(&e->at, at_id);
        emit(e, ci, me);
        stack_done(&e->at);
    }
}

void lp_heap_error_mismatch(const struct lp_block *b, unsigned how,
                            uint32_t at_stack)
{
    struct lp_heap_error e;

    (void)how;
    if (lp_config.hide_mismatched)
        return; /* show_mismatched_frees=no: not an error at all */
    memset(&e, 0, sizeof(e));
    e.kind = LP_HEAP_ERR_MISMATCH;
    e.addr = b->addr;
    e.where = LP_WHERE_ALLOCD;
    e.offset = 0;
    e.size = b->size;
    if (lp_config.show_alloc_stack)
        set_stack(&e.alloc_at, b->stack_id);
    report(&e, at_stack);
    stack_done(&e.alloc_at);
}

/* --- where an address is ---------------------------------------------- */

/* One line of /proc/self/maps. */
struct mapping {
    uintptr_t lo, hi;
    char perms[5];
    char path[256]; /* "" for anonymous memory */
};

/* The mapping holding a (want == NULL: the [stack] one). Reads the maps
 * with read(2) into a stack buffer: no stdio, nothing to free. */
static bool find_mapping(uintptr_t a, const char *want, struct mapping *m)
{
    char buf[8192];
    int fd = lp_proc_self_open("maps", O_RDONLY | O_CLOEXEC);
    size_t used = 0;
    bool found = false;

    if (fd < 0)
        return false;
    while (!found) {
        ssize_t n = read(fd, buf + used, sizeof(buf) - 1 - used);
        char *nl, *start;

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
        buf[used] = '\0';
        start = buf;
        while (!found && (nl = strchr(start, '\n')) != NULL) {
            unsigned long lo, hi;
            int off = 0;

            *nl = '\0';
            if (sscanf(start, "%lx-%lx %4s %*s %*s %*s %n", &lo, &hi, m->perms,
                       &off) >= 3) {
                const char *path = off > 0 ? start + off : "";

                if (want ? strcmp(path, want) == 0 : (a >= lo && a < hi)) {
                    m->lo = lo;
                    m->hi = hi;
                    snprintf(m->path, sizeof(m->path), "%s", path);
                    found = true;
                }
            }
            start = nl + 1;
        }
        used = strlen(start);
        memmove(buf, start, used);
        if (used == sizeof(buf) - 1)
            used = 0; /* a line longer than the buffer: skip it */
    }
    close(fd);
    return found;
}

/* The main thread's stack: the [stack] line of /proc/self/maps. */
static bool main_stack(uintptr_t *lo, uintptr_t *hi)
{
    struct mapping m;

    if (!find_mapping(0, "[stack]", &m))
        return false;
    *lo = m.lo;
    *hi = m.hi;
    return true;
}

struct stack_find {
    uintptr_t a;
    pid_t tid;       /* the owner's tid, when found */
    uintptr_t lo, hi;
    bool found;
};

static void find_thread_stack(const struct lp_thread_info *t, void *arg)
{
    struct stack_find *sf = arg;

    if (!t->alive || t->internal || t->stack_hi == 0)
        return;
    if (sf->a >= t->stack_lo && sf->a < t->stack_hi) {
        sf->found = true;
        sf->tid = t->tid;
        sf->lo = t->stack_lo;
        sf->hi = t->stack_hi;
    }
}

static void count_older(const struct lp_thread_info *t, void *arg)
{
    struct stack_find *sf = arg;

    if (t->alive && !t->internal && t->tid < sf->tid)
        sf->lo++; /* reused as a counter */
}

/*
 * Frame f of the current stack holds a when sp[f] <= a < sp[f+1], with
 * frame 0 the hook the program called (our inner frames dropped, as the
 * error's own stack drops them). Returns f and its pc, or -1.
 */
static int frame_of(uintptr_t a, uintptr_t *ip_out)
{
    unw_context_t uc;
    unw_cursor_t cur;
    uintptr_t ips[MAX_UNWIND], sps[MAX_UNWIND];
    int n = 0, first = 0, f;

    if (unw_getcontext(&uc) != 0 || unw_init_local(&cur, &uc) != 0)
        return -1;
    do {
        unw_word_t ip, sp;

        if (unw_get_reg(&cur, UNW_REG_IP, &ip) != 0 ||
            unw_get_reg(&cur, UNW_REG_SP, &sp) != 0)
            break;
        ips[n] = ip;
        sps[n] = sp;
        n++;
    } while (n < MAX_UNWIND && unw_step(&cur) > 0);
    while (first < n && lp_stack_is_self(ips[first]))
        first++;
    if (first > 0)
        first--;
    for (f = first; f + 1 < n; f++) {
        if (sps[f] <= a && a < sps[f + 1] && sps[f + 1] - sps[f] <= 0x4000000) {
            *ip_out = ips[f];
            return f - first;
        }
    }
    return -1;
}

/* Valgrind numbers threads from 1 (main) in creation order; tids grow
 * in that order too, as long as none was reused. */
static int thread_number(pid_t tid)
{
    struct stack_find sf = { .tid = tid };

    if (tid == getpid())
        return 1;
    lp_threads_for_each(count_older, &sf);
    return 2 + (int)sf.lo;
}

static bool on_a_stack(uintptr_t a, struct lp_heap_error *e)
{
    uintptr_t lo, hi, here = (uintptr_t)__builtin_frame_address(0);
    struct stack_find sf = { .a = a };
    bool current;

    if (main_stack(&lo, &hi) && a + 4096 >= lo && a < hi) {
        e->thread = 1;
        current = here >= lo && here < hi;
    } else {
        lp_threads_for_each(find_thread_stack, &sf);
        if (!sf.found)
            return false;
        current = here >= sf.lo && here < sf.hi;
        e->thread = thread_number(sf.tid);
    }
    e->where = LP_WHERE_STACK;
    e->frame = current ? frame_of(a, &e->frame_ip) : -1;
    return true;
}

struct interior {
    uintptr_t a;
    struct lp_block b;
    bool found;
};

static void find_interior(const struct lp_block *b, void *arg)
{
    struct interior *in = arg;

    if (!in->found && in->a > b->addr && in->a - b->addr < b->size) {
        in->b = *b;
        in->found = true;
    }
}

static bool unmapped(uintptr_t a)
{
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t base = a & ~((uintptr_t)page - 1);

    return msync((void *)base, (size_t)page, MS_ASYNC) != 0 && errno == ENOMEM;
}

/*
 * A pointer glibc's free would abort on for certain, whatever its heap
 * holds: misaligned, or with a chunk header no chunk can have (size
 * below the minimum, not a multiple of 16, wrapping the address space).
 * The header is read only when its words lie in a readable mapping.
 * Fills in e's segment description when true.
 */
static bool glibc_rejects(uintptr_t a, struct lp_heap_error *e)
{
    struct mapping m, hm;
    size_t size;
    bool bad;

    if (!find_mapping(a, NULL, &m))
        return false;
    if (a % 16 != 0) {
        bad = true;
    } else {
        /* The size word at a - 8 must be readable to be looked at. */
        if (a - 8 < m.lo ? !find_mapping(a - 8, NULL, &hm) ||
                               hm.perms[0] != 'r'
                         : m.perms[0] != 'r')
            return false;
        memcpy(&size, (const void *)(a - 8), sizeof(size));
        if (size & 2) /* an mmapped chunk: glibc checks it against pages */
            return false;
        size &= ~(size_t)7;
        bad = size < 32 || size % 16 != 0 || a - 16 > (uintptr_t)0 - size;
    }
    if (!bad)
        return false;
    e->where = LP_WHERE_SEGMENT;
    memcpy(e->perms, m.perms, 3);
    e->perms[3] = '\0';
    /* [heap], [anon:...]: memory without a file, as Valgrind sees it. */
    e->name = m.path[0] == '/' ? strdup(m.path) : NULL;
    return true;
}

bool lp_heap_error_bad_free(void *p, unsigned how, bool is_realloc,
                            size_t new_size)
{
    uintptr_t a = (uintptr_t)p;
    struct lp_heap_error e;
    struct lp_freed fr;
    struct interior in = { .a = a };
    Dl_info info;
    uint32_t at;

    (void)how;
    /* Past the final leak check the table is gone (table.h,
     * lp_table_drain): a free that was on its way in finds nothing. */
    if (!lp_heap_errors_on() || lp_load_acquire(&lp_state) != LP_STATE_READY)
        return true;
    memset(&e, 0, sizeof(e));
    e.kind = LP_HEAP_ERR_INVALID_FREE;
    e.addr = a;
    e.frame = -1;
    if (lp_freed_find(a, &fr)) {
        e.where = LP_WHERE_FREED;
        e.size = fr.size;
        set_stack(&e.freed_at, fr.free_stack);
        set_stack(&e.alloc_at, fr.alloc_stack);
        e.no_alloc_section = !lp_config.show_alloc_after_free;
    } else if (on_a_stack(a, &e)) {
        /* e is filled in */
    } else if (dladdr(p, &info) != 0 && info.dli_fname != NULL) {
        struct lp_sym *sym = lp_leakcheck_sym_get();
        uintptr_t start = 0;
        const char *name = lp_sym_symbol(sym, a, &start);

        if (name != NULL) {
            e.where = LP_WHERE_DATA;
            e.offset = a - start;
            e.name = name; /* owned by sym, which lives for the process */
        } else {
            e.where = LP_WHERE_OBJECT;
            e.name = info.dli_fname;
        }
        lp_leakcheck_sym_put();
    } else {
        lp_table_for_each(find_interior, &in);
        if (in.found) {
            e.where = LP_WHERE_ALLOCD;
            e.offset = a - in.b.addr;
            e.size = in.b.size;
            if (lp_config.show_alloc_stack)
                set_stack(&e.alloc_at, in.b.stack_id);
        } else if (unmapped(a)) {
            e.where = LP_WHERE_NOWHERE;
        } else if (!glibc_rejects(a, &e)) {
            return true; /* not sure: glibc decides, as without us */
        }
    }
    at = lp_stack_capture();
    if (is_realloc) {
        lp_add_relaxed(&he.allocs, 1);
        lp_add_relaxed(&he.bytes, new_size);
    }
    lp_add_relaxed(&he.frees, 1);
    report(&e, at);
    stack_done(&e.freed_at);
    stack_done(&e.alloc_at);
    if (e.where == LP_WHERE_SEGMENT)
        free((void *)e.name);
    return false;
}
