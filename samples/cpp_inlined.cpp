// SPDX-License-Identifier: MIT
//
// cpp_inlined.cpp - allocations reached through inlined C++ library code,
// built with -O2 (Makefile) so that std::vector's and std::string's
// allocation paths are inlined into the callers. Memcheck names each
// inlined frame by its DWARF name, "allocate" and "push_back", not by
// the whole demangled signature of the function that was inlined.
// Compare: valgrind --leak-check=full --show-leak-kinds=all
//          build/samples/cpp_inlined
#include <cstdio>
#include <string>
#include <vector>

namespace app {

struct Registry {
    std::vector<std::string> names;
    void add(int i) { names.push_back(std::string(40, (char)('a' + i % 26))); }
};

Registry *registry; // still reachable: its vector, its strings

std::vector<int> *make_table(int n)
{
    auto *v = new std::vector<int>();
    v->reserve((size_t)n);
    return v;
}

} // namespace app

int main()
{
    std::vector<int> *lost;

    app::registry = new app::Registry();
    for (int i = 0; i < 10; i++)
        app::registry->add(i);
    lost = app::make_table(100); // definitely lost (and its buffer)
    std::printf("%zu %zu\n", app::registry->names.size(), lost->capacity());
    lost = nullptr;
    return 0;
}
