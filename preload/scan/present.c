/* SPDX-License-Identifier: MIT */
/*
 * present.c - the runs of pages of a range that are present or swapped
 * (see present.h for why the leak scan asks).
 * Context: COLD (the leak scan: open, ioctl, pread, close; no allocation).
 */
#include "preload/scan/present.h"

#include "preload/lp.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "preload/life/root_dir.h"
#include "preload/life/seccomp_state.h"

int lp_present_mode;

#define PAGE ((uintptr_t)4096)

/* The PAGEMAP_SCAN interface (linux/fs.h of Linux 6.7; Debian 12's
 * headers predate it), under names of our own. */
struct lp_page_region {
    uint64_t start, end, categories;
};
struct lp_pm_scan_arg {
    uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
    uint64_t category_inverted, category_mask, category_anyof_mask;
    uint64_t return_mask;
};
#define LP_PAGEMAP_SCAN _IOWR('f', 16, struct lp_pm_scan_arg)
#define LP_PAGE_IS_PRESENT (1u << 3)
#define LP_PAGE_IS_SWAPPED (1u << 4)

/* /proc/self/pagemap, one word a page. */
#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)

/* Runs handed out merged: adjacent pages of different kinds (present,
 * swapped) or from two answers make one run. */
struct runs {
    uintptr_t lo, hi; /* the caller's range: runs are clipped to it */
    uintptr_t a, b;   /* the run being built; a == b: none */
    void (*fn)(uintptr_t, uintptr_t, void *);
    void *arg;
};

static void emit(struct runs *r)
{
    if (r->b > r->a)
        r->fn(r->a, r->b, r->arg);
    r->a = r->b = 0;
}

static void add(struct runs *r, uintptr_t a, uintptr_t b)
{
    if (a < r->lo)
        a = r->lo;
    if (b > r->hi)
        b = r->hi;
    if (a >= b)
        return;
    if (r->b > r->a && r->b == a) {
        r->b = b;
        return;
    }
    emit(r);
    r->a = a;
    r->b = b;
}

/* [at, end) by the ioctl; returns where it could answer up to. */
static uintptr_t by_ioctl(int fd, uintptr_t at, uintptr_t end, struct runs *r)
{
    struct lp_page_region v[128];
    struct lp_pm_scan_arg q;

    memset(&q, 0, sizeof(q));
    q.size = sizeof(q);
    q.vec = (uint64_t)(uintptr_t)v;
    q.vec_len = LP_ARRAY_SIZE(v);
    q.category_anyof_mask = LP_PAGE_IS_PRESENT | LP_PAGE_IS_SWAPPED;
    q.return_mask = LP_PAGE_IS_PRESENT | LP_PAGE_IS_SWAPPED;
    while (at < end) {
        long n, i;

        q.start = at;
        q.end = end;
        q.walk_end = 0;
        n = ioctl(fd, LP_PAGEMAP_SCAN, &q);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || n > (long)LP_ARRAY_SIZE(v))
            return at;
        for (i = 0; i < n; i++)
            add(r, (uintptr_t)v[i].start, (uintptr_t)v[i].end);
        if (q.walk_end <= at || q.walk_end > end)
            return at; /* no progress, or an answer we do not understand */
        at = (uintptr_t)q.walk_end;
    }
    return end;
}

/* [at, end) by reading the pagemap; returns where it could answer up to. */
static uintptr_t by_read(int fd, uintptr_t at, uintptr_t end, struct runs *r)
{
    uint64_t e[512];

    while (at < end) {
        size_t k = (end - at) / PAGE, i;
        ssize_t got;

        if (k > LP_ARRAY_SIZE(e))
            k = LP_ARRAY_SIZE(e);
        got = pread(fd, e, k * sizeof(e[0]), (off_t)(at / PAGE * sizeof(e[0])));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || (size_t)got % sizeof(e[0]) != 0)
            return at;
        k = (size_t)got / sizeof(e[0]);
        for (i = 0; i < k; i++)
            if (e[i] & (PM_PRESENT | PM_SWAPPED))
                add(r, at + i * PAGE, at + (i + 1) * PAGE);
        at += k * PAGE;
    }
    return end;
}

/* /proc/self/pagemap while a scan asks (one scan at a time: the
 * scanning thread's, the others parked), -1 when closed; pm_tried: the
 * scan has asked once (open, and the seccomp check: /proc/self/status,
 * tens of microseconds a read), so a failure is not asked again. */
static int pm_fd = -1;
static bool pm_tried;

void lp_present_done(void)
{
    if (pm_fd >= 0)
        close(pm_fd);
    pm_fd = -1;
    pm_tried = false;
}

static int pagemap_fd(void)
{
    if (!pm_tried) {
        pm_tried = true;
        /* A filter may kill the process on a call it does not list. */
        if (lp_seccomp_mode() == 0)
            pm_fd = lp_proc_self_open("pagemap", O_RDONLY | O_CLOEXEC);
    }
    return pm_fd;
}

bool lp_present_runs(uintptr_t lo, uintptr_t hi,
                     void (*fn)(uintptr_t a, uintptr_t b, void *arg),
                     void *arg, uintptr_t *undecided)
{
    uintptr_t at = lo & ~(PAGE - 1), end = (hi + PAGE - 1) & ~(PAGE - 1);
    struct runs r = {lo, hi, 0, 0, fn, arg};

    *undecided = lo;
    if (lp_present_mode == 2 || lo >= hi || pagemap_fd() < 0)
        return false;
    if (lp_present_mode == 0)
        at = by_ioctl(pm_fd, at, end, &r);
    if (at < end) /* before Linux 6.7, or the ioctl gave up */
        at = by_read(pm_fd, at, end, &r);
    emit(&r);
    *undecided = at < lo ? lo : at > hi ? hi : at;
    return at >= end;
}
