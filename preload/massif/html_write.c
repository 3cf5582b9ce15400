/* SPDX-License-Identifier: MIT */
/*
 * html_write.c - html=PATH from the massif file just written
 * (html_write.h). Reading the file back costs a parse of what we wrote a
 * moment ago, and keeps one page generator (report/html.c) for the
 * library and leakprint alike. The per-site figures (calls, bytes
 * allocated, temporary, peak, leaks with ages: preload/massif/sites.h) come from
 * the stack table; without massif= the page has those alone.
 * Context: COLD, guard held.
 */
#include "preload/life/outfile_kept.h"
#include "preload/massif/html_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "preload/life/config.h"
#include "preload/life/diag.h"
#include "preload/scan/leakcheck.h"
#include "preload/massif/sites.h"
#include "preload/life/root_dir.h"
#include "preload/scan/report_log.h"
#include "report/html.h"
#include "report/massif.h"

/* pattern with %p expanded and ".seq" appended when seq > 0. */
struct page {
    const struct lp_massif *m;
    const char *name;
    const struct lp_sites *sites;
    char *err;
    size_t errlen;
};

static int fill_page(FILE *f, void *arg)
{
    const struct page *pg = arg;

    return lp_html_report_sites(f, pg->m, pg->name, -1, pg->sites, pg->err,
                                pg->errlen);
}

/* The command line, for a page without a massif file. */
static char *command_text(void)
{
    char buf[4096];
    int fd = lp_proc_self_open("cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : 0, i;

    if (fd >= 0)
        close(fd);
    for (i = 0; i < n - 1; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    buf[n > 0 ? n : 0] = '\0';
    return strdup(buf);
}

void lp_html_write_file(unsigned seq)
{
    char path[LP_CONFIG_PATH_MAX + 32], src[LP_CONFIG_PATH_MAX + 32];
    char err[512];
    struct lp_massif *m = NULL;
    struct lp_sites sites;
    bool have_sites;
    int rc = 0;

    if (!lp_config.html[0])
        return;
    if (lp_outfile_path(LP_OUT_HTML, seq, path, sizeof(path)) ||
        (lp_config.massif[0] &&
         lp_outfile_path(LP_OUT_MASSIF, seq, src, sizeof(src)))) {
        lp_report_log_cannot_write(lp_config.html, strerror(ENAMETOOLONG));
        return;
    }
    err[0] = '\0';
    if (lp_config.massif[0])
        rc = lp_massif_read_path(src, LP_MASSIF_READ_STRICT, &m, err,
                                 sizeof(err));
    have_sites = lp_sites_collect(&sites, lp_leakcheck_sym_get()) == 0;
    lp_leakcheck_sym_put();
    if (have_sites && !m)
        sites.command = command_text();
    if (rc == 0) {
        struct page pg = { m, lp_config.massif[0] ? src : path,
                           have_sites ? &sites : NULL, err, sizeof(err) };

        rc = lp_outfile_write(LP_OUT_HTML, seq, path, fill_page, &pg);
    }
    if (rc != 0)
        lp_report_log_cannot_write(path,
                                   err[0] ? err : strerror(rc < 0 ? -rc : rc));
    lp_sites_release(&sites);
    lp_massif_free(m);
}
