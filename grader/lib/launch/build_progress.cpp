#include "build_progress.hpp"

#include "device_query.hpp"
#include "file_text.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <sstream>

namespace roofline {

PendingBuild count_pending(const std::string& dry_run_output) {
    PendingBuild pending;
    std::istringstream lines(dry_run_output);
    std::string line;
    while (std::getline(lines, line)) {
        bool step = line.rfind("[", 0) == 0 && line.find("] ") != std::string::npos;
        if (!step) continue;
        if (line.find("Re-checking globbed") != std::string::npos) continue;  // CMake's own, not a compile
        ++pending.steps;
        if (line.find("Building CUDA object") != std::string::npos) ++pending.cuda_files;
    }
    return pending;
}

PendingBuild pending_build(const std::filesystem::path& build_dir, const std::string& target) {
    auto output = std::filesystem::temp_directory_path() / fmt::format("roofline-dry-run-{}.txt", ::getpid());
    auto command = fmt::format("cmake --build '{}' --target '{}' -- -n > '{}' 2>&1", build_dir.string(), target,
                               output.string());
    int status = std::system(command.c_str());
    auto text = read_file_text(output);
    std::error_code ignored;
    std::filesystem::remove(output, ignored);
    if (status != 0) return {};
    return count_pending(text);
}

BuildResult build_with_progress(const std::filesystem::path& build_dir, const std::string& target, bool runs_on_gpu) {
    if (runs_on_gpu) {
        if (auto missing = missing_gpu_driver()) {
            fmt::print(stderr, "note: {}. Building {} anyway, to check that it compiles; it cannot run here.\n", *missing,
                       target);
        }
    }
    if (!std::filesystem::exists(build_dir / "CMakeCache.txt")) return build_target(build_dir, target);
    auto pending = pending_build(build_dir, target);
    if (pending.steps == 0) return build_target(build_dir, target);
    fmt::print(stderr, "compiling {}: {} build step(s), {} of them CUDA files{}...\n", target, pending.steps,
               pending.cuda_files,
               pending.cuda_files > 4 ? "; a first build takes minutes (tens of minutes on a small laptop)" : "");
    auto began = std::chrono::steady_clock::now();
    auto result = build_target(build_dir, target);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (result.ok) fmt::print(stderr, "built {} in {:.0f} s\n", target, seconds);
    else fmt::print(stderr, "the build of {} failed after {:.0f} s\n", target, seconds);
    return result;
}

}  // namespace roofline
