/* SPDX-License-Identifier: MIT */
/*
 * html_write.c - html=PATH from the massif file just written
 * (html_write.h). Reading the file back costs a parse of what we wrote a
 * moment ago, and keeps one page generator (report/html.c) for the
 * library and leakprint alike.
 * Context: COLD, guard held.
 */
#include "preload/outfile.h"
#include "preload/html_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "preload/config.h"
#include "preload/diag.h"
#include "report/html.h"
#include "report/massif.h"

/* pattern with %p expanded and ".seq" appended when seq > 0. */
static int expand(const char *pattern, unsigned seq, char *out, size_t n)
{
    size_t len;

    if (lp_config_expand(pattern, getpid(), out, n - 16))
        return -ENAMETOOLONG;
    len = strlen(out);
    if (seq)
        snprintf(out + len, n - len, ".%u", seq);
    return 0;
}

static int write_page(const char *path, const struct lp_massif *m,
                      const char *name, char *err, size_t errlen)
{
    char tmp[LP_CONFIG_PATH_MAX + 64];
    FILE *f = lp_outfile_open(path, tmp, sizeof(tmp));

    if (!f)
        return -errno;
    return lp_outfile_commit(f, tmp, path, lp_html_report(f, m, name, -1, err, errlen));
}

void lp_html_write_file(unsigned seq)
{
    char path[LP_CONFIG_PATH_MAX + 32], src[LP_CONFIG_PATH_MAX + 32];
    char err[512];
    struct lp_massif *m = NULL;
    int rc;

    if (!lp_config.html[0])
        return;
    if (!lp_config.massif[0]) {
        lp_diag("html= needs massif= (the heap history); no page written");
        return;
    }
    if (expand(lp_config.html, seq, path, sizeof(path)) ||
        expand(lp_config.massif, seq, src, sizeof(src))) {
        lp_diag("cannot write '%s': %s", lp_config.html,
                strerror(ENAMETOOLONG));
        return;
    }
    err[0] = '\0';
    rc = lp_massif_read_path(src, LP_MASSIF_READ_STRICT, &m, err,
                             sizeof(err));
    if (rc == 0)
        rc = write_page(path, m, src, err, sizeof(err));
    if (rc != 0)
        lp_diag("cannot write '%s': %s", path,
                err[0] ? err : strerror(rc < 0 ? -rc : rc));
    lp_massif_free(m);
}
