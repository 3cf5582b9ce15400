/* SPDX-License-Identifier: MIT */
/*
 * main.c - the SARIF sample's program: builds a list (which leaks twice
 * in list_build) and prints its length.
 */
#include <stdio.h>

#include "util/list.h"

int main(void)
{
    printf("list of %zu\n", list_build(3));
    return 0;
}
