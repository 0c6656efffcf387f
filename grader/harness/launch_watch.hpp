// What ran on the GPU while a variant's launch function ran: every kernel by name,
// the stream it ran on, and any copy or memset, read from CUPTI's activity records
// (CUPTI ships with the CUDA Toolkit). The lab program reports them; the grader
// decides, against the kernel file's own symbols (lib/launch/symbol_check.hpp), whether
// the work was the submission's own. Function pointers, dlsym and libraries cannot
// hide a kernel from this: it sees what the GPU ran, not what the code called.
//
// A process that watches never times: attached, CUPTI slows every launch of its
// process (H200, 2026-11-30: lab 00's graph rung 842 us with CUPTI left attached,
// 659 us in the same program once it was detached after each window). The grader
// sends watch jobs and grade jobs to different lab programs (protocol/lab_job.hpp),
// so CUPTI stays attached here from the first window on.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace roofline::harness {

// One kernel as the GPU ran it: CUPTI's timestamps, in ns on the GPU's clock.
struct KernelSpan {
    std::string name;  // mangled
    std::uint64_t start_ns = 0, end_ns = 0;
    unsigned stream_id = 0;
};

struct WatchedWork {
    bool watched = false;      // false: CUPTI was unavailable; `error` says why
    std::string error;
    std::map<std::string, long long> kernels;               // mangled name -> launches
    std::map<std::string, long long> other_stream_kernels;  // ran on a stream other than the one given
    long long copies = 0;   // cudaMemcpy* of any kind
    long long memsets = 0;  // cudaMemset*
    std::uint64_t began_ns = 0;  // CUPTI's clock when start() returned: the host's call, on the spans' clock
    std::vector<KernelSpan> spans;  // every kernel, in the order CUPTI delivered them (`roofline timeline`)
};

// One per process (CUPTI allows one subscriber).
class LaunchWatch {
public:
    static LaunchWatch& instance();
    // Starts recording; `expected` is the stream the launch function was given.
    void start(cudaStream_t expected);
    // Waits for the recorded work (the caller has synchronized the stream) and stops.
    WatchedWork stop();
    // Seconds this process has spent in start() and stop(): the record's own cost.
    double seconds_spent() const { return seconds_spent_; }
    // Whether start() ever ran in this process: a grade job refuses to time then.
    bool ever_started() const { return ever_started_; }

private:
    double seconds_spent_ = 0;
    bool ever_started_ = false;
    LaunchWatch() = default;
};

}  // namespace roofline::harness
