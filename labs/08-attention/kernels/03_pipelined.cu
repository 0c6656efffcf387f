// Rung 3: rung 2's fused attention with its two stalls removed, and twice the queries.
// YOUR TURN: the TODOs (the softmax and the loop structure are given).
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
//   - The running max is raised lazily: a tile whose max exceeds a row's by at most 8 in
//     exp2's units (a factor 2^8) keeps the old max, so P = 2^(s - max) <= 256, and neither
//     the row sum nor the output accumulators are rescaled (128 FMULs a warp a tile skipped).
//     The final division by the row sum, taken against the same max, cancels the choice
//     exactly. Only when some row of the warp's tile rises by more (in practice the first
//     tiles) does the warp rescale.
//   - Few instructions around the MMAs. A warp issues about one instruction a cycle at best, and
//     with two warps a scheduler every instruction that is not an MMA or an ldmatrix takes an
//     issue slot the tensor cores wait for. So the tile copies are one cp.async each (a thread's
//     chunks are 8 rows apart, where the swizzle repeats, so each copy's addresses are the first
//     one's plus a constant the instruction carries), and the ldmatrix addresses are computed
//     once: the next 16 columns of a swizzled tile are the same address with bits flipped (XOR),
//     and the next 16 rows the same plus a constant.
//
// One __syncthreads per tile: it both publishes tile j's K and V and tells every warp that
// tile j-1's stage is free, so tile j+1's copies into it are issued right after it.
//
// Shared memory: Q (128 x D) plus two stages of K and V (64 x D each): 96 KiB at D = 128 (and
// 1 KiB of slack to align it), over the 48 KiB default, so the launch opts in
// (cudaFuncSetAttribute); two blocks fit an SM.
// The tiling and the two schedule choices are one template argument (Tuning below);
// scripts/probes/attn23_variants.cu times other choices of it beside cuDNN.
#include "roofline/contract/attention.cuh"
#include "roofline/ptx/cp_async.cuh"
#include "roofline/ptx/mma_sync.cuh"

#include <cstdint>

#include "given/pipelined_pieces.cuh"

namespace {

using namespace roofline::attention;
using namespace roofline::gemm::mma;

using Chosen = Tuning<4, 2, 64, true, false>;  // 128 queries a block, 32 a warp, 64 keys a tile

// Element offset of (row, 16-byte chunk) in a swizzled [rows][D] bf16 tile.
template <int D>
__device__ inline int swizzled(int row, int chunk) {
    // TODO(1): where chunk `chunk` of row `row` lives. What it must give: within each row a
    //   permutation of the row's chunks (every chunk stored once, the row's 16-byte alignment
    //   kept), such that the 8 chunks one ldmatrix reads (the same logical chunk of 8
    //   consecutive rows) land in 8 different groups of 4 banks. Lesson 03's XOR swizzle
    //   (rung 9) is that map, and it is the one the address arithmetic below assumes (the next
    //   16 columns of a lane's address are the same address with a bit flipped). The plain
    //   row-major offset returned now is correct too, but every ldmatrix then waits on an
    //   8-way bank conflict (rows of 128 or 256 bytes all start in the same banks).
    return row * D + chunk * 8;
}

template <int D, class T>
__global__ void __launch_bounds__(T::kThreads)
    pipelined_attention(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                        int seq, float scale_log2, bool causal) {
    constexpr int kRowTiles = T::kRowTiles, kKeys = T::kKeys, kQueries = T::kQueries, kThreads = T::kThreads;
    constexpr int kRowBytes = 2 * D, kTileBytes = kKeys * kRowBytes;
    // Rounded up to 1024 bytes (the launch adds that much slack): the address arithmetic below
    // flips bits of whole addresses, the same as flipping bits of an offset only where the
    // tile's base has those bits clear.
    extern __shared__ __align__(1024) unsigned char shared_bytes[];
    const std::uint32_t sQ = (smem_addr(shared_bytes) + 1023u) & ~1023u;  // [kQueries][D]
    const std::uint32_t sK = sQ + kQueries * kRowBytes;                   // [kStages][kKeys][D]
    const std::uint32_t sV = sK + kStages * kTileBytes;                   // [kStages][kKeys][D]

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

    float acc[kRowTiles][D / 8][4] = {};  // O rows g and g+8 of each row tile
    float row_max[kRowTiles][2], row_sum[kRowTiles][2];
#pragma unroll
    for (int mt = 0; mt < kRowTiles; ++mt) {
        row_max[mt][0] = row_max[mt][1] = -INFINITY;
        row_sum[mt][0] = row_sum[mt][1] = 0;
    }
    const int warp_q0 = q0 + warp * 16 * kRowTiles;  // this warp's first query
    const int row0 = warp_q0 + g;                     // row tile mt's rows: row0 + 16 mt, + 8
    // This lane's ldmatrix.x4 address (matrix lane / 8, its row lane % 8) for the first 16 rows
    // and the first 16 columns of each tile. Further on: 16 more rows are 16 * kRowBytes more
    // bytes; 16 more columns (chunks 2c, 2c + 1 -> 2c + 2, 2c + 3) flip bits of the chunk number,
    // and since row % 8 is XORed into it, the address is this one XOR (32 * c) bytes (swizzled).
    const int matrix = lane / 8, matrix_row = lane % 8;
    // TODO(2): Q: the row and chunk this lane gives ldmatrix_x4, so that the 4 matrices it
    //   loads are the registers a[0..3] of mma_sync.cuh's A table for the warp's first row tile
    //   and first 16 columns (which matrix each lane addresses: ldmatrix_x4's comment).
    const std::uint32_t q_lane = sQ + 2 * swizzled<D>(warp * 16 * kRowTiles, 0);
    // TODO(3): K: the key row and chunk for the four matrices step 1 names: two n-tiles' B
    //   fragments (b0, b1 of each) for the tile's first 16 keys and first 16 columns.
    const std::uint32_t k_lane = sK + 2 * swizzled<D>(0, 0);
    // TODO(4): V: the key row and chunk for the four matrices step 3 names, loaded transposed
    //   (ldmatrix_x4_trans), so that each becomes a B register of P V for the first 16 keys.
    const std::uint32_t v_lane = sV + 2 * swizzled<D>(0, 0);

    for (int tile = 0; tile < tiles; ++tile) {
        const int stage = tile % kStages, kv0 = tile * kKeys;
        cp_async_wait<0>();  // this tile's group (the only one in flight)
        __syncthreads();     // its K and V are visible, and every warp is done with the other stage
        // TODO(5): the double buffer. The next tile's K and V (if there is one) must be on
        //   their way before this tile's math starts, so that the copy runs behind the tensor
        //   cores instead of in front of them: one committed group, into the stage this tile does
        //   not read. Why here and not earlier: the barrier just above is what tells every warp
        //   that the previous tile's math, the last reader of that stage, is done; the wait at
        //   the top of the next iteration is what collects the group.
        if (causal && kv0 > warp_q0 + 16 * kRowTiles - 1) continue;  // every key after every query of this warp
        const std::uint32_t tK = k_lane + stage * kTileBytes, tV = v_lane + stage * kTileBytes;

        // 1. S = Q K^T in steps of (16 columns of head_dim kk) x (16 keys m). Q's A fragments:
        //    matrices (rows 0-7 | 8-15 of the row tile) x (columns 0-7 | 8-15). One ldmatrix.x4 on
        //    K gives the B fragments of two n-tiles (keys 16m .. 16m+15): matrices (keys 0-7, d 0-7),
        //    (0-7, 8-15), (8-15, 0-7), (8-15, 8-15); each feeds both row tiles. With kPrefetch the
        //    fragments of step i + 1 are loaded before the MMAs of step i, into the other buffer.
        constexpr int kKeySteps = kKeys / 16, kSSteps = (D / 16) * kKeySteps;
        float s[kRowTiles][kKeys / 8][4] = {};
        {
            std::uint32_t qa[2][kRowTiles][4], kb[2][4];
            auto load_s = [&](int step) {
                const int kk = step / kKeySteps, m = step % kKeySteps, buf = T::kPrefetch ? step % 2 : 0;
                if (m == 0) {
#pragma unroll
                    for (int mt = 0; mt < kRowTiles; ++mt)
                        ldmatrix_x4(qa[T::kPrefetch ? kk % 2 : 0][mt], (q_lane ^ (32 * kk)) + mt * 16 * kRowBytes);
                }
                ldmatrix_x4(kb[buf], (tK ^ (32 * kk)) + m * 16 * kRowBytes);
            };
            if (T::kPrefetch) load_s(0);
#pragma unroll
            for (int step = 0; step < kSSteps; ++step) {
                const int kk = step / kKeySteps, m = step % kKeySteps;
                if (!T::kPrefetch) load_s(step);
                else if (step + 1 < kSSteps) load_s(step + 1);
                const int buf = T::kPrefetch ? step % 2 : 0, qbuf = T::kPrefetch ? kk % 2 : 0;
#pragma unroll
                for (int mt = 0; mt < kRowTiles; ++mt) {
                    mma_bf16_16816(s[mt][2 * m], qa[qbuf][mt], kb[buf][0], kb[buf][1]);
                    mma_bf16_16816(s[mt][2 * m + 1], qa[qbuf][mt], kb[buf][2], kb[buf][3]);
                }
            }
        }

        // 2. Online softmax in log2 units; the mask only where this tile can hold a masked key.
        const bool masked = kv0 + kKeys > seq || (causal && kv0 + kKeys - 1 > warp_q0);
        if (masked)
            softmax_tile<true, T::kLazyMax, kRowTiles, kKeys, D>(s, acc, row_max, row_sum, row0, kv0 + 2 * t, seq,
                                                                 causal, scale_log2);
        else
            softmax_tile<false, T::kLazyMax, kRowTiles, kKeys, D>(s, acc, row_max, row_sum, row0, kv0 + 2 * t, seq,
                                                                  causal, scale_log2);

        // 3. O += P V in steps of (16 keys kk) x (16 columns of head_dim n, n + 1). P's A fragments
        //    are the score registers packed to bf16 (the m16n8k16 C layout is the A layout). ldmatrix
        //    .trans on V gives the B fragments of two n-tiles for 16 keys: matrices (keys 0-7, d 0-7),
        //    (8-15, 0-7), (0-7, 8-15), (8-15, 8-15).
        constexpr int kDimSteps = D / 16, kPVSteps = kKeySteps * kDimSteps;
        {
            std::uint32_t vb[2][4];
            auto load_v = [&](int step) {
                const int kk = step / kDimSteps, n = 2 * (step % kDimSteps);
                ldmatrix_x4_trans(vb[T::kPrefetch ? step % 2 : 0], (tV ^ (16 * n)) + kk * 16 * kRowBytes);
            };
            if (T::kPrefetch) load_v(0);
            std::uint32_t a[kRowTiles][4];
#pragma unroll
            for (int step = 0; step < kPVSteps; ++step) {
                const int kk = step / kDimSteps, n = 2 * (step % kDimSteps);
                if (n == 0) {
#pragma unroll
                    for (int mt = 0; mt < kRowTiles; ++mt) {
                        a[mt][0] = pack_bf16x2(s[mt][2 * kk][0], s[mt][2 * kk][1]);
                        a[mt][1] = pack_bf16x2(s[mt][2 * kk][2], s[mt][2 * kk][3]);
                        a[mt][2] = pack_bf16x2(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
                        a[mt][3] = pack_bf16x2(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
                    }
                }
                if (!T::kPrefetch) load_v(step);
                else if (step + 1 < kPVSteps) load_v(step + 1);
                const int buf = T::kPrefetch ? step % 2 : 0;
#pragma unroll
                for (int mt = 0; mt < kRowTiles; ++mt) {
                    mma_bf16_16816(acc[mt][n], a[mt], vb[buf][0], vb[buf][1]);
                    mma_bf16_16816(acc[mt][n + 1], a[mt], vb[buf][2], vb[buf][3]);
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

}  // namespace

// The launch (given): pipelined_attention above, with `Chosen`.
#include "given/pipelined_launch.cuh"

ROOFLINE_ATTENTION_VARIANT(pipelined, pipelined_attention_launch);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(pipelined_causal, pipelined_attention_launch);
// The same kernel timed at seq 16384 (lab.yaml), where a causal block's work ranges over 256 tiles.
ROOFLINE_ATTENTION_VARIANT(pipelined_16k, pipelined_attention_launch);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(pipelined_causal_16k, pipelined_attention_launch);
