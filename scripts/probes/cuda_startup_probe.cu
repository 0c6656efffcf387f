// How long the steps every lab program takes cost: runtime start, context,
// allocation of the arrays, a first touch, the free. Run alone and then on
// two GPUs at once to see which step the driver serializes between processes.
//   nvcc -O2 -o probe cuda_startup_probe.cu && CUDA_VISIBLE_DEVICES=0 ./probe 2048
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

int main(int argc, char** argv) {
    std::size_t total_mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2048;
    auto t = std::chrono::steady_clock::now();
    int count = 0;
    cudaGetDeviceCount(&count);
    double runtime_s = seconds_since(t);
    t = std::chrono::steady_clock::now();
    cudaFree(nullptr);
    double context_s = seconds_since(t);
    t = std::chrono::steady_clock::now();
    std::vector<void*> arrays(4, nullptr);
    for (auto& a : arrays) cudaMalloc(&a, (total_mib / 4) << 20);
    double malloc_s = seconds_since(t);
    t = std::chrono::steady_clock::now();
    for (auto& a : arrays) cudaMemset(a, 1, (total_mib / 4) << 20);
    cudaDeviceSynchronize();
    double memset_s = seconds_since(t);
    t = std::chrono::steady_clock::now();
    for (auto& a : arrays) cudaFree(a);
    double free_s = seconds_since(t);
    std::printf("devices %d runtime %.3f context %.3f malloc %.3f memset %.3f free %.3f status %s\n", count, runtime_s,
                context_s, malloc_s, memset_s, free_s, cudaGetErrorString(cudaGetLastError()));
    return 0;
}
