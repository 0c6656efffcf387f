// Given code for lab 06's part 5 (kernels/05_wgmma_tma_store.cu): the schedule (the pairs'
// order and the stream-K tail), the walk over a cluster's pieces of work, and the stream-K
// partial tiles in global memory. The skeleton and the solution include this one file, after
// their kClusterSize (blocks per cluster) and kConsumers (consumer warpgroups), which it uses.
#pragma once
#include "roofline/ptx/cluster.cuh"
#include "roofline/ptx/mbarrier.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>

namespace {

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

}  // namespace
