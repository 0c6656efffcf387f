// Rung 4: Hopper attention, FlashAttention-3 style (sm_90a).
// YOUR TURN: the TODOs in the consumer (the producer, the tensor maps, S = Q K^T and the
// final store are given).
//
// One block per 128 queries of one head; three warpgroups:
//   producer (warpgroup 0): gives back registers (setmaxnreg) and one thread streams the
//     block's Q tile once, then K and V tiles of 128 keys into a 2-stage ring with TMA,
//     128-byte swizzled, K and V on barriers of their own so that S = Q K^T can start
//     before V has landed;
//   consumers (warpgroups 1, 2): take registers; each owns 64 queries. Per key tile:
//     S = Q K^T with wgmma m64n128k16 from shared memory (fp32, 64 registers a thread),
//     the online softmax on those registers (exp2, the scale folded in), then O += P V
//     with wgmma m64n{D}k16 taking P straight from registers: the scores' accumulator
//     layout is the A-operand layout, so P never touches shared memory. V is read
//     N-major ("transposed") by the descriptor, as it lies in memory.
// The two consumer warpgroups run the same tiles out of step with each other, so one's
// softmax overlaps the other's matmuls; FA3's explicit ping-pong and its intra-warpgroup
// overlap (starting the next tile's Q K^T before this tile's softmax) are the next steps.
//
// Any sequence length: the tensor maps are 3-D ([batch x heads][seq][D]), so a tile that
// runs past the end of a head is zero-filled by TMA, and keys >= seq are masked to -inf.
// Causal: a query block stops at its diagonal tile (128 keys = 128 queries), masks above
// the diagonal there, and blocks are launched longest first.
//
// Shared memory at D = 128: Q 32 KiB + 2 stages x (K 32 + V 32) KiB = 160 KiB; one block an SM.
#include "roofline/attention.cuh"
#include "roofline/mbarrier.cuh"
#include "roofline/tma.cuh"
#include "roofline/wgmma.cuh"
#include "roofline/wgmma_attention.cuh"

#include <cuda_bf16.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

using namespace roofline;

constexpr int kBlockQ = 128;   // queries per block: 64 per consumer warpgroup
constexpr int kBlockK = 128;   // keys per tile (the N of S's wgmma)
constexpr int kChunk = 64;     // head_dim columns per TMA box: the 128-byte swizzle width
constexpr int kStages = 2;
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (kConsumers + 1);
constexpr float kLog2e = 1.4426950408889634f;

template <int D>
struct SharedStorage {
    static constexpr int kChunks = D / kChunk;
    alignas(1024) __nv_bfloat16 q[kChunks][kBlockQ * kChunk];  // swizzled boxes start on 1024 bytes
    alignas(1024) __nv_bfloat16 k[kStages][kChunks][kBlockK * kChunk];
    alignas(1024) __nv_bfloat16 v[kStages][kChunks][kBlockK * kChunk];
    std::uint64_t q_full;
    std::uint64_t k_full[kStages], k_empty[kStages];
    std::uint64_t v_full[kStages], v_empty[kStages];
};

// A [batch x heads][seq][D] bf16 array, in boxes of 128 rows x 64 columns of one head.
CUtensorMap make_head_map(const __nv_bfloat16* base, int heads_total, int seq, int d) {
    CUtensorMap map{};
    const cuuint64_t dims[3] = {cuuint64_t(d), cuuint64_t(seq), cuuint64_t(heads_total)};  // innermost first
    const cuuint64_t strides[2] = {cuuint64_t(d) * 2, cuuint64_t(seq) * d * 2};
    const cuuint32_t box[3] = {kChunk, kBlockK, 1};
    const cuuint32_t element_strides[3] = {1, 1, 1};
    CUresult status = tma::encode_tiled_entry()(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, const_cast<__nv_bfloat16*>(base),
                                                dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (status != CUDA_SUCCESS)
        throw std::runtime_error("cuTensorMapEncodeTiled failed (error " + std::to_string(int(status)) +
                                 ") for the attention tensor map");
    return map;
}

// One 128 x 64 box: columns col.., rows row.. of head `head`, counted on `barrier`.
__device__ inline void load_box(void* destination, const CUtensorMap* map, int col, int row, int head,
                                std::uint64_t* barrier) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
        :
        : "r"(tma::smem_address(destination)), "l"(map), "r"(col), "r"(row), "r"(head),
          "r"(tma::smem_address(barrier))
        : "memory");
}

__device__ inline std::uint32_t pack_bf16(float lo, float hi) {
    __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<std::uint32_t*>(&pair);
}

template <int D>
__device__ inline void mma_pv(float (&o)[D / 2], const std::uint32_t (&a)[4], std::uint64_t b_descriptor) {
    if constexpr (D == 128) wgmma::mma_m64n128k16_rs_bt(o, a, b_descriptor);
    else wgmma::mma_m64n64k16_rs_bt(o, a, b_descriptor);
}

template <int D>
__global__ void __launch_bounds__(kThreads, 1)
    attention_fa3(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
                  const __grid_constant__ CUtensorMap v_map, __nv_bfloat16* __restrict__ o, int seq, bool causal) {
    using Shared = SharedStorage<D>;
    constexpr int kChunks = Shared::kChunks;
    constexpr std::uint32_t kTileBytes = kBlockK * D * 2;
    extern __shared__ unsigned char shared_raw[];
    auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    auto& shared = *reinterpret_cast<Shared*>(base);

    const int head = blockIdx.x;                                // batch x heads, flattened
    const int q_block = gridDim.y - 1 - blockIdx.y;             // longest (causal) blocks first
    const int key_tiles_all = (seq + kBlockK - 1) / kBlockK;
    const int key_tiles = causal ? min(key_tiles_all, q_block + 1) : key_tiles_all;
    const int warpgroup = threadIdx.x / 128;

    if (threadIdx.x == 0) {
        mbarrier::init(&shared.q_full, 1);
        for (int s = 0; s < kStages; ++s) {
            mbarrier::init(&shared.k_full[s], 1);
            mbarrier::init(&shared.v_full[s], 1);
            mbarrier::init(&shared.k_empty[s], 128 * kConsumers);  // every consumer thread arrives
            mbarrier::init(&shared.v_empty[s], 128 * kConsumers);
        }
        mbarrier::fence_init();
    }
    __syncthreads();

    if (warpgroup == 0) {
        wgmma::release_registers<40>();
        if (threadIdx.x == 0) {
            tma::prefetch_map(&q_map);
            tma::prefetch_map(&k_map);
            tma::prefetch_map(&v_map);
            mbarrier::arrive_expect_tx(&shared.q_full, kBlockQ * D * 2);
            for (int c = 0; c < kChunks; ++c) load_box(shared.q[c], &q_map, c * kChunk, q_block * kBlockQ, head, &shared.q_full);
            int stage = 0;
            std::uint32_t phase = 0;
            for (int tile = 0; tile < key_tiles; ++tile) {
                mbarrier::wait(&shared.k_empty[stage], phase ^ 1);
                mbarrier::arrive_expect_tx(&shared.k_full[stage], kTileBytes);
                for (int c = 0; c < kChunks; ++c)
                    load_box(shared.k[stage][c], &k_map, c * kChunk, tile * kBlockK, head, &shared.k_full[stage]);
                mbarrier::wait(&shared.v_empty[stage], phase ^ 1);
                mbarrier::arrive_expect_tx(&shared.v_full[stage], kTileBytes);
                for (int c = 0; c < kChunks; ++c)
                    load_box(shared.v[stage][c], &v_map, c * kChunk, tile * kBlockK, head, &shared.v_full[stage]);
                if (++stage == kStages) stage = 0, phase ^= 1;
            }
        }
        return;
    }

    wgmma::claim_registers<232>();
    const int consumer = warpgroup - 1;
    const int warp_in_group = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    // This thread's two rows of the block (the accumulator layout) and its column pair.
    const int row0 = q_block * kBlockQ + consumer * 64 + warp_in_group * 16 + lane / 4;
    const int row1 = row0 + 8;
    const int column_in_pair = 2 * (lane % 4);
    const float scale_log2 = attention::softmax_scale(D) * kLog2e;

    float out[D / 2];
#pragma unroll
    for (int i = 0; i < D / 2; ++i) out[i] = 0.0f;
    float max0 = -INFINITY, max1 = -INFINITY, sum0 = 0.0f, sum1 = 0.0f;  // sums: this thread's columns only

    mbarrier::wait(&shared.q_full, 0);
    int stage = 0;
    std::uint32_t phase = 0;
    for (int tile = 0; tile < key_tiles; ++tile) {
        // S = Q K^T for this warpgroup's 64 queries and the tile's 128 keys.
        float s[64];
        mbarrier::wait(&shared.k_full[stage], phase);
        wgmma::fence();
#pragma unroll
        for (int c = 0; c < kChunks; ++c) {
            const auto q_descriptor = wgmma::sw128_kmajor_descriptor(tma::smem_address(shared.q[c] + consumer * 64 * kChunk));
            const auto k_descriptor = wgmma::sw128_kmajor_descriptor(tma::smem_address(shared.k[stage][c]));
#pragma unroll
            for (int step = 0; step < kChunk / 16; ++step)  // 16 bf16 = 32 bytes = 2 descriptor units
                wgmma::mma_m64n128k16_ss(s, q_descriptor + 2 * step, k_descriptor + 2 * step, c > 0 || step > 0);
        }
        wgmma::commit();
        wgmma::wait<0>();
        mbarrier::arrive(&shared.k_empty[stage]);

        // Mask keys past the end and, causal, above the diagonal (only the last tiles need it).
        const int key0 = tile * kBlockK;
        if (key0 + kBlockK > seq || (causal && key0 + kBlockK - 1 > q_block * kBlockQ)) {
#pragma unroll
            for (int j = 0; j < 16; ++j) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const int key = key0 + 8 * j + column_in_pair + e;
                    if (key >= seq || (causal && key > row0)) s[4 * j + e] = -INFINITY;
                    if (key >= seq || (causal && key > row1)) s[4 * j + 2 + e] = -INFINITY;
                }
            }
        }

        // TODO 1 (online softmax): for each of this thread's two rows, the tile's maximum over
        //   the 4 threads that share the row (__shfl_xor_sync 1 and 2), the new running maximum
        //   in log2 units (scale_log2 = log2(e) / sqrt(D)), the rescale factor exp2(old - new)
        //   applied to sum0/sum1 and to `out` (out[4j], out[4j+1]: row0; out[4j+2], out[4j+3]:
        //   row1), then s = exp2(s * scale_log2 - new maximum) and the row sums. Careful with a
        //   row whose maximum is still -inf.
        // TODO 2 (P as the A operand): pack s into bf16 pairs, one uint32_t[4] per k16 step:
        //   step t takes s[8t .. 8t+7] as {s[8t], s[8t+1]}, {s[8t+2], s[8t+3]}, {s[8t+4], s[8t+5]},
        //   {s[8t+6], s[8t+7]} (wgmma_attention.cuh explains why no shuffle is needed).
        mbarrier::wait(&shared.v_full[stage], phase);
        // TODO 3 (O += P V): wgmma::fence(), eight mma_pv<D> calls, one per 16 keys, with
        //   sw128_mn_major_descriptor(V's address + step * 2048, bytes from one 64-column box of
        //   V to the next), commit, wait<0>; all before the arrival below frees the stage.
        mbarrier::arrive(&shared.v_empty[stage]);
        if (++stage == kStages) stage = 0, phase ^= 1;
    }

    // The rows' sums over the 4 threads of each row, then O / sum, in bf16, rows < seq only.
#pragma unroll
    for (int offset = 1; offset < 4; offset *= 2) {
        sum0 += __shfl_xor_sync(0xffffffffu, sum0, offset);
        sum1 += __shfl_xor_sync(0xffffffffu, sum1, offset);
    }
    const float inverse0 = 1.0f / sum0, inverse1 = 1.0f / sum1;
    __nv_bfloat16* out_head = o + std::size_t(head) * seq * D;
#pragma unroll
    for (int j = 0; j < D / 8; ++j) {
        const int col = 8 * j + column_in_pair;
        if (row0 < seq)
            *reinterpret_cast<__nv_bfloat162*>(out_head + std::size_t(row0) * D + col) =
                __floats2bfloat162_rn(out[4 * j] * inverse0, out[4 * j + 1] * inverse0);
        if (row1 < seq)
            *reinterpret_cast<__nv_bfloat162*>(out_head + std::size_t(row1) * D + col) =
                __floats2bfloat162_rn(out[4 * j + 2] * inverse1, out[4 * j + 3] * inverse1);
    }
}

template <int D>
void launch_for(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                int heads_total, int seq, bool causal, cudaStream_t stream) {
    const CUtensorMap q_map = make_head_map(q, heads_total, seq, D);
    const CUtensorMap k_map = make_head_map(k, heads_total, seq, D);
    const CUtensorMap v_map = make_head_map(v, heads_total, seq, D);
    constexpr int shared_bytes = sizeof(SharedStorage<D>) + 1024;
    static const bool configured = [] {
        cudaFuncSetAttribute(attention_fa3<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
        return true;
    }();
    (void)configured;
    const dim3 grid(heads_total, (seq + kBlockQ - 1) / kBlockQ);
    attention_fa3<D><<<grid, kThreads, shared_bytes, stream>>>(q_map, k_map, v_map, o, seq, causal);
}

void fa3_attention_launch(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                          int batch, int heads, int seq, int head_dim, bool causal, cudaStream_t stream) {
    if (head_dim == 64) launch_for<64>(q, k, v, o, batch * heads, seq, causal, stream);
    else launch_for<128>(q, k, v, o, batch * heads, seq, causal, stream);
}

}  // namespace

ROOFLINE_ATTENTION_VARIANT(warp_specialized, fa3_attention_launch);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(warp_specialized_causal, fa3_attention_launch);
ROOFLINE_ATTENTION_VARIANT(warp_specialized_16k, fa3_attention_launch);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(warp_specialized_causal_16k, fa3_attention_launch);
