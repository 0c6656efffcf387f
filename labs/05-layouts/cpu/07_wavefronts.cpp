// Lab 05, part 7: shared-memory wavefronts of one warp-wide access (lesson: "Banks").
//
// 32 banks of 4 bytes; each thread touches access_bytes / 4 words from its address;
// threads on the same word share it. The answer: the most distinct words in one bank.
// Grade it: roofline grade 05-layouts/wavefronts.
#include "roofline/contract/layout.hpp"

#include <stdexcept>

namespace layouts {

int wavefronts(const std::vector<long long>& byte_addresses, int access_bytes) {
    // TODO: count distinct words per bank.
    (void)byte_addresses;
    (void)access_bytes;
    throw std::logic_error("TODO: 07_wavefronts is not written yet");
}

}  // namespace layouts
