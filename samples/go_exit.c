/* SPDX-License-Identifier: MIT */
/*
 * go_exit.c - a C program that ends as a Go program does: Go's build-id
 * note in its headers, and an exit through a copy of Go's runtime.exit
 * (an exit_group system call of its own, argument on the stack, ABI0),
 * so neither atexit handlers nor destructors run (golang/go#20713).
 *   go_exit N          leak 42 bytes, print a line, exit N from main
 *   go_exit thread N   the same, from a second thread while main keeps
 *                      allocating (Go exits from whichever thread)
 * Natively: the line and status N, nothing more.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* As cmd/link writes it: owner "Go\0\0" (name size 4), type 4. */
__asm__(".section .note.go.buildid,\"a\",@note\n"
        ".p2align 2\n"
        ".long 4, 8, 4\n"
        ".asciz \"Go\"\n"
        ".byte 0\n"
        ".ascii \"sample!!\"\n"
        ".text\n");

/* src/runtime/sys_linux_amd64.s, runtime.exit. */
__asm__(".text\n"
        ".p2align 5\n"
        ".type go_runtime_exit,@function\n"
        "go_runtime_exit:\n"
        "  movl 8(%rsp), %edi\n"
        "  movl $231, %eax\n"
        "  syscall\n"
        "  ret\n"
        ".size go_runtime_exit, .-go_runtime_exit\n");

/* Call it as Go does: the status at 8(%rsp) on entry. */
static void go_exit(int status)
{
    __asm__ volatile("sub $16, %%rsp\n"
                     "movl %0, (%%rsp)\n"
                     "call go_runtime_exit\n"
                     :
                     : "r"(status)
                     : "memory");
    __builtin_unreachable();
}

static void *volatile sink;
static int status;

/* Leave p in a dead frame deep below main's: only the live stack is a
 * root, under Memcheck as here, so the block stays definitely lost. */
static __attribute__((noinline)) void bury(void *p)
{
    void *volatile deep[8192];

    deep[0] = p;
    sink = (void *)&deep[0];
    sink = NULL;
}

static void *exiter(void *arg)
{
    (void)arg;
    go_exit(status);
    return NULL;
}

int main(int argc, char **argv)
{
    bool thread = argc > 2 && strcmp(argv[1], "thread") == 0;
    pthread_t t;

    status = argc > 1 ? atoi(argv[argc - 1]) : 0;
    bury(malloc(42));
    printf("exiting %d%s\n", status, thread ? " from a thread" : "");
    fflush(stdout); /* Go flushes no C stream */
    if (!thread)
        go_exit(status);
    if (pthread_create(&t, NULL, exiter, NULL) != 0)
        return 99;
    for (;;) /* busy until the process ends */
        free(malloc(64));
}
