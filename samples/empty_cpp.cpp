// empty_cpp.cpp - iostream and an exception: must report no leaks
// (libstdc++'s emergency pool is given back at exit).
#include <iostream>
#include <stdexcept>

int main()
{
    try {
        throw std::runtime_error("caught");
    } catch (const std::exception &e) {
        std::cout << "hello " << e.what() << std::endl;
    }
    return 0;
}
