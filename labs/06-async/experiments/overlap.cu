// Lab 06's overlap experiment: what keeps a memory-bound kernel at the copy rate is the
// number of bytes in flight, not the number of warps; and a kernel that waits for its data
// before computing pays for both, while one that asks for the next data first pays for the
// slower of the two.
//
// Part A, bytes in flight against occupancy. A kernel reads 1 GiB; each thread asks for U
// independent 16-byte loads before it uses any of them, and the grid holds W warps per SM
// (one block of W x 32 threads per SM, persistent). Bytes in flight per SM = W x 32 x 16 x U.
//   A1: W = 8 fixed, U = 1, 2, 4, 8        (occupancy fixed, bytes in flight doubling)
//   A2: W x U = 32 fixed: W = 32, 16, 8, 4 (bytes in flight fixed, occupancy halving)
// Little's law: rate = min(copy rate, bytes in flight x SMs / latency).
//
// Part B, copy against compute, at a low occupancy (4 warps per SM, U = 4). Each thread
// loads 4 vectors, then runs F dependent FMAs on each. Four timings:
//   memory only (F = 0), compute only (the same FMAs on registers, no loads),
//   serial (load, then compute, then the next load) and
//   prefetched (the next iteration's loads are started before this iteration's FMAs).
// Predict: serial ~ memory + compute; prefetched ~ max(memory, compute).
//
// Usage: lab04-overlap [--latency-ns L] [--copy-tbs R] [--json]   (any NVIDIA GPU)
// With --latency-ns (from lab04-latency-probe, under load) and --copy-tbs (`roofline
// ceilings`), part A prints Little's law's rate beside each measurement.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        std::fprintf(stderr, "overlap: %s failed: %s\n", what, cudaGetErrorString(status));
        std::exit(1);
    }
}

__device__ inline std::uint32_t mix(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

// Part A: U loads in flight per thread, all started before any is used.
template <int U>
__global__ void read_in_flight(const uint4* data, std::size_t vectors, std::uint32_t* sink) {
    const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
    std::uint32_t acc = 0;
    for (std::size_t base = blockIdx.x * blockDim.x + threadIdx.x; base + (U - 1) * threads < vectors;
         base += U * threads) {
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = __ldcs(data + base + u * threads);
#pragma unroll
        for (int u = 0; u < U; ++u) acc ^= mix(v[u]);
    }
    if (acc == 0x9e3779b9u) *sink = acc;  // keeps the loads; almost never true
}

// F dependent FMAs on each of 4 values (4 independent chains).
__device__ inline float compute(const uint4& v, int fmas) {
    float a = __uint_as_float(v.x & 0x3f7fffffu), b = __uint_as_float(v.y & 0x3f7fffffu);
    float c = __uint_as_float(v.z & 0x3f7fffffu), d = __uint_as_float(v.w & 0x3f7fffffu);
    for (int i = 0; i < fmas; ++i) {
        a = fmaf(a, 0.999f, 0.001f);
        b = fmaf(b, 0.999f, 0.001f);
        c = fmaf(c, 0.999f, 0.001f);
        d = fmaf(d, 0.999f, 0.001f);
    }
    return a + b + c + d;
}

enum class Mode { memory_only, compute_only, serial, prefetched };

// Part B: 4 vectors per thread per iteration.
template <Mode kMode>
__global__ void copy_and_compute(const uint4* data, std::size_t vectors, int fmas, float* sink) {
    constexpr int U = 4;
    const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
    const std::size_t first = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0;
    uint4 v[U];
    auto load = [&](std::size_t base) {
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = __ldcs(data + base + u * threads);
    };
    if (kMode == Mode::prefetched) load(first);
#pragma unroll 1
    for (std::size_t base = first; base + (U - 1) * threads < vectors; base += U * threads) {
        uint4 current[U];
        if (kMode == Mode::compute_only) {
#pragma unroll
            for (int u = 0; u < U; ++u) current[u] = make_uint4(std::uint32_t(base) + u, 1u, 2u, 3u);
        } else if (kMode == Mode::prefetched) {
#pragma unroll
            for (int u = 0; u < U; ++u) current[u] = v[u];
            if (base + U * threads + (U - 1) * threads < vectors) load(base + U * threads);  // next, before computing
        } else {
            load(base);
#pragma unroll
            for (int u = 0; u < U; ++u) current[u] = v[u];
        }
        if (kMode == Mode::memory_only) {
#pragma unroll
            for (int u = 0; u < U; ++u) acc += __uint_as_float(mix(current[u]) & 0x3f7fffffu);
        } else {
#pragma unroll
            for (int u = 0; u < U; ++u) acc += compute(current[u], fmas);
        }
    }
    if (acc == 12345.678f) *sink = acc;
}

struct Timer {
    cudaEvent_t start, stop;
    Timer() {
        cudaEventCreate(&start);
        cudaEventCreate(&stop);
    }
    // Median of 5 timed launches after one warm-up, in ms.
    template <typename Launch>
    float median_ms(Launch launch) {
        launch();
        std::vector<float> ms;
        for (int i = 0; i < 5; ++i) {
            cudaEventRecord(start);
            launch();
            cudaEventRecord(stop);
            check(cudaEventSynchronize(stop), "timed launch");
            float t = 0;
            cudaEventElapsedTime(&t, start, stop);
            ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        return ms[2];
    }
};

}  // namespace

int main(int argc, char** argv) {
    double latency_ns = 0, copy_tbs = 0;
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--latency-ns") && i + 1 < argc) latency_ns = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--copy-tbs") && i + 1 < argc) copy_tbs = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--json")) json = true;
        else {
            std::fprintf(stderr, "usage: %s [--latency-ns L] [--copy-tbs R] [--json]\n", argv[0]);
            return 2;
        }
    }
    int device = 0, sms = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "properties");

    const std::size_t bytes = std::size_t(1) << 30;
    const std::size_t vectors = bytes / 16;
    uint4* data = nullptr;
    std::uint32_t* sink = nullptr;
    float* fsink = nullptr;
    check(cudaMalloc(&data, bytes), "cudaMalloc");
    check(cudaMemset(data, 0x3c, bytes), "cudaMemset");
    check(cudaMalloc(&sink, 4), "cudaMalloc");
    check(cudaMalloc(&fsink, 4), "cudaMalloc");
    Timer timer;

    struct Row { std::string part; int warps, per_thread; double kib_in_flight, measured_tbs, predicted_tbs; };
    std::vector<Row> rows;
    auto part_a = [&](const char* part, int warps, int u) {
        auto launch = [&] {
            const int threads = warps * 32;
            switch (u) {
                case 1: read_in_flight<1><<<sms, threads>>>(data, vectors, sink); break;
                case 2: read_in_flight<2><<<sms, threads>>>(data, vectors, sink); break;
                case 4: read_in_flight<4><<<sms, threads>>>(data, vectors, sink); break;
                default: read_in_flight<8><<<sms, threads>>>(data, vectors, sink); break;
            }
        };
        const float ms = timer.median_ms(launch);
        check(cudaGetLastError(), "read_in_flight");
        const double kib = warps * 32.0 * 16 * u / 1024;
        const double little = latency_ns > 0 ? kib * 1024 * sms / (latency_ns * 1e-9) / 1e12 : 0;
        const double predicted = latency_ns > 0 ? (copy_tbs > 0 ? std::min(copy_tbs, little) : little) : 0;
        rows.push_back({part, warps, u, kib, bytes / (ms * 1e-3) / 1e12, predicted});
    };
    for (int u : {1, 2, 4, 8}) part_a("A1", 8, u);
    for (int w : {32, 16, 8, 4}) part_a("A2", w, 32 / w);

    // Part B: 4 warps per SM; F chosen so that compute alone takes about as long as memory alone.
    const int fmas = 64;
    const int b_threads = 128;
    const float memory_ms = timer.median_ms([&] {
        copy_and_compute<Mode::memory_only><<<sms, b_threads>>>(data, vectors, fmas, fsink);
    });
    const float compute_ms = timer.median_ms([&] {
        copy_and_compute<Mode::compute_only><<<sms, b_threads>>>(data, vectors, fmas, fsink);
    });
    const float serial_ms = timer.median_ms([&] {
        copy_and_compute<Mode::serial><<<sms, b_threads>>>(data, vectors, fmas, fsink);
    });
    const float prefetched_ms = timer.median_ms([&] {
        copy_and_compute<Mode::prefetched><<<sms, b_threads>>>(data, vectors, fmas, fsink);
    });
    check(cudaGetLastError(), "copy_and_compute");

    if (json) {
        std::printf("{\"gpu\": \"%s\", \"latency_ns\": %.1f, \"copy_tbs\": %.3f, \"part_a\": [", prop.name, latency_ns,
                    copy_tbs);
        for (std::size_t i = 0; i < rows.size(); ++i)
            std::printf("%s{\"part\": \"%s\", \"warps_per_sm\": %d, \"loads_per_thread\": %d, \"kib_in_flight_per_sm\": "
                        "%.0f, \"measured_tbs\": %.3f, \"littles_law_tbs\": %.3f}",
                        i ? ", " : "", rows[i].part.c_str(), rows[i].warps, rows[i].per_thread, rows[i].kib_in_flight,
                        rows[i].measured_tbs, rows[i].predicted_tbs);
        std::printf("], \"part_b\": {\"fmas\": %d, \"memory_ms\": %.4f, \"compute_ms\": %.4f, \"serial_ms\": %.4f, "
                    "\"prefetched_ms\": %.4f}}\n",
                    fmas, memory_ms, compute_ms, serial_ms, prefetched_ms);
        return 0;
    }
    std::printf("%s, %d SMs, 1 GiB read per timing (median of 5)\n\n", prop.name, sms);
    std::printf("Part A: bytes in flight against occupancy\n");
    std::printf("  part  warps/SM  loads/thread  KiB in flight/SM  measured TB/s  Little's law TB/s\n");
    for (const auto& r : rows) {
        std::printf("  %-4s  %8d  %12d  %16.0f  %13.2f  ", r.part.c_str(), r.warps, r.per_thread, r.kib_in_flight,
                    r.measured_tbs);
        if (latency_ns > 0) std::printf("%17.2f\n", r.predicted_tbs);
        else std::printf("%17s\n", "(--latency-ns)");
    }
    std::printf("\nPart B: copy against compute, 4 warps/SM, %d dependent FMAs per value\n", fmas);
    std::printf("  memory only   %8.3f ms\n  compute only  %8.3f ms\n", memory_ms, compute_ms);
    std::printf("  serial        %8.3f ms   (memory + compute = %.3f)\n", serial_ms, memory_ms + compute_ms);
    std::printf("  prefetched    %8.3f ms   (max(memory, compute) = %.3f)\n", prefetched_ms,
                std::max(memory_ms, compute_ms));
    return 0;
}
