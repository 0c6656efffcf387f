// A fingerprint of a kernel source file, to bind a prediction to the exact
// code it was made for. FNV-1a 64: enough to notice an edit; not a defence
// against someone forging a collision in their own log.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace roofline {

std::string fnv1a64_hex(std::string_view bytes);              // "fnv1a64:0123456789abcdef"
std::string hash_file(const std::filesystem::path& file);     // throws InputError if unreadable

}  // namespace roofline
