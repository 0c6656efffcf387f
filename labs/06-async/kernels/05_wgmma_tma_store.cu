// Lab 06, part 5: part 4's cluster GEMM with a TMA store epilogue. C[M,N] = A[M,K] Bt[N,K]^T.
//
// Parts 3 and 4 store C from the accumulator registers, and a consumer warpgroup starts its
// next tile only after its last store instruction has gone out. Here each consumer writes
// its 64 x 256 part of the tile as bf16 into shared memory, in the layout of 64 x 64 TMA
// boxes with the 128-byte swizzle, and one thread hands the boxes to the TMA unit, which
// writes them to global memory while the warpgroup runs the next tile's wgmmas.
//
// Given: everything of part 4 that was given there, plus a third tensor map (C, 64 x 64
// boxes, 128-byte swizzle), 2 x 16 KiB of staging boxes (shared.c: each consumer stages
// 64 x 128, half its part, at a time: the ring leaves no room for more) and the final
// wait_stores<0>() of thread 0 of each consumer warpgroup; and the schedule (Schedule,
// WorkWalk, save_partial, add_partial below): the pairs in groups of 8 pair rows, and the
// last wave's worth of pairs split along K over every cluster (stream-K), so a cluster runs
// pieces (a pair, K slices [k_begin, k_end)), not always whole pairs. Write (lesson 06,
// section 10.7):
//   1. the producer and consumer loops: your part 4, walking the pieces instead of the pairs
//      (WorkWalk<S> and pair_position<S::kGroupPairs> below give a piece's pair and its K
//      range; a piece's first wgmma does not accumulate). After a piece's last wgmma, the
//      consumers either hand a partial sum on (saves_partial: save it, store nothing) or
//      finish the tile (adds_partial first, where another piece's partial is owed to it),
//      then store it with store_tile_tma.
//   2. store_tile_tma: the warpgroup's 64 x 256 part of the tile as bf16, through shared.c,
//      one half (two 64 x 64 boxes) at a time. The staging boxes must hold the layout the C
//      tensor map describes: rows of 128 bytes with the 128-byte swizzle (the 16-byte chunk
//      number XORed with the row's position in its 8-row group, lesson 06, section 2), each
//      thread writing its own accumulators (wgmma.cuh's accumulator layout says whose rows and
//      columns those are). The hazards, in order: the staging boxes are reused, so wait until
//      the TMA unit has READ the previous boxes before overwriting them
//      (tma::wait_stores_read); the whole warpgroup writes, one thread issues the stores, so
//      a warpgroup barrier separates the two, and the generic-proxy writes must be made
//      visible to the TMA unit first (tma::fence_shared_to_async); then one thread stores
//      each box at its place in C and commits the group.
// Predict first: how long does part 4's epilogue keep a consumer warpgroup from its next
// tile, and what fraction of a tile's time is that at 8192^3?
#include "roofline/ptx/cluster.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/wgmma.cuh"

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
constexpr int kBoxRows = 64, kBoxCols = 64;                   // one TMA store box: 64 bf16 = the swizzle width
constexpr int kStoreBoxes = 2;                                // boxes a consumer stages at a time (64 x 128)

struct SharedStorage {
    alignas(1024) __nv_bfloat16 a[kStages][kBlockM * kBlockK];
    alignas(1024) __nv_bfloat16 b[kStages][kBlockN * kBlockK];
    alignas(1024) __nv_bfloat16 c[kConsumers][kStoreBoxes][kBoxRows * kBoxCols];  // 128-byte swizzled boxes
    std::uint64_t full[kStages];
    std::uint64_t empty[kStages];
};
static_assert(sizeof(SharedStorage) + 1024 <= 227 * 1024, "an H200 block may have at most 227 KiB of shared memory");

}  // namespace

// The schedule, the work walk and the stream-K partials (given; they use kClusterSize and
// kConsumers above).
#include "given/stream_k_schedule.cuh"

namespace {

// The schedules this file runs (Schedule<4, false> is part 4's: try it after yours works):
// the stream-K tail only where the run is long enough for it to pay (8 or more rounds of pairs).
using ScheduleInUse = Schedule<8, true>;
using ScheduleShortRun = Schedule<8, false>;

// Consumer `consumer`'s 64 x 256 part of tile (tile_m, tile_n), through shared memory and
// TMA stores, half (128 columns) at a time. Accumulator fragment: rows r and r + 8, with
// r = 16 (warp in group) + lane / 4, columns 8j + 2 (lane % 4) + {0, 1}.
__device__ inline void store_tile_tma(const float (&accumulator)[128], SharedStorage& shared,
                                      const CUtensorMap* c_map, int tile_m, int tile_n, int consumer) {
    // TODO: stage the accumulators in shared.c and store them with the TMA unit (see the top of the file).
    (void)accumulator, (void)shared, (void)c_map, (void)tile_m, (void)tile_n, (void)consumer;
}

template <class S>
__global__ void __launch_bounds__(kThreads, 1) gemm_wgmma_tma_store(const __grid_constant__ CUtensorMap a_map,
                                                                    const __grid_constant__ CUtensorMap b_map,
                                                                    const __grid_constant__ CUtensorMap c_map, int M,
                                                                    int N, int K) {
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

    // TODO: the producer warpgroup and the two consumer warpgroups: your part 4, walking
    // WorkWalk<S>'s pieces (see the top of the file), with the partials and store_tile_tma
    // after each piece.
    (void)rank, (void)pairs, (void)k_slices, (void)cluster, (void)clusters;
    const int warpgroup = threadIdx.x / 128;
    if (warpgroup > 0) {
        if (threadIdx.x % 128 == 0) roofline::tma::wait_stores<0>();  // C is in global memory
    }
    roofline::cluster::sync();  // the other block may still arrive on our empty barriers until here
}

// M a multiple of 256 (a pair of tiles), N of 256, K of 64 (lab.yaml: divisible_by).
template <class S>
void launch_with_schedule(const __nv_bfloat16* A, const __nv_bfloat16* Bt, __nv_bfloat16* C, int M, int N, int K,
                          cudaStream_t stream) {
    const CUtensorMap a_map = roofline::tma::make_2d_bf16(A, M, K, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
    const CUtensorMap b_map =
        roofline::tma::make_2d_bf16(Bt, N, K, kBRowsPerBlock, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
    const CUtensorMap c_map = roofline::tma::make_2d_bf16(C, M, N, kBoxRows, kBoxCols, CU_TENSOR_MAP_SWIZZLE_128B);
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
    // Every cluster of the grid is resident at once, which stream-K's wait for the next
    // cluster's partial relies on (a waiting cluster never holds an SM that one it waits for needs).
    static const int resident_clusters = [&] {
        cudaFuncSetAttribute(gemm_wgmma_tma_store<S>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
        cudaLaunchConfig_t probe = config;
        probe.gridDim = dim3(roofline::tma::multiprocessor_count() / kClusterSize * kClusterSize);
        int count = 0;
        if (cudaOccupancyMaxActiveClusters(&count, gemm_wgmma_tma_store<S>, &probe) != cudaSuccess || count < 1)
            count = roofline::tma::multiprocessor_count() / kClusterSize;
        return count;
    }();
    // The partial slots hold kMaxStreamKClusters clusters: a larger GPU runs that many.
    const int pairs = (M / (kBlockM * kClusterSize)) * (N / kBlockN);
    const int clusters = std::min(pairs, S::kStreamKTail ? std::min(resident_clusters, kMaxStreamKClusters)
                                                         : resident_clusters);
    config.gridDim = dim3(clusters * kClusterSize);
    cudaLaunchKernelEx(&config, gemm_wgmma_tma_store<S>, a_map, b_map, c_map, M, N, K);
}

void launch_gemm_wgmma_tma_store(const __nv_bfloat16* A, const __nv_bfloat16* Bt, __nv_bfloat16* C, int M, int N,
                                 int K, cudaStream_t stream) {
    const int pairs = (M / (kBlockM * kClusterSize)) * (N / kBlockN);
    const int clusters_at_most = roofline::tma::multiprocessor_count() / kClusterSize;
    if (pairs >= kStreamKMinRounds * clusters_at_most) launch_with_schedule<ScheduleInUse>(A, Bt, C, M, N, K, stream);
    else launch_with_schedule<ScheduleShortRun>(A, Bt, C, M, N, K, stream);
}

}  // namespace

ROOFLINE_GEMM_ABT_VARIANT(wgmma_tma_store_4096, launch_gemm_wgmma_tma_store);
ROOFLINE_GEMM_ABT_VARIANT(wgmma_tma_store_8192, launch_gemm_wgmma_tma_store);
