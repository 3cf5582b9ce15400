// SPDX-License-Identifier: MIT
//
// cpp_containers.cpp - standard containers and C++ object layouts against
// Memcheck's leak heuristics. Kept in globals (still reachable, some only
// through a heuristic) and leaked (definitely + indirectly lost):
//  - std::string (heap buffer past the 15-char SSO), std::vector,
//    std::map<int, std::string>;
//  - new[] of objects with a destructor: the pointer the program holds is
//    8 bytes past the block start (the element count): newarray;
//  - multiple inheritance: a pointer to the second base sub-object is
//    interior: multipleinheritance;
//  - a heap std::vector<std::string> dropped: its element buffer and the
//    strings' buffers are indirectly lost.
// Compare: valgrind --leak-check=full --show-leak-kinds=all
//          build/samples/cpp_containers
#include <map>
#include <string>
#include <vector>

struct Counted {
    long id;
    Counted() : id(0) {}
    ~Counted() { id = -1; }
};

struct Base1 {
    virtual ~Base1() {}
    virtual long one() { return 1; }
    long b1 = 1;
};
struct Base2 {
    virtual ~Base2() {}
    virtual long two() { return 2; }
    long b2 = 2;
};
struct Both : Base1, Base2 {
    long own = 3;
    long two() override { return 22; }
};

// Heap-allocated and never deleted, so they are still there at exit
// (a global object would be destroyed by its static destructor first).
static std::string *g_string = new std::string(40, 's');
static std::vector<int> *g_vector = new std::vector<int>;
static std::map<int, std::string> *g_map = new std::map<int, std::string>;
static Counted *g_array;  // newarray
static Base2 *g_second;   // multipleinheritance

__attribute__((noinline)) static void keep(void)
{
    for (int i = 0; i < 10; i++)
        g_vector->push_back(i);
    for (int i = 0; i < 3; i++)
        (*g_map)[i] = std::string(32, char('a' + i));
    g_array = new Counted[5];
    g_second = new Both;
}

__attribute__((noinline)) static void leak(void)
{
    auto *v = new std::vector<std::string>;

    v->push_back(std::string(50, 'v'));
    v->push_back(std::string(60, 'w'));
    new Counted[3];                   // dropped: definitely lost
    Base2 *b = new Both;              // dropped: definitely lost
    b->b2 = 7;
    auto *m = new std::map<int, int>; // nodes indirectly lost
    (*m)[1] = 1;
    (*m)[2] = 2;
}

int main()
{
    keep();
    leak();
    return 0;
}
