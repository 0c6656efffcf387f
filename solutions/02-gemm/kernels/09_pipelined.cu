// Rung 9: a multi-stage cp.async pipeline over swizzled shared memory. Same
// tiles and the same mma/ldmatrix inner loop as rung 8 (block 128x128, K step
// 32, 8 warps of 64x32, bf16 in, fp32 accumulate, bf16 out). Two changes:
//
// 1. Software pipelining. Shared memory holds kStages = 4 tiles of A and B.
//    cp.async copies global -> shared directly (no register staging, no
//    thread waits for the data it asked for). Before computing tile kt the
//    block already has tiles kt+1 and kt+2 in flight and issues kt+3: the
//    ~1 us of global-memory latency is covered by three tiles' worth of mma
//    work. One __syncthreads per K step instead of two.
//       prologue: issue tiles 0 .. S-2
//       for kt:   wait until tile kt has landed (cp.async.wait_group S-2);
//                 __syncthreads (tile kt visible to all; slot of kt-1 free);
//                 issue tile kt+S-1 into the slot of kt-1; compute tile kt.
//
// 2. An XOR swizzle on the 16-byte chunks of each shared tile, so that every
//    8-lane phase of ldmatrix touches 8 different 16-byte bank groups:
//      A tile [128][32] bf16 (rows of 64 B = 4 chunks):
//          physical chunk = chunk ^ ((row / 2) % 4)
//      B tile [32][128] bf16 (rows of 256 B = 16 chunks):
//          physical chunk = chunk ^ (row % 8)
//    Rung 8's 4-way (A) and 8-way (B) ldmatrix conflicts disappear; the
//    cp.async writes stay conflict-free too. Swizzling instead of padding
//    costs no extra shared memory.
//
// 4 stages x 16 KiB = 64 KiB of dynamic shared memory per block, ~120
// registers per thread: 2 blocks (16 warps) per SM. Low occupancy on purpose:
// the latency is hidden by the pipeline, not by more warps.
//
// Prediction, 4096^3 on the H200: ~400 TFLOP/s (~0.35 ms), 2.5x rung 8 and
// 50-60% of cuBLAS bf16 (~730 TFLOP/s). The rest of the way needs Hopper's
// own instructions (TMA loads and warpgroup wgmma, lab 03): mma.sync cannot
// reach the tensor cores' full rate on sm_90.
//
// Shapes: M and N multiples of 128 and K of 32 (lab.yaml: divisible_by).
#include "gemm/gemm.cuh"

#include <cstdint>

namespace {

constexpr int BM = 128, BN = 128, BK = 32, kStages = 4;
constexpr int WM = 64, WN = 32;                      // warp tile
constexpr int kWarpsN = BN / WN;                     // 2 x 4 warps
constexpr int kThreads = 32 * (BM / WM) * kWarpsN;   // 256
constexpr int MI = WM / 16, NI = WN / 8;             // 4 x 4 mma tiles per warp
constexpr int kChunk = 8;                            // bf16 per 16-byte chunk
constexpr int kTileA = BM * BK, kTileB = BK * BN;    // elements per stage
constexpr int kChunksA = kTileA / kChunk / kThreads;  // 2
constexpr int kChunksB = kTileB / kChunk / kThreads;  // 2
constexpr int kSmemBytes = kStages * (kTileA + kTileB) * int(sizeof(__nv_bfloat16));  // 65536
static_assert(kChunksA * kThreads * kChunk == kTileA && kChunksB * kThreads * kChunk == kTileB);
static_assert(BK == 32 && BN == 128, "the swizzles below assume 4-chunk A rows and 16-chunk B rows");

// Element offset of chunk `chunk` of row `row` inside one stage of a tile.
__host__ __device__ constexpr int swizzle_a(int row, int chunk) { return row * BK + (chunk ^ ((row >> 1) & 3)) * kChunk; }
__host__ __device__ constexpr int swizzle_b(int row, int chunk) { return row * BN + (chunk ^ (row & 7)) * kChunk; }

__device__ inline std::uint32_t smem_addr(const void* p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ inline void cp_async_16(std::uint32_t dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ inline void cp_async_wait() {  // until at most kPending of this thread's groups are in flight
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

__device__ inline void ldmatrix_x4_trans(std::uint32_t (&r)[4], std::uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

__device__ inline void mma_bf16_16816(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0, std::uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__global__ __launch_bounds__(kThreads, 2) void gemm_pipelined(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                                              __nv_bfloat16* C, int M, int N, int K) {
    extern __shared__ __align__(128) unsigned char smem[];
    // sA: kStages x [128][32] swizzled; sB: kStages x [32][128] swizzled.
    const std::uint32_t sA = smem_addr(smem);
    const std::uint32_t sB = sA + kStages * kTileA * sizeof(__nv_bfloat16);
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int w_m = (warp / kWarpsN) * WM, w_n = (warp % kWarpsN) * WN;
    const __nv_bfloat16* gA = A + std::size_t(blockIdx.y) * BM * K;
    const __nv_bfloat16* gB = B + std::size_t(blockIdx.x) * BN;

    // Copy assignments: chunk t + i * 256 of each tile. A: row t/4 + 64 i, chunk t%4; B: row t/16 + 16 i, chunk t%16.
    const int a_row = t / (BK / kChunk), a_chunk = t % (BK / kChunk);
    const int b_row = t / (BN / kChunk), b_chunk = t % (BN / kChunk);
    constexpr int kRowStepA = kThreads / (BK / kChunk), kRowStepB = kThreads / (BN / kChunk);
    const __nv_bfloat16* srcA = gA + std::size_t(a_row) * K + a_chunk * kChunk;
    const __nv_bfloat16* srcB = gB + std::size_t(b_row) * N + b_chunk * kChunk;
    std::uint32_t dstA[kChunksA], dstB[kChunksB];  // byte offsets inside a stage
#pragma unroll
    for (int i = 0; i < kChunksA; ++i) dstA[i] = swizzle_a(a_row + i * kRowStepA, a_chunk) * sizeof(__nv_bfloat16);
#pragma unroll
    for (int i = 0; i < kChunksB; ++i) dstB[i] = swizzle_b(b_row + i * kRowStepB, b_chunk) * sizeof(__nv_bfloat16);

    auto load_tile = [&](int kt, int stage) {
        const std::uint32_t baseA = sA + stage * kTileA * sizeof(__nv_bfloat16);
        const std::uint32_t baseB = sB + stage * kTileB * sizeof(__nv_bfloat16);
#pragma unroll
        for (int i = 0; i < kChunksA; ++i)
            cp_async_16(baseA + dstA[i], srcA + std::size_t(i * kRowStepA) * K + kt * BK);
#pragma unroll
        for (int i = 0; i < kChunksB; ++i)
            cp_async_16(baseB + dstB[i], srcB + std::size_t(kt * BK + i * kRowStepB) * N);
    };

    // ldmatrix addresses of this lane (see rung 8 for which lane points where), swizzled. The
    // swizzle of A depends on (row / 2) % 4 = ((lane % 16) / 2) % 4 only, because w_m and mi * 16 are
    // multiples of 16; the swizzle of B on row % 8 = lane % 8 only. So: per-lane offsets for the two
    // k16 halves of A and the two n16 halves of B, plus compile-time offsets for mi and ks.
    std::uint32_t fragA[2], fragB[2];  // byte offsets inside a stage
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        fragA[h] = swizzle_a(w_m + lane % 16, 2 * h + lane / 16) * sizeof(__nv_bfloat16);
        fragB[h] = swizzle_b(lane % 8 + ((lane / 8) % 2) * 8, w_n / kChunk + 2 * h + lane / 16) * sizeof(__nv_bfloat16);
    }

    const int ktiles = K / BK;
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {  // prologue: tiles 0 .. S-2 in flight
        if (s < ktiles) load_tile(s, s);
        cp_async_commit();  // commit even when empty: the group count stays one per tile
    }

    float acc[MI][NI][4] = {};
    for (int kt = 0; kt < ktiles; ++kt) {
        cp_async_wait<kStages - 2>();  // this thread's copies of tile kt have landed ...
        __syncthreads();               // ... everyone's have; and everyone is done with tile kt-1's slot
        const int next = kt + kStages - 1;
        if (next < ktiles) load_tile(next, next % kStages);  // into the slot tile kt-1 used
        cp_async_commit();

        const int stage = kt % kStages;
        const std::uint32_t tileA = sA + stage * kTileA * sizeof(__nv_bfloat16);
        const std::uint32_t tileB = sB + stage * kTileB * sizeof(__nv_bfloat16);
#pragma unroll
        for (int h = 0; h < 2; ++h) {  // the two k16 steps of the K step
            std::uint32_t fA[MI][4], fB[NI][2];
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
                ldmatrix_x4(fA[mi], tileA + fragA[h] + mi * 16 * BK * sizeof(__nv_bfloat16));
#pragma unroll
            for (int nj = 0; nj < NI / 2; ++nj) {
                std::uint32_t r[4];
                ldmatrix_x4_trans(r, tileB + fragB[nj] + h * 16 * BN * sizeof(__nv_bfloat16));
                fB[2 * nj][0] = r[0];
                fB[2 * nj][1] = r[1];
                fB[2 * nj + 1][0] = r[2];
                fB[2 * nj + 1][1] = r[3];
            }
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < NI; ++ni) mma_bf16_16816(acc[mi][ni], fA[mi], fB[ni][0], fB[ni][1]);
        }
    }
    cp_async_wait<0>();  // only empty groups remain; leave nothing in flight

    const int g = lane / 4, q = lane % 4;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
            const int row = blockIdx.y * BM + w_m + mi * 16 + g;
            const int col = blockIdx.x * BN + w_n + ni * 8 + 2 * q;
            *reinterpret_cast<__nv_bfloat162*>(&C[std::size_t(row) * N + col]) =
                __floats2bfloat162_rn(acc[mi][ni][0], acc[mi][ni][1]);
            *reinterpret_cast<__nv_bfloat162*>(&C[std::size_t(row + 8) * N + col]) =
                __floats2bfloat162_rn(acc[mi][ni][2], acc[mi][ni][3]);
        }
}

void launch_pipelined(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                      cudaStream_t stream) {
    // More than 48 KiB of dynamic shared memory must be asked for once; prefer the largest shared
    // carve-out so that two 64 KiB blocks fit on an SM.
    static const bool configured = [] {
        cudaFuncSetAttribute(gemm_pipelined, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
        cudaFuncSetAttribute(gemm_pipelined, cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared);
        return true;
    }();
    (void)configured;
    dim3 grid(N / BN, M / BM);
    gemm_pipelined<<<grid, kThreads, kSmemBytes, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r9_pipelined, launch_pipelined);
