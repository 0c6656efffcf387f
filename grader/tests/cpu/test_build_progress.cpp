// A long build says so (lib/launch/build_progress.hpp): a dry run's steps are counted, CUDA files
// apart; and a machine without an NVIDIA driver is named as such, not as an old driver.
#include "test_support.hpp"

#include "build_progress.hpp"
#include "device_query.hpp"

#include <filesystem>

using namespace roofline;
using namespace roofline_test;

TEST_CASE("build progress: a Ninja dry run's steps and CUDA files are counted", "[build]") {
    const std::string dry_run =
        "[0/3] Re-checking globbed directories...\n"
        "[1/5] Building CUDA object labs/CMakeFiles/lab-01-memory-roof.dir/01-memory-roof/kernels/01_copy_naive.cu.o\n"
        "[2/5] Building CUDA object labs/CMakeFiles/lab-01-memory-roof.dir/01-memory-roof/kernels/02_copy_vec.cu.o\n"
        "[3/5] Building CXX object grader/CMakeFiles/lab_main.dir/harness/lab_main.cpp.o\n"
        "[4/5] Linking CUDA device code labs/CMakeFiles/lab-01-memory-roof.dir/cmake_device_link.o\n"
        "[5/5] Linking CXX executable labs/lab-01-memory-roof\n";
    auto pending = count_pending(dry_run);
    CHECK(pending.steps == 5);
    CHECK(pending.cuda_files == 2);
    auto nothing = count_pending("ninja: no work to do.\n");
    CHECK(nothing.steps == 0);
    CHECK(nothing.cuda_files == 0);
}

TEST_CASE("build progress: a folder that is not a build has nothing pending", "[build]") {
    TempDir dir;
    CHECK(pending_build(dir.path(), "roofline").steps == 0);  // not a build folder: the build itself says why
}

TEST_CASE("no GPU driver is named as such, without starting CUDA", "[build]") {
    std::error_code error;
    bool device_files = std::filesystem::exists("/dev/nvidiactl", error) || std::filesystem::exists("/dev/nvidia0", error);
    auto missing = missing_gpu_driver();
    if (!device_files) {
        REQUIRE(missing.has_value());
        CHECK(contains(*missing, "no NVIDIA GPU"));
        CHECK_FALSE(contains(*missing, "insufficient"));
        // and what the device query says matches it
        std::string why;
        CHECK_FALSE(first_device(&why).has_value());
        CHECK_FALSE(contains(why, "insufficient"));
    } else if (missing) {
        CHECK(contains(*missing, "libcuda.so.1"));  // device files but no driver library
    }
}
