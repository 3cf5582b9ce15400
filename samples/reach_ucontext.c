/* SPDX-License-Identifier: MIT */
/*
 * reach_ucontext.c - a coroutine on a heap stack (makecontext /
 * swapcontext), suspended when main returns. The coroutine holds one
 * block in a local on its stack; its stack is a heap block held by the
 * global ucontext (uc_stack.ss_sp), so the local is found by scanning that
 * block: still reachable. A second coroutine's stack was freed after it
 * finished: what it held is definitely lost.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define STACK (64 * 1024)

static ucontext_t main_ctx, co_ctx, gone_ctx;

static void co(void)
{
    void *volatile mine = malloc(40);

    swapcontext(&co_ctx, &main_ctx); /* never resumed */
    free(mine);
}

static void gone(void)
{
    void *volatile mine = malloc(24);

    (void)mine;
}

static void run(ucontext_t *c, void (*fn)(void))
{
    getcontext(c);
    c->uc_stack.ss_sp = malloc(STACK);
    c->uc_stack.ss_size = STACK;
    c->uc_link = &main_ctx;
    makecontext(c, fn, 0);
    swapcontext(&main_ctx, c);
}

int main(void)
{
    run(&gone_ctx, gone);
    free(gone_ctx.uc_stack.ss_sp);
    run(&co_ctx, co);
    printf("ucontext: suspended\n");
    return 0;
}
