/* SPDX-License-Identifier: MIT */
/*
 * bigplug.c - a plugin whose code spans about 1.5 MB: sixteen functions
 * that allocate, 96 KiB of code apart (a block of zeros in .text between
 * each two), so that whatever is mapped where it was after its dlclose
 * covers some of them (unload_app.c).
 */
#include <stdlib.h>
#include <string.h>

#define PAD(n) \
    __attribute__((used, section(".text.bigplug_pad" #n))) \
    static const char pad##n[96 << 10];
#define MAKE(n) \
    __attribute__((noinline, section(".text.bigplug_make" #n))) \
    char *bigplug_make##n(int len) \
    { \
        char *p = malloc((size_t)len); \
        if (p) \
            memset(p, n, (size_t)len); \
        return p; \
    } \
    PAD(n)

MAKE(0) MAKE(1) MAKE(2) MAKE(3) MAKE(4) MAKE(5) MAKE(6) MAKE(7)
MAKE(8) MAKE(9) MAKE(10) MAKE(11) MAKE(12) MAKE(13) MAKE(14) MAKE(15)
