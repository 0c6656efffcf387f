// The fused small-batch step (skinny_gemv.cuh, labs/10-production/server/): an answer to lab 09's
// fused layer in batch form, so it lives here, linked into the server where solutions/ exists
// (fast_kernels.cuh says what the student edition's server does instead).
#include "check.cuh"
#include "skinny_gemv.cuh"

// Lab 09's given helpers: unpack8 / load8 (8 bf16 in one 16-byte load, as floats), warp_sum.
#include "given/decode_fused_helpers.cuh"  // labs/09-decode/given/

#include "roofline/ptx/grid_dependency.cuh"
#include "roofline/ptx/tma.cuh"

#include <algorithm>
#include <map>
#include <utility>

namespace server {

namespace {

constexpr int kGemvWarps = 8, kGemvThreads = 32 * kGemvWarps;

// Programmatic dependent launch (skinny_gemv.cuh, set_overlap_launches). Without the launch
// attribute its two instructions return at once, so the kernels are the same either way.
bool overlap_launches = false;
// The first kPrefetchBytes of a weight row into L2 (one bulk prefetch, by one lane): the first
// rounds of warp_dots' loop (4 x 32 lanes x 16 bytes = 2 KB a round). Only each warp's first unit:
// at batch 1 that is ~5-17 MB a kernel, well inside the 50 MB L2.
constexpr unsigned kPrefetchBytes = 2048;
__device__ __forceinline__ void prefetch_row(const bf16* row, int width) {
    const unsigned bytes = min(kPrefetchBytes, unsigned(width) * unsigned(sizeof(bf16))) & ~15u;
    if (threadIdx.x % 32 == 0 && bytes > 0) roofline::tma::prefetch_l2(row, bytes);
}
// Every fused kernel starts with this: its first rows asked for, then the wait for the outputs of
// the kernel before (x, act: this kernel's inputs), then the next kernel allowed to start.
__device__ __forceinline__ void begin_overlapped(const bf16* first_row, const bf16* second_row, int width) {
    if (first_row) prefetch_row(first_row, width);
    if (second_row) prefetch_row(second_row, width);
    roofline::grid_dependency::wait_for_previous_kernel();
    roofline::grid_dependency::let_next_kernel_start();
}

// One warp per unit, blocks of 8 warps: as many blocks as there are units for, up to what the
// GPU holds at once (the kernel's occupancy), each block looping over units (so a block sums x^2
// for its norm once, and no second wave of blocks starts late).
template <class Kernel>
int gemv_grid(Kernel kernel, long long units) {
    static std::map<const void*, int> resident;  // per kernel, asked once (host side, before any capture)
    auto found = resident.find(reinterpret_cast<const void*>(kernel));
    if (found == resident.end()) {
        int device = 0, sms = 0, per_sm = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kGemvThreads, 0));
        found = resident.emplace(reinterpret_cast<const void*>(kernel), std::max(1, per_sm) * sms).first;
    }
    return int(std::max<long long>(1, std::min<long long>((units + kGemvWarps - 1) / kGemvWarps, found->second)));
}

// A launch of one of the kernels below, with the programmatic-dependent-launch attribute when
// overlap_launches is on (a CUDA graph captured from the stream keeps it as a programmatic edge).
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), int grid, cudaStream_t stream, Args&&... args) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(kGemvThreads);
    config.stream = stream;
    cudaLaunchAttribute overlap{};
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &overlap;
    config.numAttrs = overlap_launches ? 1 : 0;
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

// The warp's dot products of NR weight rows (K wide, K % 8 == 0) with the NB input rows of `in`
// (row stride K), each input times gamma where one is given; acc[r][b], summed over the lanes.
// With kSquares, also each input row's sum of squares (before gamma), for its RMS norm: the warp
// reads the whole row anyway, so the norm needs no pass of its own over x, and no block barrier
// before the weights start streaming (a few microseconds a kernel at batch 1).
template <int NB, int NR, bool kSquares = false>
__device__ __forceinline__ void warp_dots(const bf16* const (&w)[NR], const bf16* in, const bf16* gamma, int K,
                                          float (&acc)[NR][NB], float (&squares)[NB]) {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int b = 0; b < NB; ++b) {
        squares[b] = 0;
#pragma unroll
        for (int r = 0; r < NR; ++r) acc[r][b] = 0;
    }
#pragma unroll 4
    for (int v = lane; v < K / 8; v += 32) {
        float wf[NR][8];
#pragma unroll
        for (int r = 0; r < NR; ++r) unpack8(__ldg(reinterpret_cast<const uint4*>(w[r]) + v), wf[r]);
        float g[8];
        if (gamma) load8(gamma, v, g);
#pragma unroll
        for (int b = 0; b < NB; ++b) {
            float a[8];
            load8(in + std::size_t(b) * K, v, a);
            if constexpr (kSquares)
#pragma unroll
                for (int i = 0; i < 8; ++i) squares[b] = fmaf(a[i], a[i], squares[b]);
            if (gamma)
#pragma unroll
                for (int i = 0; i < 8; ++i) a[i] *= g[i];
#pragma unroll
            for (int r = 0; r < NR; ++r)
#pragma unroll
                for (int i = 0; i < 8; ++i) acc[r][b] = fmaf(wf[r][i], a[i], acc[r][b]);
        }
    }
#pragma unroll
    for (int b = 0; b < NB; ++b) {
        if constexpr (kSquares) squares[b] = warp_sum(squares[b]);
#pragma unroll
        for (int r = 0; r < NR; ++r) acc[r][b] = warp_sum(acc[r][b]);
    }
}

// The same without the sums of squares (a GEMV with no norm before it).
template <int NB, int NR>
__device__ __forceinline__ void warp_dots(const bf16* const (&w)[NR], const bf16* in, const bf16* gamma, int K,
                                          float (&acc)[NR][NB]) {
    float unused[NB];
    warp_dots<NB, NR, false>(w, in, gamma, K, acc, unused);
}

// 1 / rms of a row of `width` from its sum of squares.
__device__ __forceinline__ float inverse_rms(float squares, int width) { return rsqrtf(squares / width + kRmsEps); }

// Unit u (one warp): rows row0 = (u / 64) * 128 + u % 64 and row0 + 64 of W_qkv, the pair RoPE
// rotates; head u / 64 is a query head, then a key head, then a value head.
template <int NB>
__global__ __launch_bounds__(kGemvThreads) void norm_qkv_rope_kernel(NormQkvArgs a) {
    constexpr int kHalf = 64;  // head_dim 128
    const int heads = a.q_heads + 2 * a.kv_heads, units = heads * kHalf, qkv_dim = heads * 2 * kHalf;
    const int lane = threadIdx.x % 32;
    {
        const int u = blockIdx.x * kGemvWarps + threadIdx.x / 32, row0 = (u / kHalf) * 2 * kHalf + u % kHalf;
        const bool mine = u < units;
        begin_overlapped(mine ? a.w + std::size_t(row0) * a.hidden : nullptr,
                         mine ? a.w + std::size_t(row0 + kHalf) * a.hidden : nullptr, a.hidden);
    }
    for (int u = blockIdx.x * kGemvWarps + threadIdx.x / 32; u < units; u += gridDim.x * kGemvWarps) {
        const int head = u / kHalf, i = u % kHalf, row0 = head * 2 * kHalf + i, row1 = row0 + kHalf;
        const bf16* const rows[2] = {a.w + std::size_t(row0) * a.hidden, a.w + std::size_t(row1) * a.hidden};
        float acc[2][NB], squares[NB];
        warp_dots<NB, 2, true>(rows, a.x, a.gamma, a.hidden, acc, squares);
        if (lane >= NB) continue;
        // Lane b writes sequence b's pair (the values are in every lane after the warp sums).
        float lo = 0, hi = 0;
#pragma unroll
        for (int b = 0; b < NB; ++b)
            if (b == lane) {
                const float inv = inverse_rms(squares[b], a.hidden);
                lo = acc[0][b] * inv, hi = acc[1][b] * inv;
            }
        const int b = lane, pos = a.positions[b];
        if (head < a.q_heads + a.kv_heads) {  // q or k: rotate, as rope_and_append_kv does
            const float inv_freq = float(pow(kRopeTheta, -2.0 * i / (2 * kHalf)));
            float s, c;
            sincosf(float(pos) * inv_freq, &s, &c);
            const float rlo = lo * c - hi * s, rhi = hi * c + lo * s;
            lo = rlo, hi = rhi;
        }
        const bf16 lo16 = __float2bfloat16(lo), hi16 = __float2bfloat16(hi);
        a.qkv[std::size_t(b) * qkv_dim + row0] = lo16;
        a.qkv[std::size_t(b) * qkv_dim + row1] = hi16;
        if (head >= a.q_heads) {
            const bool is_k = head < a.q_heads + a.kv_heads;
            const int kv = is_k ? head - a.q_heads : head - a.q_heads - a.kv_heads;
            const std::size_t at = ((std::size_t(b) * a.kv_heads + kv) * a.max_context + pos) * (2 * kHalf) + i;
            if (a.k_cache8) {
                const float scale_inv = 1.0f / (is_k ? a.k_scales[kv] : a.v_scales[kv]);
                std::uint8_t* cache = is_k ? a.k_cache8 : a.v_cache8;
                cache[at] = fp8_e4m3(__bfloat162float(lo16) * scale_inv);
                cache[at + kHalf] = fp8_e4m3(__bfloat162float(hi16) * scale_inv);
            } else {
                bf16* cache = is_k ? a.k_cache : a.v_cache;
                cache[at] = lo16;
                cache[at + kHalf] = hi16;
            }
        }
    }
}

template <int NB>
__global__ __launch_bounds__(kGemvThreads) void gemv_residual_kernel(const bf16* w, const bf16* act, bf16* x, int rows,
                                                                     int k) {
    const int lane = threadIdx.x % 32;
    {
        const int row = blockIdx.x * kGemvWarps + threadIdx.x / 32;
        begin_overlapped(row < rows ? w + std::size_t(row) * k : nullptr, nullptr, k);
    }
    for (int row = blockIdx.x * kGemvWarps + threadIdx.x / 32; row < rows; row += gridDim.x * kGemvWarps) {
        const bf16* const wr[1] = {w + std::size_t(row) * k};
        float acc[1][NB];
        warp_dots<NB, 1>(wr, act, nullptr, k, acc);
#pragma unroll
        for (int b = 0; b < NB; ++b)
            if (b == lane) {  // x is read and written by this warp alone: no other block reads it in this kernel
                bf16& out = x[std::size_t(b) * rows + row];
                out = __float2bfloat16(__bfloat162float(out) + acc[0][b]);
            }
    }
}

template <int NB>
__global__ __launch_bounds__(kGemvThreads) void norm_gate_up_swiglu_kernel(const bf16* w, const bf16* x, const bf16* gamma,
                                                                           bf16* act, int hidden, int mlp) {
    {
        const int j = blockIdx.x * kGemvWarps + threadIdx.x / 32;
        begin_overlapped(j < mlp ? w + std::size_t(j) * hidden : nullptr,
                         j < mlp ? w + (std::size_t(mlp) + j) * hidden : nullptr, hidden);
    }
    const int lane = threadIdx.x % 32;
    for (int j = blockIdx.x * kGemvWarps + threadIdx.x / 32; j < mlp; j += gridDim.x * kGemvWarps) {
        const bf16* const rows[2] = {w + std::size_t(j) * hidden, w + (std::size_t(mlp) + j) * hidden};
        float acc[2][NB], squares[NB];
        warp_dots<NB, 2, true>(rows, x, gamma, hidden, acc, squares);
#pragma unroll
        for (int b = 0; b < NB; ++b)
            if (b == lane) {
                const float inv = inverse_rms(squares[b], hidden);
                const float g = acc[0][b] * inv, u = acc[1][b] * inv;
                act[std::size_t(b) * mlp + j] = __float2bfloat16(g / (1.0f + __expf(-g)) * u);
            }
    }
}

template <int NB>
__global__ __launch_bounds__(kGemvThreads) void norm_gemv_f32_kernel(const bf16* w, const bf16* x, const bf16* gamma,
                                                                     float* y, int ldy, int rows, int hidden) {
    {
        const int row = blockIdx.x * kGemvWarps + threadIdx.x / 32;
        begin_overlapped(row < rows ? w + std::size_t(row) * hidden : nullptr, nullptr, hidden);
    }
    const int lane = threadIdx.x % 32;
    for (int row = blockIdx.x * kGemvWarps + threadIdx.x / 32; row < rows; row += gridDim.x * kGemvWarps) {
        const bf16* const wr[1] = {w + std::size_t(row) * hidden};
        float acc[1][NB], squares[NB];
        warp_dots<NB, 1, true>(wr, x, gamma, hidden, acc, squares);
#pragma unroll
        for (int b = 0; b < NB; ++b)
            if (b == lane) y[std::size_t(b) * ldy + row] = acc[0][b] * inverse_rms(squares[b], hidden);
    }
}

// The kernel instantiated for exactly `batch` rows (1 to kMaxSkinnyBatch).
template <template <int> class Launch, class... Args>
void for_batch(int batch, Args&&... args) {
    switch (batch) {
        case 1: Launch<1>::run(args...); break;
        case 2: Launch<2>::run(args...); break;
        case 3: Launch<3>::run(args...); break;
        case 4: Launch<4>::run(args...); break;
        case 5: Launch<5>::run(args...); break;
        case 6: Launch<6>::run(args...); break;
        case 7: Launch<7>::run(args...); break;
        case 8: Launch<8>::run(args...); break;
        default: fail_now("the fused small-batch step takes batches of 1 to 8, not " + std::to_string(batch));
    }
}

template <int NB>
struct QkvLaunch {
    static void run(const NormQkvArgs& a, cudaStream_t stream) {
        const int units = (a.q_heads + 2 * a.kv_heads) * 64;
        launch(norm_qkv_rope_kernel<NB>, gemv_grid(norm_qkv_rope_kernel<NB>, units), stream, a);
    }
};
template <int NB>
struct ResidualLaunch {
    static void run(const bf16* w, const bf16* act, bf16* x, int rows, int k, cudaStream_t stream) {
        launch(gemv_residual_kernel<NB>, gemv_grid(gemv_residual_kernel<NB>, rows), stream, w, act, x, rows, k);
    }
};
template <int NB>
struct GateUpLaunch {
    static void run(const bf16* w, const bf16* x, const bf16* gamma, bf16* act, int hidden, int mlp, cudaStream_t stream) {
        launch(norm_gate_up_swiglu_kernel<NB>, gemv_grid(norm_gate_up_swiglu_kernel<NB>, mlp), stream, w, x, gamma, act,
               hidden, mlp);
    }
};
template <int NB>
struct LogitsLaunch {
    static void run(const bf16* w, const bf16* x, const bf16* gamma, float* y, int ldy, int rows, int hidden,
                    cudaStream_t stream) {
        launch(norm_gemv_f32_kernel<NB>, gemv_grid(norm_gemv_f32_kernel<NB>, rows), stream, w, x, gamma, y, ldy, rows,
               hidden);
    }
};

void check_widths(int hidden, int k) {
    // 16-byte loads of weight rows and inputs: widths a multiple of 8 (Llama-3-8B's are multiples of 256).
    if (hidden % 8 != 0 || k % 8 != 0) fail_now("the fused small-batch step takes widths that are multiples of 8");
}

}  // namespace

void set_overlap_launches(bool on) { overlap_launches = on; }

void norm_qkv_rope(const NormQkvArgs& a, cudaStream_t stream) {
    check_widths(a.hidden, a.hidden);
    for_batch<QkvLaunch>(a.batch, a, stream);
}

void gemv_residual(const bf16* w, const bf16* act, bf16* x, int batch, int rows, int k, cudaStream_t stream) {
    check_widths(rows, k);
    for_batch<ResidualLaunch>(batch, w, act, x, rows, k, stream);
}

void norm_gate_up_swiglu(const bf16* w, const bf16* x, const bf16* gamma, bf16* act, int batch, int hidden, int mlp,
                         cudaStream_t stream) {
    check_widths(hidden, hidden);
    for_batch<GateUpLaunch>(batch, w, x, gamma, act, hidden, mlp, stream);
}

void norm_gemv_f32(const bf16* w, const bf16* x, const bf16* gamma, float* y, int ldy, int batch, int rows, int hidden,
                   cudaStream_t stream) {
    check_widths(hidden, hidden);
    for_batch<LogitsLaunch>(batch, w, x, gamma, y, ldy, rows, hidden, stream);
}

}  // namespace server
