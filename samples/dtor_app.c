/* SPDX-License-Identifier: MIT */
/*
 * dtor_app.c - linked with libdtorlib.so, which allocates in its
 * constructor and frees in its destructor. A report written before the
 * libraries' destructors ran would show its block as in use at exit;
 * Memcheck shows 0 bytes in 0 blocks.
 */
#include <stdio.h>

int main(void)
{
    puts("hi");
    return 0;
}
