// The part every lab 08 candidates probe shares (scripts/probes/attn2_variants.cu,
// attn23_variants.cu): the shapes, the inputs, the fp32 reference and cuDNN checks, the
// interleaved timing with the L2 evicted before each launch, the table, and main().
// The including file defines, in namespace probe, before including this:
//   Launch and Candidate (a name and a launch function), kCandidates (the array of them),
//   kProbeName and kProbeSubject (for the table's first line),
// after including probe_check.cuh, cudnn_sdpa.hpp, roofline/contract/attention.cuh and the standard
// headers it needs (algorithm, cmath, cstdint, cstdio, cstdlib, functional, iterator, string,
// vector).
#pragma once

namespace probe {
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
    std::printf("# %s on %s (%d SMs); %s beside cuDNN\n", kProbeName, prop.name, prop.multiProcessorCount, kProbeSubject);

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
