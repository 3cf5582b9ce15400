/* SPDX-License-Identifier: MIT */
/* reach_tls.c - a dlopen'd library with a __thread variable (dynamic TLS:
 * each thread's block is malloc'd by glibc on first use), for
 * samples/reach_tls.c. */
#include <stdlib.h>

static __thread void *held;
static __thread char pad[200]; /* a TLS block of a visible size */

void reach_tls_set(size_t n);

void reach_tls_set(size_t n)
{
    held = malloc(n);
    pad[0] = 1;
}
