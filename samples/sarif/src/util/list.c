/* SPDX-License-Identifier: MIT */
/*
 * list.c - two different leaks in one function, for the SARIF test
 * (tests/cigate/sarif_paths.sh): code scanning must show two alerts, at
 * the two allocation lines below, under src/util/list.c.
 */
#include "util/list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t list_build(size_t n)
{
    struct node *head = NULL, *tail = NULL;
    size_t i, len = 0;

    for (i = 0; i < n; i++) {
        struct node *nd = malloc(sizeof(*nd)); /* LEAK_NODE */

        nd->next = NULL;
        nd->name = NULL;
        if (tail)
            tail->next = nd;
        else
            head = nd;
        tail = nd;
    }
    for (struct node *p = head; p; p = p->next)
        len++;
    /* A scratch buffer, never freed either. */
    char *scratch = malloc(64 + n); /* LEAK_SCRATCH */
    snprintf(scratch, 64 + n, "%zu nodes", len);
    head = tail = NULL;
    return strlen(scratch) > 0 ? len : 0;
}
