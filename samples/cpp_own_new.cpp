// SPDX-License-Identifier: MIT
//
// cpp_own_new.cpp - a program with its own operator new: built with
// -static-libstdc++ (Makefile), as gcc's cc1plus is, it calls the copy of
// operator new linked into it, and that calls malloc. Memcheck replaces
// an operator new wherever it is defined and shows the allocation as
// "operator new(unsigned long)"; leakprof shows the same frames. (Not
// new[]: the static copy reaches new by a tail call and leaves no frame
// of its own, so leakprof shows it as new.)
// Compare: valgrind --leak-check=full --show-leak-kinds=all
//          build/samples/cpp_own_new
#include <cstdio>
#include <new>

struct Item {
    long v[4];
};

static Item *kept;

__attribute__((noinline)) static Item *make_items(int n)
{
    Item *first = new Item();

    (void)n;
    return first;
}

__attribute__((noinline)) static long *make_one(void)
{
    return new (std::nothrow) long(7);
}

int main()
{
    Item *lost = make_items(3); // definitely lost
    long *one = make_one();     // definitely lost

    kept = new Item(); // still reachable
    std::printf("%ld %ld\n", lost[0].v[0] = 1, *one);
    lost = nullptr;
    one = nullptr;
    return 0;
}
