// Rung 4 (solution): Hopper attention, FlashAttention-3 style (sm_90a).
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
// A tile's P V is not waited for: the next tile's Q K^T is queued behind it, and one wait
// covers both. The two consumer warpgroups run the same tiles out of step with each other,
// so one's softmax overlaps the other's matmuls; FA3's explicit ping-pong and its intra-warpgroup
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
    int stage = 0, previous_stage = -1;
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
        wgmma::wait<0>();  // this S, and the previous tile's P V behind which it was queued
        mbarrier::arrive(&shared.k_empty[stage]);
        if (previous_stage >= 0) mbarrier::arrive(&shared.v_empty[previous_stage]);

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

        // Online softmax: the rows' new maxima (over the 4 threads that share a row), the old
        // output and sums rescaled, P = exp2(S scale log2(e) - max).
        float tile_max0 = -INFINITY, tile_max1 = -INFINITY;
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            tile_max0 = fmaxf(tile_max0, fmaxf(s[4 * j], s[4 * j + 1]));
            tile_max1 = fmaxf(tile_max1, fmaxf(s[4 * j + 2], s[4 * j + 3]));
        }
#pragma unroll
        for (int offset = 1; offset < 4; offset *= 2) {
            tile_max0 = fmaxf(tile_max0, __shfl_xor_sync(0xffffffffu, tile_max0, offset));
            tile_max1 = fmaxf(tile_max1, __shfl_xor_sync(0xffffffffu, tile_max1, offset));
        }
        const float new_max0 = fmaxf(max0, tile_max0 * scale_log2), new_max1 = fmaxf(max1, tile_max1 * scale_log2);
        const float base0 = new_max0 == -INFINITY ? 0.0f : new_max0;  // a row with nothing visible yet
        const float base1 = new_max1 == -INFINITY ? 0.0f : new_max1;
        const float rescale0 = exp2f(max0 - base0), rescale1 = exp2f(max1 - base1);
        max0 = new_max0, max1 = new_max1;
        sum0 *= rescale0, sum1 *= rescale1;
#pragma unroll
        for (int j = 0; j < D / 8; ++j) {
            out[4 * j] *= rescale0, out[4 * j + 1] *= rescale0;
            out[4 * j + 2] *= rescale1, out[4 * j + 3] *= rescale1;
        }
        std::uint32_t p[8][4];  // P's A fragments, one per k16 step over the tile's keys
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            s[4 * j] = exp2f(s[4 * j] * scale_log2 - base0);
            s[4 * j + 1] = exp2f(s[4 * j + 1] * scale_log2 - base0);
            s[4 * j + 2] = exp2f(s[4 * j + 2] * scale_log2 - base1);
            s[4 * j + 3] = exp2f(s[4 * j + 3] * scale_log2 - base1);
            sum0 += s[4 * j] + s[4 * j + 1];
            sum1 += s[4 * j + 2] + s[4 * j + 3];
        }
#pragma unroll
        for (int step = 0; step < 8; ++step) {
            p[step][0] = pack_bf16(s[8 * step], s[8 * step + 1]);
            p[step][1] = pack_bf16(s[8 * step + 2], s[8 * step + 3]);
            p[step][2] = pack_bf16(s[8 * step + 4], s[8 * step + 5]);
            p[step][3] = pack_bf16(s[8 * step + 6], s[8 * step + 7]);
        }

        // O += P V: V's 128 keys are the K index (16 rows = 2048 bytes a step), head_dim the N.
        mbarrier::wait(&shared.v_full[stage], phase);
        wgmma::fence();
        const std::uint32_t v_address = tma::smem_address(shared.v[stage][0]);
#pragma unroll
        for (int step = 0; step < 8; ++step)
            mma_pv<D>(out, p[step], wgmma::sw128_mn_major_descriptor(v_address + step * 2048, kBlockK * kChunk * 2));
        wgmma::commit();  // not waited for here: the next tile's Q K^T queues behind it
        previous_stage = stage;
        if (++stage == kStages) stage = 0, phase ^= 1;
    }
    wgmma::wait<0>();

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
