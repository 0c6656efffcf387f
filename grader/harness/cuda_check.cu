#include "cuda_check.hpp"

#include <fmt/format.h>

namespace roofline::harness {

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
    throw CudaError(code, fmt::format("{}: {} ({} at {}:{})", cudaGetErrorName(code), cudaGetErrorString(code), call,
                                      file, line));
}

}  // namespace roofline::harness
