// A stand-in for a lab program in --serve mode, for the CPU tests of
// LabSession: no GPU; it reads the same Job (protocol/lab_job.hpp) a lab program
// does, and each job's variant names how it ends.
//   ok          writes {"status": "ok", "pid": its pid, "sid": its session}
//   cuda_error  closes stdin, writes {"status": "cuda_error"} and exits 3, as a lab program does
//   segfault    prints a stage, then dies of SIGSEGV
//   hang        prints a stage, then sleeps for ever
//   exit        exits 9 without a result
// A device_info job: {"status": "no_device"}, or with FAKE_DEVICE set, that device.
// FAKE_EXIT_AT_START set: prints it and exits 3 before reading a job, as a submission's
// failing static initializer makes a lab program do.
#include "lab_job.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {
void write_result(const nlohmann::json& result, const std::string& path) {
    std::ofstream(path + ".tmp") << result.dump();
    std::filesystem::rename(path + ".tmp", path);
}
}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 || std::string(argv[1]) != "--serve") return 2;
    if (const char* why = std::getenv("FAKE_EXIT_AT_START")) {
        std::fprintf(stderr, "%s\n", why);
        return 3;
    }
    std::string line;
    while (std::getline(std::cin, line)) {
        auto job = nlohmann::json::parse(line).get<roofline::protocol::Job>();
        const auto& variant = job.variant;
        const auto& result = job.result_path;
        if (job.mode == roofline::protocol::JobMode::device_info) {
            if (const char* name = std::getenv("FAKE_DEVICE")) {
                write_result({{"status", "ok"},
                              {"device", {{"name", name}, {"sm_count", 132}, {"l2_bytes", 52428800},
                                          {"compute_capability", "9.0"}}}},
                             result);
            } else {
                write_result({{"status", "no_device"}, {"message", "fake: no CUDA device"}}, result);
            }
            continue;
        }
        std::fprintf(stderr, "roofline-stage: verify n=3 (%s)\n", variant.c_str());
        std::fflush(stderr);
        if (variant == "ok") write_result({{"status", "ok"}, {"pid", ::getpid()}, {"sid", ::getsid(0)}}, result);
        if (variant == "cuda_error") {
            ::close(STDIN_FILENO);  // as the lab program does: the next job is refused, not lost
            write_result({{"status", "cuda_error"}, {"message", "an illegal memory access was encountered"}}, result);
            return 3;
        }
        if (variant == "segfault") std::raise(SIGSEGV);
        if (variant == "hang") {
            while (true) ::pause();
        }
        if (variant == "exit") return 9;
    }
    return 0;
}
