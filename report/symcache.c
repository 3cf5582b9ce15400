/* SPDX-License-Identifier: MIT */
/*
 * symcache.c - the symbolizer's per-object cache files (symcache.h).
 *
 * Format (text, one record per line, fields separated by TAB, a NULL
 * string written as a lone \001):
 *   leakprof-symcache 1
 *   STATE
 *   F <off hex> <fn>
 *   R <off hex> <n>
 *   <fn> <mangled> <file> <line> <inlined 0|1> <path> <comp_dir>  (n lines)
 * Names, files and demangled C++ text never hold TAB or newline; a file
 * that does anyway fails to parse and is ignored.
 * Context: COLD.
 */
#include "report/symcache.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYMCACHE_MAGIC "leakprof-symcache 2"
#define SYMCACHE_MAX_BYTES (64u << 20)
#define NULL_FIELD "\001"

/* getenv(name), or when the program has cleared or replaced its
 * environment by the time of the report, the value it started with. */
static const char *start_env(const char *name, char *buf, size_t n)
{
    const char *v = getenv(name);
    size_t len = strlen(name), got = 0;
    char rec[4096];
    int fd;

    if (v != NULL)
        return v;
    fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    for (;;) {
        ssize_t r;
        size_t i, start = 0;

        r = read(fd, rec + got, sizeof(rec) - got);
        if (r <= 0)
            break;
        got += (size_t)r;
        for (i = 0; i < got; i++) {
            if (rec[i] != '\0')
                continue;
            if (i - start > len && strncmp(rec + start, name, len) == 0 &&
                rec[start + len] == '=' && i - start - len - 1 < n) {
                memcpy(buf, rec + start + len + 1, i - start - len - 1);
                buf[i - start - len - 1] = '\0';
                close(fd);
                return buf;
            }
            start = i + 1;
        }
        memmove(rec, rec + start, got - start);
        got -= start;
        if (got == sizeof(rec))
            got = 0; /* one variable longer than the buffer: skip it */
    }
    close(fd);
    return NULL;
}

static int cache_dir(char *out, size_t n)
{
    char xb[2048], hb[2048], ob[8];
    const char *x = start_env("XDG_CACHE_HOME", xb, sizeof(xb)),
               *home = start_env("HOME", hb, sizeof(hb)), *off;
    int r;

    off = start_env("LEAKPROF_SYMCACHE", ob, sizeof(ob));
    if ((off && strcmp(off, "0") == 0) || getauxval(AT_SECURE))
        return -1;
    if (x && x[0] == '/')
        r = snprintf(out, n, "%s/leakprof", x);
    else if (home && home[0] == '/')
        r = snprintf(out, n, "%s/.cache/leakprof", home);
    else
        return -1;
    return r > 0 && (size_t)r < n ? 0 : -1;
}

/* The build-id of the object holding this code (libleakprof.so, or a
 * tool): a cache file is only valid for the symbolizer that wrote it. */
struct self_id {
    uintptr_t pc;
    char hex[130];
};

static int find_self_id(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct self_id *me = arg;
    bool mine = false;
    int i;

    (void)size;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

        if (ph->p_type == PT_LOAD && me->pc >= lo && me->pc < lo + ph->p_memsz)
            mine = true;
    }
    if (!mine)
        return 0;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
        const char *end = p + ph->p_memsz;

        if (ph->p_type != PT_NOTE)
            continue;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const unsigned char *desc =
                (const unsigned char *)p + sizeof(*nh) + ((nh->n_namesz + 3) & ~3u);

            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                memcmp(p + sizeof(*nh), "GNU", 4) == 0 && nh->n_descsz <= 64) {
                unsigned k;

                for (k = 0; k < nh->n_descsz; k++)
                    snprintf(me->hex + 2 * k, 3, "%02x", desc[k]);
                return 1;
            }
            p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return 1;
}

int lp_symcache_locate(const unsigned char *id, int idlen, char *path,
                       size_t pathlen, char *state, size_t statelen)
{
    char dir[4096], hex[256], dbg[600];
    struct stat st;
    int i, r;

    struct self_id me = { (uintptr_t)&lp_symcache_locate, "" };

    if (id == NULL || idlen < 4 || idlen > 64 || cache_dir(dir, sizeof(dir)))
        return -1;
    dl_iterate_phdr(find_self_id, &me);
    if (me.hex[0] == '\0')
        return -1;
    for (i = 0; i < idlen; i++)
        snprintf(hex + 2 * i, 3, "%02x", id[i]);
    /* One file per object and per libleakprof.so build: two builds used
     * side by side (a bench against an older one, two checkouts) would
     * otherwise throw each other's files away at every run, since a file
     * is only trusted by the build that wrote it. */
    r = snprintf(path, pathlen, "%s/%s.%.12s.sym", dir, hex, me.hex);
    if (r <= 0 || (size_t)r >= pathlen)
        return -1;
    /* Where the standard debuginfo search looks first. */
    snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
             hex + 2);
    if (stat(dbg, &st) == 0)
        r = snprintf(state, statelen, "by %s debug %lld %lld.%09ld", me.hex,
                     (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                     st.st_mtim.tv_nsec);
    else
        r = snprintf(state, statelen, "by %s debug none", me.hex);
    return r > 0 && (size_t)r < statelen ? 0 : -1;
}

static const char *field(char **p)
{
    char *s = *p, *t;

    if (s == NULL)
        return NULL;
    t = strchr(s, '\t');
    if (t) {
        *t = '\0';
        *p = t + 1;
    } else {
        *p = NULL;
    }
    return s;
}

static const char *unnull(const char *s)
{
    return s && strcmp(s, NULL_FIELD) == 0 ? NULL : s;
}

static bool parse_off(const char *s, uint64_t *off)
{
    char *end;

    if (s == NULL || *s == '\0')
        return false;
    errno = 0;
    *off = strtoull(s, &end, 16);
    return errno == 0 && *end == '\0';
}

/* Parse the whole text (NUL-terminated, modified) twice: first to check
 * it, then to deliver; nothing is delivered from a corrupt file. */
static int parse(char *text, const char *state, bool deliver,
                 void (*add)(void *, const struct lp_symcache_rec *),
                 void *ctx)
{
    char *line = text, *next;
    int nrec = 0, lineno = 0;
    struct lp_symcache_rec r;

    for (; line && *line; line = next) {
        char *p;
        const char *kind;

        next = strchr(line, '\n');
        if (next == NULL)
            return -1; /* truncated */
        *next++ = '\0';
        lineno++;
        if (lineno == 1) {
            if (strcmp(line, SYMCACHE_MAGIC) != 0)
                return -1;
            continue;
        }
        if (lineno == 2) {
            if (strcmp(line, state) != 0)
                return -1;
            continue;
        }
        p = line;
        kind = field(&p);
        memset(&r, 0, sizeof(r));
        if (kind && strcmp(kind, "F") == 0) {
            if (!parse_off(field(&p), &r.off) || p == NULL)
                return -1;
            r.fn = unnull(field(&p));
            if (p != NULL)
                return -1;
        } else if (kind && strcmp(kind, "R") == 0) {
            const char *ns;
            int k;

            if (!parse_off(field(&p), &r.off) || (ns = field(&p)) == NULL ||
                p != NULL)
                return -1;
            r.n = atoi(ns);
            if (r.n < 1 || r.n > LP_SYM_MAX_INLINE)
                return -1;
            for (k = 0; k < r.n; k++) {
                struct lp_sym_frame *f = &r.frames[k];
                const char *ln, *inl;

                line = next;
                if (line == NULL || (next = strchr(line, '\n')) == NULL)
                    return -1;
                *next++ = '\0';
                p = line;
                f->fn = unnull(field(&p));
                f->mangled = unnull(field(&p));
                f->file = unnull(field(&p));
                ln = field(&p);
                inl = field(&p);
                f->path = unnull(field(&p));
                f->comp_dir = unnull(field(&p));
                if (inl == NULL || p != NULL ||
                    (strcmp(inl, "0") != 0 && strcmp(inl, "1") != 0))
                    return -1;
                f->line = atoi(ln);
                f->inlined = inl[0] == '1';
            }
        } else {
            return -1;
        }
        nrec++;
        if (deliver)
            add(ctx, &r);
    }
    return lineno >= 2 ? nrec : -1;
}

int lp_symcache_read(const char *path, const char *state,
                     void (*add)(void *ctx, const struct lp_symcache_rec *r),
                     void *ctx)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), rc;
    struct stat st;
    char *text, *copy;
    size_t got = 0;

    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size > SYMCACHE_MAX_BYTES) {
        close(fd);
        return -1;
    }
    text = malloc((size_t)st.st_size + 1);
    copy = malloc((size_t)st.st_size + 1);
    while (text && copy && got < (size_t)st.st_size) {
        ssize_t n = read(fd, text + got, (size_t)st.st_size - got);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (!text || !copy || got != (size_t)st.st_size) {
        free(text);
        free(copy);
        return -1;
    }
    text[got] = '\0';
    memcpy(copy, text, got + 1);
    rc = parse(text, state, false, add, ctx);
    if (rc >= 0)
        rc = parse(copy, state, true, add, ctx);
    free(text);
    free(copy);
    return rc;
}

static const char *out_str(const char *s)
{
    return s ? s : NULL_FIELD;
}

static bool clean(const char *s)
{
    return s == NULL || (strpbrk(s, "\t\n") == NULL && strcmp(s, NULL_FIELD) != 0);
}

int lp_symcache_write(const char *path, const char *state,
                      const struct lp_symcache_rec *const *recs, size_t n)
{
    char tmp[4200], dir[4096];
    const char *slash = strrchr(path, '/');
    FILE *f;
    int fd, rc = 0;
    size_t i;

    if (slash == NULL || (size_t)(slash - path) >= sizeof(dir))
        return -EINVAL;
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = '\0';
    /* ~/.cache may not exist yet: create the two levels, private. */
    {
        char *up = strrchr(dir, '/');

        if (up && up != dir) {
            *up = '\0';
            (void)mkdir(dir, 0700);
            *up = '/';
        }
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return -errno;
    }
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >=
        sizeof(tmp))
        return -ENAMETOOLONG;
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        return -errno;
    f = fdopen(fd, "w");
    if (f == NULL) {
        rc = -errno;
        close(fd);
        unlink(tmp);
        return rc;
    }
    fprintf(f, "%s\n%s\n", SYMCACHE_MAGIC, state);
    for (i = 0; i < n; i++) {
        const struct lp_symcache_rec *r = recs[i];
        int k;
        bool ok = clean(r->fn);

        for (k = 0; k < r->n && ok; k++)
            ok = clean(r->frames[k].fn) && clean(r->frames[k].mangled) &&
                 clean(r->frames[k].file) && clean(r->frames[k].path) &&
                 clean(r->frames[k].comp_dir);
        if (!ok)
            continue; /* not representable: recomputed next time */
        if (r->n == 0) {
            fprintf(f, "F\t%llx\t%s\n", (unsigned long long)r->off, out_str(r->fn));
            continue;
        }
        fprintf(f, "R\t%llx\t%d\n", (unsigned long long)r->off, r->n);
        for (k = 0; k < r->n; k++)
            fprintf(f, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n",
                    out_str(r->frames[k].fn), out_str(r->frames[k].mangled),
                    out_str(r->frames[k].file), r->frames[k].line,
                    r->frames[k].inlined ? 1 : 0,
                    out_str(r->frames[k].path), out_str(r->frames[k].comp_dir));
    }
    if (fclose(f) != 0)
        rc = -errno;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -errno;
    if (rc != 0)
        unlink(tmp);
    return rc;
}
