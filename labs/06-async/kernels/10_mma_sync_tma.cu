// Lab 06, the bridge rung: lab 03 rung 9's mma.sync loop, fed by the TMA unit.
// C[M,N] = A[M,K] Bt[N,K]^T, bf16 in, fp32 accumulate, bf16 out (op gemm_abt, as the wgmma rungs).
//
// Rung 9 of lab 03 issues its own copies: between its ldmatrix and mma, every mma warp computes
// addresses and issues cp.async for the tiles ahead, and a block barrier each K slice stops all
// eight warps at once. Here the math stays rung 9's (a 128 x 256 tile, eight warps of 64 x 64,
// mma.sync m16n8k16 with fp32 accumulators, fragments double-buffered in registers) and the
// copies move to the TMA unit, driven by a producer warpgroup through a 4-stage ring with a
// full and an empty mbarrier per stage, as in rungs 3 and 5. What this rung measures is what
// the copy engine buys on its own, before wgmma (rung 4 on) changes the instruction as well.
//
// Given (given/mma_sync_tma.cuh, given/mma_sync_tma_launch.cuh): the launch (one 384-thread
// block per C tile: warpgroup 0 the producer, warpgroups 1 and 2 the eight mma warps), the
// tensor maps (A in [128][64] boxes, Bt in [256][64] boxes, both with the 128-byte swizzle),
// the shared storage and its barriers (initialised below), the tile order, and store_tile,
// which writes your accumulators to C. The PTX wrappers: roofline/tma.cuh, mbarrier.cuh,
// mma_sync.cuh (ldmatrix_x4, mma_bf16_16816) and wgmma.cuh (release_registers,
// claim_registers). Shapes: M a multiple of 128, N of 256, K of 64 (lab.yaml's divisible_by);
// K may be a single slice, fewer slices than stages.
//
// Predict first (the README asks how): against rung 9, what fraction of the mma.sync roof
// (`roofline ceilings`) do you expect, and which of rung 9's costs does this design remove?
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/mma_sync.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>

#include <cstdint>

#include "given/mma_sync_tma.cuh"

namespace {

__global__ void __launch_bounds__(kThreads, 1) gemm_mma_sync_tma(const __grid_constant__ CUtensorMap a_map,
                                                                 const __grid_constant__ CUtensorMap b_map,
                                                                 __nv_bfloat16* C, int M, int N, int K) {
    extern __shared__ unsigned char shared_raw[];
    SharedStorage& shared = shared_storage(shared_raw);
    const TileOrigin tile = tile_of_block(M, N);
    init_barriers(shared);

    // TODO 1, the producer (warpgroup 0). The whole warpgroup first gives its registers back
    //   (setmaxnreg acts on a warpgroup, and only the mma warps need many). Then one thread walks
    //   the K slices in order, slice k into stage k modulo the ring's size: it waits until the
    //   mma warps have emptied that stage (which phase parity? on the first pass round the ring
    //   nobody has emptied anything yet, and the wait must return at once), announces on the
    //   stage's full barrier how many bytes will land there, and asks the TMA unit for the A box
    //   and the Bt box of this block's tile at this slice. Every other thread of the warpgroup
    //   has nothing to do: it leaves.
    //
    // TODO 2, the mma warps (warpgroups 1 and 2). They first take the registers the producer gave
    //   back (the accumulators and two sets of fragments need about two hundred a thread). Warp w
    //   of the eight owns a 64 x 64 part of the tile, in a 2 x 4 arrangement, as in rung 9.
    //
    // TODO 3, where each lane's ldmatrix reads. ldmatrix_x4 loads four 8 x 8 matrices; each lane
    //   names one 16-byte row of one of them. For A (row-major), which tile row and which 16-byte
    //   chunk of it must a lane name so that the four registers come out in the order mma.sync
    //   wants its A fragment? For Bt, which is N rows of K (the transpose of what rung 9's B was),
    //   ldmatrix without .trans already gives the mma's B fragment: which rows and chunks, so that
    //   one x4 load yields the fragments of two neighbouring n8 tiles? Then the swizzle: the TMA
    //   unit did not store the chunks where they lie in the tile row. Work out, from the swizzle
    //   the tensor map names, where a row's chunk ended up; show that the warp's own row offsets
    //   leave that placement depending on the lane alone, and that moving to the next k16 step
    //   changes the lane's address in a way you can apply without recomputing it. Check, for one
    //   8-lane phase of an ldmatrix, that its eight rows hit eight different chunk positions:
    //   that is what keeps the loads free of bank conflicts.
    //
    // TODO 4, the K loop. Wait for stage 0 to be full, load the first step's fragments. For each
    //   slice and each of its k16 steps: load the fragments of the step after (or of the next
    //   slice's first step, once that slice's stage is full) into the set the mma are not
    //   reading, then run the step's mma on the other set. As soon as a warp has issued its last
    //   ldmatrix of a slice, it must hand the stage back: one arrival per warp on the stage's
    //   empty barrier (how many arrivals does that barrier expect, and what must the warp's
    //   lanes agree on before one lane arrives for all of them?). Why is it safe to free the
    //   stage before the last step's mma have run? No block barrier anywhere in the loop: why
    //   is none needed?
    //
    // TODO 5, the store: store_tile with the accumulators (it waits for every mma warp itself).
}

}  // namespace

// The launch (given).
#include "given/mma_sync_tma_launch.cuh"

ROOFLINE_GEMM_ABT_VARIANT(mma_sync_tma_4096, launch_gemm_mma_sync_tma);
ROOFLINE_GEMM_ABT_VARIANT(mma_sync_tma_8192, launch_gemm_mma_sync_tma);
