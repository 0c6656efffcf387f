// The GPU tests' main: skip (exit 77) with a clear message where there is no CUDA device.
#include <cuda_runtime.h>

#include <cstdio>

#if __has_include(<catch2/catch_session.hpp>)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

int main(int argc, char** argv) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("SKIPPED: no CUDA device on this machine; the GPU tests run on the GPU machine (ctest -L gpu).\n");
        return 77;
    }
    return Catch::Session().run(argc, argv);
}
