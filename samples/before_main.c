/* before_main.c - allocations before main: in a linked library's
 * constructor (samples/lib/ctorlib.c) and in this program's own. */
#include <stdio.h>
#include <stdlib.h>

int ctorlib_answer(void);
static void *early;

__attribute__((constructor)) static void early_init(void)
{
    early = malloc(8); /* lost: overwritten below */
    early = malloc(16);
}

int main(void)
{
    printf("%d %p\n", ctorlib_answer(), early != NULL ? (void *)1 : NULL);
    return 0;
}
