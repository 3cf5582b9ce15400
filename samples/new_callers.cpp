// SPDX-License-Identifier: MIT
/*
 * new_callers.cpp - a program with its own operator new[] that calls
 * malloc (as groff's does), and two blocks from it, each from its own
 * function. Memcheck's --num-callers=2 keeps "operator new[]" and the
 * caller: two loss records. Our stacks have one frame more there (our
 * malloc hook, then the program's operator new, shown as one frame),
 * which the grouping must count as Memcheck does, or both blocks fall in
 * one record (tests/e2e/leak_kinds.sh).
 */
#include <cstdio>
#include <cstdlib>
#include <new>

void *operator new[](std::size_t n)
{
    void *p = std::malloc(n ? n : 1);

    if (p == nullptr)
        throw std::bad_alloc();
    return p;
}

void operator delete[](void *p) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }

static int *volatile sink;

__attribute__((noinline)) static void from_one() { sink = new int[4]; }
__attribute__((noinline)) static void from_two() { sink = new int[6]; }

int main()
{
    from_one();
    from_two();
    sink = nullptr;
    std::puts("two blocks lost");
    return 0;
}
