/* SPDX-License-Identifier: MIT */
/*
 * reach_env_title.c - the environment moved out of the way of a process
 * title, as nginx's ngx_init_setproctitle (and PostgreSQL's and libbsd's
 * setproctitle) do: the strings that follow argv's end to end are copied
 * into one block and environ's entries pointed at the copies, stopping
 * at the first string that does not follow the one before. The block's
 * only pointers are environ's entries, in the array on the main stack:
 * still reachable, under Memcheck as natively - unless the preloaded
 * tool broke the run of strings (an entry taken out or pointed at a
 * string of its own), when the copy stops early and the block is lost.
 * Run it with LD_PRELOAD between other variables (env -i A=.. LD_PRELOAD=..
 * B=..): its string is then in the middle of the run.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 4096 /* fixed, so the report's bytes do not depend on the env */

extern char **environ;

int main(int argc, char **argv)
{
    char *last = argv[0], *p;
    size_t used = 0;
    int i;

    for (i = 0; i < argc; i++)
        if (last == argv[i])
            last = argv[i] + strlen(argv[i]) + 1;
    p = malloc(BLOCK);
    if (p == NULL)
        return 1;
    for (i = 0; environ[i] != NULL; i++) {
        size_t n = strlen(environ[i]) + 1;

        if (last != environ[i] || used + n > BLOCK)
            continue;
        last = environ[i] + n;
        memcpy(p + used, environ[i], n);
        environ[i] = p + used;
        used += n;
    }
    /* p itself is not kept: environ's entries are the block's pointers. */
    p = NULL;
    puts("title ready");
    return 0;
}
