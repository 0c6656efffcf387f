// Lab 02 rung 9 with its copies taken off the warps: the same block tile, warp tiles, swizzle,
// ldmatrix and mma.sync loop as the solution (solutions/02-gemm/kernels/09_pipelined.cu, whose
// `Tiles` gives the shapes), but each stage is filled by Hopper's TMA unit, from one thread, five
// boxes a tile, instead of 12 cp.async per thread. Probe-only (scripts/probes/rung9_variants.cu):
// it measures what the copy engine alone buys, before lab 04 also replaces ldmatrix + mma.sync with
// wgmma. Not a rung: rung 9 teaches cp.async.
//
// What changes against the solution:
//   - A's box is [128 rows][64 cols] with the 128-byte swizzle, which is exactly the solution's
//     A layout (rows of 128 bytes, chunk ^ row % 8). B's rows of 512 bytes are wider than a
//     swizzled box may be (128 bytes), so B arrives as 4 boxes of [64 rows][64 cols], 8 KiB each,
//     one after the other in the stage; a warp's 64 columns lie in one box, and the chunk XOR of
//     the solution still holds inside it.
//   - Each stage has an mbarrier that completes when its 48 KiB have landed. Thread 0 arms it and
//     issues the boxes of tile kt+2 at the first k16 step of tile kt, into the slot tile kt-1 used
//     (the barrier at the end of tile kt-1 says everyone is done reading it). At the last k16 step
//     every thread waits on the next tile's mbarrier instead of cp.async.wait_group; the block
//     barrier stays, for the slot's reuse.
//   - The edges need no code: the TMA unit writes zeros for elements past K or N.
#pragma once
#include "roofline/mbarrier.cuh"
#include "roofline/mma_sync.cuh"
#include "roofline/tma.cuh"

#include <cstdint>

namespace rung9_tma {

using namespace roofline::gemm::mma;  // ldmatrix_x4(_trans), mma_bf16_16816
namespace mbarrier = roofline::mbarrier;
namespace tma = roofline::tma;

template <class T>
struct TmaTiles : T {
    static constexpr int kBoxCols = 64;                              // 128 bytes: the swizzle's width
    static constexpr int kBoxesB = T::BN / kBoxCols;                 // 4
    static constexpr int kBoxBytesB = T::BK * kBoxCols * 2;          // 8 KiB
    static constexpr std::uint32_t kStageTxBytes = T::kStageBytes;   // every byte of a stage, zeros included
    static constexpr int kAlign = 1024;                              // a 128-byte-swizzled box starts on 1 KiB
    static constexpr int kSmemBytes = T::kStages * T::kStageBytes + kAlign;
    static_assert(T::kStageBytes % kAlign == 0 && (T::kTileA * 2) % kAlign == 0);
    // Element offset of chunk `chunk` of row `row` of B inside a stage's B part: box chunk / 8.
    __host__ __device__ static constexpr int swizzle_b(int row, int chunk) {
        return (chunk / 8) * (T::BK * kBoxCols) + row * kBoxCols + ((chunk % 8) ^ (row & 7)) * T::kChunk;
    }
};

template <class T>
__global__ __launch_bounds__(T::kThreads, 1) void gemm_tma(const __grid_constant__ CUtensorMap map_a,
                                                           const __grid_constant__ CUtensorMap map_b,
                                                           __nv_bfloat16* C, int M, int N, int K) {
    constexpr int BM = T::BM, BN = T::BN, BK = T::BK, kStages = T::kStages, kSteps = T::kSteps;
    constexpr int MI = T::MI, NI = T::NI, kChunk = T::kChunk;
    constexpr int kBf16 = 2;
    extern __shared__ __align__(128) unsigned char smem_raw[];
    __shared__ std::uint64_t full[kStages];
    unsigned char* smem = smem_raw + ((T::kAlign - smem_addr(smem_raw) % T::kAlign) % T::kAlign);
    const std::uint32_t sbase = smem_addr(smem);
    constexpr std::uint32_t kOffB = T::kTileA * kBf16;
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int w_m = (warp / T::kWarpsN) * T::WM, w_n = (warp % T::kWarpsN) * T::WN;

    const int blocks_m = M / BM, blocks_n = (N + BN - 1) / BN;
    const int per_group = T::kGroupM * blocks_n;
    const int first_m = (int(blockIdx.x) / per_group) * T::kGroupM;
    const int group_rows = min(blocks_m - first_m, T::kGroupM);
    const int in_group = int(blockIdx.x) % per_group;
    const int row0 = (first_m + in_group % group_rows) * BM, col0 = (in_group / group_rows) * BN;
    const int ktiles = (K + BK - 1) / BK;

    if (t == 0) {
        tma::prefetch_map(&map_a);
        tma::prefetch_map(&map_b);
        for (int i = 0; i < kStages; ++i) mbarrier::init(&full[i], 1);
        mbarrier::fence_init();
    }
    __syncthreads();
    // Thread 0: tile kt (past the last: the last again, into a slot nobody reads) into `stage`.
    auto issue = [&](int kt, int stage) {
        kt = min(kt, ktiles - 1);
        unsigned char* dst = smem + stage * T::kStageBytes;
        mbarrier::arrive_expect_tx(&full[stage], T::kStageTxBytes);
        tma::load_2d(dst, &map_a, row0, kt * BK, &full[stage]);
#pragma unroll
        for (int box = 0; box < T::kBoxesB; ++box)
            tma::load_2d(dst + kOffB + box * T::kBoxBytesB, &map_b, kt * BK, col0 + box * T::kBoxCols, &full[stage]);
    };

    const std::uint32_t fragA = T::swizzle_a(w_m + lane % 16, lane / 16) * kBf16;
    const std::uint32_t fragB = kOffB + T::swizzle_b(lane % 8 + ((lane / 8) % 2) * 8, w_n / kChunk + lane / 16) * kBf16;
    std::uint32_t fA[2][MI][4], fB[2][NI / 2][4];
    auto load_a = [&](int buf, std::uint32_t stage_base, int s, int mi) {
        ldmatrix_x4(fA[buf][mi], stage_base + (fragA ^ (2 * s * 16)) + mi * 16 * BK * kBf16);
    };
    auto load_b = [&](int buf, std::uint32_t stage_base, int s, int nj) {  // rows of one 128-byte box
        ldmatrix_x4_trans(fB[buf][nj], stage_base + (fragB ^ (2 * nj * 16)) + s * 16 * T::kBoxCols * kBf16);
    };
    float acc[MI][NI][4];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.f;

    if (t == 0)
        for (int s = 0; s < kStages - 1; ++s) issue(s, s);
    mbarrier::wait(&full[0], 0);
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) load_a(0, sbase, 0, mi);
#pragma unroll
    for (int nj = 0; nj < NI / 2; ++nj) load_b(0, sbase, 0, nj);

    int read_stage = 0, write_stage = kStages - 1;
    for (int kt = 0; kt < ktiles; ++kt) {
#pragma unroll
        for (int s = 0; s < kSteps; ++s) {
            if (s == kSteps - 1) {  // tile kt+1 landed (its mbarrier), and everyone is done with tile kt's slot
                read_stage = read_stage + 1 == kStages ? 0 : read_stage + 1;
                mbarrier::wait(&full[read_stage], ((kt + 1) / kStages) & 1);
                __syncthreads();
            }
            const std::uint32_t next_base = sbase + read_stage * T::kStageBytes;
            const int next_s = (s + 1) % kSteps, cur = s % 2, nxt = (s + 1) % 2;
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) load_a(nxt, next_base, next_s, mi);
#pragma unroll
            for (int nj = 0; nj < NI / 2; ++nj) load_b(nxt, next_base, next_s, nj);
            if (s == 0 && t == 0) issue(kt + kStages - 1, write_stage);
            if (s == 0) write_stage = write_stage + 1 == kStages ? 0 : write_stage + 1;
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < NI; ++ni)
                    mma_bf16_16816(acc[mi][ni], fA[cur][mi], fB[cur][ni / 2][2 * (ni % 2)], fB[cur][ni / 2][2 * (ni % 2) + 1]);
        }
    }

    // The solution's epilogue: C through the idle stages, swizzled, then 16-byte stores. Every box
    // issued has landed (the waits above cover all but the refills past the last tile: wait for those).
    for (int i = 0; i < kStages - 1; ++i) {
        const int kt = ktiles + i, stage = (kt) % kStages;
        mbarrier::wait(&full[stage], (kt / kStages) & 1);
    }
    __syncthreads();
    const int g = lane / 4, q = lane % 4;
    auto* ctile = reinterpret_cast<__nv_bfloat16*>(smem);
    auto at = [&](int row, int col) { return row * BN + (((col / kChunk) ^ (row & 7)) * kChunk) + col % kChunk; };
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
            const int r = w_m + mi * 16 + g, c = w_n + ni * 8 + 2 * q;
            *reinterpret_cast<__nv_bfloat162*>(ctile + at(r, c)) = __floats2bfloat162_rn(acc[mi][ni][0], acc[mi][ni][1]);
            *reinterpret_cast<__nv_bfloat162*>(ctile + at(r + 8, c)) = __floats2bfloat162_rn(acc[mi][ni][2], acc[mi][ni][3]);
        }
    __syncthreads();
    constexpr int kRowChunksC = BN / kChunk;
#pragma unroll 4
    for (int i = t; i < BM * kRowChunksC; i += T::kThreads) {
        const int r = i / kRowChunksC, c = (i % kRowChunksC) * kChunk;
        if (col0 + c < N)
            *reinterpret_cast<uint4*>(C + std::size_t(row0 + r) * N + col0 + c) = *reinterpret_cast<const uint4*>(ctile + at(r, c));
    }
}

template <class T>
void launch(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K, cudaStream_t stream) {
    using TT = TmaTiles<T>;
    static const bool configured = [] {
        cudaFuncSetAttribute(gemm_tma<TT>, cudaFuncAttributeMaxDynamicSharedMemorySize, TT::kSmemBytes);
        return true;
    }();
    (void)configured;
    const CUtensorMap map_a = tma::make_2d_bf16(A, M, K, TT::BM, TT::BK, CU_TENSOR_MAP_SWIZZLE_128B);
    const CUtensorMap map_b = tma::make_2d_bf16(B, K, N, TT::BK, TT::kBoxCols, CU_TENSOR_MAP_SWIZZLE_128B);
    const int tiles = (M / TT::BM) * ((N + TT::BN - 1) / TT::BN);
    gemm_tma<TT><<<tiles, TT::kThreads, TT::kSmemBytes, stream>>>(map_a, map_b, C, M, N, K);
}

}  // namespace rung9_tma
