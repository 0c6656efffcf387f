// A lab's build, said out loud: a first build compiles dozens of CUDA files and takes
// minutes (most of an hour on two slow cores), and a silent terminal for that long reads
// as a hang. Before building, a dry run counts what is out of date; if anything is, one
// line on stderr says what is compiling and that it takes minutes, and one more says
// how long it took. Where the machine plainly has no GPU driver, a line says so first:
// the build still checks that the code compiles, but nothing will run here.
#pragma once
#include "build_target.hpp"

#include <filesystem>
#include <string>

namespace roofline {

// build_target() with those lines; `runs_on_gpu`: the program needs a GPU to run (not lab 05's CPU part).
BuildResult build_with_progress(const std::filesystem::path& build_dir, const std::string& target, bool runs_on_gpu);

struct PendingBuild {
    int steps = 0;       // commands the build would run
    int cuda_files = 0;  // of them, CUDA compilations (the slow ones)
};
// What a dry run (`cmake --build DIR --target T -- -n`) says is out of date; zero steps
// where the dry run fails (the build itself then reports why).
PendingBuild pending_build(const std::filesystem::path& build_dir, const std::string& target);
// The count from a dry run's output: Ninja's "[k/N] Building CUDA object ..." lines.
PendingBuild count_pending(const std::string& dry_run_output);

}  // namespace roofline
