// Open rung: row sums of a bf16 matrix, of your own design, found with the profiler. No TODOs and
// no given kernel: the contract is below, the ideas are in the lessons. The loop is the lab's:
// write a first version, predict and profile it, name what binds it (`roofline diagnose`), fix
// that, and grade the fix.
//
// Contract (variant open_row_sum_bf16 in lab.yaml):
//   sums[r] = sum over c of x[r][c], x a row-major [rows][cols] bf16 array, each sum accumulated
//   and returned in fp32 (roofline/reduction.cuh). Timed at 16384 x 16384 (512 MiB read once)
//   against cudaMemcpy moving the same bytes in the same run; checked on lab.yaml's row-sum
//   verify shapes, ragged ones included: every rows and cols work. Launch on `stream`; no
//   synchronization, allocation or host copies.
//
// What you may use: roofline/reduction.cuh (the 16-byte load's sum of 8 bf16 among its helpers),
// CUDA's headers and device queries, warp shuffles, shared memory.
//
// Ideas to choose from (lessons/02-profile.md):
//   §2 the counters that place a kernel on the roofline; §3 what the gaps between levels mean;
//   §4 occupancy as a symptom, not a goal; §6 the six defects of this lab, each one a way for a
//   row sum to lose: uncoalesced walks, bank conflicts, too few warps, a tail.
//   lessons/01-roofline.md §6: the bytes in flight a memory-bound kernel needs.
//   Also yours: how rows map to lanes, warps and blocks (a row per warp, a row per block, 32 rows
//   per block through a shared tile, as defect 4's kernel does), and how a lane's partial sums
//   meet.
//
// Full performance marks: lab.yaml's target_fraction of cudaMemcpy; the diagnosis points need a
// profile of a version before your last one. Predict first
// (roofline predict 02-profile/open_row_sum_bf16 ...); the debrief compares designs.
#include "roofline/contract/reduction.cuh"

namespace {

void open_row_sum(const __nv_bfloat16* x, float* sums, int rows, int cols, cudaStream_t stream) {
    // Your kernel and its launch. As given, nothing is launched and sums is never written: the
    // grader reports the variant INCORRECT until you write it.
    (void)x, (void)sums, (void)rows, (void)cols, (void)stream;
}

}  // namespace

ROOFLINE_ROW_SUM_VARIANT(open_row_sum_bf16, open_row_sum);
