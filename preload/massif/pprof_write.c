/* SPDX-License-Identifier: MIT */
/*
 * pprof_write.c - the stack table as a pprof heap profile (pprof_write.h).
 *
 * One sample per stack record with any allocation; its values are the
 * record's counters, read with relaxed loads (no hot-path work is added:
 * these counters exist for the massif trees already). Each distinct
 * return address becomes one Location, symbolized once through the
 * process's shared symbolizer, with its inlined callers as further Line
 * entries (innermost first, as profile.proto wants). Mappings are the
 * executable segments of every loaded object, from dl_iterate_phdr, with
 * the GNU build-id read from the object's PT_NOTE segment in memory (no
 * file is opened); the main program comes first, as pprof expects.
 *
 * Addresses: the leaf (a pc inside our hook) is written as is; caller
 * frames as return address - 1, the call instruction, which is what the
 * lines describe (Memcheck and Massif print the same addresses).
 *
 * Sampling (sample_bytes=N): the stack counters already hold estimates
 * of the whole heap (each tracked block counts for what it stands for,
 * sample.h), as Go's and gperftools' profiles hold scaled values; period
 * is N.
 *
 * Context: COLD, guard held.
 */
#include "preload/life/outfile_kept.h"
#include "preload/massif/pprof_write.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "preload/life/config.h"
#include "preload/life/diag.h"
#include "preload/scan/leakcheck.h"
#include "preload/hot/sample.h"
#include "preload/massif/sites.h"
#include "preload/hot/stack_count.h"
#include "preload/life/root_dir.h"
#include "preload/scan/report_log.h"
#include "report/pprof.h"
#include "report/symbolize.h"

/* Our allocator entry points, as the symbolizer names them: pprof drops
 * these leaf frames when it loads the profile (pprof_write.h). */
#define ALLOC_FRAMES                                                         \
    "malloc|calloc|realloc|reallocarray|free|memalign|posix_memalign|"       \
    "aligned_alloc|valloc|pvalloc|operator new.*|operator delete.*|"         \
    "__builtin_new|__builtin_vec_new|__libc_malloc|__libc_calloc|"          \
    "__libc_realloc|__libc_memalign"

/* ALLOC_FRAMES and the alloc_fn names (massif's --alloc-fn), each
 * escaped for pprof's RE2 syntax; a name that does not fit is left out. */
static void drop_frames(char *out, size_t n)
{
    const char *a;
    size_t o = (size_t)snprintf(out, n, "%s", ALLOC_FRAMES);

    for (a = lp_config.alloc_fns; *a && o < n; a += strlen(a) + 1) {
        size_t at = o, len = strlen(a), i;

        if (at + 2 * len + 2 > n)
            continue;
        out[o++] = '|';
        for (i = 0; i < len; i++) {
            if (strchr("\\.+*?()|[]{}^$", a[i]))
                out[o++] = '\\';
            out[o++] = a[i];
        }
        out[o] = '\0';
    }
}

struct seg {
    uint64_t start, limit, offset;
    char *file, *build_id;
    uint64_t id; /* pprof mapping id */
};

struct segs {
    struct seg *v;
    size_t n, cap;
    char exe[4096];
};

static void hex_build_id(const ElfW(Phdr) *ph, ElfW(Addr) base, char **out)
{
    const char *p = (const char *)(base + ph->p_vaddr);
    const char *end = p + ph->p_memsz;

    while (p + sizeof(ElfW(Nhdr)) <= end) {
        const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
        const char *name = p + sizeof(*nh);
        const unsigned char *desc =
            (const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
        size_t i;

        if ((const char *)desc + nh->n_descsz > end)
            return;
        if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
            memcmp(name, "GNU", 4) == 0 && nh->n_descsz <= 64) {
            char *hex = malloc(nh->n_descsz * 2 + 1);

            if (!hex)
                return;
            for (i = 0; i < nh->n_descsz; i++)
                sprintf(hex + 2 * i, "%02x", desc[i]);
            hex[2 * i] = '\0';
            *out = hex;
            return;
        }
        p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
    }
}

static int add_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct segs *ss = arg;
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    char *build_id = NULL;
    const char *file = info->dlpi_name;
    int i;

    (void)size;
    if (!file || !*file)
        file = ss->exe; /* the main program has no name here */
    for (i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_NOTE && !build_id)
            hex_build_id(&info->dlpi_phdr[i], info->dlpi_addr, &build_id);
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        struct seg *s;

        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        if (ss->n == ss->cap) {
            size_t cap = ss->cap ? ss->cap * 2 : 32;
            struct seg *v = realloc(ss->v, cap * sizeof(*v));

            if (!v)
                break;
            ss->v = v;
            ss->cap = cap;
        }
        s = &ss->v[ss->n++];
        memset(s, 0, sizeof(*s));
        s->start = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
        s->limit = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + page - 1) &
                   ~(page - 1);
        s->offset = ph->p_offset & ~(page - 1);
        s->file = strdup(file);
        /* One copy of the build-id per segment keeps freeing simple. */
        s->build_id = build_id ? strdup(build_id) : NULL;
    }
    free(build_id);
    return 0;
}

static void segs_release(struct segs *ss)
{
    size_t i;

    for (i = 0; i < ss->n; i++) {
        free(ss->v[i].file);
        free(ss->v[i].build_id);
    }
    free(ss->v);
}

static const struct seg *seg_of(const struct segs *ss, uint64_t addr)
{
    size_t i;

    /* A linear walk: a few dozen objects, once per distinct address. */
    for (i = 0; i < ss->n; i++)
        if (addr >= ss->v[i].start && addr < ss->v[i].limit)
            return &ss->v[i];
    return NULL;
}

static void add_mappings(struct lp_pprof *p, struct segs *ss)
{
    size_t i;
    ssize_t n = lp_proc_self_readlink("exe", ss->exe, sizeof(ss->exe) - 1);

    ss->exe[n > 0 ? n : 0] = '\0';
    dl_iterate_phdr(add_object, ss);
    for (i = 0; i < ss->n; i++) {
        struct lp_pprof_mapping m = {
            .start = ss->v[i].start,
            .limit = ss->v[i].limit,
            .offset = ss->v[i].offset,
            .file = ss->v[i].file,
            .build_id = ss->v[i].build_id,
            /* Everything is symbolized here: pprof must not try again. */
            .has_functions = true,
            .has_filenames = true,
            .has_line_numbers = true,
            .has_inline_frames = true,
        };

        ss->v[i].id = lp_pprof_add_mapping(p, &m);
    }
}

/* The location id for frame i of a stack (ip as recorded). */
static uint64_t location(struct lp_pprof *p, struct lp_sym *sym,
                         const struct segs *ss, uintptr_t ip, bool leaf)
{
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    struct lp_pprof_line lines[LP_SYM_MAX_INLINE];
    uint64_t addr = leaf ? ip : ip - 1, id;
    const struct seg *sg;
    int n = 0, i;

    id = lp_pprof_find_location(p, addr);
    if (id)
        return id;
    if (sym)
        n = lp_sym_resolve(sym, ip, !leaf, f, LP_SYM_MAX_INLINE);
    if (leaf && n > 1) {
        /* Our hook: its out-of-line name only, as the leak report says
         * "malloc (in libleakprof.so)". */
        f[0] = f[n - 1];
        n = 1;
    }
    for (i = 0; i < n && f[i].fn; i++) {
        lines[i].fn = f[i].fn;
        lines[i].system_name = f[i].mangled;
        lines[i].file = f[i].file;
        lines[i].line = f[i].line;
    }
    sg = seg_of(ss, addr);
    /* An unknown function gets no line: pprof then shows the address. */
    return lp_pprof_add_location(p, sg ? sg->id : 0, addr, lines,
                                 (size_t)i == (size_t)n ? (size_t)n : 0);
}

static void add_header(struct lp_pprof *p)
{
    struct timespec ts;
    char cmd[4096], line[4200];
    char drop[sizeof(ALLOC_FRAMES) + 2 * LP_CONFIG_PATH_MAX];
    ssize_t n = 0;
    int fd = lp_proc_self_open("cmdline", O_RDONLY | O_CLOEXEC), i;

    lp_pprof_add_type(p, "alloc_objects", "count");
    lp_pprof_add_type(p, "alloc_space", "bytes");
    lp_pprof_add_type(p, "inuse_objects", "count");
    lp_pprof_add_type(p, "inuse_space", "bytes");
    /* Ours, after the standard four (pprof_write.h). */
    lp_pprof_add_type(p, "temp_objects", "count");
    lp_pprof_add_type(p, "peak_space", "bytes");
    lp_pprof_add_type(p, "leaked_objects", "count");
    lp_pprof_add_type(p, "leaked_space", "bytes");
    lp_pprof_set_default_type(p, "inuse_space");
    lp_pprof_set_period(p, "space", "bytes",
                        lp_config.sample_bytes ? (int64_t)lp_config.sample_bytes
                                               : 1);
    drop_frames(drop, sizeof(drop));
    lp_pprof_set_drop_frames(p, drop);
    clock_gettime(CLOCK_REALTIME, &ts);
    lp_pprof_set_time(p, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec, 0);
    if (fd >= 0) {
        n = read(fd, cmd, sizeof(cmd) - 1);
        close(fd);
    }
    for (i = 0; i < n - 1; i++)
        if (cmd[i] == '\0')
            cmd[i] = ' ';
    cmd[n > 0 ? n : 0] = '\0';
    snprintf(line, sizeof(line), "leakprof heap profile of pid %d: %s",
             (int)getpid(), cmd);
    lp_pprof_add_comment(p, line);
}

#define NVALUES 8 /* the sample types add_header declares */

/* Sampled mode: the counters are estimates already (sample.h), with
 * block counts in fixed point; make those whole. */
static void scale(int64_t *v)
{
    v[0] = (int64_t)lp_sample_blocks_out((uint64_t)v[0]);
    v[2] = (int64_t)lp_sample_blocks_out((uint64_t)v[2]);
    v[4] = (int64_t)lp_sample_blocks_out((uint64_t)v[4]);
}

static int add_samples(struct lp_pprof *p, struct lp_sym *sym,
                       const struct segs *ss, const struct lp_site_peak *peak)
{
    uint32_t id, count = lp_stack_count();
    uint64_t *locs = malloc(sizeof(*locs) * LP_STACK_MAX_DEPTH);
    int rc = 0;

    if (!locs)
        return -ENOMEM;
    for (id = 1; id <= count && rc == 0; id++) {
        struct lp_stack *s = lp_stack_get(id);
        struct lp_pprof_label label = { .key = "bytes", .num_unit = "bytes" };
        struct lp_stack_counts c;
        const struct lp_site_leak *l;
        uint64_t blocks, bytes;
        int64_t v[NVALUES];
        unsigned i, n = 0;

        if (!s)
            continue;
        lp_stack_counts(s, &c);
        blocks = c.total_blocks;
        bytes = c.total_bytes;
        if (blocks == 0)
            continue;
        v[0] = (int64_t)blocks;
        v[1] = (int64_t)bytes;
        v[2] = (int64_t)c.live_blocks;
        v[3] = (int64_t)c.live_bytes;
        v[4] = (int64_t)c.temp_blocks;
        v[5] = (int64_t)lp_sites_peak_bytes(peak, id);
        l = lp_sites_leak(id);
        /* Leaked: definitely and indirectly lost, as LSan counts leaks. */
        v[6] = l ? (int64_t)(l->blocks[LP_KIND_DEFINITE] +
                             l->blocks[LP_KIND_INDIRECT]) : 0;
        v[7] = l ? (int64_t)(l->bytes[LP_KIND_DEFINITE] +
                             l->bytes[LP_KIND_INDIRECT]) : 0;
        scale(v);
        for (i = 0; i < s->nframes && n < LP_STACK_MAX_DEPTH; i++) {
            uintptr_t ip = lp_stack_frame(s, i);

            /* Beyond the hook, our frames are wrappers (stack.c drops
             * them already; an old record may still hold one). */
            if (ip == 0 || (i > 0 && lp_stack_is_self(ip)))
                continue;
            locs[n] = location(p, sym, ss, ip, i == 0);
            if (locs[n])
                n++;
        }
        /* Go's heap profiles label each sample with its block size. */
        label.num = v[0] ? v[1] / v[0] : 0;
        rc = lp_pprof_add_sample(p, locs, n, v, &label, 1);
    }
    free(locs);
    return rc;
}

static int fill_gz(FILE *f, void *p)
{
    return lp_pprof_write(p, f);
}

void lp_pprof_write_file(unsigned seq)
{
    char path[LP_CONFIG_PATH_MAX + 32];
    struct segs ss = { 0 };
    struct lp_pprof *p;
    struct lp_sym *sym;
    struct lp_site_peak *peak;
    int rc;

    if (!lp_config.pprof[0])
        return;
    if (lp_outfile_path(LP_OUT_PPROF, seq, path, sizeof(path)) != 0) {
        lp_report_log_cannot_write(lp_config.pprof, strerror(ENAMETOOLONG));
        return;
    }
    p = lp_pprof_new();
    if (!p) {
        lp_report_log_cannot_write(path, strerror(ENOMEM));
        return;
    }
    add_header(p);
    add_mappings(p, &ss);
    peak = lp_sites_peak_load();
    sym = lp_leakcheck_sym_get();
    rc = add_samples(p, sym, &ss, peak);
    lp_leakcheck_sym_put();
    lp_sites_peak_free(peak);
    if (rc == 0)
        rc = lp_outfile_write(LP_OUT_PPROF, seq, path, fill_gz, p);
    if (rc != 0)
        lp_report_log_cannot_write(path, strerror(-rc));
    lp_pprof_free(p);
    segs_release(&ss);
}
