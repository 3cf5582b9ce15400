// SPDX-License-Identifier: MIT
// containers.cpp - long demangled names, inlined frames, new/new[].
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace lp_test {
template <typename K, typename V> struct Registry {
    std::map<K, std::vector<std::pair<K, V>>> by_key;
    void add(const K &k, const V &v) { by_key[k].emplace_back(k, v); }
};
} // namespace lp_test

int main()
{
    lp_test::Registry<std::string, std::vector<double>> reg;
    std::vector<std::unique_ptr<int[]>> arrays;

    for (int i = 0; i < 200; i++) {
        reg.add("key number " + std::to_string(i % 37),
                std::vector<double>(static_cast<size_t>(i % 17 + 1), 1.5));
        arrays.emplace_back(new int[static_cast<size_t>(i % 23 + 1)]);
        if (i % 5 == 0)
            arrays.erase(arrays.begin());
    }
    return 0;
}
