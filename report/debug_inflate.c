/* SPDX-License-Identifier: MIT */
/*
 * debug_inflate.c - an uncompressed copy of a separate debug file (see
 * debug_inflate.h for why and what the copy holds).
 * Context: COLD. Memory: libc malloc.
 */
#include "report/debug_inflate.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "report/symcache.h"

/* zlib, found at first use: libdw depends on libz, so it is loaded by
 * the time a debug file is looked for. */
typedef int (*uncompress_fn)(unsigned char *dst, unsigned long *dstlen,
                             const unsigned char *src, unsigned long srclen);
static struct {
    uncompress_fn uncompress;
    int (*init2)(z_stream *, int, const char *, int); /* inflateInit2_ */
    int (*inflate)(z_stream *, int);
    int (*end)(z_stream *);
} z;

/*
 * A section's zlib stream inflated raw: its 2-byte header checked and
 * skipped, the deflate data inflated with no check of the adler32 at its
 * end, which zlib's uncompress() computes over every byte it writes (a
 * tenth of the inflate: 5% of a cold gcc -c). The length must still come
 * out as the section header says. Anything unexpected (a preset
 * dictionary, another method) goes to uncompress().
 */
static int raw_uncompress(unsigned char *dst, unsigned long *dstlen,
                          const unsigned char *src, unsigned long srclen)
{
    z_stream zs;
    int rc;

    if (srclen < 6 || srclen > UINT32_MAX || *dstlen > UINT32_MAX ||
        (src[0] & 0x0f) != Z_DEFLATED || (src[0] >> 4) > 7 ||
        ((unsigned)src[0] << 8 | src[1]) % 31 != 0 || (src[1] & 0x20))
        return z.uncompress(dst, dstlen, src, srclen);
    memset(&zs, 0, sizeof(zs));
    zs.next_in = (unsigned char *)src + 2;
    zs.avail_in = (uInt)(srclen - 2);
    zs.next_out = dst;
    zs.avail_out = (uInt)*dstlen;
    if (z.init2(&zs, -MAX_WBITS, ZLIB_VERSION, (int)sizeof(zs)) != Z_OK)
        return z.uncompress(dst, dstlen, src, srclen);
    rc = z.inflate(&zs, Z_FINISH);
    *dstlen = zs.total_out;
    z.end(&zs);
    return rc == Z_STREAM_END ? Z_OK : Z_DATA_ERROR;
}

static uncompress_fn find_uncompress(void)
{
    static bool tried;
    void *h;

    if (tried)
        return z.init2 ? raw_uncompress : z.uncompress;
    tried = true;
    h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (h == NULL)
        h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
        return NULL;
    z.uncompress = (uncompress_fn)dlsym(h, "uncompress");
    if (z.uncompress == NULL)
        return NULL;
    *(void **)&z.init2 = dlsym(h, "inflateInit2_");
    *(void **)&z.inflate = dlsym(h, "inflate");
    *(void **)&z.end = dlsym(h, "inflateEnd");
    if (!z.inflate || !z.end)
        z.init2 = NULL;
    return z.init2 ? raw_uncompress : z.uncompress;
}

int lp_debug_inflated_path(const unsigned char *id, int idlen, char *path,
                           size_t n)
{
    const char *dir = lp_symcache_where(NULL);
    char hex[130];
    int r;

    if (dir == NULL || id == NULL || idlen < 4 || idlen > 64)
        return -1;
    lp_symcache_hex(id, idlen, hex);
    r = snprintf(path, n, "%s/%s.dbg", dir, hex);
    return r > 0 && (size_t)r < n ? 0 : -1;
}

static bool write_zeros(int fd, size_t n)
{
    static const char zeros[64];

    while (n > 0) {
        size_t k = n < sizeof(zeros) ? n : sizeof(zeros);

        if (!lp_symcache_write_all(fd, zeros, k))
            return false;
        n -= k;
    }
    return true;
}

/* The original file in memory and what its section headers say. */
struct src {
    unsigned char *bytes;
    size_t size;
    Elf64_Ehdr eh;
    Elf64_Shdr *sh; /* eh.e_shnum entries */
};

/* Whether the file is a 64-bit little-endian ELF whose section headers
 * all lie inside it; which of its sections are zlib-compressed, and
 * how big they inflate (sum in *inflated). A section compressed another
 * way makes the whole file "leave alone" (false). */
static bool parse(struct src *s, uint64_t *inflated, unsigned *ncomp)
{
    size_t i;

    *inflated = 0;
    *ncomp = 0;
    if (s->size < sizeof(Elf64_Ehdr))
        return false;
    memcpy(&s->eh, s->bytes, sizeof(s->eh));
    if (memcmp(s->eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        s->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        s->eh.e_ident[EI_DATA] != ELFDATA2LSB ||
        s->eh.e_shentsize != sizeof(Elf64_Shdr) || s->eh.e_shnum == 0 ||
        s->eh.e_shstrndx == SHN_XINDEX ||
        s->eh.e_shoff > s->size ||
        (s->size - s->eh.e_shoff) / sizeof(Elf64_Shdr) < s->eh.e_shnum)
        return false;
    s->sh = malloc(sizeof(Elf64_Shdr) * s->eh.e_shnum);
    if (s->sh == NULL)
        return false;
    memcpy(s->sh, s->bytes + s->eh.e_shoff, sizeof(Elf64_Shdr) * s->eh.e_shnum);
    for (i = 0; i < s->eh.e_shnum; i++) {
        const Elf64_Shdr *h = &s->sh[i];
        Elf64_Chdr ch;

        if (!(h->sh_flags & SHF_COMPRESSED))
            continue;
        if (h->sh_type == SHT_NOBITS || h->sh_offset > s->size ||
            h->sh_size > s->size - h->sh_offset || h->sh_size < sizeof(ch))
            return false;
        memcpy(&ch, s->bytes + h->sh_offset, sizeof(ch));
        if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size > ((uint64_t)1 << 32) ||
            ch.ch_addralign > 4096)
            return false;
        *inflated += ch.ch_size;
        ++*ncomp;
    }
    return true;
}

static size_t align_up(size_t v, size_t a)
{
    return a > 1 ? (v + a - 1) / a * a : v;
}

/* The original's bytes, less the compressed sections' (nothing points at
 * them in the copy): those ranges are left as holes, so the copy takes
 * the inflated size on disk, not that plus the compressed one (libc's:
 * 10 MB, not 14). */
static bool write_original(const struct src *s, int out)
{
    size_t at = 0;

    while (at < s->size) {
        size_t next = s->size, skip_to = at, i;

        /* The first compressed section starting at or after at. */
        for (i = 0; i < s->eh.e_shnum; i++) {
            const Elf64_Shdr *h = &s->sh[i];

            if ((h->sh_flags & SHF_COMPRESSED) && h->sh_offset >= at &&
                h->sh_offset < next) {
                next = h->sh_offset;
                skip_to = h->sh_offset + h->sh_size;
            }
        }
        if (!lp_symcache_write_all(out, s->bytes + at, next - at))
            return false;
        if (skip_to > next && lseek(out, (off_t)(skip_to - next), SEEK_CUR) < 0)
            return false;
        at = skip_to > next ? skip_to : s->size;
    }
    return true;
}

/*
 * Sections the copy leaves empty instead of inflating: location lists
 * (where a variable lives at each pc) and macro tables. Nothing here
 * reads them - symbols, lines and inlined frames come from .debug_info,
 * _abbrev, _line, _str, _ranges and _aranges - and libdw takes an empty
 * section for an absent one. libc's .debug_loclists is a fifth of its
 * compressed DWARF (612 of 3,000 KB). A build that
 * needs them must name its copies differently (lp_debug_inflated_path).
 */
static bool left_empty(const struct src *s, const Elf64_Shdr *h)
{
    static const char *const names[] = {".debug_loclists", ".debug_loc",
                                        ".debug_macro", ".debug_macinfo"};
    const Elf64_Shdr *str;
    size_t i;

    if (s->eh.e_shstrndx >= s->eh.e_shnum)
        return false;
    str = &s->sh[s->eh.e_shstrndx];
    if (str->sh_flags & SHF_COMPRESSED || str->sh_offset > s->size ||
        str->sh_size > s->size - str->sh_offset || h->sh_name >= str->sh_size)
        return false;
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        size_t len = strlen(names[i]) + 1;

        if (str->sh_size - h->sh_name >= len &&
            memcmp(s->bytes + str->sh_offset + h->sh_name, names[i], len) == 0)
            return true;
    }
    return false;
}

/* Write the copy to out: the original bytes, then each compressed
 * section inflated (or empty: left_empty), then the new section
 * headers. */
static bool write_copy(struct src *s, int out, uncompress_fn inflate_fn)
{
    size_t end = s->size, i;
    Elf64_Ehdr eh = s->eh;

    if (!write_original(s, out))
        return false;
    for (i = 0; i < s->eh.e_shnum; i++) {
        Elf64_Shdr *h = &s->sh[i];
        Elf64_Chdr ch;
        unsigned char *buf;
        unsigned long len;
        size_t at;
        bool ok;

        if (!(h->sh_flags & SHF_COMPRESSED))
            continue;
        memcpy(&ch, s->bytes + h->sh_offset, sizeof(ch));
        if (left_empty(s, h)) {
            h->sh_flags &= ~(uint64_t)SHF_COMPRESSED;
            h->sh_offset = end;
            h->sh_size = 0;
            h->sh_addralign = 1;
            continue;
        }
        buf = malloc(ch.ch_size ? ch.ch_size : 1);
        if (buf == NULL)
            return false;
        len = (unsigned long)ch.ch_size;
        ok = inflate_fn(buf, &len, s->bytes + h->sh_offset + sizeof(ch),
                        (unsigned long)(h->sh_size - sizeof(ch))) == 0 &&
             len == ch.ch_size;
        at = align_up(end, ch.ch_addralign ? ch.ch_addralign : 1);
        ok = ok && write_zeros(out, at - end) &&
             lp_symcache_write_all(out, buf, len);
        free(buf);
        if (!ok)
            return false;
        h->sh_flags &= ~(uint64_t)SHF_COMPRESSED;
        h->sh_offset = at;
        h->sh_size = ch.ch_size;
        h->sh_addralign = ch.ch_addralign;
        end = at + len;
    }
    eh.e_shoff = align_up(end, 8);
    return write_zeros(out, eh.e_shoff - end) &&
           lp_symcache_write_all(out, s->sh,
                                 sizeof(Elf64_Shdr) * s->eh.e_shnum) &&
           pwrite(out, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh);
}

/*
 * One process makes a copy, the others wait for it: path.lock, created
 * exclusively, says a copy is being made. Two compilers of a make -j2
 * exit together and each inflated libc's debug file (two of the six
 * copies a cold make of five files started), the same 60 ms of CPU
 * twice on a machine the build keeps busy. A waiter polls for the copy
 * every 2 ms, and makes it itself when the lock goes without one (its
 * maker failed); a lock older than STALE_S is a crashed maker's, taken
 * away; after WAIT_MAX_MS it gives up, and libdw inflates in memory as
 * without a cache.
 */
#define WAIT_STEP_MS 2
#define WAIT_MAX_MS 10000
#define STALE_S 120

enum claim {
    CLAIM_MINE,          /* locked: make it */
    CLAIM_UNLOCKED,      /* no lock could be made: make it all the same */
    CLAIM_THEIRS,        /* *copy: made by another process */
    CLAIM_THEIRS_LOCKED, /* the same, found once locked: unlock */
    CLAIM_GIVE_UP
};

static enum claim claim(const char *path, const char *lock, int *copy)
{
    unsigned waited = 0, retries = 0;

    for (;;) {
        int l = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     0644);
        struct stat st;

        if (l >= 0) {
            close(l);
            /* The maker before us may have just finished. */
            *copy = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
            return *copy >= 0 ? CLAIM_THEIRS_LOCKED : CLAIM_MINE;
        }
        if (errno != EEXIST)
            return CLAIM_UNLOCKED; /* no lock to be had: make it as before */
        if ((*copy = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) >= 0)
            return CLAIM_THEIRS;
        if (stat(lock, &st) != 0 ||
            (time(NULL) - st.st_mtime > STALE_S && unlink(lock) == 0)) {
            /* Released or taken away: the copy, or our turn. */
            if ((*copy = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) >= 0)
                return CLAIM_THEIRS;
            if (++retries > 3)
                return CLAIM_GIVE_UP;
            continue;
        }
        if (waited >= WAIT_MAX_MS)
            return CLAIM_GIVE_UP;
        nanosleep(&(struct timespec){0, WAIT_STEP_MS * 1000000L}, NULL);
        waited += WAIT_STEP_MS;
    }
}

int lp_debug_inflate(int fd, const char *path, size_t min)
{
    struct src s = {0};
    struct stat st;
    uint64_t inflated;
    unsigned ncomp;
    uncompress_fn inflate_fn;
    char tmp[4200], *lock = NULL; /* the heap: the report may run on a
                                     * small thread stack */
    enum claim turn = CLAIM_GIVE_UP;
    int out = -1, ret = -1;

    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (uint64_t)st.st_size > ((uint64_t)1 << 32))
        return -1;
    s.size = (size_t)st.st_size;
    s.bytes = malloc(s.size);
    if (s.bytes == NULL || !lp_symcache_read_at(fd, s.bytes, s.size, 0) ||
        !parse(&s, &inflated, &ncomp) || ncomp == 0 ||
        inflated < min || (inflate_fn = find_uncompress()) == NULL)
        goto out;
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >=
            sizeof(tmp) ||
        asprintf(&lock, "%s.lock", path) < 0) {
        lock = NULL;
        goto out;
    }
    (void)lp_symcache_make_dirs(path);
    turn = claim(path, lock, &ret);
    if (turn != CLAIM_MINE && turn != CLAIM_UNLOCKED)
        goto out;
    out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out < 0)
        goto out;
    if (!write_copy(&s, out, inflate_fn)) {
        close(out);
        unlink(tmp);
        goto out;
    }
    if (close(out) != 0) {
        unlink(tmp);
        goto out;
    }
    if (rename(tmp, path) != 0) {
        unlink(tmp);
        goto out;
    }
    ret = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
out:
    if (turn == CLAIM_MINE || turn == CLAIM_THEIRS_LOCKED)
        unlink(lock);
    free(lock);
    free(s.sh);
    free(s.bytes);
    return ret;
}
