// Lab 07 rung 3 as it stood for run 57 (298-302 TFLOP/s on the H200, results/2026-12-01-h200-runs57-60.md),
// kept unchanged so that scripts/probes/attn23_variants.cu times the current rung 3 beside it in
// the same run. Not built on its own.
//
// Rung 3: rung 2's fused attention with its two stalls removed, and twice the queries.
//
//   - K and V are double-buffered: the cp.async copies of tile j+1 are issued before the
//     math on tile j, so the copy hides behind the tensor cores instead of in front of them
//     (cp.async.wait_group 0 at the top of iteration j+1 collects them).
//   - Fragments come from shared memory by ldmatrix: one instruction gives a warp four 8x8
//     matrices (Q's A fragments and K's B fragments as they are; V's through .trans, which
//     turns V's rows into the columns the B operand wants), where rung 2 needed one 32-bit
//     or two 16-bit loads per register.
//   - The tiles are stored XOR-swizzled: 16-byte chunk c of row r sits at chunk c ^ (r % 8).
//     ldmatrix reads one chunk from each of 8 consecutive rows; with D = 64 or 128 those rows
//     are 128 or 256 bytes apart, all in the same banks, an 8-way conflict. Swizzled, the 8
//     chunks land in 8 different bank groups. The cp.async writes use the same mapping.
//     (Rung 2's 16-byte row padding would serve too; the swizzle costs no shared memory.)
//   - Each warp takes 32 queries (two 16-row tiles), the block 128: every K and V fragment
//     it loads feeds two MMAs instead of one, which halves the shared-memory bytes per MMA
//     (rung 2 moved 256 bytes of B fragment per 16 x 8 x 16 MMA, twice what shared memory
//     delivers per tensor-core MMA cycle). The registers this costs (two rows of output
//     accumulators) are paid by reading Q's fragments from shared memory each tile instead
//     of holding them.
//
//   - The softmax does the least work per score: the row max is taken on the raw scores
//     (the scale is positive, so the order is the same) and the scale folds into the
//     exponent's argument, one FFMA: exp2(s * scale_log2 - max * scale_log2); exp2 is the
//     special-function unit's ex2.approx.ftz, one instruction. The mask (keys past seq, or
//     after the query) is applied only on the tiles that can hold a masked key: the last one
//     and, causal, the ones reaching past the warp's first query; a warp skips a causal tile
//     whose keys all come after its queries.
//
// One __syncthreads per tile: it both publishes tile j's K and V and tells every warp that
// tile j-1's stage is free, so tile j+1's copies into it are issued right after it.
//
// Shared memory: Q (128 x D) plus two stages of K and V (64 x D each): 96 KiB at D = 128,
// over the 48 KiB default, so the launch opts in (cudaFuncSetAttribute); two blocks fit an SM.
// The tiling is one template argument (Tiling below); scripts/probes/attn23_variants.cu times
// other choices of it beside cuDNN.
#include "roofline/attention.cuh"
#include "roofline/cp_async.cuh"
#include "roofline/mma_sync.cuh"

#include <cstdint>

namespace {

using namespace roofline::attention;
using namespace roofline::gemm::mma;

// The work of one block: kWarps warps of kRowTiles 16-row query tiles each, K and V in tiles
// of kKeys keys.
template <int kWarpsArg, int kRowTilesArg, int kKeysArg>
struct Tiling {
    static constexpr int kWarps = kWarpsArg;
    static constexpr int kRowTiles = kRowTilesArg;  // 16-row query tiles per warp
    static constexpr int kKeys = kKeysArg;          // per K/V tile
    static constexpr int kQueries = 16 * kRowTiles * kWarps;  // per block
    static constexpr int kThreads = 32 * kWarps;
};
using Chosen = Tiling<4, 2, 64>;  // 128 queries a block, 32 a warp, 64 keys a tile

constexpr int kStages = 2;
constexpr float kLog2e = 1.4426950408889634f;

// 2^x on the special-function unit, one instruction (exp2f adds a range fix-up around it);
// ex2(-inf) = 0, which the masked scores rely on.
__device__ inline float exp2_approx(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// Element offset of (row, 16-byte chunk) in a swizzled [rows][D] bf16 tile.
template <int D>
__device__ inline int swizzled(int row, int chunk) {
    return row * D + ((chunk ^ (row & 7)) * 8);
}

// rows x D bf16 from global into a swizzled shared tile, rows past `valid` zero-filled.
template <int kRows, int D, int kThreads>
__device__ void load_tile(__nv_bfloat16* shared, const __nv_bfloat16* global, int valid) {
    constexpr int kChunks = D / 8;
#pragma unroll
    for (int c = threadIdx.x; c < kRows * kChunks; c += kThreads) {
        const int row = c / kChunks, chunk = c % kChunks;
        const bool inside = row < valid;
        cp_async_16(shared + swizzled<D>(row, chunk), inside ? global + std::size_t(row) * D + chunk * 8 : global,
                    inside);
    }
}

// The online softmax on one tile of raw scores s (rows row0 + 16 mt + 8 r): mask (kMask only),
// new running max, rescale the running sum and the output accumulators, s := P = exp2(s * scale
// - max * scale), summed into row_sum (this thread's part of each row).
template <bool kMask, int kRowTiles, int kKeys, int D>
__device__ __forceinline__ void softmax_tile(float (&s)[kRowTiles][kKeys / 8][4], float (&acc)[kRowTiles][D / 8][4],
                                             float (&row_max)[kRowTiles][2], float (&row_sum)[kRowTiles][2],
                                             int row0, int col0, int seq, bool causal, float scale_log2) {
#pragma unroll
    for (int mt = 0; mt < kRowTiles; ++mt) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            float tile_max = -INFINITY;
#pragma unroll
            for (int n = 0; n < kKeys / 8; ++n) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    if constexpr (kMask) {
                        const int col = col0 + n * 8 + e, row = row0 + 16 * mt + 8 * r;
                        if (col >= seq || (causal && col > row)) s[mt][n][2 * r + e] = -INFINITY;
                    }
                    tile_max = fmaxf(tile_max, s[mt][n][2 * r + e]);
                }
            }
            tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
            tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
            const float new_max = fmaxf(row_max[mt][r], tile_max);
            // A row with nothing visible yet keeps max -inf: subtract 0 then, not -inf (NaN).
            const float base = new_max == -INFINITY ? 0.0f : new_max * scale_log2;
            const float correction = exp2_approx(row_max[mt][r] * scale_log2 - base);
            row_max[mt][r] = new_max;
            row_sum[mt][r] *= correction;
#pragma unroll
            for (int n = 0; n < D / 8; ++n) {
                acc[mt][n][2 * r] *= correction;
                acc[mt][n][2 * r + 1] *= correction;
            }
#pragma unroll
            for (int n = 0; n < kKeys / 8; ++n) {
                s[mt][n][2 * r] = exp2_approx(fmaf(s[mt][n][2 * r], scale_log2, -base));
                s[mt][n][2 * r + 1] = exp2_approx(fmaf(s[mt][n][2 * r + 1], scale_log2, -base));
                row_sum[mt][r] += s[mt][n][2 * r] + s[mt][n][2 * r + 1];
            }
        }
    }
}

template <int D, class T>
__global__ void __launch_bounds__(T::kThreads)
    pipelined_attention(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                        int seq, float scale_log2, bool causal) {
    constexpr int kRowTiles = T::kRowTiles, kKeys = T::kKeys, kQueries = T::kQueries, kThreads = T::kThreads;
    extern __shared__ __align__(128) unsigned char shared_bytes[];
    auto* sQ = reinterpret_cast<__nv_bfloat16*>(shared_bytes);  // [kQueries][D]
    __nv_bfloat16* sK = sQ + kQueries * D;                       // [kStages][kKeys][D]
    __nv_bfloat16* sV = sK + kStages * kKeys * D;                // [kStages][kKeys][D]

    const int q_block = causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
    const int q0 = q_block * kQueries;
    const std::size_t head = blockIdx.y * std::size_t(seq) * D;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int kv_end = causal ? min(seq, q0 + kQueries) : seq;
    const int tiles = (kv_end + kKeys - 1) / kKeys;

    // Group 0: Q and the first K/V tile.
    load_tile<kQueries, D, kThreads>(sQ, q + head + std::size_t(q0) * D, seq - q0);
    load_tile<kKeys, D, kThreads>(sK, k + head, seq);
    load_tile<kKeys, D, kThreads>(sV, v + head, seq);
    cp_async_commit();

    float acc[kRowTiles][D / 8][4] = {};               // O rows g and g+8 of each row tile
    float row_max[kRowTiles][2], row_sum[kRowTiles][2];
#pragma unroll
    for (int mt = 0; mt < kRowTiles; ++mt) {
        row_max[mt][0] = row_max[mt][1] = -INFINITY;
        row_sum[mt][0] = row_sum[mt][1] = 0;
    }
    const int warp_q0 = q0 + warp * 16 * kRowTiles;  // this warp's first query
    const int row0 = warp_q0 + g;                     // row tile mt's rows: row0 + 16 mt, + 8
    // The row and 16-byte chunk this lane addresses for ldmatrix.x4 (matrix lane / 8, row lane % 8).
    const int matrix = lane / 8, matrix_row = lane % 8;

    for (int tile = 0; tile < tiles; ++tile) {
        const int stage = tile % kStages, kv0 = tile * kKeys;
        cp_async_wait<0>();  // this tile's group (the only one in flight)
        __syncthreads();     // its K and V are visible, and every warp is done with the other stage
        if (tile + 1 < tiles) {  // the next tile's copies go out before this tile's math
            const int next = (tile + 1) % kStages, next_kv0 = kv0 + kKeys;
            load_tile<kKeys, D, kThreads>(sK + next * kKeys * D, k + head + std::size_t(next_kv0) * D, seq - next_kv0);
            load_tile<kKeys, D, kThreads>(sV + next * kKeys * D, v + head + std::size_t(next_kv0) * D, seq - next_kv0);
            cp_async_commit();
        }
        if (causal && kv0 > warp_q0 + 16 * kRowTiles - 1) continue;  // every key after every query of this warp
        const __nv_bfloat16* tK = sK + stage * kKeys * D;
        const __nv_bfloat16* tV = sV + stage * kKeys * D;

        // 1. S = Q K^T, 16 columns of head_dim at a time. Q's A fragments: matrices (rows 0-7 |
        //    8-15 of the row tile) x (columns 0-7 | 8-15). One ldmatrix.x4 on K gives the B
        //    fragments of two n-tiles (keys 16m .. 16m+15): matrices (keys 0-7, d 0-7), (0-7, 8-15),
        //    (8-15, 0-7), (8-15, 8-15); each feeds both row tiles.
        float s[kRowTiles][kKeys / 8][4] = {};
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            std::uint32_t qa[kRowTiles][4];
#pragma unroll
            for (int mt = 0; mt < kRowTiles; ++mt) {
                const int row = warp * 16 * kRowTiles + mt * 16 + matrix_row + (matrix % 2) * 8;
                ldmatrix_x4(qa[mt], smem_addr(sQ + swizzled<D>(row, 2 * kk + matrix / 2)));
            }
#pragma unroll
            for (int m = 0; m < kKeys / 16; ++m) {
                std::uint32_t b[4];
                const int key = 16 * m + matrix_row + (matrix / 2) * 8;
                ldmatrix_x4(b, smem_addr(tK + swizzled<D>(key, 2 * kk + matrix % 2)));
#pragma unroll
                for (int mt = 0; mt < kRowTiles; ++mt) {
                    mma_bf16_16816(s[mt][2 * m], qa[mt], b[0], b[1]);
                    mma_bf16_16816(s[mt][2 * m + 1], qa[mt], b[2], b[3]);
                }
            }
        }

        // 2. Online softmax in log2 units; the mask only where this tile can hold a masked key.
        const bool masked = kv0 + kKeys > seq || (causal && kv0 + kKeys - 1 > warp_q0);
        if (masked)
            softmax_tile<true, kRowTiles, kKeys, D>(s, acc, row_max, row_sum, row0, kv0 + 2 * t, seq, causal,
                                                   scale_log2);
        else
            softmax_tile<false, kRowTiles, kKeys, D>(s, acc, row_max, row_sum, row0, kv0 + 2 * t, seq, causal,
                                                    scale_log2);

        // 3. O += P V. ldmatrix.trans on V gives the B fragments of two n-tiles (head_dim columns
        //    8n .. 8n+15) for 16 keys: matrices (keys 0-7, d 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15).
#pragma unroll
        for (int kk = 0; kk < kKeys / 16; ++kk) {
            std::uint32_t a[kRowTiles][4];
#pragma unroll
            for (int mt = 0; mt < kRowTiles; ++mt) {
                a[mt][0] = pack_bf16x2(s[mt][2 * kk][0], s[mt][2 * kk][1]);
                a[mt][1] = pack_bf16x2(s[mt][2 * kk][2], s[mt][2 * kk][3]);
                a[mt][2] = pack_bf16x2(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
                a[mt][3] = pack_bf16x2(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
            }
#pragma unroll
            for (int n = 0; n < D / 8; n += 2) {
                std::uint32_t b[4];
                const int key = 16 * kk + matrix_row + (matrix % 2) * 8;
                ldmatrix_x4_trans(b, smem_addr(tV + swizzled<D>(key, n + matrix / 2)));
#pragma unroll
                for (int mt = 0; mt < kRowTiles; ++mt) {
                    mma_bf16_16816(acc[mt][n], a[mt], b[0], b[1]);
                    mma_bf16_16816(acc[mt][n + 1], a[mt], b[2], b[3]);
                }
            }
        }
    }

#pragma unroll
    for (int mt = 0; mt < kRowTiles; ++mt) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            float sum = row_sum[mt][r];
            sum += __shfl_xor_sync(0xffffffffu, sum, 1);
            sum += __shfl_xor_sync(0xffffffffu, sum, 2);
            const int row = row0 + 16 * mt + 8 * r;
            if (row >= seq) continue;
            const float inverse = 1.0f / sum;
            __nv_bfloat16* out = o + head + std::size_t(row) * D + 2 * t;
#pragma unroll
            for (int n = 0; n < D / 8; ++n) {
                *reinterpret_cast<__nv_bfloat162*>(out + n * 8) =
                    __floats2bfloat162_rn(acc[mt][n][2 * r] * inverse, acc[mt][n][2 * r + 1] * inverse);
            }
        }
    }
}

template <int D, class T>
void launch_for(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o, int batch,
                int heads, int seq, bool causal, cudaStream_t stream) {
    constexpr int kSharedBytes = (T::kQueries + 2 * kStages * T::kKeys) * D * 2;
    cudaFuncSetAttribute(pipelined_attention<D, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
    const dim3 grid((seq + T::kQueries - 1) / T::kQueries, batch * heads);
    pipelined_attention<D, T>
        <<<grid, T::kThreads, kSharedBytes, stream>>>(q, k, v, o, seq, softmax_scale(D) * kLog2e, causal);
}

template <class T>
void launch_tiled(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                  int batch, int heads, int seq, int head_dim, bool causal, cudaStream_t stream) {
    if (head_dim == 64) launch_for<64, T>(q, k, v, o, batch, heads, seq, causal, stream);
    else launch_for<128, T>(q, k, v, o, batch, heads, seq, causal, stream);
}

void pipelined_attention_launch(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                                __nv_bfloat16* o, int batch, int heads, int seq, int head_dim, bool causal,
                                cudaStream_t stream) {
    launch_tiled<Chosen>(q, k, v, o, batch, heads, seq, head_dim, causal, stream);
}

}  // namespace

ROOFLINE_ATTENTION_VARIANT(pipelined, pipelined_attention_launch);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(pipelined_causal, pipelined_attention_launch);
// The same kernel timed at seq 16384 (lab.yaml), where a causal block's work ranges over 256 tiles.
ROOFLINE_ATTENTION_VARIANT(pipelined_16k, pipelined_attention_launch);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(pipelined_causal_16k, pipelined_attention_launch);
