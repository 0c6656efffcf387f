// Which source tree a CMake build folder was configured from, so a command can
// refuse to compile one course checkout's kernels while reading another's.
#pragma once
#include <filesystem>
#include <optional>

namespace roofline {

// CMAKE_HOME_DIRECTORY from BUILD/CMakeCache.txt; nullopt when the folder holds no
// cache (not a CMake build: a batch's staging tree, or a mistyped path).
std::optional<std::filesystem::path> build_source_dir(const std::filesystem::path& build_dir);

// True when both name the same folder (after resolving links and "..").
bool same_folder(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace roofline
