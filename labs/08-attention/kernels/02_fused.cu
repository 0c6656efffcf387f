// Rung 2: fused attention, FlashAttention-2 style. YOUR TURN: the three TODOs (S = Q K^T,
// the online softmax, O += P V). One block of 4 warps takes 128 queries
// of one head; each warp owns 32 of them (two 16-row tiles) for the whole kernel. The block
// walks K and V in tiles of 64 keys (cp.async into shared memory); per tile each warp
//
//   1. S = Q_w K_j^T on the tensor cores (mma.sync m16n8k16, fp32 accumulators);
//   2. updates its rows' running max m and sum l (the online softmax), rescales its output
//      accumulators by 2^(m_old - m_new) when the max rose, and turns S into P = 2^(S - m) in
//      place;
//   3. O_w += P V_j: P goes from the accumulator layout straight into the A-fragment layout
//      (the two layouts match), rounded to bf16 on the way.
//
// The scores never leave registers: the kernel reads Q, K and V and writes O, and its
// intensity is seq/2 FLOP/byte instead of about head_dim/4.
//
// The shared tiles' rows are padded by 16 bytes (D + 8 elements). A fragment load has the 8
// lanes g = 0..7 read 8 different rows at the same column: with D = 128 those rows are 256
// bytes apart, all in the same 4 banks, so every K load would be an 8-way bank conflict.
// Padded, row r starts 4 banks after row r - 1 and the 32 lanes of a load hit 32 different
// banks: no conflict. Each fragment register is one plain 32-bit shared load.
//
// Shared memory per mma. Each m16n8k16 needs a B fragment (16 x 8 bf16, 256 bytes, two
// 32-bit loads a lane: 2 shared-memory wavefronts); the tensor cores finish about 0.6 mma a
// clock an SM at the mma.sync roof, and shared memory serves one 128-byte wavefront a clock.
// With 16 queries a warp each fragment feeds one mma: 2 wavefronts an mma, ~1.2 a clock
// wanted, more than shared memory gives. With two row tiles a warp each K and V fragment
// feeds two mmas: 1 wavefront an mma, plus Q's A fragments (reread from shared memory each
// tile: the registers go to the second row tile's accumulators), 1.25 in all.
//
// V's B fragment wants two keys (rows 2t, 2t + 1) of one column g, which are not adjacent
// in a row-major V. The columns of O are ours to number, though: n-tile 2p of the P V mma
// computes O's even columns 16p + 2j, n-tile 2p + 1 the odd ones 16p + 2j + 1. Then one
// 32-bit load of row 2t at columns 16p + 2g, +1 holds lane g's value for both n-tiles, and
// two such loads (rows 2t, 2t + 1) give both B registers after one byte permute each
// (PRMT): 2 loads a fragment, like K, instead of four 16-bit ones. The store at the end puts
// the columns back in order (each thread writes 4 consecutive columns, 8 bytes).
//
// Few instructions around the mmas: a scheduler issues one instruction a clock, and every
// one that is not an mma delays the next mma. So the tile copies are one cp.async per
// 16-byte chunk (a thread's chunks are rows a constant apart: the same address plus a
// constant), the fragment addresses are one base a lane plus constants, and the softmax
// does the least work per score: the max on the raw scores, the scale folded into exp2's
// argument (one FFMA, then ex2.approx), the mask only on the tiles that can hold a masked
// key, and the running max raised lazily (only when a row's max rises by more than a factor
// 2^8; the final division by the row sum cancels the stale max exactly).
//
// What it still lacks (rung 3): the K/V copies are not overlapped with the math (copy, wait,
// compute, repeat: only the other block on the SM fills the wait), and the fragments come
// one 32-bit load a register (ldmatrix gives a lane four registers in one instruction).
//
// Causal: the block stops at the diagonal tile (keys past its last query are all masked), a
// warp skips the tiles wholly after its queries, and the blocks with the most work (the last
// queries) are scheduled first.
//
// The tiling and the schedule choices are one template argument (Tuning below);
// scripts/probes/attn2_variants.cu times other choices of it beside cuDNN.
#include "roofline/contract/attention.cuh"
#include "roofline/ptx/cp_async.cuh"
#include "roofline/ptx/mma_sync.cuh"

#include <cstdint>

#include "given/fused_pieces.cuh"

namespace {

using namespace roofline::attention;
using namespace roofline::gemm::mma;

using Chosen = Tuning<4, 2, 64, true, true, 2>;  // 128 queries a block, 32 a warp, 64 keys a tile

// The online softmax on one tile of raw scores x, row by row: row i of this thread is row tile
// i / 2, half i % 2 (query first_row + 16 (i / 2) + 8 (i % 2)); its scores are x[i / 2][n][2 (i % 2)
// + 0 and + 1]. Masks them (kMask only), finds the tile's max, rescales the running sum l and
// the output accumulators out when the running max m rises (kLazyMax: only when it rises by more
// than kLazyMaxSlack in exp2's units, and then for the whole warp), and leaves P = 2^(x scale -
// m scale) in x, summed into l (this thread's part of each row).
template <bool kMask, bool kLazyMax, int kRowTiles, int kKeys, int D>
__device__ __forceinline__ void online_softmax(float (&x)[kRowTiles][kKeys / 8][4], float (&out)[kRowTiles][D / 8][4],
                                               float (&m)[kRowTiles][2], float (&l)[kRowTiles][2], int first_row,
                                               int first_col, int seq, bool causal, float scale) {
    // TODO(2): for each of this thread's rows (row tile mt, half r: scores x[mt][n][2r] and
    //   x[mt][n][2r + 1] for every n < kKeys / 8; query first_row + 16 mt + 8 r; the score's
    //   key is first_col + 8n (+ 1 for the second)):
    //   - if kMask, set the masked scores (key >= seq, or causal and key > query) to -INFINITY;
    //   - the tile's row max over the raw scores, across the 4 threads of the row
    //     (__shfl_xor_sync with 1 and 2);
    //   - when the row's max rises: new m = max(m, tile max); multiply l and the row's
    //     accumulators out[mt][n][2r], out[mt][n][2r + 1] (every n < D / 8) by
    //     exp2_approx((old m - new m) * scale). Careful: while a row has seen only masked keys
    //     its m is -INFINITY, and -INFINITY - -INFINITY is NaN. With kLazyMax, rescale only
    //     when some row's tile max exceeds its m by more than kLazyMaxSlack in exp2's units
    //     ((tile max - m) * scale > kLazyMaxSlack), decided for the whole warp by __any_sync so
    //     that the branch never splits it (every row of the warp then takes its new max);
    //   - then x = exp2_approx(fmaf(x, scale, -m * scale)) (one FFMA, one MUFU), added into l.
    //     Careful here too: while m is still -INFINITY (every key the row has seen, this tile's
    //     included, was masked), -m * scale is +inf and a masked score's x * scale is -inf, so
    //     the FFMA gives NaN, not -inf. Subtract 0 for such a row instead: its scores are all
    //     -INFINITY, exp2 of them is 0, and l and the accumulators stay 0 (lesson 08, section 3).
}

template <int D, class T>
__global__ void __launch_bounds__(T::kThreads, T::kBlocksPerSm)
    fused_attention(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                    int seq, float scale_log2, bool causal) {
    constexpr int kRowTiles = T::kRowTiles, kKeys = T::kKeys, kQueries = T::kQueries, kThreads = T::kThreads;
    constexpr int kStride = D + kPad;  // elements from one shared row to the next
    constexpr int kW = kStride / 2;    // the same in 32-bit words
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto* sQ = reinterpret_cast<__nv_bfloat16*>(shared_bytes);  // [kQueries][kStride]
    __nv_bfloat16* sK = sQ + kQueries * kStride;                // [kKeys][kStride]
    __nv_bfloat16* sV = sK + kKeys * kStride;                   // [kKeys][kStride]

    const int q_block = causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;  // causal: the longest rows first
    const int q0 = q_block * kQueries;
    const std::size_t head = blockIdx.y * std::size_t(seq) * D;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;  // the fragment coordinates of mma_sync.cuh
    const int warp_q0 = q0 + warp * 16 * kRowTiles;  // this warp's first query
    const int row0 = warp_q0 + g;                     // row tile mt's rows: row0 + 16 mt, + 8
    const int kv_end = causal ? min(seq, q0 + kQueries) : seq;

    load_tile<kQueries, D, kThreads>(smem_addr(sQ), q + head + std::size_t(q0) * D, seq - q0);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();

    // Each lane's fragment addresses, as 32-bit words; everything further on is a constant
    // offset from them. Q (A fragment): rows g, g + 8, columns 2t, 2t + 8 of each 16. K (B of
    // S = Q K^T, B[k][n] = K[key n][d k]): key g, columns 2t, 2t + 8. V (paired): rows 2t,
    // 2t + 1, 2t + 8, 2t + 9, columns 2g, 2g + 1 of each 16.
    const auto* q_lane = reinterpret_cast<const std::uint32_t*>(sQ + (warp * 16 * kRowTiles + g) * kStride + 2 * t);
    const auto* k_lane = reinterpret_cast<const std::uint32_t*>(sK + g * kStride + 2 * t);
    const auto* v_lane = reinterpret_cast<const std::uint32_t*>(sV + 2 * t * kStride + 2 * g);

    // One row tile: Q's fragments fit in registers for the whole kernel.
    std::uint32_t qf[T::kHoldQ ? D / 16 : 1][4];
    if constexpr (T::kHoldQ) {
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            qf[kk][0] = q_lane[kk * 8];
            qf[kk][1] = q_lane[8 * kW + kk * 8];
            qf[kk][2] = q_lane[kk * 8 + 4];
            qf[kk][3] = q_lane[8 * kW + kk * 8 + 4];
        }
    }

    float acc[kRowTiles][D / 8][4] = {};  // O rows g and g+8 of each row tile
    float row_max[kRowTiles][2], row_sum[kRowTiles][2];
#pragma unroll
    for (int mt = 0; mt < kRowTiles; ++mt) {
        row_max[mt][0] = row_max[mt][1] = -INFINITY;
        row_sum[mt][0] = row_sum[mt][1] = 0;
    }

    for (int kv0 = 0; kv0 < kv_end; kv0 += kKeys) {
        __syncthreads();  // every warp is done with the previous K and V
        load_tile<kKeys, D, kThreads>(smem_addr(sK), k + head + std::size_t(kv0) * D, seq - kv0);
        load_tile<kKeys, D, kThreads>(smem_addr(sV), v + head + std::size_t(kv0) * D, seq - kv0);
        cp_async_commit();
        cp_async_wait<0>();
        __syncthreads();
        if (causal && kv0 > warp_q0 + 16 * kRowTiles - 1) continue;  // every key after every query of this warp

        // 1. S = Q K^T, 16 columns of head_dim (kk) at a time: each K fragment feeds every row tile.
        float s[kRowTiles][kKeys / 8][4] = {};
        // TODO(1): for each 16 columns kk of head_dim: the A fragments qa[mt][4] of each row tile
        //   (T::kHoldQ: qf[kk]; otherwise from q_lane: rows g, g + 8 are 0 and 8 * kW words on,
        //   columns 2t, 2t + 8 are kk * 8 and kk * 8 + 4 words on, row tile mt 16 * mt * kW); then
        //   for each n-tile n (keys 8n .. 8n+7 of this tile): b0 = K[key 8n+g][d 16kk+2t, +1], b1
        //   the same 8 columns on (from k_lane, in words), and
        //   mma_bf16_16816(s[mt][n], qa[mt], b0, b1) for every row tile: one K fragment, kRowTiles
        //   mmas.

        // 2. Online softmax in log2 units; the mask only where this tile can hold a masked key.
        const bool masked = kv0 + kKeys > seq || (causal && kv0 + kKeys - 1 > warp_q0);
        if (masked)
            online_softmax<true, T::kLazyMax, kRowTiles, kKeys, D>(s, acc, row_max, row_sum, row0, kv0 + 2 * t, seq,
                                                                   causal, scale_log2);
        else
            online_softmax<false, T::kLazyMax, kRowTiles, kKeys, D>(s, acc, row_max, row_sum, row0, kv0 + 2 * t, seq,
                                                                    causal, scale_log2);

        // 3. O += P V, 16 keys (kk) at a time. P's accumulators for keys 16kk..16kk+15 are
        //    n-tiles 2kk and 2kk+1: exactly an A fragment.
        // TODO(3): for each kk < kKeys / 16 build a[mt][4] from s[mt] (mma_sync.cuh's A table;
        //   pack_bf16x2 pairs two scores into a bf16 register), then
        //   - T::kPairedV (the shipped choice): for each 16 columns p of head_dim, four 32-bit
        //     loads from v_lane (keys 16kk + 2t, +1, +8, +9: 16 * kk * kW plus 0, kW, 8 * kW,
        //     9 * kW words; columns 16p + 2g, +1: 8p words), low_halves / high_halves of the
        //     pairs (x0, x1) and (x8, x9) give the B fragments of the even n-tile 2p and the odd
        //     n-tile 2p + 1; mma_bf16_16816(acc[mt][2p], a[mt], even0, even1) and the same for
        //     2p + 1 with odd0, odd1, for every row tile;
        //   - otherwise: for each n-tile n of head_dim, b0 = {V[key 16kk+2t][d 8n+g],
        //     V[key 16kk+2t+1][d 8n+g]} (a column of V: two 16-bit loads from sV, rows kStride
        //     elements apart, packed with pack_bf16x2), b1 the same 8 keys on;
        //     mma_bf16_16816(acc[mt][n], a[mt], b0, b1) for every row tile.
    }

    // O = acc / l, each row's sum first gathered from its 4 threads.
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
            const float(&c)[D / 8][4] = acc[mt];
            __nv_bfloat16* out = o + head + std::size_t(row) * D;
            if constexpr (T::kPairedV) {
                // Columns 16p + 4t .. 16p + 4t + 3: even, odd, even, odd n-tiles; 8 bytes.
#pragma unroll
                for (int p = 0; p < D / 16; ++p) {
                    uint2 four;
                    four.x = pack_bf16x2(c[2 * p][2 * r] * inverse, c[2 * p + 1][2 * r] * inverse);
                    four.y = pack_bf16x2(c[2 * p][2 * r + 1] * inverse, c[2 * p + 1][2 * r + 1] * inverse);
                    *reinterpret_cast<uint2*>(out + 16 * p + 4 * t) = four;
                }
            } else {
#pragma unroll
                for (int n = 0; n < D / 8; ++n) {
                    *reinterpret_cast<__nv_bfloat162*>(out + n * 8 + 2 * t) =
                        __floats2bfloat162_rn(c[n][2 * r] * inverse, c[n][2 * r + 1] * inverse);
                }
            }
        }
    }
}

}  // namespace

// The launch (given): fused_attention above, with `Chosen`.
#include "given/fused_launch.cuh"

ROOFLINE_ATTENTION_VARIANT(fused, fused_attention_launch);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(fused_causal, fused_attention_launch);
