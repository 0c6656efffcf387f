// Open rung: a bf16 transpose of your own design. No TODOs: the contract is below, the ideas are
// in the lesson; the tile, how it is staged, how the bank conflicts are avoided and how wide each
// thread's reads and writes are, are yours to choose.
//
// Contract (variant open_transpose_bf16 in lab.yaml):
//   y[c][r] = x[r][c], x a row-major [rows][cols] bf16 array, y a row-major [cols][rows] one, bit
//   for bit (roofline/transpose.cuh). Timed at 16384 x 16384 (512 MiB read, 512 MiB written)
//   against cudaMemcpy moving the same bytes in the same run; checked on lab.yaml's verify
//   shapes that are multiples of divisible_by {rows: 64, cols: 64}. Launch on `stream`; no
//   synchronization, allocation or host copies.
//
// What you may use: roofline/transpose.cuh; roofline/tma.cuh and roofline/mbarrier.cuh (tensor
// maps with a swizzle, box loads and stores: the TMA runs on compute capability 9.0, as rung 4
// does); CUDA's headers; the layout algebra of your own cpu/ part as a way to check a swizzle on
// paper. No library that does the work (grader/README.md, "What a kernel file may not do").
//
// Ideas to choose from (lessons/05-layouts.md):
//   §6 coalesced global accesses: a property of the layout a warp touches, on both sides;
//   §7 banks and wavefronts: count them for your tile's reads and writes;
//   §8 swizzles, a permutation instead of padding;
//   §10 the lab, and what to predict.
//   Also yours: the tile's size and shape, how many tiles a block or a thread handles, and whether
//   the TMA or the threads move the tile in, or out.
//
// The layout library (cpu/*.cpp) has no open rung: it is graded on exact answers, not on speed.
//
// Full performance marks: lab.yaml's target_fraction of cudaMemcpy. Predict first
// (roofline predict 05-layouts/open_transpose_bf16 ...); the debrief compares designs.
#include "roofline/contract/transpose.cuh"

#include <cuda_bf16.h>

namespace {

void open_transpose(const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols, cudaStream_t stream) {
    // Your kernel and its launch. As given, nothing is launched and y is never written: the
    // grader reports the variant INCORRECT until you write it.
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

}  // namespace

ROOFLINE_TRANSPOSE_VARIANT(open_transpose_bf16, open_transpose);
