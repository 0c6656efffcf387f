#include "build_tree.hpp"

#include <fstream>
#include <string>

namespace roofline {

std::optional<std::filesystem::path> build_source_dir(const std::filesystem::path& build_dir) {
    std::ifstream cache(build_dir / "CMakeCache.txt");
    if (!cache) return std::nullopt;
    const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
    for (std::string line; std::getline(cache, line);) {
        if (line.rfind(key, 0) == 0) return std::filesystem::path(line.substr(key.size()));
    }
    return std::nullopt;
}

bool same_folder(const std::filesystem::path& a, const std::filesystem::path& b) {
    std::error_code ec;
    bool same = std::filesystem::equivalent(a, b, ec);  // same inode: links and ".." resolved
    if (!ec) return same;
    return a.lexically_normal() == b.lexically_normal();  // one of them does not exist
}

}  // namespace roofline
