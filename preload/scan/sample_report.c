/* SPDX-License-Identifier: MIT */
/*
 * sample_report.c - the leak report's figures as estimates in sampled
 * mode (sample_report.h).
 * Context: COLD, guard held.
 */
#include "preload/scan/sample_report.h"

#include "report/line_writer.h"

#include "preload/scan/loss_group.h"

#include <inttypes.h>
#include <string.h>

#include "preload/hot/sample.h"

uint64_t lp_sample_record_bytes(const struct lp_scan_block *b)
{
    return lp_sample_est_bytes(b->size);
}

uint64_t lp_sample_record_blocks(const struct lp_scan_block *b)
{
    return lp_sample_est_blocks(b->size);
}

void lp_sample_scale_records(const struct lp_scan *sc,
                             struct lp_loss_record *recs, size_t n,
                             const uint32_t *rec_of)
{
    size_t i;

    for (i = 0; i < n; i++)
        recs[i].bytes = recs[i].blocks = recs[i].indirect_bytes =
            recs[i].indirect_blocks = 0;
    for (i = 0; i < sc->nblocks; i++) {
        const struct lp_scan_block *b = &sc->blocks[i];
        struct lp_loss_record *r;
        uint32_t l = lp_scan_leader(sc, i); /* NO_LEADER unless INDIRECT */
        uint64_t bytes = lp_sample_est_bytes(b->size);
        uint64_t blocks = lp_sample_est_blocks(b->size);

        if (rec_of[i] == LP_LOSS_NO_REC) /* left out (live_since=last) */
            continue;
        r = &recs[rec_of[i]];
        r->bytes += bytes;
        r->blocks += blocks;
        /* An indirect block counts in its clique leader's record too. */
        if (l != LP_SCAN_NO_LEADER &&
            sc->blocks[l].kind == LP_KIND_DEFINITE &&
            rec_of[l] != LP_LOSS_NO_REC) {
            struct lp_loss_record *lr = &recs[rec_of[l]];

            lr->indirect_bytes += bytes;
            lr->indirect_blocks += blocks;
        }
    }
}

void lp_sample_round_records(struct lp_loss_record *recs, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        recs[i].blocks = lp_sample_blocks_out(recs[i].blocks);
        recs[i].indirect_blocks = lp_sample_blocks_out(recs[i].indirect_blocks);
    }
}

void lp_sample_scan_totals(const struct lp_scan *sc, struct lp_leak_set *set)
{
    uint64_t heur_blocks[LP_HEUR_COUNT] = { 0 }, blocks = 0;
    size_t i;
    int h;

    set->in_use_bytes = 0;
    memset(set->heur_bytes, 0, sizeof(set->heur_bytes));
    for (i = 0; i < sc->nblocks; i++) {
        const struct lp_scan_block *b = &sc->blocks[i];
        uint64_t w = lp_sample_est_blocks(b->size);

        set->in_use_bytes += lp_sample_est_bytes(b->size);
        blocks += w;
        if (b->heur != LP_HEUR_NONE) {
            set->heur_bytes[b->heur] += lp_sample_est_bytes(b->size);
            heur_blocks[b->heur] += w;
        }
    }
    set->in_use_blocks = lp_sample_blocks_out(blocks);
    for (h = 0; h < LP_HEUR_COUNT; h++)
        set->heur_blocks[h] = lp_sample_blocks_out(heur_blocks[h]);
}

void lp_sample_print_stats(FILE *f, int pid)
{
    lp_line_prefix(f, pid, '-', false);
    fprintf(f, "sampled (sample_bytes=%" PRIu64 "): %" PRIu64
            " frees of untracked blocks looked in the live-block table\n",
            lp_config.sample_bytes,
            lp_load_relaxed(&lp_sample_table_misses));
}
