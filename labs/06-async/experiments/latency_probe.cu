// Lab 06, rung 0: how long one load waits for memory. A single thread follows a chain of
// pointers laid out in a random cycle, so that each load's address comes from the load
// before it and nothing overlaps: the time per step is the latency of one access.
//
//   idle DRAM: the chain spans 4x the L2, so nearly every step misses it;
//   L2 hit:    the chain spans 1/8 of the L2 and is walked once first to warm it;
//   DRAM under load: the same DRAM chain while every other SM streams through 1 GiB.
//
// The under-load figure is the one Little's law wants for a streaming kernel (bytes in
// flight = rate x latency): queues in the memory system lengthen every access when the
// DRAM is busy. Both kernels read the global timer at their start and end, and the probe
// reports how much of the chase ran while the stream did (it should be all of it). Random addresses also miss the GPU's TLBs more often than a stream
// does, so the idle DRAM figure is an upper bound on a sequential access's latency.
//
// Usage: lab04-latency-probe [--steps N] [--json]       (any NVIDIA GPU)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

namespace {

constexpr int kLineWords = 32;  // one chain node per 128-byte line (32 x uint32)

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        std::fprintf(stderr, "latency_probe: %s failed: %s\n", what, cudaGetErrorString(status));
        std::exit(1);
    }
}

__device__ inline std::uint64_t global_ns() {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// node[line * 32] holds the word index of the next node.
__global__ void write_chain(std::uint32_t* nodes, const std::uint32_t* next_line, std::uint32_t lines) {
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < lines; i += gridDim.x * blockDim.x)
        nodes[std::size_t(i) * kLineWords] = next_line[i] * kLineWords;
}

// Global-timer readings of the run under load: when the first streaming block started and
// the last one ended, and when the chase's first and last loads were issued.
struct Window {
    unsigned long long stream_begin, stream_end, chase_begin, chase_end;
};

// One thread: optionally waits until `start` is set (the load is running), walks `steps`
// links, records the ns per step (and, given `window`, when it ran), and sets `done`
// (which stops the load).
__global__ void chase(const std::uint32_t* nodes, int steps, volatile int* start, volatile int* done,
                      double* ns_per_step, std::uint32_t* sink, Window* window) {
    if (start) {
        const std::uint64_t give_up = global_ns() + 2000000000ull;  // 2 s: the load never started
        while (*start == 0 && global_ns() < give_up) {
        }
    }
    std::uint32_t at = 0;
    const std::uint64_t t0 = global_ns();
    for (int i = 0; i < steps; ++i) at = __ldcg(nodes + at);  // .cg: cached in L2 only, not L1
    const std::uint64_t t1 = global_ns();
    *ns_per_step = double(t1 - t0) / steps;
    *sink = at;
    if (window) window->chase_begin = t0, window->chase_end = t1;
    if (done) {
        __threadfence();
        *done = 1;
    }
}

// The load: every block streams through `words` uint4s until `done` is set (or `max_passes`).
__global__ void stream_until(const uint4* data, std::size_t words, volatile int* start, volatile int* done,
                             int max_passes, unsigned long long* bytes_read, std::uint32_t* sink, Window* window) {
    if (threadIdx.x == 0) {
        atomicMin(&window->stream_begin, static_cast<unsigned long long>(global_ns()));
        if (blockIdx.x == 0) *start = 1;
    }
    std::uint32_t acc = 0;
    std::size_t read = 0;
    for (int pass = 0; pass < max_passes && *done == 0; ++pass) {
        for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += gridDim.x * blockDim.x) {
            uint4 v = __ldcs(data + i);
            acc ^= v.x ^ v.y ^ v.z ^ v.w;
        }
        read += words / (gridDim.x * blockDim.x) * 16;
    }
    atomicAdd(bytes_read, static_cast<unsigned long long>(read));
    if (acc == 0x12345678u) *sink = acc;
    __syncthreads();
    if (threadIdx.x == 0) atomicMax(&window->stream_end, static_cast<unsigned long long>(global_ns()));
}

struct Chain {
    std::uint32_t* nodes = nullptr;
    std::size_t bytes = 0;
};

// A random single cycle (Sattolo's shuffle) over `bytes / 128` lines.
Chain make_chain(std::size_t bytes, unsigned seed) {
    const std::uint32_t lines = std::uint32_t(bytes / (kLineWords * 4));
    std::vector<std::uint32_t> order(lines);
    std::iota(order.begin(), order.end(), 0u);
    std::mt19937 rng(seed);
    for (std::uint32_t i = lines - 1; i > 0; --i) std::swap(order[i], order[std::uniform_int_distribution<std::uint32_t>(0, i - 1)(rng)]);
    std::vector<std::uint32_t> next(lines);
    for (std::uint32_t i = 0; i < lines; ++i) next[order[i]] = order[(i + 1) % lines];
    // Start the walk at line 0 (node index 0 is on the cycle: it is a single cycle).
    Chain chain;
    chain.bytes = std::size_t(lines) * kLineWords * 4;
    std::uint32_t* next_device = nullptr;
    check(cudaMalloc(&chain.nodes, chain.bytes), "cudaMalloc(chain)");
    check(cudaMalloc(&next_device, lines * sizeof(std::uint32_t)), "cudaMalloc(next)");
    check(cudaMemcpy(next_device, next.data(), lines * sizeof(std::uint32_t), cudaMemcpyHostToDevice), "copy chain");
    write_chain<<<1024, 256>>>(chain.nodes, next_device, lines);
    check(cudaDeviceSynchronize(), "write_chain");
    cudaFree(next_device);
    return chain;
}

}  // namespace

int main(int argc, char** argv) {
    int steps = 20000;
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) steps = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--json")) json = true;
        else {
            std::fprintf(stderr, "usage: %s [--steps N] [--json]\n", argv[0]);
            return 2;
        }
    }
    int device = 0, l2_bytes = 0, sms = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device), "L2 size");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "properties");

    double* ns = nullptr;
    std::uint32_t* sink = nullptr;
    int* flags = nullptr;  // [0] start, [1] done
    unsigned long long* bytes_read = nullptr;
    check(cudaMalloc(&ns, sizeof(double)), "cudaMalloc");
    check(cudaMalloc(&sink, sizeof(std::uint32_t)), "cudaMalloc");
    check(cudaMalloc(&flags, 2 * sizeof(int)), "cudaMalloc");
    check(cudaMalloc(&bytes_read, sizeof(unsigned long long)), "cudaMalloc");
    auto run_chase = [&](const Chain& chain, int n) {
        chase<<<1, 1>>>(chain.nodes, n, nullptr, nullptr, ns, sink, nullptr);
        check(cudaDeviceSynchronize(), "chase");
    };

    // DRAM, idle: a chain over 4x the L2.
    Chain dram = make_chain(std::size_t(4) * l2_bytes, 1);
    run_chase(dram, 1000);  // warms the instruction cache and the TLBs a little
    run_chase(dram, steps);
    double dram_idle = 0;
    check(cudaMemcpy(&dram_idle, ns, sizeof(double), cudaMemcpyDeviceToHost), "read ns");

    // L2 hit: a chain over 1/8 of the L2, walked once to bring it in.
    Chain l2 = make_chain(std::size_t(l2_bytes) / 8, 2);
    const int l2_lines = int(l2.bytes / 128);
    run_chase(l2, l2_lines);
    run_chase(l2, steps);
    double l2_hit = 0;
    check(cudaMemcpy(&l2_hit, ns, sizeof(double), cudaMemcpyDeviceToHost), "read ns");

    // DRAM under load: the chase waits for the stream to start, then stops it when done.
    const std::size_t load_bytes = std::size_t(1) << 30;
    uint4* load = nullptr;
    check(cudaMalloc(&load, load_bytes), "cudaMalloc(load)");
    check(cudaMemset(load, 1, load_bytes), "cudaMemset(load)");
    cudaStream_t chase_stream, load_stream;
    check(cudaStreamCreateWithFlags(&chase_stream, cudaStreamNonBlocking), "stream");
    check(cudaStreamCreateWithFlags(&load_stream, cudaStreamNonBlocking), "stream");
    Window* window = nullptr;
    check(cudaMalloc(&window, sizeof(Window)), "cudaMalloc(window)");
    // Load both kernels now. With lazy loading (the default since CUDA 12.2) the first
    // launch of stream_until would load it then, and loading may wait for the GPU to be
    // idle, i.e. for the chase, which is spinning until the stream starts: the two would
    // never overlap (the chase gives up after 2 s and runs alone).
    cudaFuncAttributes attributes{};
    check(cudaFuncGetAttributes(&attributes, stream_until), "load stream_until");
    check(cudaFuncGetAttributes(&attributes, chase), "load chase");

    double dram_loaded = 0, load_tbs = 0, overlap = 0;
    // One run under load; `chase_first`: the chase is launched first (so that its one warp
    // is resident before the load fills the GPU) and walks once the first streaming block
    // has set the start flag. Otherwise the stream goes first and the chase finds a slot
    // beside its 4 blocks per SM.
    auto run_under_load = [&](bool chase_first) {
        const Window fresh{~0ull, 0, 0, 0};
        check(cudaMemcpy(window, &fresh, sizeof(Window), cudaMemcpyHostToDevice), "copy window");
        check(cudaMemset(flags, 0, 2 * sizeof(int)), "cudaMemset(flags)");
        check(cudaMemset(bytes_read, 0, sizeof(unsigned long long)), "cudaMemset");
        auto launch_chase = [&] { chase<<<1, 1, 0, chase_stream>>>(dram.nodes, steps, flags, flags + 1, ns, sink, window); };
        if (chase_first) launch_chase();
        stream_until<<<sms * 4, 256, 0, load_stream>>>(load, load_bytes / 16, flags, flags + 1, 100000, bytes_read,
                                                       sink, window);
        if (!chase_first) launch_chase();
        check(cudaDeviceSynchronize(), "chase under load");
        unsigned long long streamed = 0;
        Window ran{};
        check(cudaMemcpy(&dram_loaded, ns, sizeof(double), cudaMemcpyDeviceToHost), "read ns");
        check(cudaMemcpy(&streamed, bytes_read, sizeof(streamed), cudaMemcpyDeviceToHost), "read bytes");
        check(cudaMemcpy(&ran, window, sizeof(Window), cudaMemcpyDeviceToHost), "read window");
        const double stream_ns = ran.stream_end > ran.stream_begin ? double(ran.stream_end - ran.stream_begin) : 0;
        load_tbs = stream_ns > 0 ? streamed / stream_ns * 1e-3 : 0;  // bytes per ns is GB/s
        // The part of the chase that ran while the stream did (1 = all of it).
        const double chase_ns = double(ran.chase_end - ran.chase_begin);
        const double shared_ns = std::max(0.0, double(std::min(ran.chase_end, ran.stream_end)) -
                                                   double(std::max(ran.chase_begin, ran.stream_begin)));
        overlap = chase_ns > 0 && stream_ns > 0 ? shared_ns / chase_ns : 0;
    };
    run_under_load(true);
    if (overlap < 0.95) {
        std::fprintf(stderr, "latency_probe: the load ran beside only %.0f%% of the chase; again, the load first\n",
                     100 * overlap);
        run_under_load(false);
    }

    if (overlap < 0.95)
        std::fprintf(stderr, "latency_probe: the load ran beside only %.0f%% of the chase; the under-load figure "
                     "is partly an idle one\n", 100 * overlap);
    if (json) {
        std::printf("{\"gpu\": \"%s\", \"steps\": %d, \"l2_bytes\": %d, \"dram_idle_ns\": %.1f, \"l2_hit_ns\": %.1f, "
                    "\"dram_under_load_ns\": %.1f, \"load_tbs\": %.3f, \"load_overlap\": %.3f}\n",
                    prop.name, steps, l2_bytes, dram_idle, l2_hit, dram_loaded, load_tbs, overlap);
    } else {
        std::printf("%s: pointer chase, %d dependent loads each, one thread\n", prop.name, steps);
        std::printf("  L2 hit (chain over %zu MiB):          %7.1f ns per load\n", l2.bytes >> 20, l2_hit);
        std::printf("  DRAM, idle (chain over %zu MiB):     %7.1f ns per load\n", dram.bytes >> 20, dram_idle);
        std::printf("  DRAM, under load (%.2f TB/s streamed): %7.1f ns per load  (the stream ran beside %.0f%% of the chase)\n",
                    load_tbs, dram_loaded, 100 * overlap);
        std::printf("Little's law for a stream: bytes in flight per SM = rate x latency / %d SMs\n", sms);
    }
    return 0;
}
