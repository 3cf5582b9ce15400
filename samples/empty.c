/* empty.c - does nothing but print: must report no leaks. */
#include <stdio.h>

int main(void)
{
    printf("hello\n");
    return 0;
}
