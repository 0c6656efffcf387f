// Open rung: c = a + b in bf16, of your own design. No TODOs: the contract is below, the ideas
// are in the lesson; how many bytes each thread keeps in flight, and how, is yours to choose.
//
// Contract (variant open_add_bf16 in lab.yaml):
//   c[i] = a[i] + b[i] for i < n, __nv_bfloat16 in and out, the sum done in fp32 and rounded to
//   bf16 once (roofline/elementwise.cuh: AddLaunch<__nv_bfloat16>, to_float / from_float).
//   Timed at n = 2^29 (1 GiB per array) against cudaMemcpy of the same bytes in the same run;
//   checked on lab.yaml's verify sizes, odd ones included (1, 17, 4099, 1000003): every n works.
//   Pointers from cudaMalloc (256-byte aligned). Launch on `stream`; no synchronization,
//   allocation, host copies or cudaMemcpy/cudaMemset (the grader refuses them: grader/README.md,
//   "What a kernel file may not do").
//
// What you may use: roofline/elementwise.cuh (to_float, from_float), CUDA's own headers and
// device queries (cudaGetDevice, cudaDeviceGetAttribute), vector types (uint4, __nv_bfloat162),
// inline PTX loads and stores with cache hints if you want them.
//
// Ideas to choose from (lessons/01-roofline.md):
//   §2   the two numbers of the GPU: which roof an add sits under, and the bytes it must move.
//   §4   why the spec sheet is not achievable: what cudaMemcpy itself reaches.
//   §6   why occupancy stopped being the lever: Little's law, bytes in flight per SM, and the
//        ways to raise them (wider loads, more independent loads per thread, more warps).
//   Also yours: the grid (one element per thread, a grid-stride loop, a fixed number of blocks
//   per SM) and how the tail past the last full vector is handled.
//
// Full performance marks: lab.yaml's target_fraction of cudaMemcpy. Predict first
// (roofline predict 01-memory-roof/open_add_bf16 ...); the debrief compares designs after grading.
#include "roofline/contract/elementwise.cuh"

namespace {

void open_add(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, std::size_t n,
              cudaStream_t stream) {
    // Your kernel and its launch. As given, nothing is launched and c is never written: the
    // grader reports the variant INCORRECT until you write it.
    (void)a, (void)b, (void)c, (void)n, (void)stream;
}

}  // namespace

ROOFLINE_ADD_VARIANT(open_add_bf16, open_add);
