/* SPDX-License-Identifier: MIT */
/*
 * fuzz_massif.c - libFuzzer target for the massif.out reader and renderers.
 * Build and run: make fuzz && make fuzz-run FUZZ_TIME=1800
 *
 * Every input is read in both modes. What reads leniently is rendered as
 * ms_print would (to /dev/null) and as folded stacks and a diff against
 * itself. What reads strictly must survive a write/read round trip and
 * write the same bytes again: the writer and the strict reader agree.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/massif.h"
#include "tools/diff.h"
#include "report/flame.h"
#include "tools/msprint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *write_to_string(const struct lp_massif *m, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);

    if (f == NULL)
        abort();
    if (lp_massif_write(m, f) != 0)
        abort();
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    static char *args[] = { "f.ms" };
    struct lp_msprint_opts o = { .threshold = 1.0,
                                 .width = 72, .height = 20, .argc = 1,
                                 .argv = args };
    struct lp_massif *m, *m2;
    char err[256];

    if (devnull == NULL && (devnull = fopen("/dev/null", "w")) == NULL)
        abort();
    if (lp_massif_read_mem((const char *)data, size, "f.ms",
                           LP_MASSIF_READ_MS_PRINT, &m, err,
                           sizeof(err)) == 0) {
        o.threshold = size % 3 == 0 ? 0 : 1.0;
        o.width = 4 + (int)(size % 50);
        o.height = 4 + (int)(size % 13);
        lp_msprint(devnull, m, &o, err, sizeof(err));
        lp_flame_folded(devnull, m, "f.ms", -1, err, sizeof(err));
        lp_flame_svg(devnull, m, "f.ms", -1, err, sizeof(err));
        lp_diff_print(devnull, m, "f.ms", 0, m, "f.ms", -1, err, sizeof(err));
        lp_massif_free(m);
    }
    if (lp_massif_read_mem((const char *)data, size, "f.ms",
                           LP_MASSIF_READ_STRICT, &m, err, sizeof(err)) == 0) {
        size_t l1, l2;
        char *t1 = write_to_string(m, &l1), *t2;

        if (lp_massif_read_mem(t1, l1, "w.ms", LP_MASSIF_READ_STRICT, &m2,
                               err, sizeof(err)) != 0)
            abort(); /* the writer wrote something the reader rejects */
        t2 = write_to_string(m2, &l2);
        if (l1 != l2 || memcmp(t1, t2, l1) != 0)
            abort();
        free(t1);
        free(t2);
        lp_massif_free(m2);
        lp_massif_free(m);
    }
    return 0;
}
