// Skips work it finds done: a quarter of the blocks return at once when their part of y
// already holds a number (the checks poison y with NaN first, so there it copies everything;
// a timed launch that found the last answer still in y would skip a quarter of the copy).
// The judge poisons every output before every timed batch: it is graded correct, at the time
// of the whole copy.
#include "roofline/contract/elementwise.cuh"

#include <cmath>

namespace {
__global__ void copy_unless_done(const float* x, float* y, std::size_t n) {
    std::size_t first = blockIdx.x * std::size_t(blockDim.x);
    if (blockIdx.x % 4 == 0 && first < n && isfinite(y[first])) return;
    for (std::size_t i = first + threadIdx.x; i < n && i < first + blockDim.x; i += n) y[i] = x[i];
}
void launch(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    copy_unless_done<<<unsigned((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
}  // namespace

ROOFLINE_COPY_VARIANT(skip_when_done, launch);
