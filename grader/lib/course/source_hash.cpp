#include "source_hash.hpp"

#include "input_error.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <fstream>
#include <sstream>

namespace roofline {

std::string fnv1a64_hex(std::string_view bytes) {
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (unsigned char c : bytes) {
        hash ^= c;
        hash *= 0x100000001b3ull;
    }
    return fmt::format("fnv1a64:{:016x}", hash);
}

std::string hash_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(file, 0, "cannot read the kernel source to fingerprint it; check the path in lab.yaml");
    std::stringstream content;
    content << in.rdbuf();
    return fnv1a64_hex(content.str());
}

}  // namespace roofline
