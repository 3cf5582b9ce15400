/* SPDX-License-Identifier: MIT */
/* dtorlib.c - a library that allocates in its constructor and frees in its
 * destructor: nothing of it is in use at exit. */
#include <stdlib.h>
static void *keep;
__attribute__((constructor)) static void init(void){ keep = malloc(1000); }
__attribute__((destructor)) static void fini(void){ free(keep); }
