// `cmake --build` of one lab program's target (build_progress.hpp adds the progress lines).
#pragma once
#include <filesystem>
#include <string>

namespace roofline {

// `cmake --build` of one target; returns the compiler's output on failure.
struct BuildResult {
    bool ok = false;
    bool compiler_ran = false;  // false: the build folder is not a CMake build; `output` says why
    std::string output;
};
BuildResult build_target(const std::filesystem::path& build_dir, const std::string& target);

}  // namespace roofline
