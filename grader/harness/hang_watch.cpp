#include "hang_watch.hpp"
#include "cuda_check.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

namespace roofline::harness {

namespace {

HangHandler& handler() {
    static HangHandler installed;
    return installed;
}

template <class Query>
void wait_with_limit(Query query, const char* call, double limit_s) {
    auto began = std::chrono::steady_clock::now();
    while (true) {
        cudaError_t status = query();
        if (status != cudaErrorNotReady) {
            if (status != cudaSuccess) throw_cuda_error(status, call, __FILE__, __LINE__);
            return;
        }
        double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        if (limit_s > 0 && waited > limit_s) {
            if (handler()) handler()(limit_s);
            std::_Exit(5);
        }
        // A sleep overshoots by up to its length and more (timer slack): the judge's clock
        // around a batch would carry it and its baseline would not (a 4% bias on lab 00's
        // graph rung, H200, run 4). Under 0.1 s the wait only yields; past it a 50 us sleep
        // costs under 0.05%.
        if (waited > 0.1) std::this_thread::sleep_for(std::chrono::microseconds(50));
        else std::this_thread::yield();
    }
}

}  // namespace

void set_hang_handler(HangHandler h) { handler() = std::move(h); }

void wait_for_stream(cudaStream_t stream, double limit_s) {
    if (limit_s <= 0) {
        CUDA_CHECK(cudaStreamSynchronize(stream));
        return;
    }
    wait_with_limit([stream] { return cudaStreamQuery(stream); }, "cudaStreamQuery(stream)", limit_s);
}

void wait_for_event(cudaEvent_t event, double limit_s) {
    if (limit_s <= 0) {
        CUDA_CHECK(cudaEventSynchronize(event));
        return;
    }
    wait_with_limit([event] { return cudaEventQuery(event); }, "cudaEventQuery(stop)", limit_s);
}

bool legacy_stream_busy() {
    const bool busy = cudaStreamQuery(cudaStreamLegacy) == cudaErrorNotReady;
    if (busy) (void)cudaGetLastError();  // "not ready" is an answer, not an error to carry
    return busy;
}

}  // namespace roofline::harness
