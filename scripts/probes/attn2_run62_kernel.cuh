// Lab 07 rung 2 as it stood for run 62 (187 TFLOP/s on the H200, 27.5% of cuDNN,
// results/2026-12-01-h200-runs62-65.md), kept unchanged so that scripts/probes/attn2_variants.cu
// times the current rung 2 beside it in the same run. Not built on its own.
//
// Rung 2: fused attention, FlashAttention-2 style. One block of 4 warps takes 64 queries
// of one head; each warp owns 16 of them for the whole kernel. The block walks K and V in
// tiles of 64 keys (cp.async into shared memory); per tile each warp
//
//   1. S = Q_w K_j^T on the tensor cores (mma.sync m16n8k16, fp32 accumulators), Q_w's
//      fragments held in registers from the start;
//   2. updates its rows' running max m and sum l (the online softmax), rescales its output
//      accumulators by exp(m_old - m_new), and turns S into P = exp(S - m_new) in place;
//   3. O_w += P V_j: P goes from the accumulator layout straight into the A-fragment layout
//      (the two layouts match), rounded to bf16 on the way.
//
// The scores never leave registers: the kernel reads Q, K and V and writes O, and its
// intensity is seq/2 FLOP/byte instead of about head_dim/4.
//
// The shared tiles' rows are padded by 16 bytes (D + 8 elements). A fragment load has the 8
// lanes g = 0..7 read 8 different rows at the same column: with D = 128 those rows are 256
// bytes apart, all in the same 4 banks, so every K load would be an 8-way bank conflict and
// every V load (rows 2t, t = 0..3) a 4-way one, about 16 shared-memory cycles per mma where
// the tensor cores need about 1. Padded, row r starts 4 banks after row r - 1 and the 32
// lanes hit 32 different banks (K, Q) or 16 words shared by lane pairs (V): no conflict.
//
// What it still lacks (rung 3): the K/V copies are not overlapped with the math (copy, wait,
// compute, repeat: only the other blocks on the SM fill the wait), the fragments come from
// shared memory one 32-bit or 16-bit load at a time (2 loads for each S mma, 4 for each
// P V mma: 3 shared-memory cycles per mma on average, where ldmatrix needs about 1.25), and
// each K and V fragment feeds one mma, for 16 queries.
//
// Causal: the block stops at the diagonal tile (keys past its last query are all masked),
// and the blocks with the most work (the last queries) are scheduled first.
#include "roofline/attention.cuh"
#include "roofline/cp_async.cuh"
#include "roofline/mma_sync.cuh"

#include <cstdint>

namespace {

using namespace roofline::attention;
using roofline::gemm::mma::mma_bf16_16816;

constexpr int kWarps = 4;
constexpr int kQueries = 16 * kWarps;  // per block
constexpr int kKeys = 64;              // per K/V tile
constexpr int kPad = 8;                // bf16 elements (16 bytes) after each shared row
constexpr float kLog2e = 1.4426950408889634f;

// rows x D bf16 from global (row-major, D contiguous) into shared rows of D + kPad elements,
// rows past `valid` zero-filled.
template <int kRows, int D>
__device__ void load_tile(__nv_bfloat16* shared, const __nv_bfloat16* global, int valid) {
    constexpr int kChunks = D / 8;  // 16-byte pieces per row
    for (int c = threadIdx.x; c < kRows * kChunks; c += kWarps * 32) {
        const int row = c / kChunks, chunk = c % kChunks;
        const bool inside = row < valid;
        cp_async_16(shared + row * (D + kPad) + chunk * 8, inside ? global + std::size_t(row) * D + chunk * 8 : global,
                    inside);
    }
}

__device__ inline std::uint32_t load_u32(const __nv_bfloat16* p) { return *reinterpret_cast<const std::uint32_t*>(p); }

template <int D>
__global__ void __launch_bounds__(kWarps * 32, 3)  // 3 blocks an SM: 168 registers, no spills
    fused_attention(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                    int seq, float scale_log2, bool causal) {
    constexpr int kStride = D + kPad;  // elements from one shared row to the next
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto* sQ = reinterpret_cast<__nv_bfloat16*>(shared_bytes);  // [kQueries][kStride]
    __nv_bfloat16* sK = sQ + kQueries * kStride;  // [kKeys][kStride]
    __nv_bfloat16* sV = sK + kKeys * kStride;     // [kKeys][kStride]

    const int q_block = causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;  // causal: the longest rows first
    const int q0 = q_block * kQueries;
    const std::size_t head = blockIdx.y * std::size_t(seq) * D;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;  // the fragment coordinates of mma_sync.cuh

    load_tile<kQueries, D>(sQ, q + head + std::size_t(q0) * D, seq - q0);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();

    // This warp's 16 queries as A fragments, one per 16 columns of head_dim.
    std::uint32_t qf[D / 16][4];
    const __nv_bfloat16* qw = sQ + warp * 16 * kStride;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        qf[kk][0] = load_u32(qw + g * kStride + kk * 16 + 2 * t);
        qf[kk][1] = load_u32(qw + (g + 8) * kStride + kk * 16 + 2 * t);
        qf[kk][2] = load_u32(qw + g * kStride + kk * 16 + 8 + 2 * t);
        qf[kk][3] = load_u32(qw + (g + 8) * kStride + kk * 16 + 8 + 2 * t);
    }

    float acc[D / 8][4] = {};                     // O rows g and g+8, columns 8n + 2t, +1
    float row_max[2] = {-INFINITY, -INFINITY};    // of rows g and g+8, in log2 units
    float row_sum[2] = {0, 0};                    // this thread's part; the 4 threads of a row add up at the end
    const int row0 = q0 + warp * 16 + g;          // this thread's first row (the second is row0 + 8)
    const int kv_end = causal ? min(seq, q0 + kQueries) : seq;

    for (int kv0 = 0; kv0 < kv_end; kv0 += kKeys) {
        __syncthreads();  // every warp is done with the previous K and V
        load_tile<kKeys, D>(sK, k + head + std::size_t(kv0) * D, seq - kv0);
        load_tile<kKeys, D>(sV, v + head + std::size_t(kv0) * D, seq - kv0);
        cp_async_commit();
        cp_async_wait<0>();
        __syncthreads();

        // 1. S = Q K^T: B[k][n] = K[key n][d k], so a B fragment is two pairs along a row of K.
        float s[kKeys / 8][4] = {};
#pragma unroll
        for (int n = 0; n < kKeys / 8; ++n) {
            const __nv_bfloat16* key = sK + (n * 8 + g) * kStride + 2 * t;
#pragma unroll
            for (int kk = 0; kk < D / 16; ++kk)
                mma_bf16_16816(s[n], qf[kk], load_u32(key + kk * 16), load_u32(key + kk * 16 + 8));
        }

        // 2. Online softmax, in log2 units (exp2 is one instruction): mask, new max, rescale.
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const int row = row0 + 8 * r;
            float tile_max = -INFINITY;
#pragma unroll
            for (int n = 0; n < kKeys / 8; ++n) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const int col = kv0 + n * 8 + 2 * t + e;
                    float x = s[n][2 * r + e] * scale_log2;
                    if (col >= seq || (causal && col > row)) x = -INFINITY;
                    s[n][2 * r + e] = x;
                    tile_max = fmaxf(tile_max, x);
                }
            }
            tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
            tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
            const float new_max = fmaxf(row_max[r], tile_max);
            const float base = new_max == -INFINITY ? 0.0f : new_max;  // a row with nothing visible yet
            const float correction = exp2f(row_max[r] - base);
            row_max[r] = new_max;
            row_sum[r] *= correction;
#pragma unroll
            for (int n = 0; n < D / 8; ++n) {
                acc[n][2 * r] *= correction;
                acc[n][2 * r + 1] *= correction;
            }
#pragma unroll
            for (int n = 0; n < kKeys / 8; ++n) {
                s[n][2 * r] = exp2f(s[n][2 * r] - base);
                s[n][2 * r + 1] = exp2f(s[n][2 * r + 1] - base);
                row_sum[r] += s[n][2 * r] + s[n][2 * r + 1];
            }
        }

        // 3. O += P V. P's accumulators for keys 16kk..16kk+15 are n-tiles 2kk and 2kk+1: exactly
        //    an A fragment. B[k][n] = V[key k][d n]: a column of V, two 16-bit loads per register.
#pragma unroll
        for (int kk = 0; kk < kKeys / 16; ++kk) {
            const std::uint32_t a[4] = {pack_bf16x2(s[2 * kk][0], s[2 * kk][1]), pack_bf16x2(s[2 * kk][2], s[2 * kk][3]),
                                        pack_bf16x2(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                                        pack_bf16x2(s[2 * kk + 1][2], s[2 * kk + 1][3])};
            const __nv_bfloat16* value = sV + (kk * 16 + 2 * t) * kStride + g;
#pragma unroll
            for (int n = 0; n < D / 8; ++n) {
                const __nv_bfloat16* column = value + n * 8;
                mma_bf16_16816(acc[n], a, pack_bf16x2(column[0], column[kStride]),
                               pack_bf16x2(column[8 * kStride], column[9 * kStride]));
            }
        }
    }

    // O = acc / l, each row's sum first gathered from its 4 threads.
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        row_sum[r] += __shfl_xor_sync(0xffffffffu, row_sum[r], 1);
        row_sum[r] += __shfl_xor_sync(0xffffffffu, row_sum[r], 2);
        const int row = row0 + 8 * r;
        if (row >= seq) continue;
        const float inverse = 1.0f / row_sum[r];
        __nv_bfloat16* out = o + head + std::size_t(row) * D + 2 * t;
#pragma unroll
        for (int n = 0; n < D / 8; ++n) {
            *reinterpret_cast<__nv_bfloat162*>(out + n * 8) =
                __floats2bfloat162_rn(acc[n][2 * r] * inverse, acc[n][2 * r + 1] * inverse);
        }
    }
}

template <int D>
void launch_for(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o, int batch,
                int heads, int seq, bool causal, cudaStream_t stream) {
    // 51 KiB at D = 128, over the 48 KiB a launch gets without asking: opt in.
    constexpr int kSharedBytes = (kQueries + 2 * kKeys) * (D + kPad) * 2;
    cudaFuncSetAttribute(fused_attention<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
    const dim3 grid((seq + kQueries - 1) / kQueries, batch * heads);
    fused_attention<D><<<grid, kWarps * 32, kSharedBytes, stream>>>(q, k, v, o, seq, softmax_scale(D) * kLog2e, causal);
}

void fused_attention_launch(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                            int batch, int heads, int seq, int head_dim, bool causal, cudaStream_t stream) {
    if (head_dim == 64) launch_for<64>(q, k, v, o, batch, heads, seq, causal, stream);
    else launch_for<128>(q, k, v, o, batch, heads, seq, causal, stream);
}

}  // namespace

ROOFLINE_ATTENTION_VARIANT(fused, fused_attention_launch);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(fused_causal, fused_attention_launch);
