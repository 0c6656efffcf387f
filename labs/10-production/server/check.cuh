// Errors of the CUDA runtime and cuBLAS: the call, the file and line, then exit 3 (exit 1 is a
// checked step outside the tolerance, 2 bad input: server_main.cu).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace server {

// What the server was running that a failure may be due to (the lab's attention kernel file), added
// to every failure's message.
inline std::string& failure_note() {
    static std::string note;
    return note;
}

[[noreturn]] inline void fail_now(const std::string& what) {
    std::fprintf(stderr, "decode server: %s\n", what.c_str());
    if (!failure_note().empty()) std::fprintf(stderr, "decode server: %s\n", failure_note().c_str());
    std::exit(3);
}

}  // namespace server

#define CUDA_CHECK(call)                                                                                       \
    do {                                                                                                       \
        cudaError_t status_ = (call);                                                                          \
        if (status_ != cudaSuccess)                                                                            \
            ::server::fail_now(std::string(#call) + " failed at " + __FILE__ + ":" + std::to_string(__LINE__) + \
                               ": " + cudaGetErrorString(status_));                                            \
    } while (0)

#define CUBLAS_CHECK(call)                                                                                      \
    do {                                                                                                        \
        cublasStatus_t status_ = (call);                                                                        \
        if (status_ != CUBLAS_STATUS_SUCCESS)                                                                   \
            ::server::fail_now(std::string(#call) + " failed at " + __FILE__ + ":" + std::to_string(__LINE__) + \
                               ": cuBLAS status " + std::to_string(int(status_)));                              \
    } while (0)
