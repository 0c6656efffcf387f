// The whole content of a file as bytes; empty when it is missing or unreadable
// (logs a child process may not have written). Callers that must tell a missing
// file from an empty one check first.
#pragma once
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace roofline {

inline std::string read_file_text(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
}

}  // namespace roofline
