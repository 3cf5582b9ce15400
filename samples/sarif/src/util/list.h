/* SPDX-License-Identifier: MIT */
#ifndef SARIF_SAMPLE_LIST_H
#define SARIF_SAMPLE_LIST_H
/*
 * list.h - a tiny list module for the SARIF sample (see ../../README).
 */
#include <stddef.h>

struct node {
    struct node *next;
    char *name;
};

/* Builds a list of n nodes and returns its length; leaks on purpose. */
size_t list_build(size_t n);

#endif
