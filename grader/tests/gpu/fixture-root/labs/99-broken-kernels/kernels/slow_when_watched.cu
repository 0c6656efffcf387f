// Copies once when timed and twenty times over when watched: it tells the two apart by its
// own command line (the judge starts the program that times with --runner; the grader starts
// the one that watches without it). To the grader this is a kernel that did less work when
// timed than while it could be seen (own_work.hpp, compare_replay): it must be refused, and
// the second watch the grader runs before refusing (replay_retry.hpp) must not save it, since
// it is as slow watched again.
#include "roofline/contract/elementwise.cuh"

#include <fstream>
#include <string>

namespace {
__global__ void copy_kernel(const float* x, float* y, std::size_t n) {
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) y[i] = x[i];
}
bool timed_by_the_judge() {
    static const bool runner = [] {
        std::ifstream cmdline("/proc/self/cmdline");
        std::string argument;
        while (std::getline(cmdline, argument, '\0')) {
            if (argument == "--runner") return true;
        }
        return false;
    }();
    return runner;
}
void launch(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    const int copies = timed_by_the_judge() ? 1 : 20;
    for (int c = 0; c < copies; ++c) copy_kernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
}  // namespace

ROOFLINE_COPY_VARIANT(slow_when_watched, launch);
