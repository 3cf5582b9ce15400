/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_MASSIF_IMPL_H
#define LP_REPORT_MASSIF_IMPL_H
/*
 * massif_impl.h - private layout of struct lp_massif, shared by massif.c
 * (model, builder, writer) and massif_read.c (reader). Not for other users.
 * Context: COLD.
 *
 * All strings and nodes live either in the file buffer the reader loaded
 * (buf, whose line ends were overwritten with NULs) or in a bump arena of
 * chunks; lp_massif_free() releases both, so no node is freed one by one.
 */
#include "report/massif.h"

#include <stdbool.h>
#include <stddef.h>

struct lp_massif_node {
    uint64_t bytes;
    const char *bytes_text; /* the digits as the file wrote them, or NULL */
    size_t bytes_len;
    const char *details; /* ms_print's DETAILS; label = details minus one ' ' */
    size_t nchildren;
    struct lp_massif_node *first;
    struct lp_massif_node *last;
    struct lp_massif_node *next;
    bool attached; /* has a parent or belongs to a snapshot */
};

struct lp_massif_snap {
    uint64_t num;
    int64_t time;
    uint64_t heap, extra, stacks;
    const char *num_text, *time_text, *heap_text, *extra_text, *stacks_text;
    enum lp_massif_kind kind;
    struct lp_massif_node *tree;
};

struct lp_massif_chunk {
    struct lp_massif_chunk *next;
    size_t used, cap;
    _Alignas(16) char data[];
};

struct lp_massif {
    char *buf; /* the file as read, or NULL for a built profile */
    struct lp_massif_chunk *chunks;
    const char *desc;     /* NULL if no desc line */
    const char *desc_raw; /* ms_print's concatenated DESC */
    const char *cmd;
    const char *time_unit;
    struct lp_massif_snap *snaps;
    size_t n, cap;
    long peak;
};

/* heap + extra + stacks, saturating instead of wrapping. */
static inline uint64_t lp_massif_sat_total(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t t;

    if (__builtin_add_overflow(a, b, &t) || __builtin_add_overflow(t, c, &t))
        return UINT64_MAX;
    return t;
}

/* Bump allocation from m's arena; 16-byte aligned; NULL on ENOMEM. */
void *lp_massif_alloc(struct lp_massif *m, size_t size);
/* Copy len bytes of s plus a NUL into the arena. */
char *lp_massif_strndup(struct lp_massif *m, const char *s, size_t len);
/* An empty object, or NULL. */
struct lp_massif *lp_massif_alloc_empty(void);
/* Make room for one more snapshot; 0 or -ENOMEM. */
int lp_massif_reserve(struct lp_massif *m);

#endif /* LP_REPORT_MASSIF_IMPL_H */
