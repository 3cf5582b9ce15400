/* SPDX-License-Identifier: MIT */
/* deep_inline.c - a block allocated 20 inlined calls deep: every inlined
 * frame is reported, and main at the line of its call, as Memcheck
 * reports them (16 were kept, and main took f15's line). */
#include <stdio.h>
#include <stdlib.h>

static void *keep;
#define INL static inline __attribute__((always_inline)) void
INL f0(void) { keep = malloc(100000); }
INL f1(void) { f0(); }
INL f2(void) { f1(); }
INL f3(void) { f2(); }
INL f4(void) { f3(); }
INL f5(void) { f4(); }
INL f6(void) { f5(); }
INL f7(void) { f6(); }
INL f8(void) { f7(); }
INL f9(void) { f8(); }
INL f10(void) { f9(); }
INL f11(void) { f10(); }
INL f12(void) { f11(); }
INL f13(void) { f12(); }
INL f14(void) { f13(); }
INL f15(void) { f14(); }
INL f16(void) { f15(); }
INL f17(void) { f16(); }
INL f18(void) { f17(); }
INL f19(void) { f18(); }

int main(void)
{
    f19();
    keep = NULL; /* lost */
    puts("done");
    return 0;
}
