// Thread-block clusters (sm_90): the blocks of a cluster run at the same time on SMs of
// one GPC and can reach each other's shared memory (distributed shared memory). Lab 06
// uses them to add partial row sums across blocks (load_remote) and for TMA multicast: one global read of a tile lands in the shared memory of
// every block named in a mask, and each copy's bytes are counted on the mbarrier at the
// same offset in each of those blocks.
//
// PTX ISA 8.x: "Cluster of cooperative thread arrays", special register %cluster_ctarank,
// "barrier.cluster", "mapa", "ld" (.shared::cluster), "mbarrier.arrive" (.shared::cluster), "cp.async.bulk.tensor"
// (.multicast::cluster). CUDA programming guide, "Thread Block Clusters" (cluster launch
// with cudaLaunchKernelEx and cudaLaunchAttributeClusterDimension).
#pragma once
#include "mbarrier.cuh"
#include "tma.cuh"

#include <cstdint>

namespace roofline::cluster {

using tma::smem_address;

// This block's rank in its cluster (0 .. cluster size - 1).
__device__ inline std::uint32_t block_rank() {
    std::uint32_t rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    return rank;
}

// Which cluster of the grid this block belongs to, and how many clusters there are (1-D grids).
__device__ inline std::uint32_t cluster_index() {
    std::uint32_t id;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(id));
    return id;
}
__device__ inline std::uint32_t cluster_count() {
    std::uint32_t n;
    asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(n));
    return n;
}

// Every thread of every block in the cluster: a barrier across the cluster, with release
// and acquire semantics, so that (for instance) mbarrier initialisations in one block are
// seen by the others before any of them signals a barrier there. All threads must call it.
__device__ inline void sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Arrives on the mbarrier at the same shared-memory offset as `local_barrier`, in the
// block of cluster rank `rank` (which may be this block). Wait on it, in its own block,
// with mbarrier::wait.
//
// The release is CTA-scoped on purpose. A consumer arrives to say "I have finished
// reading this stage"; its reads were wgmma operand reads, which wgmma.wait_group has
// already waited for, so no fence is needed to order them. A cluster-scope release
// (mbarrier.arrive.release.cluster) makes ptxas put MEMBAR.ALL.CTA, MEMBAR.ALL.GPU,
// ERRBAR and CGAERRBAR before the arrival: a GPU-wide wait for every earlier memory
// operation of the warp, per arrival, inside the GEMM's main loop. (Likewise a
// cluster-scope acquire on the waiting side adds an L1 invalidation, CCTL.IVALL.)
// This is the form CUTLASS's ClusterBarrier::arrive(cta_id) uses.
__device__ inline void arrive_remote(std::uint64_t* local_barrier, std::uint32_t rank) {
    std::uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_address(local_barrier)), "r"(rank));
    asm volatile("mbarrier.arrive.release.cta.shared::cluster.b64 _, [%0];" : : "r"(remote) : "memory");
}

// Distributed shared memory: reads the float at `local`'s shared-memory offset in the block
// of cluster rank `rank` (which may be this block). What that block wrote before a
// cluster::sync() that both passed is visible here.
__device__ inline float load_remote(const float* local, std::uint32_t rank) {
    std::uint32_t remote;
    float value;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_address(local)), "r"(rank));
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(value) : "r"(remote) : "memory");
    return value;
}

// A TMA load whose box lands at `destination`'s offset in every block whose bit is set in
// `block_mask` (bit r = cluster rank r), each copy counted on the mbarrier at `barrier`'s
// offset in that block. Each receiving block must have armed its barrier for these bytes.
__device__ inline void load_2d_multicast(void* destination, const CUtensorMap* map, int row, int col,
                                         std::uint64_t* barrier, std::uint16_t block_mask) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;"
        :
        : "r"(smem_address(destination)), "l"(map), "r"(col), "r"(row), "r"(smem_address(barrier)), "h"(block_mask)
        : "memory");
}

}  // namespace roofline::cluster
