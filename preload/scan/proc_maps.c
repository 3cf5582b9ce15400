/* SPDX-License-Identifier: MIT */
/*
 * proc_maps.c - /proc/self/maps for the leak scan (proc_maps.h).
 * Context: COLD (the leak scan, other threads stopped: no malloc).
 */
#include "preload/scan/proc_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "preload/life/root_dir.h"

int lp_proc_maps_read(struct lp_scan_buf *text, size_t *len)
{
    size_t want = 1 << 20;

    for (;;) {
        int fd;
        size_t got = 0;

        if (lp_scan_buf_reserve(text, want) != 0)
            return -ENOMEM;
        fd = lp_proc_self_open("maps", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return -errno;
        for (;;) {
            ssize_t n = read(fd, (char *)text->p + got, text->len - 1 - got);

            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += (size_t)n;
            if (got == text->len - 1)
                break;
        }
        close(fd);
        if (got < text->len - 1) {
            ((char *)text->p)[got] = '\0';
            *len = got;
            return 0;
        }
        want = text->len * 4; /* did not fit: read it all again */
    }
}

static uintptr_t parse_hex(char **s)
{
    uintptr_t v = 0;

    for (;; (*s)++) {
        char ch = **s;

        if (ch >= '0' && ch <= '9')
            v = v * 16 + (uintptr_t)(ch - '0');
        else if (ch >= 'a' && ch <= 'f')
            v = v * 16 + (uintptr_t)(ch - 'a' + 10);
        else
            return v;
    }
}

size_t lp_proc_maps_parse(char *text, struct lp_scan_map *maps,
                          struct lp_pmap *info, size_t cap)
{
    size_t n = 0;
    char *s = text;

    while (*s && n < cap) {
        char *eol = strchr(s, '\n');
        struct lp_scan_map *m = &maps[n];
        unsigned long inode = 0;

        if (eol)
            *eol = '\0';
        m->lo = parse_hex(&s);
        s++; /* '-' */
        m->hi = parse_hex(&s);
        s++;
        m->flags = (s[0] == 'r' ? LP_SCAN_MAP_R : 0) |
                   (s[1] == 'w' ? LP_SCAN_MAP_W : 0) |
                   (s[2] == 'x' ? LP_SCAN_MAP_X : 0) |
                   (s[3] == 's' ? LP_SCAN_MAP_SHARED : 0);
        s += 5;
        info[n].offset = parse_hex(&s);
        while (*s == ' ')
            s++;
        while (*s && *s != ' ') /* dev */
            s++;
        while (*s == ' ')
            s++;
        while (*s >= '0' && *s <= '9')
            inode = inode * 10 + (unsigned long)(*s++ - '0');
        while (*s == ' ')
            s++;
        info[n].path = s;
        if (inode != 0 && *s == '/')
            m->flags |= LP_SCAN_MAP_FILE;
        n++;
        if (!eol)
            break;
        s = eol + 1;
    }
    return n;
}

long lp_proc_maps_index(const struct lp_scan_map *maps, size_t n, uintptr_t a)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (a < maps[mid].lo)
            hi = mid;
        else if (a >= maps[mid].hi)
            lo = mid + 1;
        else
            return (long)mid;
    }
    return -1;
}

