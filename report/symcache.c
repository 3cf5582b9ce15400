/* SPDX-License-Identifier: MIT */
/*
 * symcache.c - the symbolizer's per-object cache files (symcache.h).
 *
 * Format 3, binary, host byte order (a file is only ever read by the
 * build of libleakprof.so that wrote it, on the same machine), every
 * field a 32-bit word except the 64-bit offsets:
 *   magic      "leakprof-symcache 3\n" (20 bytes)
 *   u32 x 5    state length, record count, record words, string bytes, 0
 *              (the index starts 8-aligned)
 *   state      the state line (symcache.h), padded to 8 bytes
 *   index      count x { u64 off; u32 at; u32 n }, sorted by (off, n == 0)
 *   records    at (in words from the records' start): n frames of 7 words
 *              (fn, mangled, file, path, comp_dir as string offsets, line,
 *              inlined), or for n == 0 one word, the function name
 *   strings    NUL-terminated; an offset of ~0 is a NULL string
 * A reader takes the file into memory in one read and answers by binary
 * search: nothing is parsed, so a process that needs three names from the
 * C library's cache (tens of thousands of records after a few programs)
 * pays the read, not a parse and a hash insert per record (the text
 * format cost 0.8 ms an empty program, a sixth of what we added to it).
 * The header's sizes must add up to the file's, the index must be sorted
 * and every record must lie inside the records; string offsets are
 * checked as records are read (the string area ends with a NUL, so an
 * offset inside it is a terminated string). Anything else and the file
 * is ignored whole.
 * Context: COLD.
 */
#include "report/symcache.h"

#include "preload/hot/elf_note.h"

#include <dlfcn.h>
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

/* Bumped when a record's meaning changes (4: aliases also by length;
 * 5: up to 64 inlined frames an address, where 16 cut the outer ones). */
#define SYMCACHE_MAGIC "leakprof-symcache 5\n"
#define MAGIC_LEN 20
#define SYMCACHE_MAX_BYTES (64u << 20)
#define NO_STR 0xffffffffu
#define FRAME_WORDS 7

_Static_assert(sizeof(SYMCACHE_MAGIC) - 1 == MAGIC_LEN, "magic length");
_Static_assert((MAGIC_LEN + 5 * 4) % 8 == 0, "the index is 8-aligned");

struct index_ent {
    uint64_t off;
    uint32_t at, n;
};

struct lp_symcache {
    char *buf;
    size_t nrec;
    const struct index_ent *index;
    const uint32_t *words;
    size_t nwords;
    const char *strs;
    size_t nstrs;
};

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

int lp_symcache_build_id(const struct dl_phdr_info *info, unsigned char *out)
{
    return lp_elf_build_id(info->dlpi_phdr, info->dlpi_phnum, info->dlpi_addr, out);
}

/* The build-id of the object holding this code (libleakprof.so, or a
 * tool), as hex: a cache file is only valid for the symbolizer that
 * wrote it. Through _dl_find_object, not dl_iterate_phdr: the preload
 * asks at start, inside the first malloc, and must take no loader lock. */
void lp_symcache_hex(const unsigned char *id, int n, char *out)
{
    int i;

    for (i = 0; i < n; i++) {
        out[2 * i] = "0123456789abcdef"[id[i] >> 4];
        out[2 * i + 1] = "0123456789abcdef"[id[i] & 15];
    }
    out[2 * (n > 0 ? n : 0)] = '\0';
}

static bool find_self_id(char *hex)
{
    struct dl_find_object fo;
    unsigned char id[64];
    int n;

    if (_dl_find_object((void *)(uintptr_t)&find_self_id, &fo) != 0 ||
        fo.dlfo_link_map == NULL)
        return false;
    n = lp_elf_build_id_at((uintptr_t)fo.dlfo_map_start,
                           (uintptr_t)fo.dlfo_link_map->l_addr, id);
    lp_symcache_hex(id, n, hex);
    return n > 0;
}

/* The directory and our own build-id, looked up once a process (each
 * lookup of an unset variable reads /proc/self/environ). The state line
 * keeps the whole id; file names take 12 digits. */
static char dir_once[4096], self_hex[130], self_hex12[13];
static int once_state; /* 0: not yet, 1: usable, -1: no cache */

const char *lp_symcache_where(const char **self_id)
{
    if (once_state == 0) {
        once_state = -1;
        if (cache_dir(dir_once, sizeof(dir_once)) == 0 && find_self_id(self_hex)) {
            memcpy(self_hex12, self_hex, 12);
            once_state = 1;
        }
    }
    if (once_state < 0)
        return NULL;
    if (self_id)
        *self_id = self_hex12;
    return dir_once;
}

int lp_symcache_locate(const unsigned char *id, int idlen, char *path,
                       size_t pathlen, char *state, size_t statelen)
{
    char hex[256], dbg[600];
    const char *dir = lp_symcache_where(NULL);
    struct stat st;
    int r;

    if (id == NULL || idlen < 4 || idlen > 64 || dir == NULL)
        return -1;
    lp_symcache_hex(id, idlen, hex);
    /* One file per object and per libleakprof.so build: two builds used
     * side by side (a bench against an older one, two checkouts) would
     * otherwise throw each other's files away at every run, since a file
     * is only trusted by the build that wrote it. */
    r = snprintf(path, pathlen, "%s/%s.%.12s.sym", dir, hex, self_hex);
    if (r <= 0 || (size_t)r >= pathlen)
        return -1;
    /* Where the standard debuginfo search looks first. */
    snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
             hex + 2);
    if (stat(dbg, &st) == 0)
        r = snprintf(state, statelen, "by %s debug %lld %lld.%09ld", self_hex,
                     (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                     st.st_mtim.tv_nsec);
    else
        r = snprintf(state, statelen, "by %s debug none", self_hex);
    return r > 0 && (size_t)r < statelen ? 0 : -1;
}


static size_t pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

bool lp_symcache_read_at(int fd, void *buf, size_t size, off_t off)
{
    size_t got = 0;

    while (got < size) {
        ssize_t n = pread(fd, (char *)buf + got, size - got, off + (off_t)got);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        got += (size_t)n;
    }
    return true;
}

bool lp_symcache_write_all(int fd, const void *buf, size_t size)
{
    size_t put = 0;

    while (put < size) {
        ssize_t n = write(fd, (const char *)buf + put, size - put);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        put += (size_t)n;
    }
    return true;
}

/* The header's sizes against the file's, and the index's order and
 * spans; false for anything that does not add up. */
static bool layout(struct lp_symcache *c, size_t size, const char *state)
{
    uint32_t h[5];
    size_t at = MAGIC_LEN + sizeof(h), i;

    if (size < at || memcmp(c->buf, SYMCACHE_MAGIC, MAGIC_LEN) != 0)
        return false;
    memcpy(h, c->buf + MAGIC_LEN, sizeof(h));
    if (h[0] != strlen(state) || size - at < pad8(h[0]) ||
        memcmp(c->buf + at, state, h[0]) != 0)
        return false;
    at += pad8(h[0]);
    c->nrec = h[1];
    c->nwords = h[2];
    c->nstrs = h[3];
    if ((size - at) / sizeof(struct index_ent) < c->nrec)
        return false;
    c->index = (const struct index_ent *)(c->buf + at);
    at += c->nrec * sizeof(struct index_ent);
    if ((size - at) / 4 < c->nwords)
        return false;
    c->words = (const uint32_t *)(c->buf + at);
    at += c->nwords * 4;
    if (size - at != c->nstrs || (c->nstrs && c->buf[size - 1] != '\0'))
        return false;
    c->strs = c->buf + at;
    for (i = 0; i < c->nrec; i++) {
        const struct index_ent *e = &c->index[i];
        size_t words = e->n ? (size_t)e->n * FRAME_WORDS : 1;

        if (e->n > LP_SYM_MAX_INLINE || e->at > c->nwords ||
            c->nwords - e->at < words)
            return false;
        if (i > 0 && (e[-1].off > e->off ||
                      (e[-1].off == e->off && (e[-1].n == 0) >= (e->n == 0))))
            return false; /* out of order, or the same kind twice */
    }
    return true;
}

struct lp_symcache *lp_symcache_open(const char *path, const char *state)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct lp_symcache *c;
    struct stat st;

    if (fd < 0)
        return NULL;
    c = calloc(1, sizeof(*c));
    if (c == NULL || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size > SYMCACHE_MAX_BYTES ||
        /* malloc's 16-byte alignment is the index's 8 */
        (c->buf = malloc((size_t)st.st_size + 1)) == NULL ||
        !lp_symcache_read_at(fd, c->buf, (size_t)st.st_size, 0) ||
        !layout(c, (size_t)st.st_size, state)) {
        close(fd);
        lp_symcache_close(c);
        return NULL;
    }
    close(fd);
    return c;
}

void lp_symcache_close(struct lp_symcache *c)
{
    if (c == NULL)
        return;
    free(c->buf);
    free(c);
}

size_t lp_symcache_count(const struct lp_symcache *c)
{
    return c != NULL ? c->nrec : 0;
}

/* String word w, or false when it points outside the strings. */
static bool str_at(const struct lp_symcache *c, uint32_t w, const char **out)
{
    if (w == NO_STR) {
        *out = NULL;
        return true;
    }
    if (w >= c->nstrs)
        return false;
    *out = c->strs + w;
    return true;
}

bool lp_symcache_get(const struct lp_symcache *c, size_t i,
                     struct lp_symcache_rec *r)
{
    const struct index_ent *e;
    const uint32_t *w;
    int k;

    if (c == NULL || i >= c->nrec)
        return false;
    e = &c->index[i];
    w = c->words + e->at;
    r->off = e->off;
    r->n = (int)e->n;
    r->fn = NULL;
    if (r->n == 0)
        return str_at(c, w[0], &r->fn);
    for (k = 0; k < r->n; k++, w += FRAME_WORDS) {
        struct lp_sym_frame *f = &r->frames[k];

        memset(f, 0, sizeof(*f));
        if (!str_at(c, w[0], &f->fn) || !str_at(c, w[1], &f->mangled) ||
            !str_at(c, w[2], &f->file) || !str_at(c, w[3], &f->path) ||
            !str_at(c, w[4], &f->comp_dir) || w[6] > 1)
            return false;
        f->line = (int)w[5];
        f->inlined = w[6] == 1;
    }
    return true;
}

bool lp_symcache_peek(const struct lp_symcache *c, size_t i, uint64_t *off,
                      int *n)
{
    if (c == NULL || i >= c->nrec)
        return false;
    *off = c->index[i].off;
    *n = (int)c->index[i].n;
    return true;
}

size_t lp_symcache_frames_bound(const struct lp_symcache *c)
{
    return c ? c->nwords / FRAME_WORDS : 0;
}

bool lp_symcache_find(const struct lp_symcache *c, uint64_t off, bool frames,
                      struct lp_symcache_rec *r)
{
    size_t lo = 0, hi = lp_symcache_count(c);

    while (lo < hi) { /* the first entry at or above off */
        size_t mid = lo + (hi - lo) / 2;

        if (c->index[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* At most two entries an offset: frames first, then the name alone. */
    for (; lo < lp_symcache_count(c) && c->index[lo].off == off; lo++)
        if (!frames || c->index[lo].n > 0)
            return lp_symcache_get(c, lo, r);
    return false;
}

/* --- writing -------------------------------------------------------- */

struct strtab {
    uint32_t *slot; /* offset + 1 of each string; 0: empty */
    size_t cap, used;
    char *bytes;
    size_t len, room;
    bool failed;
};

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The offset of s in the table, adding it (NO_STR for NULL). */
static uint32_t str_put(struct strtab *t, const char *s)
{
    size_t i, n, mask;

    if (s == NULL || t->failed)
        return NO_STR;
    if ((t->used + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256, j;
        uint32_t *slot = calloc(cap, sizeof(*slot));

        if (slot == NULL) {
            t->failed = true;
            return NO_STR;
        }
        for (j = 0; j < t->cap; j++)
            if (t->slot[j]) {
                for (i = str_hash(t->bytes + t->slot[j] - 1) & (cap - 1); slot[i];
                     i = (i + 1) & (cap - 1))
                    ;
                slot[i] = t->slot[j];
            }
        free(t->slot);
        t->slot = slot;
        t->cap = cap;
    }
    mask = t->cap - 1;
    for (i = str_hash(s) & mask; t->slot[i]; i = (i + 1) & mask)
        if (strcmp(t->bytes + t->slot[i] - 1, s) == 0)
            return t->slot[i] - 1;
    n = strlen(s) + 1;
    if (t->len + n > t->room) {
        size_t room = t->room ? t->room * 2 : 4096;
        char *b;

        while (room < t->len + n)
            room *= 2;
        if (room > SYMCACHE_MAX_BYTES || (b = realloc(t->bytes, room)) == NULL) {
            t->failed = true;
            return NO_STR;
        }
        t->bytes = b;
        t->room = room;
    }
    memcpy(t->bytes + t->len, s, n);
    t->slot[i] = (uint32_t)t->len + 1;
    t->len += n;
    t->used++;
    return (uint32_t)(t->len - n);
}

static int rec_order(const void *a, const void *b)
{
    const struct lp_symcache_rec *x = *(const struct lp_symcache_rec *const *)a,
                                 *y = *(const struct lp_symcache_rec *const *)b;

    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return (x->n == 0) - (y->n == 0); /* frames first */
}

static bool put_all(FILE *f, const void *p, size_t size, size_t n)
{
    return n == 0 || fwrite(p, size, n, f) == n;
}

int lp_symcache_make_dirs(const char *path)
{
    char dir[4096], *slash, *up;

    if (strlen(path) >= sizeof(dir)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(dir, path);
    if ((slash = strrchr(dir, '/')) == NULL || slash == dir)
        return 0;
    *slash = '\0';
    if ((up = strrchr(dir, '/')) != NULL && up != dir) {
        *up = '\0';
        (void)mkdir(dir, 0700);
        *up = '/';
    }
    return mkdir(dir, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

int lp_symcache_write(const char *path, const char *state,
                      const struct lp_symcache_rec *const *recs_in, size_t n)
{
    char tmp[4200];
    const char *slash = strrchr(path, '/');
    const struct lp_symcache_rec **recs = NULL;
    struct index_ent *index = NULL;
    uint32_t *words = NULL, h[5];
    struct strtab st = {0};
    size_t i, k, nw = 0, nrec = 0, slen = strlen(state);
    static const char zeros[8];
    FILE *f;
    int fd, rc = 0;

    if (slash == NULL)
        return -EINVAL;
    /* Sorted, one record an (offset, kind). */
    recs = malloc(sizeof(*recs) * (n + 1));
    index = malloc(sizeof(*index) * (n + 1));
    for (i = 0; i < n; i++)
        if (recs_in[i]->n >= 0 && recs_in[i]->n <= LP_SYM_MAX_INLINE)
            nw += recs_in[i]->n ? (size_t)recs_in[i]->n * FRAME_WORDS : 1;
    words = malloc(sizeof(*words) * (nw + 1));
    nw = 0;
    if (recs == NULL || index == NULL || words == NULL) {
        rc = -ENOMEM;
        goto out;
    }
    memcpy(recs, recs_in, sizeof(*recs) * n);
    qsort(recs, n, sizeof(*recs), rec_order);
    for (i = 0; i < n; i++) {
        const struct lp_symcache_rec *r = recs[i];

        if (r->n < 0 || r->n > LP_SYM_MAX_INLINE ||
            (nrec > 0 && index[nrec - 1].off == r->off &&
             (index[nrec - 1].n == 0) == (r->n == 0)))
            continue;
        index[nrec].off = r->off;
        index[nrec].at = (uint32_t)nw;
        index[nrec].n = (uint32_t)r->n;
        nrec++;
        if (r->n == 0) {
            words[nw++] = str_put(&st, r->fn);
            continue;
        }
        for (k = 0; k < (size_t)r->n; k++) {
            const struct lp_sym_frame *fr = &r->frames[k];

            words[nw++] = str_put(&st, fr->fn);
            words[nw++] = str_put(&st, fr->mangled);
            words[nw++] = str_put(&st, fr->file);
            words[nw++] = str_put(&st, fr->path);
            words[nw++] = str_put(&st, fr->comp_dir);
            words[nw++] = (uint32_t)fr->line;
            words[nw++] = fr->inlined ? 1 : 0;
        }
    }
    if (st.failed) {
        rc = -ENOMEM;
        goto out;
    }
    if (lp_symcache_make_dirs(path) != 0) {
        rc = -errno;
        goto out;
    }
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >=
        sizeof(tmp)) {
        rc = -ENAMETOOLONG;
        goto out;
    }
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
        rc = -errno;
        goto out;
    }
    f = fdopen(fd, "w");
    if (f == NULL) {
        rc = -errno;
        close(fd);
        unlink(tmp);
        goto out;
    }
    h[0] = (uint32_t)slen;
    h[1] = (uint32_t)nrec;
    h[2] = (uint32_t)nw;
    h[3] = (uint32_t)st.len;
    h[4] = 0;
    if (!put_all(f, SYMCACHE_MAGIC, 1, MAGIC_LEN) || !put_all(f, h, sizeof(h), 1) ||
        !put_all(f, state, 1, slen) || !put_all(f, zeros, 1, pad8(slen) - slen) ||
        !put_all(f, index, sizeof(*index), nrec) ||
        !put_all(f, words, sizeof(*words), nw) || !put_all(f, st.bytes, 1, st.len))
        rc = -EIO;
    if (fclose(f) != 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -errno;
    if (rc != 0)
        unlink(tmp);
out:
    free(recs);
    free(index);
    free(words);
    free(st.slot);
    free(st.bytes);
    return rc;
}
