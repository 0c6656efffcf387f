// Defect 4 of lab 06: row sums through a shared-memory tile read down its columns.   (your file)
// A block sums 32 rows. For each slice of 64 columns, its warps load the 32 x 64 bf16
// slice row by row (coalesced), add each pair in fp32 and store it to tile[row][lane];
// then warp 0 adds the slice up, lane r walking tile[r][0..31]. At each step the 32
// lanes read tile[0][c], tile[1][c], ... tile[31][c]: 32 words 32 words apart, all in
// the same bank of shared memory. The hardware serves them one after another.
// Before you profile: the DRAM bytes (the model's), and which unit binds? Then
// `roofline profile` and read the bank-conflict sign. Fix: change the tile so that
// column c of rows 0..31 falls in 32 different banks (one word of padding per row).
#include "roofline/reduction.cuh"

namespace {

constexpr int kRows = 32;     // rows per block
constexpr int kWarps = 8;
constexpr int kSlice = 64;    // bf16 columns per slice: 32 pairs, one per lane

__global__ void row_sum_conflicted(const __nv_bfloat16* __restrict__ x, float* __restrict__ sums, int rows, int cols) {
    __shared__ float tile[kRows][32];  // tile[r][lane]: column `lane` of every row in one bank
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
            for (int c = 0; c < 32; ++c) total += tile[lane][c];  // 32 lanes, one bank: 32-way conflict
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
