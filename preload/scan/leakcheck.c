/* SPDX-License-Identifier: MIT */
/*
 * leakcheck.c - from a reachability scan to a written leak report.
 *
 * The scan gives a verdict per block. Blocks are grouped into loss records
 * by (kind, allocation stack), as Memcheck does at --leak-resolution=high;
 * each record's stack is symbolized and matched against the suppressions.
 * The two suppression syntaxes differ in one rule, kept here: under a
 * Valgrind entry the blocks a suppressed leader owns stay "indirectly
 * lost"; under an LSan leak: line they are suppressed with it. The report
 * is formatted into memory and written with one write(2), so a reader of
 * the log never sees half a report.
 * Context: COLD, guard held.
 */
#include "preload/scan/leakcheck.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "preload/life/command.h"
#include "preload/life/config.h"
#include "preload/life/diag.h"
#include "preload/life/exit.h"
#include "preload/life/outfile_kept.h"
#include "preload/scan/heap_errors.h"
#include "preload/scan/loss_group.h"
#include "preload/scan/report_log.h"
#include "preload/scan/xml_out.h"
#include "preload/hot/guard.h"
#include "preload/hot/snapshot.h"
#include "preload/hot/table.h"
#include "preload/hot/sample.h"
#include "preload/scan/sample_report.h"
#include "preload/scan/classify.h"
#include "preload/massif/sites.h"
#include "preload/hot/stack.h"
#include "preload/hot/track.h"
#include "preload/life/fatal_signal.h"
#include "preload/life/root_dir.h"
#include "preload/life/snapshot_signal.h"
#include "preload/hot/foreign.h"
#include "report/json.h"
#include "report/leaks.h"
#include "report/sarif.h"
#include "report/suppress.h"
#include "report/symbolize.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    struct lp_sym *sym;
    struct lp_supp *supp;
    bool supp_loaded;
    unsigned supp_flavour; /* the built-ins it was read for (load_suppressions) */
    struct lp_supp *err_supp; /* heap errors' (load_error_suppressions) */
    bool err_supp_loaded;
    int preamble_pid; /* the process that printed its preamble */
    char self_obj[4096];
    /* Previous live search, for the (+N) deltas. */
    struct lp_loss_record *prev;
    size_t nprev;
    struct lp_leak_totals prev_totals;
    /* live_since=last: the byte time and generation (table.h) at which
     * the previous live report ran, and its signal number: a block of
     * that generation was allocated after it. */
    uint64_t since_time;
    uint16_t since_gen; /* the generation that started at that report */
    unsigned since_sig;
} lc;

/* A suppression set: the built-in entries if asked, then the user's
 * files, each file that does not parse reported if asked (once a
 * process: the second set reads the same files). NULL without memory. */
static struct lp_supp *read_set(bool builtins, bool report)
{
    struct lp_supp *set = lp_supp_new();
    char err[1024];
    int i;

    if (!set)
        return NULL;
    lp_supp_set_max_callers(set, lp_config.depth);
    if (builtins && lp_config.builtin_suppressions)
        lp_supp_add_builtin_for(set, lp_fatal_signal_info() == NULL,
                                lp_exit_cxx_freeres_known());
    for (i = 0; i < lp_config.nsuppressions; i++)
        if (lp_supp_load(set, lp_config.suppressions[i], err, sizeof(err)) < 0 &&
            report)
            lp_diag("%s (suppression file ignored)", err);
    return set;
}

/* The built-in entries depend on how the process ends (read_set): a
 * live report's set hides libstdc++'s pool, which a death by signal
 * keeps, as Memcheck shows it. So the set is read again when that
 * changed since (a snapshot signal, then SIGTERM: the exit report hid
 * the pool as "suppressed"); the files are not reported twice. */
static void load_suppressions(void)
{
    unsigned flavour = (lp_fatal_signal_info() == NULL ? 1u : 0u) |
                       (lp_exit_cxx_freeres_known() ? 2u : 0u);
    bool again = lc.supp_loaded;

    if (lc.supp_loaded && lc.supp_flavour == flavour)
        return;
    if (lc.supp)
        lp_supp_free(lc.supp);
    lc.supp_loaded = true;
    lc.supp_flavour = flavour;
    lc.supp = read_set(true, !again);
}

static void find_self_obj(void)
{
    Dl_info info;

    if (lc.self_obj[0])
        return;
    if (dladdr((void *)&lp_leakcheck_run, &info) && info.dli_fname)
        snprintf(lc.self_obj, sizeof(lc.self_obj), "%s", info.dli_fname);
}

/* Lock held. dlopen may have added modules since the last use. */
static void refresh_sym(void)
{
    if (!lc.sym)
        lc.sym = lp_sym_new();
    else
        lp_sym_refresh(lc.sym);
}

struct lp_sym *lp_leakcheck_sym_get(void)
{
    pthread_mutex_lock(&lock);
    refresh_sym();
    return lc.sym;
}

void lp_leakcheck_sym_put(void)
{
    lp_sym_save_cache(lc.sym);
    pthread_mutex_unlock(&lock);
}

/*
 * The suppressions a heap error is matched against, when it happens:
 * the Memcheck:Free entries of the user's files. A set of its own, read
 * at the first error: the leak search's set (load_suppressions) holds the
 * built-in entries too, and which of them apply is known only at exit
 * (lp_fatal_signal_info). A bad file has been reported by that set.
 */
static void load_error_suppressions(void)
{
    if (lc.err_supp_loaded)
        return;
    lc.err_supp_loaded = true;
    lc.err_supp = read_set(false, false);
}

int lp_leakcheck_free_suppression(const uintptr_t *ips, unsigned nips)
{
    int cap = (lp_config.depth + 10) * LP_SYM_MAX_INLINE, nf, idx = -1;
    struct lp_sym_frame *f;

    if (lp_config.nsuppressions == 0 || nips == 0)
        return -1;
    pthread_mutex_lock(&lock);
    load_error_suppressions();
    refresh_sym();
    f = lc.err_supp && lc.sym ? malloc(sizeof(*f) * (size_t)cap) : NULL;
    if (f) {
        nips = lp_leaks_nips(lc.sym, ips, nips, lp_config.depth);
        nf = lp_leaks_frames(lc.sym, ips, nips, f, cap);
        idx = lp_supp_match_free(lc.err_supp, f, nf);
        if (idx >= 0)
            lp_supp_note_use(lc.err_supp, idx, 0, 0);
        free(f);
    }
    pthread_mutex_unlock(&lock);
    return idx;
}

void lp_leakcheck_note_free_suppression(int idx)
{
    pthread_mutex_lock(&lock);
    lp_supp_note_use(lc.err_supp, idx, 0, 0);
    pthread_mutex_unlock(&lock);
}

void lp_leakcheck_sym_prime(void)
{
    unsigned long long before = lp_foreign_count();

    lp_sym_prime(lp_leakcheck_sym_get());
    pthread_mutex_unlock(&lock); /* no cache to save: nothing looked up */
    lp_foreign_note_loaded(before);
}

void lp_leakcheck_lock(void) { pthread_mutex_lock(&lock); }
void lp_leakcheck_unlock(void) { pthread_mutex_unlock(&lock); }
void lp_leakcheck_atfork_child(void)
{
    pthread_mutex_init(&lock, NULL);
    lp_report_log_atfork_child();
    /* A destination shared with the parent has its preamble already
     * (lp_leakcheck_before_fork): the child's report goes without one. */
    if (lp_report_log_shared() && !lp_config.log_json)
        lc.preamble_pid = getpid();
}

const char *lp_leakcheck_self_obj(void)
{
    find_self_obj();
    return lc.self_obj[0] ? lc.self_obj : NULL;
}

/* The main thread's stack as Valgrind sizes it: the soft RLIMIT_STACK,
 * at most 16 MiB (what its SIGSEGV advice names). */
static uint64_t main_stack_bytes(void)
{
    const uint64_t most = (uint64_t)16 << 20;
    struct rlimit rl;

    if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur > most)
        return most;
    return rl.rlim_cur;
}

/* Memcheck's preamble options for this process. */
static void preamble_opts(struct lp_leak_opts *o)
{
    o->command = lp_command_args(&o->command_len);
    if (lp_config.verbosity > 0 || lp_config.log[0])
        o->parent_pid = lp_command_parent_pid();
    o->quiet = lp_config.quiet;
    o->sample_bytes = lp_config.sample_bytes;
}

/* The preamble goes before the first thing this process writes. */
static void write_preamble_once(void)
{
    struct lp_leak_opts o;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem;

    if (lc.preamble_pid == getpid())
        return;
    lc.preamble_pid = getpid();
    memset(&o, 0, sizeof(o));
    preamble_opts(&o);
    mem = open_memstream(&buf, &len);
    if (!mem)
        return;
    lp_leaks_print_preamble(mem, getpid(), &o);
    fclose(mem);
    lp_report_log_write(buf, len, false);
    free(buf);
}

/*
 * Memcheck prints its preamble when the program starts, so a fork child's
 * report, printed to the same destination, comes after it and has none of
 * its own. Ours is printed with the report, at exit: before the first
 * fork to a shared destination it goes out now, so the child's report
 * follows it as under Memcheck.
 */
void lp_leakcheck_before_fork(void)
{
    if (!lp_report_log_shared() || lp_config.log_json || lp_xml_out_on())
        return;
    pthread_mutex_lock(&lock);
    write_preamble_once();
    pthread_mutex_unlock(&lock);
}

void lp_leakcheck_write_locked(const char *buf, size_t len)
{
    write_preamble_once();
    lp_report_log_write(buf, len, false);
}

#define NO_REC LP_LOSS_NO_REC

/*
 * Match every record against the suppressions; then move the indirect
 * blocks of leaders suppressed by an LSan line into suppressed records of
 * their own (same kind and stack), since LSan hides them with the leader.
 */
static struct lp_loss_record *suppress(const struct lp_scan *sc,
                                       struct lp_loss_record *recs,
                                       size_t *nrecs, uint32_t *rec_of,
                                       int depth)
{
    size_t i, n = *nrecs, extra = 0;
    struct lp_sym_frame *f;
    int cap = (depth + 10) * LP_SYM_MAX_INLINE, lead;

    if (!lc.supp || lp_supp_count(lc.supp) == 0)
        return recs;
    f = malloc(sizeof(*f) * cap);
    if (!f)
        return recs;
    /* The first frames first: most records fail every entry's leading
     * patterns (the built-in ones name two frames), and the rest of their
     * stack need not be symbolized (a compile's 970 records of 15 frames
     * were 3 ms of each cc1's exit). */
    lead = lp_supp_prefix_len(lc.supp);
    if (lead > cap)
        lead = -1;
    for (i = 0; i < n; i++) {
        /* Matched on the frames Memcheck would have recorded. */
        unsigned nips = lp_leaks_nips(lc.sym, recs[i].ips, recs[i].nips, depth);
        int nf;

        if (lead >= 0) {
            nf = lp_leaks_frames(lc.sym, recs[i].ips, nips, f, lead);
            if (nf == lead &&
                !lp_supp_prefix_may_match(lc.supp, recs[i].kind, f, nf)) {
                recs[i].supp = -1;
                continue;
            }
        }
        nf = lp_leaks_frames(lc.sym, recs[i].ips, nips, f, cap);
        recs[i].supp = lp_supp_match(lc.supp, recs[i].kind, f, nf);
    }
    free(f);
    for (i = 0; i < sc->nblocks; i++) {
        uint32_t l = lp_scan_leader(sc, i); /* NO_LEADER unless INDIRECT */
        const struct lp_loss_record *lr;

        if (l == LP_SCAN_NO_LEADER || rec_of[i] == NO_REC ||
            rec_of[l] == NO_REC)
            continue;
        lr = &recs[rec_of[l]];
        if (lr->supp >= 0 && lp_supp_is_lsan(lc.supp, lr->supp) &&
            recs[rec_of[i]].supp < 0)
            extra++;
    }
    if (extra) {
        struct lp_loss_record *more =
            realloc(recs, sizeof(*recs) * (n + extra));

        if (!more)
            return recs;
        recs = more;
        for (i = 0; i < sc->nblocks; i++) {
            const struct lp_scan_block *b = &sc->blocks[i];
            uint32_t l = lp_scan_leader(sc, i);
            struct lp_loss_record *from, *to;
            int s;
            size_t j;

            if (l == LP_SCAN_NO_LEADER || rec_of[i] == NO_REC ||
                rec_of[l] == NO_REC)
                continue;
            s = recs[rec_of[l]].supp;
            from = &recs[rec_of[i]];
            if (s < 0 || !lp_supp_is_lsan(lc.supp, s) || from->supp >= 0)
                continue;
            /* One suppressed twin record per (stack, entry). */
            for (j = *nrecs; j < n; j++)
                if (recs[j].stack_id == from->stack_id && recs[j].supp == s)
                    break;
            if (j == n) {
                recs[n] = *from;
                recs[n].bytes = recs[n].blocks = 0;
                recs[n].supp = s;
                n++;
            }
            to = &recs[j];
            from = &recs[rec_of[i]];
            from->bytes -= lp_sample_record_bytes(b);
            from->blocks -= lp_sample_record_blocks(b);
            to->bytes += lp_sample_record_bytes(b);
            to->blocks += lp_sample_record_blocks(b);
        }
    }
    *nrecs = n;
    return recs;
}

/* Drop the records that moving blocks emptied. */
static void compact(struct lp_loss_record *recs, size_t *nrecs)
{
    size_t i, o = 0;

    for (i = 0; i < *nrecs; i++)
        if (recs[i].blocks > 0)
            recs[o++] = recs[i];
    *nrecs = o;
}

static void note_suppressed(const struct lp_loss_record *recs, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (recs[i].supp >= 0)
            lp_supp_note_use(lc.supp, recs[i].supp,
                             recs[i].bytes + recs[i].indirect_bytes,
                             recs[i].blocks);
}

/* Live reports: carry the previous search's numbers into old_*, and keep
 * records that vanished (Memcheck numbers them too). */
static struct lp_loss_record *live_deltas(struct lp_loss_record *recs,
                                          size_t *nrecs)
{
    size_t i, j, n = *nrecs, gone = 0;
    struct lp_loss_record *out;

    for (j = 0; j < lc.nprev; j++) {
        for (i = 0; i < n; i++)
            if (recs[i].kind == lc.prev[j].kind &&
                recs[i].stack_id == lc.prev[j].stack_id &&
                (recs[i].supp >= 0) == (lc.prev[j].supp >= 0))
                break;
        if (i < n) {
            recs[i].old_bytes = lc.prev[j].bytes;
            recs[i].old_blocks = lc.prev[j].blocks;
            recs[i].old_indirect_bytes = lc.prev[j].indirect_bytes;
        } else if (lc.prev[j].blocks > 0) {
            gone++;
        }
    }
    out = realloc(recs, sizeof(*recs) * (n + gone + 1));
    if (!out)
        return recs;
    for (j = 0; j < lc.nprev && gone; j++) {
        for (i = 0; i < *nrecs; i++)
            if (out[i].kind == lc.prev[j].kind &&
                out[i].stack_id == lc.prev[j].stack_id &&
                (out[i].supp >= 0) == (lc.prev[j].supp >= 0))
                break;
        if (i < *nrecs || lc.prev[j].blocks == 0)
            continue;
        out[n] = lc.prev[j];
        out[n].old_bytes = lc.prev[j].bytes;
        out[n].old_blocks = lc.prev[j].blocks;
        out[n].old_indirect_bytes = lc.prev[j].indirect_bytes;
        out[n].bytes = out[n].blocks = 0;
        out[n].indirect_bytes = out[n].indirect_blocks = 0;
        n++;
    }
    *nrecs = n;
    return out;
}

static void remember_live(const struct lp_leak_set *set)
{
    struct lp_loss_record *copy = malloc(sizeof(*copy) * (set->nrecs + 1));

    if (!copy)
        return;
    memcpy(copy, set->recs, sizeof(*copy) * set->nrecs);
    free(lc.prev);
    lc.prev = copy;
    lc.nprev = set->nrecs;
    lp_leaks_totals(set, &lc.prev_totals);
}

struct sarif_job {
    struct lp_leak_set *set;
    const struct lp_leak_opts *o;
};

static int fill_sarif(FILE *f, void *arg)
{
    const struct sarif_job *j = arg;

    lp_leaks_sarif(f, j->set, lc.sym, j->o, NULL);
    return ferror(f) ? -EIO : 0;
}

static void write_sarif(struct lp_leak_set *set, const struct lp_leak_opts *o)
{
    char path[LP_CONFIG_PATH_MAX + 32];
    struct sarif_job j = { set, o };
    int rc;

    if (lp_outfile_path(LP_OUT_SARIF, 0, path, sizeof(path)) != 0)
        return;
    rc = lp_outfile_write(LP_OUT_SARIF, 0, path, fill_sarif, &j);
    if (rc != 0)
        lp_report_log_cannot_write(path, strerror(-rc));
}

static bool any_valgrind_used_in(struct lp_supp *supp)
{
    int i;

    for (i = 0; supp && i < lp_supp_count(supp); i++) {
        uint64_t records, bytes, blocks;

        lp_supp_get_use(supp, i, &records, &bytes, &blocks);
        if (records && !lp_supp_is_lsan(supp, i))
            return true;
    }
    return false;
}

/* A Valgrind entry suppressed a loss record, or a heap error. */
static bool any_valgrind_used(void)
{
    return any_valgrind_used_in(lc.supp) || any_valgrind_used_in(lc.err_supp);
}

/* verbosity=1: Memcheck's -s listing, framed as Memcheck frames it. */
static void list_used(FILE *f, const struct lp_leak_set *set,
                      const struct lp_leak_opts *o)
{
    unsigned e = lp_leaks_errors(set, o), s = lp_leaks_suppressed_errors(set, o);
    unsigned c = e + set->other_contexts;

    e += set->other_errors;
    lp_line_prefix(f, set->pid, '-', false);
    fputc('\n', f);
    lp_supp_print_used_valgrind(lc.supp, f, set->pid);
    lp_supp_print_used_valgrind(lc.err_supp, f, set->pid);
    lp_line_prefix(f, set->pid, '=', false);
    fputc('\n', f);
    lp_line_prefix(f, set->pid, '=', false);
    fprintf(f, "ERROR SUMMARY: %u errors from %u contexts (suppressed: %u from %u)\n",
            e, c, s + set->other_supp_errors, s + set->other_supp_contexts);
}

/* Milliseconds since the process started: now (CLOCK_BOOTTIME) minus
 * /proc/self/stat's starttime (field 22, clock ticks since boot). 0 when
 * /proc cannot say. */
static uint64_t ms_since_start(void)
{
    char buf[1024], *p;
    unsigned long long ticks;
    struct timespec now;
    long hz = sysconf(_SC_CLK_TCK);
    ssize_t n;
    int fd, field;
    uint64_t start_ms, now_ms;

    fd = lp_root_open("/proc/self/stat", O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0 || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0)
        return 0;
    buf[n] = '\0';
    p = strrchr(buf, ')'); /* the command name may hold spaces */
    for (field = 2; p != NULL && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (p == NULL || sscanf(p + 1, "%llu", &ticks) != 1)
        return 0;
    start_ms = ticks * 1000u / (unsigned long long)hz;
    now_ms = (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
    return now_ms > start_ms ? now_ms - start_ms : 0;
}

static unsigned run_check(bool live, unsigned seq);

unsigned lp_leakcheck_run(bool live)
{
    return run_check(live, 0);
}

unsigned lp_leakcheck_live(unsigned seq)
{
    return run_check(true, seq);
}

static unsigned run_check(bool live, unsigned seq)
{
    char massif[LP_CONFIG_PATH_MAX + 32], warning[192];
    struct lp_scan sc;
    struct lp_leak_set set;
    struct lp_leak_opts o;
    struct lp_totals t;
    uint32_t *rec_of = NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem;
    unsigned errors = 0;
    int rc;

    pthread_mutex_lock(&lock);
    if (live && lp_load_acquire(&lp_state) == LP_STATE_DONE) {
        /* The exit's check ran meanwhile and consumed the table. */
        pthread_mutex_unlock(&lock);
        return 0;
    }
    memset(&set, 0, sizeof(set));
    memset(&o, 0, sizeof(o));
    find_self_obj();
    load_suppressions();
    o.leak_check = lp_config.leak_check;
    o.show_kinds = lp_config.show_kinds;
    o.error_kinds = lp_config.error_kinds;
    o.gen_suppressions = lp_config.gen_suppressions;
    o.self_obj = lc.self_obj[0] ? lc.self_obj : NULL;
    o.depth = lp_config.depth;
    o.live = live;
    /* Memcheck's preamble: Command: always, Parent PID: with -v or when
     * the report goes to a file; -q keeps only the loss records. Not again
     * when a heap error already printed it. */
    preamble_opts(&o);
    if (lc.preamble_pid == getpid())
        o.command = NULL;
    set.pid = getpid();
    if (!live)
        lp_heap_errors_count(&set.other_errors, &set.other_contexts,
                             &set.other_supp_errors, &set.other_supp_contexts);
    if (!live && lp_fatal_signal_info() != NULL) {
        const struct lp_fatal_info *fi = lp_fatal_signal_info();

        o.fatal_signo = fi->signo;
        o.fatal_code = fi->code;
        o.fatal_addr = fi->addr;
        o.fatal_ips = fi->ips;
        o.fatal_nips = fi->nips;
        o.fatal_overflow_page = fi->overflow_page;
        o.main_stack_bytes = main_stack_bytes();
    }
    if (!live && lp_signal_warning(warning, sizeof(warning)))
        o.warning = warning;
    if (live && seq > 0) {
        /* The header names the file lp_snapshot_dump(seq) wrote. */
        o.live_seq = seq;
        o.live_signo = lp_config.snapshot_signal;
        o.live_ms = ms_since_start();
        if (lp_config.massif[0] &&
            lp_config_expand(lp_config.massif, set.pid, massif,
                             sizeof(massif) - 16) == 0) {
            if (!lp_snapshot_dump_kept(seq)) /* else in the final file */
                snprintf(massif + strlen(massif), 16, ".%u", seq);
            o.live_massif = massif;
        }
    }

    lp_track_totals(&t);
    set.allocs = t.allocs;
    set.frees = t.frees;
    set.bytes_allocated = t.bytes_allocated;
    if (live)
        rc = lp_scan_run(&sc);
    else
        rc = lp_config.leak_check == LP_CHECK_NO ? -1 : lp_scan_run_final(&sc);
    if (rc == 0) {
        int k;

        /* Every block has exactly one kind. */
        for (k = 0; k < LP_KIND_COUNT; k++)
            set.in_use_bytes += sc.kind_bytes[k];
        set.in_use_blocks = sc.nblocks;
        memcpy(set.heur_bytes, sc.heur_bytes, sizeof(set.heur_bytes));
        memcpy(set.heur_blocks, sc.heur_blocks, sizeof(set.heur_blocks));
        uint16_t want_gen = 0;
        bool only_new = false;

        if (live && lp_config.live_since_last && lc.since_sig) {
            /* Leaks by age: only what came after the previous report
             * (table.h: each such report starts a new generation). */
            only_new = true;
            want_gen = lc.since_gen;
            o.live_since = true;
            o.live_since_seq = lc.since_sig;
            o.live_since_time = lc.since_time;
            o.live_delta = LP_DELTA_ANY;
        }
        if (live && seq > 0) {
            lc.since_gen = lp_table_next_gen();
            lc.since_time = lp_snapshot_byte_clock();
            lc.since_sig = seq;
        }
        if (lp_sample_on())
            lp_sample_scan_totals(&sc, &set); /* estimates (sample.h) */
        refresh_sym();
        rec_of = malloc(sizeof(*rec_of) * (sc.nblocks + 1));
        if (rec_of)
            set.recs = lp_loss_group(&sc, &set.nrecs, rec_of, only_new,
                                     want_gen, lc.sym);
        if (set.recs && lp_sample_on())
            lp_sample_scale_records(&sc, set.recs, set.nrecs, rec_of);
        if (set.recs) {
            set.recs = suppress(&sc, set.recs, &set.nrecs, rec_of, o.depth);
            compact(set.recs, &set.nrecs);
        }
        if (set.recs && lp_sample_on())
            lp_sample_round_records(set.recs, set.nrecs);
        if (!set.recs && sc.nblocks)
            lp_diag("out of memory while grouping %zu blocks", sc.nblocks);
    } else {
        /* No scan: counts from the counters, no records. */
        set.in_use_bytes = t.live_bytes;
        set.in_use_blocks = t.live_blocks;
        if (lp_config.leak_check != LP_CHECK_NO || live)
            lp_diag("leak search failed (%s)", strerror(-rc));
    }
    if (live && !o.live_since) {
        set.recs = live_deltas(set.recs, &set.nrecs);
        set.old = lc.prev_totals;
    }
    /* For pprof= and html=: what this report found (with live_since=last,
     * what it listed: the blocks allocated since the previous signal). */
    if (set.recs)
        lp_sites_note_leaks(set.recs, set.nrecs);
    /* Valgrind meets the records in report order, moving each used entry
     * to the front of its list: the -s listing shows that order. */
    lp_leaks_sort(&set);
    if (lc.supp)
        note_suppressed(set.recs, set.nrecs);
    if (rc != 0)
        refresh_sym();

    /* xml=yes: the exit's report is the XML document alone, as Memcheck
     * writes no text commentary then. */
    mem = !live && lp_xml_out_on() ? NULL : open_memstream(&buf, &len);
    if (!live && lp_xml_out_on())
        lp_xml_out_write(&set, lc.sym, &o, lc.supp, lc.err_supp,
                         ms_since_start());
    if (mem) {
        if (lp_config.log_json)
            lp_leaks_json_supp(mem, &set, lc.sym, &o, lc.supp);
        else {
            o.list_suppressions = lp_config.verbosity > 0 && !live;
            lp_leaks_print(mem, &set, lc.sym, &o);
            if (o.list_suppressions && any_valgrind_used())
                list_used(mem, &set, &o);
            if (lc.supp && !live)
                lp_supp_print_used_lsan(lc.supp, mem);
            if (lp_config.verbosity > 0 && lp_sample_on() && !live)
                lp_sample_print_stats(mem, set.pid);
        }
        fclose(mem);
        lp_report_log_write(buf, len, live);
        free(buf);
    }
    errors = lp_leaks_errors(&set, &o) + set.other_errors;
    if (!live && lp_config.sarif[0])
        write_sarif(&set, &o);
    lp_sym_save_cache(lc.sym);
    if (live && !o.live_since)
        remember_live(&set);
    if (rc == 0)
        lp_scan_release(&sc);
    free(rec_of);
    free(set.recs);
    pthread_mutex_unlock(&lock);
    return errors;
}
