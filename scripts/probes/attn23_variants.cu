// Lab 07 rung 3 (fused attention on mma.sync, bf16, head_dim 128): which tuning of rung 3
// runs fastest, and where it stands against cuDNN and against rung 3 as run 57 measured it.
// Every candidate is first checked against a plain fp32 reference kernel on odd shapes (seq 1,
// 17, 64, 1000, 2113; head_dim 64 and 128; plain and causal) and against cuDNN's output on the
// timed shapes; then, per timed shape, all candidates and cuDNN (the grader's peer: the same
// backend graph, grader/problems/attention/cudnn_sdpa.cpp) are timed interleaved (A, B, C,
// ... repeated), each launch after a 256 MiB memset that evicts the L2, with CUDA events;
// the table gives medians. Exit 0 only if every candidate was correct. Instructor-side: it
// reads solutions/, so the student edition leaves it out.
//
// The candidates (rung 3's kernel is one template over Tuning<warps, row tiles, keys, lazy max,
// prefetch>, solutions/07-attention/kernels/03_pipelined.cu):
//   run57          rung 3 as run 57 measured it (attn3_run57_kernel.cuh, frozen): 298-302
//                  TFLOP/s. ncu (2026-12-01, 4k): ~1480 instructions a warp a tile for 256
//                  MMAs, ~440 of them the K/V copies (a rolled loop recomputing each chunk's
//                  swizzled address and bounds), ~200 ldmatrix address arithmetic, 128 the
//                  accumulator rescale; issue 0.46 a cycle a scheduler (2 warps each).
//   lean           Chosen: the same tiling (4 warps x 32 queries, 64 keys) with one cp.async per
//                  16-byte chunk (addresses + constants), ldmatrix addresses as XOR/add of
//                  per-lane bases, and the lazy max (rescale only when a row's max rises by more
//                  than a factor 2^8): ~800 instructions a tile for the same 256 MMAs
//                  (estimated from the PTX of this file: ~960 on the common path, of
//                  which ~150 fold away in SASS; not yet profiled).
//   lean_eager     lean with the eager max (rescale every tile): what the lazy max buys.
//   lean_prefetch  lean with each ldmatrix issued one MMA step ahead into a second register set
//                  (the profile's HMMAs wait on the LDSM just before them): if registers allow.
//   lean_k32       4 x 32 queries, 32-key tiles: half the score registers, twice the barriers
//                  (run 57's 32-key row lost 12%, much of it the rescale, paid per tile).
//   lean_k32_pf    lean_k32 with the prefetched fragments (235 registers without: room for them).
//   lean_8x2       8 warps x 32 queries (256 a block, one block an SM, 128 KiB shared).
// Predicted (not yet measured; written 2026-12-01 before any run): lean ~380 TFLOP/s at 4k and
// ~385 at 16k, 350-400 either way (run57 ~300: at the same issue rate, halving the instructions
// per MMA would give ~1.9x, but with fewer filler instructions the MMA and ldmatrix latencies,
// hidden by only two warps a scheduler, bind sooner: we count on a quarter to a third of it);
// causal ~335 (4k) and ~355 (16k). lean_eager ~5-8% under lean (16% more instructions);
// lean_prefetch within +-3% of lean (spills would make it worse: see -Xptxas -v); lean_k32,
// lean_k32_pf and lean_8x2 under lean, as in run 57. If
// another lean row wins by more than ~3%, switch `using Chosen = Tuning<...>` in
// solutions/07-attention/kernels/03_pipelined.cu to its arguments (kCandidates below).
// Measured 2026-12-01 (results/2026-12-01-h200-runs62-65.md; 4k / 4k causal / 16k / 16k
// causal, TFLOP/s): run57 289.3 / 264.1 / 296.9 / 279.4; lean 382.2 / 346.5 / 396.3 / 374.2
// (58-60% of cuDNN); lean_eager 4-5% under lean; lean_prefetch level with it; lean_k32 and
// lean_k32_pf 12-13% under; lean_8x2 11-15% under. Lean stays Chosen.
//
// From the course root, on a machine with an sm_90 GPU and cuDNN 9:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Igrader/include -Igrader/problems/attention \
//       -o /tmp/attn23_variants scripts/probes/attn23_variants.cu grader/problems/attention/cudnn_sdpa.cpp \
//       -lcudnn && /tmp/attn23_variants
// (scripts/device/attn23.sh does this). Optional argument: timed rounds at seq 4096 (default 20;
// seq 16384 takes a quarter of them).
#include "probe_check.cuh"
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "cudnn_sdpa.hpp"
#include "roofline/attention.cuh"
#include "roofline/cp_async.cuh"
#include "roofline/mma_sync.cuh"

// The solutions register themselves with the grader's harness; here they are only called.
#undef ROOFLINE_ATTENTION_VARIANT
#undef ROOFLINE_ATTENTION_CAUSAL_VARIANT
#define ROOFLINE_ATTENTION_VARIANT(name, launch) static_assert(true, "")
#define ROOFLINE_ATTENTION_CAUSAL_VARIANT(name, launch) static_assert(true, "")
namespace run57 {
#include "attn3_run57_kernel.cuh"
}
namespace rung3 {
#include "../../solutions/07-attention/kernels/03_pipelined.cu"
}

namespace probe {

using Launch = void (*)(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, int, int,
                        int, int, bool, cudaStream_t);

struct Candidate {
    const char* name;
    Launch launch;
};

const Candidate kCandidates[] = {
    {"run57", run57::launch_tiled<run57::Chosen>},
    {"lean", rung3::launch_tiled<rung3::Chosen>},
    {"lean_eager", rung3::launch_tiled<rung3::Tuning<4, 2, 64, false, false>>},
    {"lean_prefetch", rung3::launch_tiled<rung3::Tuning<4, 2, 64, true, true>>},
    {"lean_k32", rung3::launch_tiled<rung3::Tuning<4, 2, 32, true, false>>},
    {"lean_k32_pf", rung3::launch_tiled<rung3::Tuning<4, 2, 32, true, true>>},
    {"lean_8x2", rung3::launch_tiled<rung3::Tuning<8, 2, 64, true, false>>},
};

struct Shape {
    int batch, heads, seq, head_dim;
    bool causal;
    std::size_t elems() const { return std::size_t(batch) * heads * seq * head_dim; }
    double flops() const { return 4.0 * batch * heads * double(seq) * seq * head_dim * (causal ? 0.5 : 1.0); }
};

// The problem's inputs: Q and K uniform in [-3, 3), V in [-1, 1), from a hash of the index.
__global__ void fill(__nv_bfloat16* x, std::size_t n, std::uint32_t seed, float range) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        std::uint32_t h = std::uint32_t(i) * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = __float2bfloat16(range * (2.0f * (h & 0xffffff) / 16777216.0f - 1.0f));
    }
}

// fp32 reference: one warp per query row, lanes split head_dim, a plain online softmax in expf.
__global__ void reference(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, float* o, int seq,
                          int d, bool causal) {
    const int row = blockIdx.x, lane = threadIdx.x;
    const std::size_t head = blockIdx.y * std::size_t(seq) * d;
    const float scale = 1.0f / sqrtf(float(d));
    float acc[4] = {}, qv[4];
    for (int j = 0; j < d / 32; ++j) qv[j] = __bfloat162float(q[head + std::size_t(row) * d + lane + 32 * j]);
    float m = -INFINITY, l = 0;
    const int end = causal ? row + 1 : seq;
    for (int key = 0; key < end; ++key) {
        float dot = 0;
        for (int j = 0; j < d / 32; ++j) dot += qv[j] * __bfloat162float(k[head + std::size_t(key) * d + lane + 32 * j]);
        for (int off = 16; off > 0; off /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, off);
        const float x = dot * scale, new_m = fmaxf(m, x), c = expf(m - new_m), p = expf(x - new_m);
        l = l * c + p;
        for (int j = 0; j < d / 32; ++j)
            acc[j] = acc[j] * c + p * __bfloat162float(v[head + std::size_t(key) * d + lane + 32 * j]);
        m = new_m;
    }
    for (int j = 0; j < d / 32; ++j) o[head + std::size_t(row) * d + lane + 32 * j] = acc[j] / l;
}

struct Buffers {
    __nv_bfloat16 *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr;
    explicit Buffers(const Shape& s) {
        const std::size_t n = s.elems();
        for (auto** p : {&q, &k, &v, &o}) CHECK_CUDA(cudaMalloc(p, n * sizeof(__nv_bfloat16)));
        fill<<<1024, 256>>>(q, n, 1, 3.0f);
        fill<<<1024, 256>>>(k, n, 2, 3.0f);
        fill<<<1024, 256>>>(v, n, 3, 1.0f);
        CHECK_CUDA(cudaGetLastError());
    }
    ~Buffers() {
        for (auto* p : {q, k, v, o}) cudaFree(p);
    }
};

std::vector<float> to_host(const __nv_bfloat16* x, std::size_t n) {
    std::vector<__nv_bfloat16> raw(n);
    CHECK_CUDA(cudaMemcpy(raw.data(), x, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = __bfloat162float(raw[i]);
    return out;
}

// lab.yaml's tolerance: |got - ref| <= 1e-2 + 1e-2 |ref| everywhere, relative l2 <= 6e-3.
bool close_enough(const std::vector<float>& got, const std::vector<float>& ref, double* rel_l2) {
    double err = 0, norm = 0;
    bool ok = true;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double e = double(got[i]) - ref[i];
        if (!(std::fabs(e) <= 1e-2 + 1e-2 * std::fabs(ref[i]))) ok = false;  // NaN fails too
        err += e * e;
        norm += double(ref[i]) * ref[i];
    }
    *rel_l2 = std::sqrt(err / std::max(norm, 1e-30));
    return ok && *rel_l2 <= 6e-3;
}

// Output poisoned with NaN (0xffff) before each launch so an unwritten element fails.
void poison(__nv_bfloat16* o, std::size_t n) { CHECK_CUDA(cudaMemset(o, 0xff, n * sizeof(__nv_bfloat16))); }

bool check_small(const Candidate& c) {
    const Shape shapes[] = {{1, 1, 1, 64, false}, {2, 3, 17, 128, false}, {1, 1, 64, 128, false},
                            {1, 2, 1000, 64, false}, {2, 1, 1000, 128, false}, {1, 2, 2113, 128, false}};
    bool all = true;
    double worst = 0;
    for (Shape s : shapes) {
        for (bool causal : {false, true}) {
            s.causal = causal;
            Buffers b(s);
            float* ref = nullptr;
            CHECK_CUDA(cudaMalloc(&ref, s.elems() * sizeof(float)));
            reference<<<dim3(s.seq, s.batch * s.heads), 32>>>(b.q, b.k, b.v, ref, s.seq, s.head_dim, causal);
            poison(b.o, s.elems());
            c.launch(b.q, b.k, b.v, b.o, s.batch, s.heads, s.seq, s.head_dim, causal, nullptr);
            const cudaError_t e = cudaDeviceSynchronize();
            if (e != cudaSuccess) {
                std::printf("  %-14s %dx%dx%dx%d%s: CUDA error %s\n", c.name, s.batch, s.heads, s.seq, s.head_dim,
                            causal ? " causal" : "", cudaGetErrorString(e));
                std::exit(3);
            }
            std::vector<float> want(s.elems());
            CHECK_CUDA(cudaMemcpy(want.data(), ref, s.elems() * sizeof(float), cudaMemcpyDeviceToHost));
            cudaFree(ref);
            double rel = 0;
            const bool ok = close_enough(to_host(b.o, s.elems()), want, &rel);
            worst = std::max(worst, rel);
            if (!ok) {
                std::printf("  %-14s %dx%dx%dx%d%s: WRONG (rel l2 %.2e)\n", c.name, s.batch, s.heads, s.seq,
                            s.head_dim, causal ? " causal" : "", rel);
                all = false;
            }
        }
    }
    std::printf("  %-14s odd shapes (seq 1-2113, d 64/128, plain+causal): %s, worst rel l2 %.2e\n", c.name,
                all ? "ok" : "FAILED", worst);
    return all;
}

float time_one(const std::function<void()>& launch, void* flush, std::size_t flush_bytes, cudaEvent_t start,
               cudaEvent_t stop) {
    CHECK_CUDA(cudaMemsetAsync(flush, 0, flush_bytes));
    CHECK_CUDA(cudaEventRecord(start));
    launch();
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return ms;
}

double median(std::vector<float> x) {
    std::sort(x.begin(), x.end());
    return x.empty() ? NAN : x[x.size() / 2];
}

}  // namespace probe

int main(int argc, char** argv) {
    using namespace probe;
    const int rounds = argc > 1 ? std::max(3, std::atoi(argv[1])) : 20;
    cudaDeviceProp prop{};
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("# attn23_variants on %s (%d SMs); lab 07 rung 3 beside cuDNN\n", prop.name, prop.multiProcessorCount);

    std::printf("== correctness against an fp32 reference kernel\n");
    bool all_ok = true;
    for (const auto& c : kCandidates) all_ok = check_small(c) && all_ok;

    const std::size_t flush_bytes = 256u << 20;
    void* flush = nullptr;
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));

    // summary[i][shape]: TFLOP/s and fraction of cuDNN, for the compact table at the end.
    const int n = std::size(kCandidates);
    std::vector<std::vector<std::pair<double, double>>> summary(n + 1);
    const Shape timed[] = {{4, 16, 4096, 128, false}, {4, 16, 4096, 128, true}, {1, 16, 16384, 128, false},
                           {1, 16, 16384, 128, true}};
    std::printf("== timed: medians of interleaved launches, L2 flushed before each\n");
    std::printf("%-22s %-14s %10s %9s %9s %s\n", "shape", "candidate", "median ms", "TFLOP/s", "of cuDNN", "check vs cuDNN");
    for (const Shape& s : timed) {
        Buffers b(s);
        __nv_bfloat16* peer_o = nullptr;
        CHECK_CUDA(cudaMalloc(&peer_o, s.elems() * sizeof(__nv_bfloat16)));
        roofline::attention::CudnnSdpa peer;
        const std::string why = peer.plan(s.batch, s.heads, s.seq, s.head_dim, s.causal);
        if (!why.empty()) {
            std::printf("cuDNN refused %dx%dx%dx%d: %s\n", s.batch, s.heads, s.seq, s.head_dim, why.c_str());
            return 4;
        }
        peer.run(b.q, b.k, b.v, peer_o, nullptr);
        CHECK_CUDA(cudaDeviceSynchronize());
        const std::vector<float> peer_out = to_host(peer_o, s.elems());

        // Checked against cuDNN's answer at this shape, then timed.
        std::vector<std::string> verdict;
        for (const auto& c : kCandidates) {
            poison(b.o, s.elems());
            c.launch(b.q, b.k, b.v, b.o, s.batch, s.heads, s.seq, s.head_dim, s.causal, nullptr);
            CHECK_CUDA(cudaDeviceSynchronize());
            double rel = 0;
            const bool ok = close_enough(to_host(b.o, s.elems()), peer_out, &rel);
            all_ok = all_ok && ok;
            char text[64];
            std::snprintf(text, sizeof text, "%s (rel l2 %.1e)", ok ? "ok" : "WRONG", rel);
            verdict.push_back(text);
        }
        std::vector<std::vector<float>> ms(n + 1);
        const int reps = s.seq > 8192 ? std::max(3, rounds / 4) : rounds;
        for (int rep = 0; rep < reps + 1; ++rep) {  // round 0 warms up
            for (int i = 0; i <= n; ++i) {
                const float t = i == n ? time_one([&] { peer.run(b.q, b.k, b.v, peer_o, nullptr); }, flush, flush_bytes,
                                                  start, stop)
                                       : time_one([&] {
                                             kCandidates[i].launch(b.q, b.k, b.v, b.o, s.batch, s.heads, s.seq,
                                                                   s.head_dim, s.causal, nullptr);
                                         },
                                                  flush, flush_bytes, start, stop);
                if (rep > 0) ms[i].push_back(t);
            }
        }
        CHECK_CUDA(cudaGetLastError());
        const double peer_ms = median(ms[n]);
        char shape[64];
        std::snprintf(shape, sizeof shape, "%dx%dx%dx%d%s", s.batch, s.heads, s.seq, s.head_dim, s.causal ? " causal" : "");
        for (int i = 0; i <= n; ++i) {
            const double t = median(ms[i]);
            std::printf("%-22s %-14s %10.3f %9.1f %8.1f%% %s\n", shape, i == n ? "cuDNN" : kCandidates[i].name, t,
                        s.flops() / (t * 1e-3) / 1e12, 100.0 * peer_ms / t, i == n ? "" : verdict[i].c_str());
            summary[i].push_back({s.flops() / (t * 1e-3) / 1e12, peer_ms / t});
        }
        cudaFree(peer_o);
    }
    std::printf("| TFLOP/s (of cuDNN)  %-17s %-17s %-17s %-17s\n", "4k", "4k causal", "16k", "16k causal");
    for (int i = 0; i <= n; ++i) {
        std::printf("| %-18s", i == n ? "cuDNN" : kCandidates[i].name);
        for (const auto& [rate, fraction] : summary[i]) std::printf(" %6.1f (%5.1f%%)  ", rate, 100 * fraction);
        std::printf("\n");
    }
    std::printf("%s\n", all_ok ? "all candidates correct" : "SOME CANDIDATE WRONG");
    return all_ok ? 0 : 1;
}
