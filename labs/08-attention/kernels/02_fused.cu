// Rung 2: fused attention, FlashAttention-2 style. YOUR TURN: the three TODOs (S = Q K^T,
// the online softmax, O += P V), each lane's fragment addresses included. The TODOs say what
// each step must leave and why; the how is yours, from lesson 08 (sections 3 and 4) and
// mma_sync.cuh's fragment table. One block of 4 warps takes 128 queries
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
// V's B fragment wants two consecutive keys of one column of O in each register, and those
// sit in different rows of a row-major V: loaded directly, four 16-bit loads a fragment.
// The columns of O are ours to number, though: let one n-tile of the P V mma compute the
// even columns of a 16-column group and its neighbour the odd ones. Then one 32-bit load of
// two adjacent columns of a key row holds a lane's value for both n-tiles, and one byte
// permute (PRMT) per register sorts the halves: 2 loads a fragment, like K. The store at the
// end puts the columns back in order.
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

// The online softmax (lesson 08, section 3) on one tile of raw scores x, for this thread's rows.
// x[mt][n] is the m16n8k16 accumulator of row tile mt and key n-tile n, out[mt][n] that of row
// tile mt and n-tile n of O's columns (mma_sync.cuh's C table: in each row tile a thread holds
// two rows, and two adjacent columns of each n-tile in each of them). m[mt] and l[mt] are those
// two rows' running max (raw-score units) and this thread's part of their running sums.
// first_row is the query of this thread's first row (row tile 0, upper row), first_col the key
// of its first column in n-tile 0; scale turns a raw score into exp2's units.
template <bool kMask, bool kLazyMax, int kRowTiles, int kKeys, int D>
__device__ __forceinline__ void online_softmax(float (&x)[kRowTiles][kKeys / 8][4], float (&out)[kRowTiles][D / 8][4],
                                               float (&m)[kRowTiles][2], float (&l)[kRowTiles][2], int first_row,
                                               int first_col, int seq, bool causal, float scale) {
    // TODO(2): leave, for each of this thread's rows:
    //   - the masked scores (kMask tiles only: a key past the sequence, or, causal, a key
    //     after the row's query) at -INFINITY before anything reads them;
    //   - m: the row's running max over every key seen so far. It is the max of the whole row,
    //     whose scores are spread over the threads that share it (the C table), so every
    //     thread of the row must end with the same m;
    //   - l and the row's accumulators in out, sums taken against the old m, brought to the new
    //     one (the factor 2^((old m - new m) scale)) before this tile's terms join them: the
    //     recurrence of section 3;
    //   - x = P = 2^((x - m) scale), and l grown by this thread's part of the row's sum of them.
    //   Why kLazyMax may keep a stale m: the final division by l cancels any m exactly; m need
    //   only keep P from overflowing. Keep the old m unless some row's tile max exceeds it by more than
    //   kLazyMaxSlack in exp2's units, so that most tiles skip the rescale; decide it once for
    //   the whole warp, since a branch that splits the warp runs both of its sides.
    //   Hazard: -INFINITY - -INFINITY is NaN, and a row that has seen only masked keys (possible
    //   at a causal diagonal or past the sequence) still has m = -INFINITY. It must come out of
    //   this tile with P = 0, l = 0 and out untouched, in both places m is subtracted: the
    //   rescale factor, and P's exponent (with the scale folded into one FFMA, a masked score's
    //   -inf plus +inf is NaN too). Section 3's empty-row rule says what to use instead.
    //   Cost (the issue slots of section 4): the max on the raw scores (scale > 0 keeps the
    //   order), then one FFMA and one exp2_approx a score; no division here (the end does it).
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

    // Your fragment addresses go here (TODOs 1 and 3): each lane's, worked out once, so that
    // every fragment register further on is one 32-bit shared load at that address plus a
    // constant (the issue slots of section 4).

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
        // TODO(1): s[mt][n] = this tile's scores of row tile mt against the 8 keys of n-tile n,
        //   summed over all D columns of head_dim: one m16n8k16 mma per row tile, n-tile and 16
        //   columns. A is Q (the warp's row tile, 16 columns), B is K^T: B[column][key] =
        //   K[key][column], so a key's row of sK is a column of B, and its pairs of adjacent
        //   columns are the pairs a B register holds. Every register of either fragment is one
        //   32-bit load from the padded tiles (the pairs mma_sync.cuh's table names).
        //   Why the order: a K fragment, once loaded, should feed every row tile (kRowTiles mmas
        //   a load: the wavefront count of section 4). Q's fragments are read again each tile,
        //   since the second row tile's accumulators need their registers; with one row tile
        //   (T::kHoldQ, not the shipped Tuning) they fit in registers for the whole kernel.

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
        // TODO(3): acc += P V over this tile's keys, 16 keys a step. P (x after step 2, rounded
        //   to bf16) is the A operand and needs no shuffle: the accumulators of two adjacent key
        //   n-tiles are an A fragment's layout already (section 4); pack_bf16x2 pairs them.
        //   V is the B operand with the keys as its reduction index: a B register wants two
        //   consecutive keys of one column of O, which sit in different rows of sV.
        //   T::kPairedV (the shipped choice): the store below reads acc[mt][2p] as O's even
        //   columns of the 16-column group p and acc[mt][2p + 1] as its odd ones, so compute
        //   them that way: a 32-bit load of two adjacent columns of one key row then feeds both
        //   n-tiles, and low_halves / high_halves sort two such loads (two keys) into the even
        //   and the odd B register (the header above).
        //   Otherwise: acc[mt][n] holds O's columns of n-tile n in order, and a B register is two
        //   16-bit loads of one column, packed with pack_bf16x2.
        //   As in step 1, each V fragment loaded should feed every row tile.
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
