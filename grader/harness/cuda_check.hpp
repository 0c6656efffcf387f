// Every CUDA call in the harness goes through CUDA_CHECK: an error becomes a
// CudaError that names the call, so a student's illegal address is reported as
// exactly that instead of a wrong answer or a silent exit 0.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace roofline::harness {

class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const std::string& what)
        : std::runtime_error(what), code_(code) {}
    cudaError_t code() const { return code_; }

private:
    cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

}  // namespace roofline::harness

#define CUDA_CHECK(call)                                                                        \
    do {                                                                                        \
        cudaError_t cuda_check_status_ = (call);                                                \
        if (cuda_check_status_ != cudaSuccess)                                                  \
            ::roofline::harness::throw_cuda_error(cuda_check_status_, #call, __FILE__, __LINE__); \
    } while (0)
