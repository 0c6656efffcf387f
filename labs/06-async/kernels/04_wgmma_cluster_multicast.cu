// Lab 06, part 4: part 3's persistent wgmma GEMM in clusters of two blocks that share the
// Bt slice through TMA multicast. C[M,N] = A[M,K] Bt[N,K]^T, bf16 in, fp32 accumulate.
//
// The two blocks of a cluster (ranks 0 and 1) compute vertically adjacent 128 x 256 tiles:
// tile rows 2p and 2p + 1 of the same 256 columns. They need different A slices and the
// same Bt slice, so each block loads HALF the Bt slice (rows 128 * rank .. +127 of it) with
// a multicast copy that lands in both blocks' shared memory; each Bt byte leaves L2 once per
// cluster instead of once per block.
//
// Given: the cluster launch (cudaLaunchKernelEx with a cluster dimension of 2), the tensor
// maps (Bt now in 128 x 64 boxes: half a slice), the shared memory, the pair order, the
// store, the barrier initialisation (empty[s] expects 16 arrivals: 8 consumer warps in
// EACH block) and the two cluster barriers. Write, from your part 3:
//   producer (warpgroup 0): release_registers<40>(); thread 0, for each pair this cluster
//     owns (pair = cluster_index(); pair += cluster_count()), tile_m = 2 pair_m + rank, and
//     each K slice: mbarrier::wait on empty[stage] (parity phase ^ 1); arrive_expect_tx on
//     full[stage] for the WHOLE stage (A + the full Bt slice: half of it comes from the other
//     block's multicast); load_2d your A slice; cluster::load_2d_multicast your half of Bt
//     to shared.b[stage] + rank * 128 * 64 (row tile_n * 256 + rank * 128), mask 0b11.
//   consumers (warpgroups 1, 2): as in part 3, except that freeing a stage means lane 0 of
//     each warp arriving on empty[stage] of BOTH blocks (cluster::arrive_remote, ranks 0
//     and 1): the other block's producer writes into this block's stage too. Keep fences
//     out of this loop (cluster::arrive_remote's comment says what a cluster-scope one costs).
// Do not return early from any warpgroup: every thread must reach the final cluster::sync().
// Predict first: how many bytes does one SM pull from L2 per K slice here, and in part 3?
#include "roofline/cluster.cuh"
#include "roofline/mbarrier.cuh"
#include "roofline/tma.cuh"
#include "roofline/gemm.cuh"
#include "roofline/wgmma.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>

namespace {

constexpr int kBlockM = 128, kBlockN = 256, kBlockK = 64;
constexpr int kClusterSize = 2;                               // blocks per cluster, stacked along M
constexpr int kStages = 4;
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (kConsumers + 1);
constexpr std::uint32_t kATileBytes = kBlockM * kBlockK * 2;
constexpr std::uint32_t kBTileBytes = kBlockN * kBlockK * 2;  // the whole slice, half from each block
constexpr int kBRowsPerBlock = kBlockN / kClusterSize;        // the part of the Bt slice one block loads
constexpr int kGroupPairs = 4;                                // 4 pairs = 8 tile rows, as in part 3

struct SharedStorage {
    alignas(1024) __nv_bfloat16 a[kStages][kBlockM * kBlockK];
    alignas(1024) __nv_bfloat16 b[kStages][kBlockN * kBlockK];
    std::uint64_t full[kStages];
    std::uint64_t empty[kStages];
};
static_assert(sizeof(SharedStorage) + 1024 <= 227 * 1024, "an H200 block may have at most 227 KiB of shared memory");

// Pair p -> (pair row, tile column), grouped as part 3 groups tiles.
__device__ inline void pair_position(int pair, int pairs_m, int tiles_n, int& pair_m, int& tile_n) {
    const int pairs_per_group = kGroupPairs * tiles_n;
    const int first_m = (pair / pairs_per_group) * kGroupPairs;
    const int group_rows = min(pairs_m - first_m, kGroupPairs);
    pair_m = first_m + (pair % pairs_per_group) % group_rows;
    tile_n = (pair % pairs_per_group) / group_rows;
}

__device__ inline void store_tile(const float (&accumulator)[128], __nv_bfloat16* C, int N, int tile_m, int tile_n,
                                  int consumer) {
    const int warp_in_group = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int row = tile_m * kBlockM + consumer * 64 + warp_in_group * 16 + lane / 4;
    const int col = tile_n * kBlockN + 2 * (lane % 4);
    __nv_bfloat16* out = C + std::size_t(row) * N + col;
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j) {
        *reinterpret_cast<__nv_bfloat162*>(out + 8 * j) = __floats2bfloat162_rn(accumulator[4 * j], accumulator[4 * j + 1]);
        *reinterpret_cast<__nv_bfloat162*>(out + 8 * std::size_t(N) + 8 * j) =
            __floats2bfloat162_rn(accumulator[4 * j + 2], accumulator[4 * j + 3]);
    }
}

__global__ void __launch_bounds__(kThreads, 1) gemm_wgmma_cluster(const __grid_constant__ CUtensorMap a_map,
                                                                  const __grid_constant__ CUtensorMap b_map,
                                                                  __nv_bfloat16* C, int M, int N, int K) {
    extern __shared__ unsigned char shared_raw[];
    auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    auto& shared = *reinterpret_cast<SharedStorage*>(base);

    const int rank = int(roofline::cluster::block_rank());
    const int pairs_m = M / (kBlockM * kClusterSize), tiles_n = N / kBlockN, pairs = pairs_m * tiles_n;
    const int k_slices = K / kBlockK;
    const int cluster = int(roofline::cluster::cluster_index()), clusters = int(roofline::cluster::cluster_count());

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            roofline::mbarrier::init(&shared.full[s], 1);
            roofline::mbarrier::init(&shared.empty[s], kConsumers * 4 * kClusterSize);
        }
        roofline::mbarrier::fence_init();
    }
    roofline::cluster::sync();  // both blocks' barriers exist before either block's copies signal them

    // TODO: which warpgroup this thread is in (as in part 3), then the producer warpgroup and
    // the two consumer warpgroups (see the top of the file).
    (void)rank, (void)pairs, (void)k_slices, (void)cluster, (void)clusters;

    roofline::cluster::sync();  // the other block may still arrive on our empty barriers until here
}

// M a multiple of 256 (a pair of tiles), N of 256, K of 64 (lab.yaml: divisible_by).
void launch_gemm_wgmma_cluster(const __nv_bfloat16* A, const __nv_bfloat16* Bt, __nv_bfloat16* C, int M, int N,
                               int K, cudaStream_t stream) {
    const CUtensorMap a_map = roofline::tma::make_2d_bf16(A, M, K, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
    const CUtensorMap b_map =
        roofline::tma::make_2d_bf16(Bt, N, K, kBRowsPerBlock, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
    constexpr int shared_bytes = sizeof(SharedStorage) + 1024;

    cudaLaunchConfig_t config{};
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = kClusterSize;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;

    // How many clusters of two fit at once: a cluster's blocks share one GPC, so this can be
    // fewer than half the SM count. Asked once; the grid is that many clusters, or fewer.
    static const int resident_clusters = [&] {
        cudaFuncSetAttribute(gemm_wgmma_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
        cudaLaunchConfig_t probe = config;
        probe.gridDim = dim3(roofline::tma::multiprocessor_count() / kClusterSize * kClusterSize);
        int count = 0;
        if (cudaOccupancyMaxActiveClusters(&count, gemm_wgmma_cluster, &probe) != cudaSuccess || count < 1)
            count = roofline::tma::multiprocessor_count() / kClusterSize;
        return count;
    }();
    const int pairs = (M / (kBlockM * kClusterSize)) * (N / kBlockN);
    config.gridDim = dim3(std::min(pairs, resident_clusters) * kClusterSize);
    cudaLaunchKernelEx(&config, gemm_wgmma_cluster, a_map, b_map, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_ABT_VARIANT(wgmma_cluster_4096, launch_gemm_wgmma_cluster);
ROOFLINE_GEMM_ABT_VARIANT(wgmma_cluster_8192, launch_gemm_wgmma_cluster);
