// The design of solutions/06-async/kernels/05_wgmma_tma_store.cu, shared with the lab's open rung
// (kernels/13_open_gemm_abt.cu), which reuses it as our reference; each file registers it under its own name.
#pragma once
// Lab 06, part 5 (solution): part 4's cluster GEMM (two blocks, Bt multicast) with a TMA
// store epilogue. C[M,N] = A[M,K] Bt[N,K]^T, bf16 in, fp32 accumulate, bf16 out.
//
// Parts 3 and 4 store C straight from the accumulator registers: each consumer thread
// writes 64 pairs of bf16 to 16 rows of C, and the warpgroup's next tile starts only once
// the last store instruction has left. Here each consumer warpgroup writes its 64 x 256
// part of the tile as bf16 into shared memory instead, in the 128-byte swizzled layout of
// a 64 x 64 TMA box (conflict-free: the 8 rows a warp writes at once land in 8 different
// 16-byte columns of the swizzle), and one thread hands the boxes to the TMA unit, which
// writes them to global memory while the warpgroup already runs the next tile's wgmmas.
//
// Shared memory: the ring (4 x 48 KiB) leaves 32 KiB, so each consumer stages half of its
// part (64 x 128 = two boxes, 16 KiB) at a time:
//   for each half: thread 0 of the warpgroup waits until the TMA unit has READ the boxes
//   of the previous store (wait_stores_read<0>); warpgroup barrier; every thread writes
//   its accumulators for those 128 columns; fence_shared_to_async (the TMA unit reads
//   through another proxy); warpgroup barrier; thread 0 starts the two box stores and
//   commits them as one group.
// Before exit thread 0 waits for its stores to complete (wait_stores<0>).
// The ring and its barriers are part 4's, CTA-scoped arrivals included.
// The solution writes the boxes with stmatrix (four 8 x 8 matrices per instruction, the
// accumulator fragment as it is) where the skeleton's four-byte stores are enough; other
// cuts of shared memory between the ring and the epilogue are template arguments
// (Pipeline below), timed against each other by scripts/probes/sched_variants.cu.
//
// The schedule (given in the skeleton) walks pairs in groups of 8 pair rows, and splits the
// last wave's worth of pairs along K over every cluster (stream-K), so that no round ends
// with half the clusters idle: 8192^3 is 1024 pairs on 66 clusters, 15.5 rounds of work.
// A cluster therefore runs pieces (a pair, a range of K slices), not always whole pairs;
// a piece cut off at its start saves its fp32 partial tile, the piece that holds the same
// pair's first slices adds it before the epilogue. See Schedule below.
#include "roofline/ptx/cluster.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kBlockM = 128, kBlockN = 256;
constexpr int kClusterSize = 2;                               // blocks per cluster, stacked along M
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (kConsumers + 1);
constexpr int kBRowsPerBlock = kBlockN / kClusterSize;        // the part of the Bt slice one block loads
constexpr int kBoxRows = 64, kBoxCols = 64;                   // one TMA store box: 64 bf16 = the swizzle width

// How the block's shared memory is cut between the ring and the epilogue, and how the
// epilogue writes it. All fit in 227 KiB; which is fastest is measured, not derived
// (scripts/probes/sched_variants.cu times each beside cuBLAS):
//   kBlockK         K per ring stage: 64 (128-byte rows, SWIZZLE_128B) or 32 (64-byte rows,
//                   SWIZZLE_64B): half the stage, so twice the stages in the same bytes. A
//                   consumer holds two stages (the slice its wgmmas read and the one it frees
//                   one slice late), so smaller stages leave more of the ring to the producer.
//   kStages         ring depth.
//   kEpilogueBoxes  64 x 64 boxes a consumer stages at a time: 2 = half its 64 x 256 part per
//                   round (the second round waits until the TMA unit has read the first),
//                   4 = all of it in one round.
//   kStoreMatrix    write the bf16 tile with stmatrix (four 8 x 8 matrices an instruction,
//                   16 per consumer thread) instead of 64 four-byte stores.
template <int kBlockK_, int kStages_, int kEpilogueBoxes_, bool kStoreMatrix_>
struct Pipeline {
    static constexpr int kBlockK = kBlockK_, kStages = kStages_, kEpilogueBoxes = kEpilogueBoxes_;
    static constexpr bool kStoreMatrix = kStoreMatrix_;
    static constexpr std::uint32_t kATileBytes = kBlockM * kBlockK * 2;
    static constexpr std::uint32_t kBTileBytes = kBlockN * kBlockK * 2;  // the whole slice, half from each block
    static_assert(kBlockK == 64 || kBlockK == 32, "a stage's rows are one swizzle atom wide: 128 or 64 bytes");
    static_assert(kEpilogueBoxes == 2 || kEpilogueBoxes == 4, "a round stores half or all of a consumer's part");
};
// The one this file runs (2026-12-01's was Pipeline<64, 4, 2, false>).
using PipelineInUse = Pipeline<64, 4, 2, true>;

template <class P>
struct SharedStorage {
    alignas(1024) __nv_bfloat16 a[P::kStages][kBlockM * P::kBlockK];
    alignas(1024) __nv_bfloat16 b[P::kStages][kBlockN * P::kBlockK];
    alignas(1024) __nv_bfloat16 c[kConsumers][P::kEpilogueBoxes][kBoxRows * kBoxCols];  // 128-byte swizzled boxes
    std::uint64_t full[P::kStages];
    std::uint64_t empty[P::kStages];
};
template <class P>
constexpr bool fits_in_shared_memory() {  // an H200 block may have at most 227 KiB
    return sizeof(SharedStorage<P>) + 1024 <= 227 * 1024;
}
static_assert(fits_in_shared_memory<PipelineInUse>(), "an H200 block may have at most 227 KiB of shared memory");

// A wgmma descriptor for a K-major stage tile as TMA wrote it: 128-byte rows (kBlockK 64,
// the library's SWIZZLE_128B form) or 64-byte rows (kBlockK 32, SWIZZLE_64B: atoms of 8 rows
// x 64 bytes, 512 bytes apart; swizzle mode 2 in bits 62-63). Stepping along K inside a row
// adds 32 bytes (2 in the descriptor's 16-byte units) in both.
template <int kBlockK>
__device__ inline std::uint64_t kmajor_descriptor(std::uint32_t smem_byte_address) {
    if constexpr (kBlockK == 64) {
        return roofline::wgmma::sw128_kmajor_descriptor(smem_byte_address);
    } else {
        std::uint64_t descriptor = 0;
        descriptor |= std::uint64_t((smem_byte_address & 0x3FFFF) >> 4);
        descriptor |= std::uint64_t(1) << 16;
        descriptor |= std::uint64_t(512 >> 4) << 32;
        descriptor |= std::uint64_t(2) << 62;
        return descriptor;
    }
}

}  // namespace

// The schedule, the work walk and the stream-K partials (given; they use kClusterSize and
// kConsumers above).
#include "given/stream_k_schedule.cuh"

namespace {

// The schedules this file runs: groups of 8 pair rows, and the stream-K tail only where the run
// is long. Stream-K pays a pipeline fill and drain per cut piece and a partial tile through
// memory; measured on an H200 (2026-12-01, scripts/probes/sched_variants.cu), it bought about
// 2% at 8192^3 (15.5 rounds of pairs) and cost about 4% at 4096^3 (3.9 rounds).
using ScheduleInUse = Schedule<8, true>;         // 8 or more rounds of pairs
using ScheduleShortRun = Schedule<8, false>;     // fewer

// Four 8 x 8 bf16 matrices from registers to shared memory: lane l gives the address of row
// l % 8 of matrix l / 8; register i of lane l holds row l / 4, columns 2 (l % 4) + {0, 1} of
// matrix i, which is the accumulator fragment's layout (PTX ISA, stmatrix).
__device__ inline void store_matrix_x4(std::uint32_t address, std::uint32_t r0, std::uint32_t r1, std::uint32_t r2,
                                       std::uint32_t r3) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                 :
                 : "r"(address), "r"(r0), "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
}

__device__ inline std::uint32_t pack_bf16(float low, float high) {
    const __nv_bfloat162 pair = __floats2bfloat162_rn(low, high);
    return *reinterpret_cast<const std::uint32_t*>(&pair);
}

// Consumer `consumer`'s 64 x 256 part of tile (tile_m, tile_n), through shared memory and
// TMA stores, P::kEpilogueBoxes boxes (of 64 columns) a round. Accumulator fragment: rows r
// and r + 8, with r = 16 (warp in group) + lane / 4, columns 8j + 2 (lane % 4) + {0, 1}.
template <class P>
__device__ inline void store_tile_tma(const float (&accumulator)[128], SharedStorage<P>& shared,
                                      const CUtensorMap* c_map, int tile_m, int tile_n, int consumer) {
    constexpr int kBoxes = P::kEpilogueBoxes;
    const int thread = threadIdx.x % 128, warp_in_group = thread / 32, lane = thread % 32;
    const int row = warp_in_group * 16 + lane / 4;  // and row + 8; both have row % 8 == lane / 4
#pragma unroll
    for (int round = 0; round < kBlockN / (kBoxes * kBoxCols); ++round) {
        if (thread == 0) roofline::tma::wait_stores_read<0>();  // the boxes are free again
        roofline::wgmma::warpgroup_sync(1 + consumer);
        if constexpr (P::kStoreMatrix) {
            // Matrices (rows 16 w + {0, 8}, 16-byte columns jj and jj + 1): this lane's row is
            // 16 w + 8 ((lane / 8) % 2) + lane % 8, its column jj + lane / 16; swizzled as below.
            const int matrix_row = warp_in_group * 16 + ((lane / 8) % 2) * 8 + lane % 8;
            const int matrix_column = lane / 16;
#pragma unroll
            for (int jj = 0; jj < kBoxes * kBoxCols / 8; jj += 2) {
                const int j = round * (kBoxes * kBoxCols / 8) + jj;  // 8-column group of the 256
                const std::uint32_t box = roofline::tma::smem_address(shared.c[consumer][jj / 8]);
                const int column = (jj % 8) + matrix_column;
                store_matrix_x4(box + matrix_row * 128 + ((column ^ (matrix_row % 8)) * 16),
                                pack_bf16(accumulator[4 * j], accumulator[4 * j + 1]),
                                pack_bf16(accumulator[4 * j + 2], accumulator[4 * j + 3]),
                                pack_bf16(accumulator[4 * j + 4], accumulator[4 * j + 5]),
                                pack_bf16(accumulator[4 * j + 6], accumulator[4 * j + 7]));
            }
        } else {
#pragma unroll
            for (int jj = 0; jj < kBoxes * kBoxCols / 8; ++jj) {
                const int j = round * (kBoxes * kBoxCols / 8) + jj;  // 8-column group of the 256
                unsigned char* box = reinterpret_cast<unsigned char*>(shared.c[consumer][jj / 8]);
                // 128-byte swizzle: 16-byte column (j % 8) of row r is stored at column (j % 8) ^ (r % 8).
                const int offset = ((jj % 8) ^ (lane / 4)) * 16 + 4 * (lane % 4);
                *reinterpret_cast<__nv_bfloat162*>(box + row * 128 + offset) =
                    __floats2bfloat162_rn(accumulator[4 * j], accumulator[4 * j + 1]);
                *reinterpret_cast<__nv_bfloat162*>(box + (row + 8) * 128 + offset) =
                    __floats2bfloat162_rn(accumulator[4 * j + 2], accumulator[4 * j + 3]);
            }
        }
        roofline::tma::fence_shared_to_async();
        roofline::wgmma::warpgroup_sync(1 + consumer);
        if (thread == 0) {
            for (int b = 0; b < kBoxes; ++b)
                roofline::tma::store_2d(c_map, tile_m * kBlockM + consumer * 64,
                                        tile_n * kBlockN + (round * kBoxes + b) * kBoxCols, shared.c[consumer][b]);
            roofline::tma::commit_stores();
        }
    }
}

template <class S, class P>
__global__ void __launch_bounds__(kThreads, 1) gemm_wgmma_tma_store(const __grid_constant__ CUtensorMap a_map,
                                                                    const __grid_constant__ CUtensorMap b_map,
                                                                    const __grid_constant__ CUtensorMap c_map, int M,
                                                                    int N, int K) {
    extern __shared__ unsigned char shared_raw[];
    auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    auto& shared = *reinterpret_cast<SharedStorage<P>*>(base);
    constexpr int kBlockK = P::kBlockK, kStages = P::kStages;

    const int warpgroup = threadIdx.x / 128;
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

    if (warpgroup == 0) {
        roofline::wgmma::release_registers<40>();
        if (threadIdx.x == 0) {
            roofline::tma::prefetch_map(&a_map);
            roofline::tma::prefetch_map(&b_map);
            roofline::tma::prefetch_map(&c_map);
            int stage = 0;
            std::uint32_t phase = 0;
            WorkWalk<S> walk(cluster, clusters, pairs, k_slices);
            for (Work work; walk.next(work);) {
                int pair_m, tile_n;
                pair_position<S::kGroupPairs>(work.pair, pairs_m, tiles_n, pair_m, tile_n);
                const int tile_m = pair_m * kClusterSize + rank;
                for (int k = work.k_begin; k < work.k_end; ++k) {
                    roofline::mbarrier::wait(&shared.empty[stage], phase ^ 1);  // both blocks freed it
                    roofline::mbarrier::arrive_expect_tx(&shared.full[stage], P::kATileBytes + P::kBTileBytes);
                    roofline::tma::load_2d(shared.a[stage], &a_map, tile_m * kBlockM, k * kBlockK, &shared.full[stage]);
                    roofline::cluster::load_2d_multicast(shared.b[stage] + rank * kBRowsPerBlock * kBlockK, &b_map,
                                                         tile_n * kBlockN + rank * kBRowsPerBlock, k * kBlockK,
                                                         &shared.full[stage], (1u << kClusterSize) - 1);
                    if (++stage == kStages) stage = 0, phase ^= 1;
                }
            }
        }
    } else {
        roofline::wgmma::claim_registers<232>();
        const int consumer = warpgroup - 1;
        const int lane = threadIdx.x % 32;
        float accumulator[128] = {};
        int stage = 0;
        std::uint32_t phase = 0;
        // Frees a stage in both blocks of the cluster: one arrival per warp on each.
        auto release = [&](int s) {
            if (lane == 0)
                for (int r = 0; r < kClusterSize; ++r) roofline::cluster::arrive_remote(&shared.empty[s], r);
        };

        WorkWalk<S> walk(cluster, clusters, pairs, k_slices);
        for (Work work; walk.next(work);) {
            int pair_m, tile_n;
            pair_position<S::kGroupPairs>(work.pair, pairs_m, tiles_n, pair_m, tile_n);
            const int tile_m = pair_m * kClusterSize + rank;
            int previous_stage = -1;
            for (int k = work.k_begin; k < work.k_end; ++k) {
                roofline::mbarrier::wait(&shared.full[stage], phase);
                const std::uint64_t a_descriptor = kmajor_descriptor<kBlockK>(
                    roofline::tma::smem_address(shared.a[stage] + consumer * 64 * kBlockK));
                const std::uint64_t b_descriptor =
                    kmajor_descriptor<kBlockK>(roofline::tma::smem_address(shared.b[stage]));
                roofline::wgmma::fence();
#pragma unroll
                for (int step = 0; step < kBlockK / 16; ++step)
                    roofline::wgmma::mma_m64n256k16_bf16(accumulator, a_descriptor + 2 * step, b_descriptor + 2 * step,
                                                         k > work.k_begin || step > 0);
                roofline::wgmma::commit();
                roofline::wgmma::wait<1>();
                if (previous_stage >= 0) release(previous_stage);
                previous_stage = stage;
                if (++stage == kStages) stage = 0, phase ^= 1;
            }
            roofline::wgmma::wait<0>();
            release(previous_stage);
            if (saves_partial(work)) {
                save_partial(accumulator, cluster * kClusterSize + rank, consumer);
                continue;
            }
            if (adds_partial(work, k_slices)) add_partial(accumulator, (cluster + 1) * kClusterSize + rank, consumer);
            store_tile_tma<P>(accumulator, shared, &c_map, tile_m, tile_n, consumer);
        }
        if (threadIdx.x % 128 == 0) roofline::tma::wait_stores<0>();  // C is in global memory
    }
    roofline::cluster::sync();  // the other block may still arrive on our empty barriers until here
}

// M a multiple of 256 (a pair of tiles), N of 256, K of 64 (lab.yaml: divisible_by).
template <class S, class P>
void launch_with_schedule(const __nv_bfloat16* A, const __nv_bfloat16* Bt, __nv_bfloat16* C, int M, int N, int K,
                          cudaStream_t stream) {
    static_assert(fits_in_shared_memory<P>(), "an H200 block may have at most 227 KiB of shared memory");
    constexpr CUtensorMapSwizzle kStageSwizzle =
        P::kBlockK == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;  // one row = one swizzle width
    const CUtensorMap a_map = roofline::tma::make_2d_bf16(A, M, K, kBlockM, P::kBlockK, kStageSwizzle);
    const CUtensorMap b_map = roofline::tma::make_2d_bf16(Bt, N, K, kBRowsPerBlock, P::kBlockK, kStageSwizzle);
    const CUtensorMap c_map = roofline::tma::make_2d_bf16(C, M, N, kBoxRows, kBoxCols, CU_TENSOR_MAP_SWIZZLE_128B);
    constexpr int shared_bytes = sizeof(SharedStorage<P>) + 1024;

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
        cudaFuncSetAttribute(gemm_wgmma_tma_store<S, P>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
        cudaLaunchConfig_t probe = config;
        probe.gridDim = dim3(roofline::tma::multiprocessor_count() / kClusterSize * kClusterSize);
        int count = 0;
        const cudaError_t status = cudaOccupancyMaxActiveClusters(&count, gemm_wgmma_tma_store<S, P>, &probe);
        if (std::getenv("ROOFLINE_LAB04_DIAG")) {  // for a profiling run: what the launch was told
            cudaFuncAttributes attributes{};
            cudaFuncGetAttributes(&attributes, gemm_wgmma_tma_store<S, P>);
            std::fprintf(stderr, "wgmma_tma_store: cudaOccupancyMaxActiveClusters = %d (%s) for %d SMs; %d registers, %d bytes "
                         "of shared memory per block\n", count, cudaGetErrorString(status),
                         roofline::tma::multiprocessor_count(), attributes.numRegs, shared_bytes);
        }
        if (status != cudaSuccess || count < 1) count = roofline::tma::multiprocessor_count() / kClusterSize;
        return count;
    }();
    // The partial slots hold kMaxStreamKClusters clusters: a larger GPU runs that many.
    const int pairs = (M / (kBlockM * kClusterSize)) * (N / kBlockN);
    const int clusters = std::min(pairs, S::kStreamKTail ? std::min(resident_clusters, kMaxStreamKClusters)
                                                         : resident_clusters);
    config.gridDim = dim3(clusters * kClusterSize);
    cudaLaunchKernelEx(&config, gemm_wgmma_tma_store<S, P>, a_map, b_map, c_map, M, N, K);
}

// The shape rule: the stream-K tail only where there are kStreamKMinRounds rounds of pairs or more.
template <class P>
void launch_with_pipeline(const __nv_bfloat16* A, const __nv_bfloat16* Bt, __nv_bfloat16* C, int M, int N, int K,
                          cudaStream_t stream) {
    const int pairs = (M / (kBlockM * kClusterSize)) * (N / kBlockN);
    const int clusters_at_most = roofline::tma::multiprocessor_count() / kClusterSize;
    if (pairs >= kStreamKMinRounds * clusters_at_most) launch_with_schedule<ScheduleInUse, P>(A, Bt, C, M, N, K, stream);
    else launch_with_schedule<ScheduleShortRun, P>(A, Bt, C, M, N, K, stream);
}

void launch_gemm_wgmma_tma_store(const __nv_bfloat16* A, const __nv_bfloat16* Bt, __nv_bfloat16* C, int M, int N,
                                 int K, cudaStream_t stream) {
    launch_with_pipeline<PipelineInUse>(A, Bt, C, M, N, K, stream);
}

}  // namespace

