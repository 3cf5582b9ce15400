/* exit_ways.c - leaks one block, then leaves the way argv[1] says:
 * "return" (from main), "exit" (exit(0)), "_exit" (atexit handler that
 * calls _exit(0) after normal shutdown), "fail" (returns 3). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *keep;

__attribute__((noinline)) static void leak_one(void)
{
    keep = malloc(100);
    keep = NULL;
}

static void quit_hard(void)
{
    _exit(0);
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "return";

    leak_one();
    if (!strcmp(how, "exit"))
        exit(0);
    if (!strcmp(how, "_exit"))
        atexit(quit_hard);
    if (!strcmp(how, "fail"))
        return 3;
    return 0;
}
