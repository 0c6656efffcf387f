// Rung 2: the skinny GEMM, Y[M,N] = X[M,K] W[N,K]^T for M = 1..16, on the tensor cores.
// With M rows of activations each weight is used M times: 2M FLOPs per 2 bytes.
// Up to M ~ 16 that is still far under the H200's ridge (~200 FLOP/byte for bf16
// against HBM), so the time stays W's bytes over the bandwidth, the same at
// N = K = 8192 for every M. What breaks first is the arithmetic: at M = 16 the
// FMAs on the CUDA cores alone (2 x 16 x 8192^2 = 2.1 GFLOP at 67 TFLOP/s fp32)
// take as long as reading W. So the multiply goes to mma.sync (m16n8k16, bf16 in,
// fp32 accumulate): the 16 rows of the mma's A operand are X's (up to 16, zeros
// past M), its 8 columns (B) are 8 rows of W. Eight warps split K and add their
// tiles in shared memory.
//
// The trick that lets the loads stay 16 bytes wide: a dot product does not care
// in which order k is summed, as long as A and B agree. Lane (g, q) = (lane / 4,
// lane % 4) needs, of one 16-wide k step, the pairs 2q, 2q+1 and 2q+8, 2q+9; we
// give it 8 consecutive weights 8c .. 8c+7 of W row g (one uint4) and the same 8
// activations of X rows g and g + 8, and feed elements 0-3 to one mma and 4-7 to
// a second. Each lane then covers 16-byte piece c = 4s + q of "step" s: per load
// instruction, 8 rows x 64 bytes, half of each 128-byte line.
//
// Rung 1 reads W a whole line at a time and runs ~15% faster per byte, so here
// the loads are those of rung 1 and the layout comes after: of 8 pieces (128
// bytes) of the block's 8 rows, load instruction i (0, 1) gives lane 8r + j
// piece j ^ 4i of row 4i + r: each instruction reads 4 whole lines. Piece 4s + q
// of row g then sits in lane 8(g & 3) + 4(s ^ (g >> 2)) + q, in the register of
// instruction g >> 2, and a lane is asked for instruction 0 exactly when j / 4 ==
// s: one shuffle per 32-bit word moves every lane's piece into place.
//
// A block is 8 rows of W (128 KiB at K = 8192): 1024 blocks, about 2.6 per slot
// at 3 blocks per SM, so an SM that finishes early takes another (a single wave
// of equal blocks waits for the slowest SM).
//
// Prediction at N = K = 8192: ~41-42 us for M <= 8 (128 MiB of W at rung 1's
// 3.2-3.3 TB/s), 110-116% of cuBLAS (46-48 us there on 2026-11-30); M = 16 ~45 us,
// ~105%: each block reads all of X (256 KiB at M = 16, more than L1 holds), twice
// W's bytes from L2. M > 16 is done 16 rows of X at a time, reading W once per 16.
#include "roofline/contract/gemv.cuh"
#include "roofline/ptx/mma_sync.cuh"

#include <cstdint>

namespace {

using roofline::gemm::mma::mma_bf16_16816;

constexpr int kWarps = 8;   // per block, splitting K
constexpr int kRows = 8;    // rows of W (outputs n) per block: the mma's N
constexpr int kPairs = 2;   // 128-byte pieces of each row a warp loads before it multiplies
constexpr int kMaxM = 16;   // rows of X per launch: the mma's M

__device__ __forceinline__ uint4 load_streaming(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

__device__ __forceinline__ uint4 shfl_uint4(uint4 v, int src_lane) {
    return make_uint4(__shfl_sync(0xffffffffu, v.x, src_lane), __shfl_sync(0xffffffffu, v.y, src_lane),
                      __shfl_sync(0xffffffffu, v.z, src_lane), __shfl_sync(0xffffffffu, v.w, src_lane));
}

// kXHalves: 1 if M <= 8 (X rows g + 8 are zeros and never loaded), 2 if M <= 16. Requires K % 8 == 0.
template <int kXHalves>
__global__ __launch_bounds__(kWarps * 32, 3) void skinny_mma_kernel(const __nv_bfloat16* __restrict__ W,
                                                                 const __nv_bfloat16* __restrict__ X,
                                                                 __nv_bfloat16* __restrict__ Y, int M, int N, int K) {
    __shared__ float partial[kWarps][4][32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int g = lane / 4, q = lane % 4;  // the mma's view
    const int r = lane / 8, j = lane % 8;  // the loads' view
    const int n0 = blockIdx.x * kRows;
    const int vecs = K / 8;  // uint4 per row
    const uint4 zero = make_uint4(0, 0, 0, 0);
    // Loads: instruction i reads row n0 + 4i + r (null past N). The mma: X rows g and g + 8 (null past M).
    const uint4* w_row[2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
        w_row[i] = n0 + 4 * i + r < N ? reinterpret_cast<const uint4*>(W + std::size_t(n0 + 4 * i + r) * K) : nullptr;
    const uint4* x_row[kXHalves];
#pragma unroll
    for (int h = 0; h < kXHalves; ++h)
        x_row[h] = g + 8 * h < M ? reinterpret_cast<const uint4*>(X + std::size_t(g + 8 * h) * K) : nullptr;
    int src_lane[2];  // where piece 4s + q of row g is, for s = 0, 1
#pragma unroll
    for (int s = 0; s < 2; ++s) src_lane[s] = 8 * (g & 3) + 4 * (s ^ (g >> 2)) + q;

    float d[4] = {};
    // Chunks of kPairs x 8 uint4; warp w takes chunks w, w + kWarps, ...
    constexpr int chunk_vecs = 8 * kPairs;
#pragma unroll 1
    for (int c0 = warp * chunk_vecs; c0 < vecs; c0 += kWarps * chunk_vecs) {
        uint4 w_raw[kPairs][2], x[kPairs][2][kXHalves];
#pragma unroll
        for (int p = 0; p < kPairs; ++p) {
            const int base = c0 + 8 * p;
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                const int v = base + (j ^ (4 * i));
                w_raw[p][i] = v < vecs && w_row[i] ? load_streaming(w_row[i] + v) : zero;
            }
#pragma unroll
            for (int s = 0; s < 2; ++s)
#pragma unroll
                for (int h = 0; h < kXHalves; ++h) {
                    const int v = base + 4 * s + q;
                    x[p][s][h] = v < vecs && x_row[h] ? __ldg(x_row[h] + v) : zero;
                }
        }
#pragma unroll
        for (int p = 0; p < kPairs; ++p)
#pragma unroll
            for (int s = 0; s < 2; ++s) {
                const uint4 w = shfl_uint4(j / 4 == s ? w_raw[p][0] : w_raw[p][1], src_lane[s]);
                const uint4 lo = x[p][s][0], hi = kXHalves == 2 ? x[p][s][kXHalves - 1] : zero;
                // Elements 0-3 of each uint4 (words x, y) as one k16 step, 4-7 (words z, w) as the next.
                const std::uint32_t first[4] = {lo.x, hi.x, lo.y, hi.y}, second[4] = {lo.z, hi.z, lo.w, hi.w};
                mma_bf16_16816(d, first, w.x, w.y);
                mma_bf16_16816(d, second, w.z, w.w);
            }
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) partial[warp][i][lane] = d[i];
    __syncthreads();
    // One thread per output of the block's 16 x 8 tile: Y[m][n0 + c] is d[i] of lane (g, q) with
    // m = g + 8 (i / 2), c = 2q + i % 2.
    if (threadIdx.x < 16 * kRows) {
        const int m = threadIdx.x / kRows, c = threadIdx.x % kRows;
        const int i = (m / 8) * 2 + c % 2, src = (m % 8) * 4 + c / 2;
        float sum = 0.0f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) sum += partial[w][i][src];
        if (m < M && n0 + c < N) Y[std::size_t(m) * N + n0 + c] = __float2bfloat16(sum);
    }
}

// Any K (rows not 16-byte aligned): one warp per row of W, every row of X.
__global__ void skinny_scalar_kernel(const __nv_bfloat16* __restrict__ W, const __nv_bfloat16* __restrict__ X,
                                     __nv_bfloat16* __restrict__ Y, int M, int N, int K) {
    const int lane = threadIdx.x % 32;
    const int n = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (n >= N) return;
    for (int m = 0; m < M; ++m) {
        float acc = 0.0f;
        for (int k = lane; k < K; k += 32)
            acc = fmaf(__bfloat162float(W[std::size_t(n) * K + k]), __bfloat162float(X[std::size_t(m) * K + k]), acc);
        for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
        if (lane == 0) Y[std::size_t(m) * N + n] = __float2bfloat16(acc);
    }
}

void skinny(const __nv_bfloat16* W, const __nv_bfloat16* X, __nv_bfloat16* Y, int M, int N, int K,
            cudaStream_t stream) {
    if (M <= 0 || N <= 0 || K <= 0) return;
    if (K % 8 != 0) {
        skinny_scalar_kernel<<<(N + 7) / 8, 256, 0, stream>>>(W, X, Y, M, N, K);
        return;
    }
    const int blocks = (N + kRows - 1) / kRows;
    for (int m0 = 0; m0 < M; m0 += kMaxM) {
        const int rows = M - m0 < kMaxM ? M - m0 : kMaxM;
        const __nv_bfloat16* x = X + std::size_t(m0) * K;
        __nv_bfloat16* y = Y + std::size_t(m0) * N;
        if (rows <= 8) skinny_mma_kernel<1><<<blocks, kWarps * 32, 0, stream>>>(W, x, y, rows, N, K);
        else skinny_mma_kernel<2><<<blocks, kWarps * 32, 0, stream>>>(W, x, y, rows, N, K);
    }
}

}  // namespace

ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m1, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m2, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m4, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m8, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m16, skinny);
