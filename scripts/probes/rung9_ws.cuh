// Lab 03 rung 9's loop with a producer warp: the same block tile, warp tiles, swizzle, ldmatrix and
// mma.sync as the solution (solutions/03-gemm/kernels/09_pipelined.cu, whose `Tiles` gives the
// shapes), but the eight mma warps copy nothing. A ninth warp has the TMA unit fill each stage
// (A as one [128][64] box, B as four [64][64] boxes, all with the 128-byte swizzle, which is the
// solution's A layout and, per 64-column box, its B layout), and mbarriers replace the block
// barrier: full[s] completes when stage s's 48 KiB have landed, empty[s] when all eight mma warps
// have done their last ldmatrix of it. Probe-only (scripts/probes/rung9_variants.cu): is 80% of
// the mma.sync roof reachable once the copies leave the mma warps? Not a rung: rung 9
// teaches cp.async, and this is lab 06's design.
//
// Registers: setmaxnreg acts per warpgroup, so the producer is a whole warpgroup (warps 0-3, one
// thread of which issues) that gives its registers back (40 a thread), and the two mma
// warpgroups take 232: per scheduler one producer warp and two mma warps, 40 + 2 x 232 of 512
// registers a lane. (With a lone ninth warp, ptxas caps everyone at 168 and spills.) sm_90a.
#pragma once
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/mma_sync.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cstdint>

namespace rung9_ws {

using namespace roofline::gemm::mma;  // smem_addr, ldmatrix_x4(_trans), mma_bf16_16816
namespace mbarrier = roofline::mbarrier;
namespace tma = roofline::tma;

template <class T>
struct WsTiles : T {
    using Base = T;  // the solution's tiles: its kThreads are the mma warps' threads
    static constexpr int kMmaThreads = T::kThreads, kThreads = T::kThreads + 128;  // + the producer warpgroup
    static constexpr int kBoxCols = 64;                                            // the swizzle's 128 bytes
    static constexpr int kBoxesB = T::BN / kBoxCols;
    static constexpr int kBoxBytesB = T::BK * kBoxCols * 2;
    static constexpr int kAlign = 1024;  // a 128-byte-swizzled box starts on 1 KiB
    static constexpr int kSmemBytes = T::kStages * T::kStageBytes + kAlign;
    static_assert(T::kStageBytes % kAlign == 0 && (T::kTileA * 2) % kAlign == 0);
    // Element offset of chunk `chunk` of row `row` of B inside a stage's B part: box chunk / 8.
    __host__ __device__ static constexpr int swizzle_b(int row, int chunk) {
        return (chunk / 8) * (T::BK * kBoxCols) + row * kBoxCols + ((chunk % 8) ^ (row & 7)) * T::kChunk;
    }
};

template <class T>
__global__ __launch_bounds__(T::kThreads, 1) void gemm_ws(const __grid_constant__ CUtensorMap map_a,
                                                          const __grid_constant__ CUtensorMap map_b,
                                                          __nv_bfloat16* C, int M, int N, int K) {
    constexpr int BM = T::BM, BN = T::BN, BK = T::BK, kStages = T::kStages, kSteps = T::kSteps;
    constexpr int MI = T::MI, NI = T::NI, kChunk = T::kChunk;
    constexpr int kBf16 = 2;
    extern __shared__ __align__(128) unsigned char smem_raw[];
    __shared__ std::uint64_t full[kStages], empty[kStages];
    unsigned char* smem = smem_raw + ((T::kAlign - smem_addr(smem_raw) % T::kAlign) % T::kAlign);
    const std::uint32_t sbase = smem_addr(smem);
    constexpr std::uint32_t kOffB = T::kTileA * kBf16;
    const int lane = threadIdx.x % 32, warp_all = threadIdx.x / 32;

    const int blocks_m = M / BM, blocks_n = (N + BN - 1) / BN;
    const int per_group = T::kGroupM * blocks_n;
    const int first_m = (int(blockIdx.x) / per_group) * T::kGroupM;
    const int group_rows = min(blocks_m - first_m, T::kGroupM);
    const int in_group = int(blockIdx.x) % per_group;
    const int row0 = (first_m + in_group % group_rows) * BM, col0 = (in_group / group_rows) * BN;
    const int ktiles = (K + BK - 1) / BK;
    constexpr int kMmaWarps = T::kMmaThreads / 32;

    if (threadIdx.x == 0) {
        for (int i = 0; i < kStages; ++i) mbarrier::init(&full[i], 1), mbarrier::init(&empty[i], kMmaWarps);
        mbarrier::fence_init();
    }
    __syncthreads();

    if (warp_all < 4) {  // the producer: tile kt into stage kt % S once the mma warps have left it
        roofline::wgmma::release_registers<40>();
        if (warp_all == 0 && lane == 0) {
            tma::prefetch_map(&map_a);
            tma::prefetch_map(&map_b);
            for (int kt = 0; kt < ktiles; ++kt) {
                const int stage = kt % kStages;
                mbarrier::wait(&empty[stage], ((kt / kStages) & 1) ^ 1);  // a fresh barrier: returns at once
                unsigned char* dst = smem + stage * T::kStageBytes;
                mbarrier::arrive_expect_tx(&full[stage], T::kStageBytes);
                tma::load_2d(dst, &map_a, row0, kt * BK, &full[stage]);
#pragma unroll
                for (int box = 0; box < T::kBoxesB; ++box)
                    tma::load_2d(dst + kOffB + box * T::kBoxBytesB, &map_b, kt * BK, col0 + box * T::kBoxCols,
                                 &full[stage]);
            }
        }
        return;
    }
    roofline::wgmma::claim_registers<232>();
    const int t = threadIdx.x - 128, warp = t / 32;  // the mma warps count from 0, as in the solution
    const int w_m = (warp / T::kWarpsN) * T::WM, w_n = (warp % T::kWarpsN) * T::WN;
    const std::uint32_t fragA = T::swizzle_a(w_m + lane % 16, lane / 16) * kBf16;
    const std::uint32_t fragB = kOffB + T::swizzle_b(lane % 8 + ((lane / 8) % 2) * 8, w_n / kChunk + lane / 16) * kBf16;
    std::uint32_t fA[2][MI][4], fB[2][NI / 2][4];
    auto load_frags = [&](int buf, std::uint32_t stage_base, int s) {
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
            ldmatrix_x4(fA[buf][mi], stage_base + (fragA ^ (2 * s * 16)) + mi * 16 * BK * kBf16);
#pragma unroll
        for (int nj = 0; nj < NI / 2; ++nj)
            ldmatrix_x4_trans(fB[buf][nj], stage_base + (fragB ^ (2 * nj * 16)) + s * 16 * T::kBoxCols * kBf16);
    };
    float acc[MI][NI][4] = {};

    mbarrier::wait(&full[0], 0);
    load_frags(0, sbase, 0);
    for (int kt = 0; kt < ktiles; ++kt) {
        const int stage = kt % kStages, next = (kt + 1) % kStages;
#pragma unroll
        for (int s = 0; s < kSteps; ++s) {
            if (s == kSteps - 1) {
                // This warp's last ldmatrix of tile kt was the previous step's: hand the stage back, then
                // wait for tile kt+1 (past the last tile: nothing to wait for, nothing loaded).
                __syncwarp();
                if (lane == 0) mbarrier::arrive(&empty[stage]);
                if (kt + 1 < ktiles) mbarrier::wait(&full[next], ((kt + 1) / kStages) & 1);
            }
            if (s < kSteps - 1) load_frags((s + 1) % 2, sbase + stage * T::kStageBytes, s + 1);
            else if (kt + 1 < ktiles) load_frags(0, sbase + next * T::kStageBytes, 0);
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < NI; ++ni)
                    mma_bf16_16816(acc[mi][ni], fA[s % 2][mi], fB[s % 2][ni / 2][2 * (ni % 2)],
                                   fB[s % 2][ni / 2][2 * (ni % 2) + 1]);
        }
    }

    // The solution's epilogue, among the mma warps only (named barrier 1): C through the stages.
    auto mma_warps_sync = [] { asm volatile("bar.sync 1, %0;" ::"n"(T::kMmaThreads) : "memory"); };
    mma_warps_sync();
    store_c<typename T::Base>(smem, acc, C, N, row0, col0, t, w_m, w_n, mma_warps_sync);
}

template <class T>
void launch(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K, cudaStream_t stream) {
    using W = WsTiles<T>;
    static const bool configured = [] {
        cudaFuncSetAttribute(gemm_ws<W>, cudaFuncAttributeMaxDynamicSharedMemorySize, W::kSmemBytes);
        return true;
    }();
    (void)configured;
    const CUtensorMap map_a = tma::make_2d_bf16(A, M, K, W::BM, W::BK, CU_TENSOR_MAP_SWIZZLE_128B);
    const CUtensorMap map_b = tma::make_2d_bf16(B, K, N, W::BK, W::kBoxCols, CU_TENSOR_MAP_SWIZZLE_128B);
    const int tiles = (M / W::BM) * ((N + W::BN - 1) / W::BN);
    gemm_ws<W><<<tiles, W::kThreads, W::kSmemBytes, stream>>>(map_a, map_b, C, M, N, K);
}

}  // namespace rung9_ws
