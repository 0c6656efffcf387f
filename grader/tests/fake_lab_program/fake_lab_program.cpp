// A stand-in for a lab program in --serve mode, for the CPU tests of
// LabSession: no GPU; it reads the same Job (protocol/lab_job.hpp) a lab program
// does, answers with the same Result (protocol/lab_result.hpp), and each job's
// variant names how it ends.
//   ok          answers ok, with a device and a registration (and, for the test, its "pid"
//               and "sid" beside the Result's keys, which a reader ignores)
//   cuda_error  closes stdin, answers cuda_error and exits 3, as a lab program does
//   segfault    prints a stage, then dies of SIGSEGV
//   stack       prints a stage, then recurses until its stack overflows
//   hang        prints a stage, then sleeps for ever
//   exit        exits 9 without a result
//   garbled     answers ok with a check whose report is a string: a malformed answer
// A device_info job: no_device, or with FAKE_DEVICE set, that device.
// FAKE_EXIT_AT_START set: prints it and exits 3 before reading a job, as a submission's
// failing static initializer makes a lab program do.
#include "lab_job.hpp"
#include "lab_result.hpp"

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
using roofline::protocol::JobStatus;

void write_result(const nlohmann::json& result, const std::string& path) {
    std::ofstream(path + ".tmp") << result.dump();
    std::filesystem::rename(path + ".tmp", path);
}

roofline::protocol::Result answer_to(const roofline::protocol::Job& job, JobStatus status) {
    roofline::protocol::Result result;
    result.status = status;
    result.variant = job.variant;
    result.mode = job.mode;
    return result;
}

const roofline::protocol::Device kFakeDevice{"", 132, 52428800, "9.0"};
// Recursion the compiler cannot turn into a loop: a frame of 64 KiB each, used after the call.
[[gnu::noinline]] int deeper(int depth) {
    volatile char frame[65536];
    frame[depth % sizeof(frame)] = char(depth);
    if (depth < 0) return 0;  // never: an end, so that the compiler sees no endless recursion
    return deeper(depth + 1) + frame[(depth * 7) % sizeof(frame)];
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
                auto answer = answer_to(job, JobStatus::ok);
                answer.device = kFakeDevice;
                answer.device->name = name;
                write_result(answer, result);
            } else {
                auto answer = answer_to(job, JobStatus::no_device);
                answer.message = "fake: no CUDA device";
                write_result(answer, result);
            }
            continue;
        }
        std::fprintf(stderr, "roofline-stage: verify n=3 (%s)\n", variant.c_str());
        std::fflush(stderr);
        if (variant == "ok" || variant == "garbled") {
            auto answer = answer_to(job, JobStatus::ok);
            answer.device = kFakeDevice;
            answer.device->name = "fake GPU";
            answer.registration = roofline::protocol::Registration{"copy", "fp32", "kernels/00_fake.cu"};
            nlohmann::json written = answer;
            written["pid"] = ::getpid();
            written["sid"] = ::getsid(0);
            if (variant == "garbled") written["checks"] = {{{"shape", {{"n", 3}}}, {"when", "before timing"}, {"report", "fine"}}};
            write_result(written, result);
        }
        if (variant == "cuda_error") {
            ::close(STDIN_FILENO);  // as the lab program does: the next job is refused, not lost
            auto answer = answer_to(job, JobStatus::cuda_error);
            answer.message = "an illegal memory access was encountered";
            write_result(answer, result);
            return 3;
        }
        if (variant == "segfault") std::raise(SIGSEGV);
        if (variant == "stack") return deeper(1) == 0 ? 5 : 6;
        if (variant == "hang") {
            while (true) ::pause();
        }
        if (variant == "exit") return 9;
    }
    return 0;
}
