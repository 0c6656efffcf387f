// Building one submission without CMake: its kernel files compiled with nvcc
// and the flags this build used for lab-NN-name, linked against this build's
// harness and problem libraries. The flags come from <build>/labs/NN-name.build-kit,
// which CMake writes at configure time (cmake/RooflineLab.cmake).
#pragma once
#include "sandbox.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace roofline::batch {

struct BuildKit {
    std::filesystem::path file;
    std::string lab;
    std::string nvcc;  // the compiler: nvcc, or the C++ compiler for a lab's CPU part (LAB-cpu.build-kit)
    std::vector<std::string> compile;  // flags for every kernel file
    std::vector<std::string> link;     // library files and flags, in link order
};

// Throws InputError (with the fix) when the kit or the libraries it names are missing.
BuildKit load_build_kit(const std::filesystem::path& build_dir, const std::string& lab);
BuildKit parse_build_kit(const std::string& text, const std::filesystem::path& file);

struct SubmissionBuild {
    bool ok = false;
    std::string log;      // the compiler's and linker's output
    std::string message;  // on failure: the first error, for the gradebook
};

// What one compiler run (a kernel file's compile, or the link) may take: a macro
// bomb ends as a compile error, not as a stuck batch.
struct CompilerLimits {
    double timeout_s = 120;
    long long memory_bytes = 0;  // address space of each process nvcc starts (RLIMIT_AS); 0: none
};

// Compiles `sources` into `object_dir` and links `executable`. Objects are kept in
// `cache_dir` by a hash of the flags and the file's bytes, so a file shared by many
// submissions (an untouched given file, an identical copy) is compiled once. With a
// sandbox, nvcc runs inside it and sees, beside the system, only the toolkit, the
// kit's include folders and libraries, the sources' folder and the folders it writes.
SubmissionBuild build_submission(const BuildKit& kit, const std::vector<std::filesystem::path>& sources,
                                 const std::filesystem::path& object_dir, const std::filesystem::path& executable,
                                 const std::filesystem::path& cache_dir, const CompilerLimits& limits,
                                 const Sandbox* sandbox);

// The first line that looks like a compiler error ("error" in it), else the first line.
std::string first_error_line(const std::string& log);

}  // namespace roofline::batch
