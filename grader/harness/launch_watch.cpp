#include "launch_watch.hpp"

#include <cupti.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>

namespace roofline::harness {

namespace {

constexpr std::size_t kBufferBytes = 8 << 20;
constexpr std::size_t kAlign = 8;

std::mutex watch_mutex;
WatchedWork* recording = nullptr;  // the window's records go here
std::uint32_t expected_stream_id = 0;
bool initialized = false;
std::string init_error;

std::string cupti_error(CUptiResult status, const char* what) {
    const char* text = nullptr;
    cuptiGetResultString(status, &text);
    return std::string(what) + ": " + (text ? text : "unknown CUPTI error");
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kAlign, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid_bytes) {
    {
        std::lock_guard lock(watch_mutex);
        CUpti_Activity* record = nullptr;
        while (recording && cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
            switch (record->kind) {
                case CUPTI_ACTIVITY_KIND_KERNEL:
                case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
                    auto* kernel = reinterpret_cast<CUpti_ActivityKernel10*>(record);
                    std::string name = kernel->name ? kernel->name : "(unnamed)";
                    ++recording->kernels[name];
                    if (kernel->streamId != expected_stream_id) ++recording->other_stream_kernels[name];
                    recording->spans.push_back({name, kernel->start, kernel->end, kernel->streamId});
                    break;
                }
                case CUPTI_ACTIVITY_KIND_MEMCPY: ++recording->copies; break;
                case CUPTI_ACTIVITY_KIND_MEMSET: ++recording->memsets; break;
                default: break;
            }
        }
    }
    std::free(buffer);
}

const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                     CUPTI_ACTIVITY_KIND_MEMSET};

}  // namespace

LaunchWatch& LaunchWatch::instance() {
    static LaunchWatch watch;
    return watch;
}

namespace {
struct Stopwatch {
    double& total;
    std::chrono::steady_clock::time_point began = std::chrono::steady_clock::now();
    ~Stopwatch() { total += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(); }
};
}  // namespace

void LaunchWatch::start(cudaStream_t expected) {
    Stopwatch timing{seconds_spent_};
    ever_started_ = true;
    if (!initialized) {
        initialized = true;
        CUptiResult status = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
        if (status != CUPTI_SUCCESS) init_error = cupti_error(status, "cuptiActivityRegisterCallbacks");
    }
    std::lock_guard lock(watch_mutex);
    delete recording;
    recording = new WatchedWork;
    if (!init_error.empty()) {
        recording->error = init_error;
        return;
    }
    CUptiResult status = cuptiGetStreamIdEx(nullptr, reinterpret_cast<CUstream>(expected), 0, &expected_stream_id);
    if (status != CUPTI_SUCCESS) {
        recording->error = cupti_error(status, "cuptiGetStreamIdEx");
        return;
    }
    for (auto kind : kKinds) {
        status = cuptiActivityEnable(kind);
        if (status != CUPTI_SUCCESS) {
            recording->error = cupti_error(status, "cuptiActivityEnable");
            return;
        }
    }
    recording->watched = true;
    cuptiGetTimestamp(&recording->began_ns);
}

WatchedWork LaunchWatch::stop() {
    Stopwatch timing{seconds_spent_};
    cudaDeviceSynchronize();
    bool watched = false;
    {
        std::lock_guard lock(watch_mutex);
        watched = recording && recording->watched;
    }
    if (watched) {
        cuptiActivityFlushAll(1);  // delivers the window's records to buffer_completed
        for (auto kind : kKinds) cuptiActivityDisable(kind);
    }
    std::lock_guard lock(watch_mutex);
    WatchedWork work = recording ? *recording : WatchedWork{};
    delete recording;
    recording = nullptr;
    return work;
}

}  // namespace roofline::harness
