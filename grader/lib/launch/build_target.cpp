#include "build_target.hpp"

#include "file_text.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdlib>

namespace roofline {

BuildResult build_target(const std::filesystem::path& build_dir, const std::string& target) {
    BuildResult result;
    if (!std::filesystem::exists(build_dir / "CMakeCache.txt")) {
        result.output = fmt::format("{} is not a configured build folder; run ./setup.sh first (or pass --build-dir)",
                                    build_dir.string());
        return result;
    }
    auto log = std::filesystem::temp_directory_path() / fmt::format("roofline-build-{}.txt", ::getpid());
    auto command = fmt::format("cmake --build '{}' --target '{}' > '{}' 2>&1", build_dir.string(), target, log.string());
    int status = std::system(command.c_str());
    result.compiler_ran = true;
    result.output = read_file_text(log);
    std::filesystem::remove(log);
    result.ok = status == 0;
    return result;
}

}  // namespace roofline
