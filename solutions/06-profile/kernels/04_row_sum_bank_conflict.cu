// Defect 4 of lab 06, fixed: one word of padding per tile row.
// tile[r][c] now sits at word r * 33 + c, in bank (r + c) % 32: at each step of warp 0's
// walk the 32 lanes read 32 different banks, one wavefront instead of 32. The DRAM
// bytes are the same; the shared-memory pipe stops binding and the sums run at the
// memory roof.
#include "roofline/reduction.cuh"

namespace {

constexpr int kRows = 32;     // rows per block
constexpr int kWarps = 8;
constexpr int kSlice = 64;    // bf16 columns per slice: 32 pairs, one per lane

__global__ void row_sum_conflicted(const __nv_bfloat16* __restrict__ x, float* __restrict__ sums, int rows, int cols) {
    __shared__ float tile[kRows][33];  // one spare word per row shifts each row by one bank
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int row0 = blockIdx.x * kRows;
    float total = 0;  // warp 0, lane r: the sum of row row0 + r
    for (int c0 = 0; c0 < cols; c0 += kSlice) {
        for (int r = warp; r < kRows; r += kWarps) {
            float pair = 0;
            const int row = row0 + r, c = c0 + 2 * lane;
            if (row < rows) {
                const __nv_bfloat16* p = x + std::size_t(row) * cols;
                if (c < cols) pair += __bfloat162float(p[c]);
                if (c + 1 < cols) pair += __bfloat162float(p[c + 1]);
            }
            tile[r][lane] = pair;
        }
        __syncthreads();
        if (warp == 0) {
            for (int c = 0; c < 32; ++c) total += tile[lane][c];  // lanes in 32 different banks
        }
        __syncthreads();
    }
    if (warp == 0 && row0 + lane < rows) sums[row0 + lane] = total;
}

void row_sum_bank_conflict(const __nv_bfloat16* x, float* sums, int rows, int cols, cudaStream_t stream) {
    row_sum_conflicted<<<(rows + kRows - 1) / kRows, kWarps * 32, 0, stream>>>(x, sums, rows, cols);
}

}  // namespace

ROOFLINE_ROW_SUM_VARIANT(row_sum_bank_conflict_bf16, row_sum_bank_conflict);
