/* SPDX-License-Identifier: MIT */
/*
 * reach_stale_rbp.c - a lost block whose address was in rbp when a
 * function without a frame pointer called malloc (code built without
 * frame pointers keeps data in rbp). An unwinder that remembers the
 * registers of its walks (leakprof's memos) then holds a copy of that
 * address the program no longer has: if that memory were a root, the
 * block would be "still reachable". It is definitely lost, as Memcheck
 * says; so is the block reached only from it.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* void *alloc_with_rbp(void *keep, size_t n): malloc(n) with rbp = keep,
 * rbp saved and restored as any callee-saved register, with CFI. */
void *alloc_with_rbp(void *keep, size_t n);
__asm__(".text\n"
        ".globl alloc_with_rbp\n"
        ".type alloc_with_rbp, @function\n"
        "alloc_with_rbp:\n"
        ".cfi_startproc\n"
        "push %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "mov %rdi, %rbp\n"
        "mov %rsi, %rdi\n"
        "call malloc@PLT\n"
        "pop %rbp\n"
        ".cfi_def_cfa_offset 8\n"
        ".cfi_restore %rbp\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size alloc_with_rbp, .-alloc_with_rbp\n");

struct node {
    struct node *next;
    char name[56];
};

__attribute__((noinline)) static void lose(void)
{
    struct node *lost = malloc(sizeof(*lost));
    void *tmp;

    lost->next = malloc(sizeof(*lost->next)); /* indirectly lost */
    lost->next->next = NULL;
    strcpy(lost->name, "lost");
    tmp = alloc_with_rbp(lost, 24);
    free(tmp);
}

/* Overwrite the dead frames lose() left below main's. */
__attribute__((noinline)) static void scrub(void)
{
    volatile char pad[16384];

    memset((char *)pad, 0, sizeof(pad));
}

int main(void)
{
    lose();
    scrub();
    puts("done");
    return 0;
}
