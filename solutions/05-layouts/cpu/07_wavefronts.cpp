// Lab 05, part 7 (solution): shared-memory wavefronts of one warp-wide access.
//
// Every 4-byte word the warp touches lands in bank word % 32. Threads on the same word
// share it; different words in the same bank need a wavefront each. The access takes as
// many wavefronts as the busiest bank has distinct words.
#include "roofline/contract/layout.hpp"

#include <algorithm>
#include <set>

namespace layouts {

int wavefronts(const std::vector<long long>& byte_addresses, int access_bytes) {
    std::set<long long> words_of_bank[32];
    for (long long address : byte_addresses) {
        for (int w = 0; w < access_bytes / 4; ++w) {
            long long word = address / 4 + w;
            words_of_bank[word % 32].insert(word);
        }
    }
    std::size_t most = 0;
    for (const auto& words : words_of_bank) most = std::max(most, words.size());
    return static_cast<int>(most);
}

}  // namespace layouts
