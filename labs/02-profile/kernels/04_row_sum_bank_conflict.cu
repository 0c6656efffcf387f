// Defect 4 of lab 02: row sums through a shared-memory tile that is read down its columns.   (your file)
// A block of 8 warps sums 32 rows, 256 bf16 columns (a 512-byte slice of each row) at a
// time. Loading is done well: each thread loads 16 bytes (8 bf16) of 4 rows, and the
// next slice's loads are issued before the current slice is added up: 16 KiB per block,
// 64 KiB per SM (four blocks), are in flight. Each thread turns its 8 bf16 into fp32 and
// stores them to the tile at tile[row][i * 32 + lane] (the order of a row's columns does
// not matter to its sum).
// Then each lane owns a row: lane r of warp w adds tile[r][w], tile[r][w + 8], ... (the 8
// warps split the 256 columns). At each step the 32 lanes read the same column of 32 rows,
// 32 words 256 words (1 KiB) apart: all in one bank of shared memory, which serves them
// one after another.
// Before you profile: the DRAM bytes (the model's), how many shared-memory passes
// (wavefronts) one of those reads takes, and what that allows per SM per cycle against
// what HBM needs. Then `roofline profile` and read the bank-conflict count and the L1
// row. Fix: change only where tile[row][col] lives, so that column c of 32 rows falls in
// 32 different banks.
#include "roofline/contract/reduction.cuh"

#include <cstdint>

namespace {

constexpr int kRows = 32;                // rows per block: one per lane
constexpr int kWarps = 8;
constexpr int kRowsPerWarp = kRows / kWarps;  // rows each thread loads per slice
constexpr int kSlice = 32 * 8;           // bf16 columns per slice: 16 bytes per lane
constexpr int kStride = kSlice;          // words from one tile row to the next: 256, a multiple of 32

// 8 bf16 of row `row` from column c, zeros past the matrix. One 16-byte load when the
// rows are 16-byte aligned (cols a multiple of 8), else one element at a time.
__device__ uint4 load_8(const __nv_bfloat16* __restrict__ x, int rows, int cols, int row, int c) {
    uint4 packed = make_uint4(0, 0, 0, 0);
    if (row >= rows || c >= cols) return packed;
    const __nv_bfloat16* p = x + std::size_t(row) * cols + c;
    if (cols % 8 == 0) return *reinterpret_cast<const uint4*>(p);
    unsigned short bits[8] = {};
    for (int i = 0; i < 8 && c + i < cols; ++i) bits[i] = __bfloat16_as_ushort(p[i]);
    for (int i = 0; i < 4; ++i) reinterpret_cast<unsigned*>(&packed)[i] = bits[2 * i] | unsigned(bits[2 * i + 1]) << 16;
    return packed;
}

__global__ void __launch_bounds__(kWarps * 32, 4)
    row_sum_tiled(const __nv_bfloat16* __restrict__ x, float* __restrict__ sums, int rows, int cols) {
    __shared__ float tile[kRows * kStride];  // tile[r][i] at r * kStride + i
    __shared__ float partial[kWarps][kRows];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int row0 = blockIdx.x * kRows;
    uint4 next[kRowsPerWarp];
    for (int j = 0; j < kRowsPerWarp; ++j) next[j] = load_8(x, rows, cols, row0 + warp + kWarps * j, 8 * lane);
    float total = 0;  // lane r of warp w: columns w, w + 8, w + 16, ... of each slice of row row0 + r
    for (int c0 = 0; c0 < cols; c0 += kSlice) {
        uint4 current[kRowsPerWarp];
        for (int j = 0; j < kRowsPerWarp; ++j) current[j] = next[j];
        if (c0 + kSlice < cols) {  // the next slice's loads, in flight while this one is added up
            for (int j = 0; j < kRowsPerWarp; ++j)
                next[j] = load_8(x, rows, cols, row0 + warp + kWarps * j, c0 + kSlice + 8 * lane);
        }
        for (int j = 0; j < kRowsPerWarp; ++j) {
            const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&current[j]);
            float* tile_row = tile + (warp + kWarps * j) * kStride;
            for (int i = 0; i < 4; ++i) {
                float2 pair = __bfloat1622float2(pairs[i]);
                tile_row[(2 * i) * 32 + lane] = pair.x;  // 32 lanes, 32 neighbouring words: no conflict
                tile_row[(2 * i + 1) * 32 + lane] = pair.y;
            }
        }
        __syncthreads();
        const float* my_row = tile + lane * kStride + warp;
        for (int k = 0; k < kSlice / kWarps; ++k) total += my_row[kWarps * k];  // 32 lanes, 32 rows, one bank: 32-way
        __syncthreads();
    }
    partial[warp][lane] = total;
    __syncthreads();
    if (warp == 0 && row0 + lane < rows) {
        float sum = 0;
        for (int w = 0; w < kWarps; ++w) sum += partial[w][lane];
        sums[row0 + lane] = sum;
    }
}

void row_sum_bank_conflict(const __nv_bfloat16* x, float* sums, int rows, int cols, cudaStream_t stream) {
    row_sum_tiled<<<(rows + kRows - 1) / kRows, kWarps * 32, 0, stream>>>(x, sums, rows, cols);
}

}  // namespace

ROOFLINE_ROW_SUM_VARIANT(row_sum_bank_conflict_bf16, row_sum_bank_conflict);
