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
        // Short kernels finish within the first polls; a long one costs a sleep per poll.
        if (waited > 1e-3) std::this_thread::sleep_for(std::chrono::microseconds(50));
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
