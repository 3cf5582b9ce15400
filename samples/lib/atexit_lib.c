/* SPDX-License-Identifier: MIT */
/*
 * atexit_lib.c - a library that registers 80 exit handlers before main
 * (as a C++ library with 80 static objects does): glibc keeps the first 32
 * in a static block and callocs blocks of 32 for the rest, which exit
 * frees only after the handlers registered later (_dl_fini's) have run.
 */
#include <stdlib.h>

static int handled;

static void on_exit_handler(void) { handled++; }

__attribute__((constructor)) static void register_many(void)
{
    int i;

    for (i = 0; i < 80; i++)
        atexit(on_exit_handler);
}

int atexit_lib_count(void) { return 80 - handled; }
