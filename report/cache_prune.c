/* SPDX-License-Identifier: MIT */
/*
 * cache_prune.c - keeping the cache directory bounded (see cache_prune.h
 * for the rules and why).
 * Context: COLD. Memory: libc malloc.
 */
#include "report/cache_prune.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DAY ((time_t)86400)
#define STAMP "prune.stamp"

enum kind { NOT_OURS, CACHE_FILE, TEMP_FILE };

struct entry {
    char *name;
    uint64_t size;
    time_t used;
};

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);

    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static bool all_hex(const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* What a directory entry is to us; for a cache file, *build points at
 * the 12 hex digits of the build that wrote it (NULL: any build's).
 * Names: OBJID.BUILD.sym, OBJID.BUILD.rules, BUILDID.dbg, each followed
 * by .tmp.PID while being written; BUILDID.dbg.lock while a process
 * makes that copy (debug_inflate.c: a temporary file too). */
static enum kind classify(const char *name, const char **build)
{
    size_t n = strlen(name), i;
    const char *tmp = strstr(name, ".tmp.");
    bool temp = false;

    if (tmp != NULL) {
        for (i = 5; tmp[i]; i++)
            if (!isdigit((unsigned char)tmp[i]))
                return NOT_OURS;
        if (i == 5)
            return NOT_OURS;
        n = (size_t)(tmp - name);
        temp = true;
    } else if (ends_with(name, n, ".dbg.lock")) {
        n -= 5;
        temp = true;
    }
    if (ends_with(name, n, ".dbg")) {
        /* BUILDID.dbg (debug_inflate.h): of no libleakprof.so build. */
        if (n < 4 + 8 || !all_hex(name, n - 4))
            return NOT_OURS;
        *build = NULL;
        return temp ? TEMP_FILE : CACHE_FILE;
    }
    if (ends_with(name, n, ".sym"))
        n -= 4;
    else if (ends_with(name, n, ".rules"))
        n -= 6;
    else
        return NOT_OURS;
    if (n < 14 || name[n - 13] != '.' || !all_hex(name + n - 12, 12))
        return NOT_OURS;
    *build = name + n - 12;
    return temp ? TEMP_FILE : CACHE_FILE;
}

static int by_use(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;

    if (x->used != y->used)
        return x->used < y->used ? -1 : 1;
    return strcmp(x->name, y->name);
}

static bool remove_at(int dfd, const char *name)
{
    return unlinkat(dfd, name, 0) == 0 || errno == ENOENT;
}

int lp_cache_prune(const char *dir, const char *self12, time_t now,
                   uint64_t max_bytes, struct lp_cache_prune_stats *st)
{
    struct lp_cache_prune_stats s = {0};
    struct entry *ents = NULL;
    size_t n = 0, cap = 0, i;
    uint64_t total = 0;
    struct dirent *d;
    DIR *dp;
    int dfd;

    dp = opendir(dir);
    if (dp == NULL)
        return -errno;
    dfd = dirfd(dp);
    while ((d = readdir(dp)) != NULL) {
        const char *build = NULL;
        enum kind k = classify(d->d_name, &build);
        struct stat sb;
        time_t used;

        if (k == NOT_OURS ||
            fstatat(dfd, d->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(sb.st_mode))
            continue;
        used = sb.st_mtime > sb.st_atime ? sb.st_mtime : sb.st_atime;
        if ((k == TEMP_FILE && now - sb.st_mtime >= DAY) ||
            (k == CACHE_FILE && build != NULL && memcmp(build, self12, 12) != 0 &&
             now - used >= LP_CACHE_OTHER_DAYS * DAY)) {
            if (remove_at(dfd, d->d_name)) {
                s.removed++;
                s.removed_bytes += (uint64_t)sb.st_size;
            }
            continue;
        }
        if (k == TEMP_FILE)
            continue; /* a writer at work: neither counted nor removed */
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 256;
            struct entry *ne = realloc(ents, nc * sizeof(*ents));

            if (ne == NULL)
                break;
            ents = ne;
            cap = nc;
        }
        ents[n].name = strdup(d->d_name);
        if (ents[n].name == NULL)
            break;
        ents[n].size = (uint64_t)sb.st_size;
        ents[n].used = used;
        total += ents[n].size;
        n++;
    }
    if (total > max_bytes) {
        qsort(ents, n, sizeof(*ents), by_use);
        for (i = 0; i < n && total > max_bytes / 4 * 3; i++)
            if (remove_at(dfd, ents[i].name)) {
                total -= ents[i].size;
                s.removed++;
                s.removed_bytes += ents[i].size;
                ents[i].size = UINT64_MAX; /* gone */
            }
    }
    for (i = 0; i < n; i++) {
        if (ents[i].size != UINT64_MAX) {
            s.kept++;
            s.kept_bytes += ents[i].size;
        }
        free(ents[i].name);
    }
    free(ents);
    closedir(dp);
    if (st)
        *st = s;
    return 0;
}

void lp_cache_prune_maybe(const char *dir, const char *self12)
{
    static bool done;
    char path[PATH_MAX];
    struct stat sb;
    time_t now = time(NULL);
    int fd;

    if (done || dir == NULL || self12 == NULL || strlen(self12) < 12)
        return;
    done = true;
    if ((size_t)snprintf(path, sizeof(path), "%s/" STAMP, dir) >= sizeof(path))
        return;
    if (stat(path, &sb) == 0 && sb.st_mtime <= now && now - sb.st_mtime < DAY)
        return; /* pruned less than a day ago */
    fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    (void)futimens(fd, NULL);
    close(fd);
    (void)lp_cache_prune(dir, self12, now, LP_CACHE_MAX_BYTES, NULL);
}
