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
// pieces (a pair, K slices [k_begin, k_end)), not always whole pairs. Write:
//   1. the producer and consumer loops: your part 4, walking the pieces instead of the pairs
//      (`WorkWalk<S> walk(cluster, clusters, pairs, k_slices); for (Work work; walk.next(work);)`,
//      pair_position<S::kGroupPairs>(work.pair, ...), k from work.k_begin to work.k_end, the
//      piece's first wgmma not accumulating); after a piece's last wgmma, in the consumers:
//      if saves_partial(work), save_partial(...) and go on to the next piece (no store);
//      else, if adds_partial(work, k_slices), add_partial(...) first; then store_tile_tma.
//   2. store_tile_tma, for each half (128 columns = 2 boxes):
//      thread 0 of the warpgroup: tma::wait_stores_read<0>() (the TMA unit has read the
//      previous boxes); wgmma::warpgroup_sync(1 + consumer); every thread writes its
//      accumulators of those columns as bf16 pairs: row r (and r + 8) = 16 (warp in group) +
//      lane / 4, 16-byte column j % 8 of the box, stored at byte r * 128 + ((j % 8) ^ (r % 8))
//      * 16 + 4 (lane % 4) (the swizzle); tma::fence_shared_to_async(); warpgroup_sync again;
//      thread 0: store_2d each box at (tile row + 64 consumer, its first column), then
//      commit_stores().
// Predict first: how long does part 4's epilogue keep a consumer warpgroup from its next
// tile, and what fraction of a tile's time is that at 8192^3?
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

// The schedule: which pairs, and which K slices of them, each cluster runs, in what order.
//   kGroupPairs: pairs are numbered in groups of kGroupPairs pair rows, walking down the
//     group's pair rows before moving one tile column right, so that the clusters running
//     at once share their A and Bt panels in L2 (part 3's grouping; 1 is a plain raster).
//   kStreamKTail: with P pairs on C clusters, P % C pairs would leave the last wave part
//     empty (8192^3: 1024 pairs on 66 clusters, 16 waves for 15.5 of work: 3% of the
//     time). Instead the last P % C + C pairs' K slices are cut into C equal runs, one per
//     cluster (stream-K); the first P - (P % C + C) pairs go round as whole pairs first.
//     A run of at least one pair's K slices touches at most two pairs only in part: it
//     starts inside one (a "tail piece": the slices up to its end) and ends inside another
//     (a "head piece": from slice 0), and the rest of a head piece's pair is the next
//     cluster's tail piece, the first of its run. That cluster saves its fp32 partial tile to
//     global memory (stream_k_partials, slot = cluster) and raises a flag; the head piece's
//     cluster, which reaches it last, waits for the flag, adds the partial and stores C.
template <int kGroupPairs_, bool kStreamKTail_>
struct Schedule {
    static constexpr int kGroupPairs = kGroupPairs_;
    static constexpr bool kStreamKTail = kStreamKTail_;
};
// The schedules this file runs (Schedule<4, false> is part 4's: try it after yours works):
// the stream-K tail only where the run is long enough for it to pay (8 or more rounds of pairs).
using ScheduleInUse = Schedule<8, true>;
using ScheduleShortRun = Schedule<8, false>;
inline constexpr int kStreamKMinRounds = 8;

// One piece of work: pair `pair`, K slices [k_begin, k_end) of its k_slices.
struct Work {
    int pair, k_begin, k_end;
};

// A cluster's pieces in order: `while (walk.next(work)) ...` (producer and consumers walk the same).
template <class S>
struct WorkWalk {
    int cluster, clusters, pairs, k_slices;
    int whole_pairs;           // pairs handed out whole, round robin
    long long run, run_end;    // this cluster's run of stream-K slices, counted from the first shared pair
    int next_whole;

    __host__ __device__ WorkWalk(int cluster_, int clusters_, int pairs_, int k_slices_)
        : cluster(cluster_), clusters(clusters_), pairs(pairs_), k_slices(k_slices_) {
        const int leftover = pairs % clusters;
        const bool shared = S::kStreamKTail && leftover != 0 && pairs > clusters;
        whole_pairs = shared ? pairs - leftover - clusters : pairs;
        const long long shared_slices = (long long)(pairs - whole_pairs) * k_slices;
        run = shared_slices * cluster / clusters;
        run_end = shared_slices * (cluster + 1) / clusters;
        next_whole = cluster;
    }

    __host__ __device__ bool next(Work& work) {
        if (next_whole < whole_pairs) {
            work = {next_whole, 0, k_slices};
            next_whole += clusters;
            return true;
        }
        if (run >= run_end) return false;
        const int in_pair = int(run % k_slices);
        work.pair = whole_pairs + int(run / k_slices);
        work.k_begin = in_pair;
        work.k_end = int(in_pair + (run_end - run) < k_slices ? in_pair + (run_end - run) : k_slices);
        run += work.k_end - work.k_begin;
        return true;
    }
};

// A tail piece saves its partial tile; a head piece adds the next cluster's before storing C.
__host__ __device__ inline bool saves_partial(const Work& work) { return work.k_begin > 0; }
__host__ __device__ inline bool adds_partial(const Work& work, int k_slices) { return work.k_end < k_slices; }

// Pair p -> (pair row, tile column): groups of kGroupPairs pair rows, column by column within a group.
template <int kGroupPairs>
__host__ __device__ inline void pair_position(int pair, int pairs_m, int tiles_n, int& pair_m, int& tile_n) {
    const int pairs_per_group = kGroupPairs * tiles_n;
    const int first_m = (pair / pairs_per_group) * kGroupPairs;
    const int group_rows = pairs_m - first_m < kGroupPairs ? pairs_m - first_m : kGroupPairs;
    pair_m = first_m + (pair % pairs_per_group) % group_rows;
    tile_n = (pair % pairs_per_group) / group_rows;
}

// Stream-K partial tiles: one slot per cluster, per block, per consumer, each thread's 128
// accumulators as 32 float4s laid out so that a warp's float4s are 512 contiguous bytes.
// Fixed size (a launch may not allocate): on a GPU that holds more clusters, the launch
// runs kMaxStreamKClusters of them. A flag is raised (1) by the partial's writer and lowered
// (0) by its one reader, so every launch finds them all down, a graph's replays included;
// two launches of this kernel running at once (two streams) would share the slots.
constexpr int kMaxStreamKClusters = 80;  // an H100/H200 holds at most 66 clusters of two
constexpr int kPartialFloats = kConsumers * 128 * 128;  // one block's tile
__device__ float4 stream_k_partials[kMaxStreamKClusters * kClusterSize][kPartialFloats / 4];
__device__ unsigned int stream_k_ready[kMaxStreamKClusters * kClusterSize];

__device__ inline void consumers_sync() { asm volatile("bar.sync 3, 256;" ::: "memory"); }  // both consumer warpgroups

__device__ inline void save_partial(const float (&accumulator)[128], int slot, int consumer) {
    const int thread = threadIdx.x % 128;
    float4* partial = stream_k_partials[slot] + consumer * (128 * 32);
#pragma unroll
    for (int i = 0; i < 32; ++i)
        __stcg(partial + i * 128 + thread, make_float4(accumulator[4 * i], accumulator[4 * i + 1],
                                                       accumulator[4 * i + 2], accumulator[4 * i + 3]));
    consumers_sync();  // every consumer thread's stores come before the flag (the release below)
    if (threadIdx.x == 128) asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(&stream_k_ready[slot]), "r"(1u) : "memory");
}

__device__ inline void add_partial(float (&accumulator)[128], int slot, int consumer) {
    if (threadIdx.x == 128) {
        unsigned ready = 0;
        do asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(ready) : "l"(&stream_k_ready[slot]) : "memory");
        while (ready != 1u);
        stream_k_ready[slot] = 0;  // down for the next launch: nothing else reads it in this one
    }
    consumers_sync();
    const int thread = threadIdx.x % 128;
    const float4* partial = stream_k_partials[slot] + consumer * (128 * 32);
#pragma unroll
    for (int i = 0; i < 32; ++i) {
        const float4 v = __ldcg(partial + i * 128 + thread);  // L2, never a stale L1 line
        accumulator[4 * i] += v.x, accumulator[4 * i + 1] += v.y;
        accumulator[4 * i + 2] += v.z, accumulator[4 * i + 3] += v.w;
    }
}

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
