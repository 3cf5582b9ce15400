/* ctorlib.c - a shared library whose constructor allocates before the
 * program's main (and possibly before libleakprof.so's own constructor):
 * one block kept in a global (still reachable), one lost. */
#include <stdlib.h>

void *ctorlib_kept;

__attribute__((noinline)) static void *ctorlib_alloc(size_t n)
{
    return malloc(n);
}

__attribute__((constructor)) static void ctorlib_init(void)
{
    ctorlib_kept = ctorlib_alloc(48);
    (void)ctorlib_alloc(24); /* lost before main starts */
}

int ctorlib_answer(void)
{
    return 42;
}
