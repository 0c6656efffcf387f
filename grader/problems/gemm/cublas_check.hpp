// cuBLAS and cuBLASLt calls in the problem families: a failed status becomes an
// exception that names the call and cuBLAS's own words for the status.
#pragma once
#include <cublas_v2.h>

#include <stdexcept>
#include <string>

namespace roofline::gemm {

inline void check_cublas(cublasStatus_t status, const char* call) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusName(status) + " (" +
                                 cublasGetStatusString(status) + ")");
    }
}

}  // namespace roofline::gemm

#define CUBLAS_CHECK(call) ::roofline::gemm::check_cublas((call), #call)
