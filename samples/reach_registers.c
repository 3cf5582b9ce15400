/* SPDX-License-Identifier: MIT */
/*
 * reach_registers.c - a block whose only pointer is in a register of a
 * thread that is still running when main returns. The thread allocates
 * and spins in one piece of assembly, keeping malloc's result in r12 and
 * nowhere in memory; Memcheck scans every live thread's registers and
 * calls the block still reachable. The thread's DTV is possibly lost.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int holding;

static void *spin(void *arg)
{
    (void)arg;
#if defined(__x86_64__)
    /* rsp is 16-byte aligned before the call: the frame of spin() has
     * pushed rbp only, so realign by hand. */
    __asm__ volatile("mov %%rsp, %%rbx\n\t"
                     "and $-16, %%rsp\n\t"
                     "mov $72, %%edi\n\t"
                     "call malloc@PLT\n\t"
                     "mov %%rax, %%r12\n\t"
                     "xor %%eax, %%eax\n\t"
                     "movl $1, %0\n\t"
                     "1: pause\n\t"
                     "jmp 1b\n\t"
                     : "=m"(holding)
                     :
                     : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9",
                       "r10", "r11", "r12", "memory");
#else
    static void *volatile p;

    p = malloc(72);
    holding = 1;
    for (;;)
        ;
#endif
    return NULL;
}

int main(void)
{
    pthread_t t;

    pthread_create(&t, NULL, spin, NULL);
    while (!holding)
        sched_yield();
    printf("registers: holding\n");
    return 0;
}
