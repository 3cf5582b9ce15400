/* exit_ways.c - leaks one block, then leaves the way argv[1] says:
 * "return" (from main), "exit" (exit(0)), "_exit" (atexit handler that
 * calls _exit(0) after normal shutdown), "fail" (returns 3),
 * "quick_exit" (quick_exit(0): its at_quick_exit handler writes a line
 * with write(2)), "pending_exit" (prints without a newline into a
 * buffered stdout, then _exit(0): natively nothing comes out). */
#include <stdio.h>
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

static void quick_handler(void)
{
    (void)!write(1, "quick handler\n", 14);
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
    if (!strcmp(how, "quick_exit")) {
        at_quick_exit(quick_handler);
        quick_exit(0);
    }
    if (!strcmp(how, "pending_exit")) {
        setvbuf(stdout, NULL, _IOFBF, 4096);
        printf("pending");
        _exit(0);
    }
    return 0;
}
