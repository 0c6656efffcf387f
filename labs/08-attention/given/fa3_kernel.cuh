// Given code for lab 08's rung 4 (kernels/04_warp_specialized.cu): the kernel (producer and
// consumers), its schedules and its launch. It calls the kernel file's issue_pv,
// SoftmaxRows::tile and pack_p (the exercise) and launches the file's `Chosen` schedule, so the
// kernel file includes it after them; fa3_pieces.cuh has the rest of the given code.
//
// A block's work item is 128 queries of one head; three warpgroups:
//   producer (warpgroup 0): gives back registers (setmaxnreg) and one thread streams the
//     item's Q tile, then K and V tiles of 128 keys into a ring of stages with TMA,
//     128-byte swizzled, K and V on barriers of their own so that S = Q K^T can start
//     before V has landed;
//   consumers (warpgroups 1, 2): take registers; each owns 64 queries. Per key tile:
//     S = Q K^T with wgmma m64n128k16 from shared memory (fp32, 64 registers a thread),
//     the online softmax on those registers (exp2, the scale folded into one FFMA), then
//     O += P V with wgmma m64n{D}k16 taking P straight from registers: the scores'
//     accumulator layout is the A-operand layout, so P never touches shared memory. V is
//     read N-major ("transposed") by the descriptor, as it lies in memory.
//
// The consumers' schedule is `Schedule` (fa3_pieces.cuh), one switch per FlashAttention-3 idea
// (Shah et al. 2024, section 3): the probe scripts/probes/attn4_variants.cu times each against
// cuDNN, and the kernel file's `Chosen` is the one it launches.
//   overlap:    intra-warpgroup pipelining. The next tile's S = Q K^T and this tile's
//               O += P V are issued together; the softmax of the new S runs while P V is
//               still on the tensor cores, and O takes that softmax's rescale just before
//               the next P V is issued, under the next S. Without it, a warpgroup waits for
//               its S, then runs its softmax with its tensor-core work drained.
//   ping-pong:  the two consumers issue their matmuls in turn (a pair of named barriers),
//               so that one warpgroup's softmax runs under the other's matmuls by
//               schedule, not by chance.
//   stages:     2 or 3 K/V tiles in flight.
//   persistent: one block per SM walks the work items (longest first, back and forth
//               across the grid), so the producer loads the next item's Q, K and V while the
//               consumers finish this one, and no ragged last wave of whole blocks.
//   head-major: (plain attention) the items in the order that keeps the blocks at work on
//               few heads, so that K and V come from the L2 (work_item).
//   poly-exp:   0, 1 or 2 quarters of the exponentials by a polynomial on the FMA pipe
//               instead of the special-function unit, which is slow on Hopper (poly_exp2).
//   TMA store:  O leaves through shared memory (32 KiB more, 2 stages only) and one TMA
//               store a box instead of 4-byte stores from registers.
//
// Any sequence length: the tensor maps are 3-D ([batch x heads][seq][D]), so a tile that
// runs past the end of a head is zero-filled by TMA, and keys >= seq are masked to -inf.
// Causal: an item stops at its diagonal tile (128 keys = 128 queries) and masks above the
// diagonal there; items are taken longest first.
//
// Shared memory at D = 128: Q 32 KiB + stages x (K 32 + V 32) KiB: 160 KiB at 2 stages,
// 224 KiB at 3 (+ 32 KiB for O's staging with the TMA store, 2 stages only); one block an SM.
#pragma once
#include "roofline/contract/attention.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"
#include "wgmma_attention.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "fa3_pieces.cuh"

namespace {

// The ping-pong's turns: consumer c waits at barrier 1 + c for its turn to issue matmuls,
// then hands the turn to the other. Consumer 1 opens the first turn for consumer 0 and
// skips its very last hand-over, so that every wait has exactly one matching arrival.
template <class S>
struct Turns {
    int consumer;
    __device__ __forceinline__ void open() const {
        if constexpr (S::kPingPong)
            if (consumer == 1) wgmma::named_barrier_arrive(1, kConsumerThreads);
    }
    __device__ __forceinline__ void begin() const {
        if constexpr (S::kPingPong) wgmma::named_barrier_sync(1 + consumer, kConsumerThreads);
    }
    __device__ __forceinline__ void end(bool last_of_kernel) const {
        if constexpr (S::kPingPong)
            if (!(consumer == 1 && last_of_kernel)) wgmma::named_barrier_arrive(2 - consumer, kConsumerThreads);
    }
};

template <int D, class S>
__global__ void __launch_bounds__(kThreads, 1)
    attention_fa3(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
                  const __grid_constant__ CUtensorMap v_map, const __grid_constant__ CUtensorMap o_map,
                  __nv_bfloat16* __restrict__ o, int heads_total, int seq,
                  bool causal) {
    constexpr int kStages = S::kStages;
    using Shared = SharedStorage<D, kStages, S::kTmaStore>;
    constexpr int kChunks = Shared::kChunks;
    constexpr std::uint32_t kTileBytes = kBlockK * D * 2;
    extern __shared__ unsigned char shared_raw[];
    auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    auto& shared = *reinterpret_cast<Shared*>(base);

    const int items = heads_total * ((seq + kBlockQ - 1) / kBlockQ);
    const int warpgroup = threadIdx.x / 128;

    if (threadIdx.x == 0) {
        mbarrier::init(&shared.q_full, 1);
        mbarrier::init(&shared.q_empty, kConsumerThreads);  // every consumer thread arrives
        for (int s = 0; s < kStages; ++s) {
            mbarrier::init(&shared.k_full[s], 1);
            mbarrier::init(&shared.v_full[s], 1);
            mbarrier::init(&shared.k_empty[s], kConsumerThreads);
            mbarrier::init(&shared.v_empty[s], kConsumerThreads);
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
            RingPosition ring;
            std::uint32_t q_phase = 0;
            for (int round = 0; round_item(round) < items; ++round) {
                const WorkItem item = work_item<S::kHeadMajor>(round_item(round), heads_total, seq, causal);
                mbarrier::wait(&shared.q_empty, q_phase ^ 1);  // the previous item's last Q K^T is done
                mbarrier::arrive_expect_tx(&shared.q_full, kBlockQ * D * 2);
                for (int c = 0; c < kChunks; ++c)
                    load_box(shared.q[c], &q_map, c * kChunk, item.q_block * kBlockQ, item.head, &shared.q_full);
                q_phase ^= 1;
                for (int tile = 0; tile < item.key_tiles; ++tile) {
                    mbarrier::wait(&shared.k_empty[ring.stage], ring.phase ^ 1);
                    mbarrier::arrive_expect_tx(&shared.k_full[ring.stage], kTileBytes);
                    for (int c = 0; c < kChunks; ++c)
                        load_box(shared.k[ring.stage][c], &k_map, c * kChunk, tile * kBlockK, item.head,
                                 &shared.k_full[ring.stage]);
                    mbarrier::wait(&shared.v_empty[ring.stage], ring.phase ^ 1);
                    mbarrier::arrive_expect_tx(&shared.v_full[ring.stage], kTileBytes);
                    for (int c = 0; c < kChunks; ++c)
                        load_box(shared.v[ring.stage][c], &v_map, c * kChunk, tile * kBlockK, item.head,
                                 &shared.v_full[ring.stage]);
                    ring.advance<kStages>();
                }
            }
        }
        return;
    }

    wgmma::claim_registers<232>();
    const int consumer = warpgroup - 1;
    const int warp_in_group = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const Turns<S> turns{consumer};
    const Descriptors<D, kStages> descriptors(shared, consumer);
    turns.open();
    RingPosition ring;
    std::uint32_t q_phase = 0;
    for (int round = 0; round_item(round) < items; ++round) {
        const WorkItem item = work_item<S::kHeadMajor>(round_item(round), heads_total, seq, causal);
        const bool last_item = round_item(round + 1) >= items;
        // This thread's two rows of the item (the accumulator layout) and its column pair.
        SoftmaxRows rows;
        rows.first_row = item.q_block * kBlockQ;
        rows.row0 = rows.first_row + consumer * 64 + warp_in_group * 16 + lane / 4;
        rows.row1 = rows.row0 + 8;
        rows.column_in_pair = 2 * (lane % 4);
        rows.scale_log2 = attention::softmax_scale(D) * kLog2e;
        rows.max0 = rows.max1 = -INFINITY;
        rows.sum0 = rows.sum1 = 0.0f;
        float out[D / 2];
#pragma unroll
        for (int i = 0; i < D / 2; ++i) out[i] = 0.0f;
        float s[64];
        std::uint32_t p[8][4];
        float rescale0, rescale1;

        mbarrier::wait(&shared.q_full, q_phase);
        q_phase ^= 1;
        if constexpr (S::kOverlap) {
            // Tile 0's scores alone; then per tile, the next scores and the previous P V together.
            mbarrier::wait(&shared.k_full[ring.stage], ring.phase);
            turns.begin();
            wgmma::fence();
            issue_scores(s, descriptors, ring.stage);
            wgmma::commit();
            turns.end(false);
            wgmma::wait<0>();
            wgmma::fence_operands(s);
            mbarrier::arrive(&shared.k_empty[ring.stage]);
            if (item.key_tiles == 1) mbarrier::arrive(&shared.q_empty);
            rows.tile<S::kPolyExpQuarters>(s, 0, seq, causal, rescale0, rescale1);
            rescale0 = rescale1 = 1.0f;  // out is 0: nothing to rescale
            pack_p(p, s);
            RingPosition v_ring = ring;  // the tile whose P V is next
            ring.advance<kStages>();
            for (int tile = 1; tile < item.key_tiles; ++tile) {
                mbarrier::wait(&shared.k_full[ring.stage], ring.phase);
                mbarrier::wait(&shared.v_full[v_ring.stage], v_ring.phase);
                turns.begin();
                wgmma::fence();
                issue_scores(s, descriptors, ring.stage);
                wgmma::commit();
                // O (P V up to the tile before v_ring's, landed) takes the previous softmax's
                // factors here, under the scores' matmul, as FlashAttention-3 places it: not
                // between P V landing and the next issue, where the tensor cores would wait for it.
                rescale_out<D>(out, rescale0, rescale1);
                wgmma::fence_operands(out);
                wgmma::fence();
                issue_pv<D>(out, p, descriptors, v_ring.stage);
                wgmma::commit();
                turns.end(false);
                wgmma::wait<1>();  // the scores; P V may still run
                wgmma::fence_operands(s);
                mbarrier::arrive(&shared.k_empty[ring.stage]);
                if (tile == item.key_tiles - 1) mbarrier::arrive(&shared.q_empty);
                rows.tile<S::kPolyExpQuarters>(s, tile * kBlockK, seq, causal, rescale0, rescale1);
                wgmma::wait<0>();  // P V: out and p are free again
                wgmma::fence_operands(out);
                mbarrier::arrive(&shared.v_empty[v_ring.stage]);
                pack_p(p, s);
                v_ring = ring;
                ring.advance<kStages>();
            }
            mbarrier::wait(&shared.v_full[v_ring.stage], v_ring.phase);
            turns.begin();
            rescale_out<D>(out, rescale0, rescale1);
            wgmma::fence_operands(out);
            wgmma::fence();
            issue_pv<D>(out, p, descriptors, v_ring.stage);
            wgmma::commit();
            turns.end(last_item);
            wgmma::wait<0>();
            wgmma::fence_operands(out);
            mbarrier::arrive(&shared.v_empty[v_ring.stage]);
        } else {
            // One tile at a time: S, wait, softmax, P V. A tile's P V is not waited for: the
            // next tile's Q K^T is queued behind it, and one wait covers both.
            int previous_stage = -1;
            for (int tile = 0; tile < item.key_tiles; ++tile) {
                mbarrier::wait(&shared.k_full[ring.stage], ring.phase);
                wgmma::fence();
                issue_scores(s, descriptors, ring.stage);
                wgmma::commit();
                wgmma::wait<0>();
                wgmma::fence_operands(s);
                wgmma::fence_operands(out);
                mbarrier::arrive(&shared.k_empty[ring.stage]);
                if (previous_stage >= 0) mbarrier::arrive(&shared.v_empty[previous_stage]);
                if (tile == item.key_tiles - 1) mbarrier::arrive(&shared.q_empty);
                rows.tile<S::kPolyExpQuarters>(s, tile * kBlockK, seq, causal, rescale0, rescale1);
                rescale_out<D>(out, rescale0, rescale1);
                pack_p(p, s);
                mbarrier::wait(&shared.v_full[ring.stage], ring.phase);
                wgmma::fence();
                issue_pv<D>(out, p, descriptors, ring.stage);
                wgmma::commit();
                previous_stage = ring.stage;
                ring.advance<kStages>();
            }
            wgmma::wait<0>();
            wgmma::fence_operands(out);
            mbarrier::arrive(&shared.v_empty[previous_stage]);
        }

        // The rows' sums over the 4 threads of each row, then O / sum, in bf16, rows < seq only.
#pragma unroll
        for (int offset = 1; offset < 4; offset *= 2) {
            rows.sum0 += __shfl_xor_sync(0xffffffffu, rows.sum0, offset);
            rows.sum1 += __shfl_xor_sync(0xffffffffu, rows.sum1, offset);
        }
        const float inverse0 = 1.0f / rows.sum0, inverse1 = 1.0f / rows.sum1;
        if constexpr (S::kTmaStore) {
            // Through shared memory and one TMA store a box: 4-byte global stores, two rows
            // of a warp each, throttled the load/store queue (the profile's epilogue: ~4% of
            // the consumers' samples, on a stretch where the tensor cores have nothing queued).
            const bool leader = threadIdx.x % 128 == 0;
            if (leader) tma::wait_stores_read<0>();  // the previous item's boxes have been read
            wgmma::warpgroup_sync(3 + consumer);
            // Row r's 16-byte unit u of a box lies at r * 128 + (u ^ r % 8) * 16 (the 128-byte
            // swizzle); a warp's 32 stores of one j then hit 32 different banks.
            const int r0 = rows.row0 - rows.first_row - consumer * 64, r1 = r0 + 8;
#pragma unroll
            for (int j = 0; j < D / 8; ++j) {
                auto* box = reinterpret_cast<unsigned char*>(shared.out.o[consumer * kChunks + j / 8]);
                const int unit = j % 8, byte_in_unit = 2 * rows.column_in_pair;
                *reinterpret_cast<__nv_bfloat162*>(box + r0 * 128 + ((unit ^ (r0 % 8)) * 16) + byte_in_unit) =
                    __floats2bfloat162_rn(out[4 * j] * inverse0, out[4 * j + 1] * inverse0);
                *reinterpret_cast<__nv_bfloat162*>(box + r1 * 128 + ((unit ^ (r1 % 8)) * 16) + byte_in_unit) =
                    __floats2bfloat162_rn(out[4 * j + 2] * inverse1, out[4 * j + 3] * inverse1);
            }
            tma::fence_shared_to_async();  // this thread's writes, visible to the TMA unit
            wgmma::warpgroup_sync(3 + consumer);
            if (leader && rows.first_row + consumer * 64 < seq) {  // else every row is past the end
                for (int c = 0; c < kChunks; ++c)
                    store_box(&o_map, shared.out.o[consumer * kChunks + c], c * kChunk,
                              rows.first_row + consumer * 64, item.head);
                tma::commit_stores();
            }
        } else {
            __nv_bfloat16* out_head = o + std::size_t(item.head) * seq * D;
#pragma unroll
            for (int j = 0; j < D / 8; ++j) {
                const int col = 8 * j + rows.column_in_pair;
                if (rows.row0 < seq)
                    *reinterpret_cast<__nv_bfloat162*>(out_head + std::size_t(rows.row0) * D + col) =
                        __floats2bfloat162_rn(out[4 * j] * inverse0, out[4 * j + 1] * inverse0);
                if (rows.row1 < seq)
                    *reinterpret_cast<__nv_bfloat162*>(out_head + std::size_t(rows.row1) * D + col) =
                        __floats2bfloat162_rn(out[4 * j + 2] * inverse1, out[4 * j + 3] * inverse1);
            }
        }
    }
    if constexpr (S::kTmaStore)
        if (threadIdx.x % 128 == 0) tma::wait_stores<0>();  // the last boxes written before the block ends
}

template <int D, class S>
void launch_for(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                int heads_total, int seq, bool causal, cudaStream_t stream) {
    const CUtensorMap q_map = make_head_map(q, heads_total, seq, D);
    const CUtensorMap k_map = make_head_map(k, heads_total, seq, D);
    const CUtensorMap v_map = make_head_map(v, heads_total, seq, D);
    const CUtensorMap o_map = S::kTmaStore ? make_head_map(o, heads_total, seq, D, 64) : CUtensorMap{};
    constexpr int shared_bytes = sizeof(SharedStorage<D, S::kStages, S::kTmaStore>) + 1024;  // + room to align to 1024
    static_assert(shared_bytes <= 227 * 1024, "more shared memory than an H100/H200 block may have");
    static const bool configured = [] {
        cudaFuncSetAttribute(attention_fa3<D, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
        return true;
    }();
    (void)configured;
    const int items = heads_total * ((seq + kBlockQ - 1) / kBlockQ);
    const int blocks = S::kPersistent ? std::min(items, tma::multiprocessor_count()) : items;
    attention_fa3<D, S><<<blocks, kThreads, shared_bytes, stream>>>(q_map, k_map, v_map, o_map, o, heads_total, seq,
                                                                       causal);
}

template <class S>
void fa3_attention_launch_with(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                               __nv_bfloat16* o, int batch, int heads, int seq, int head_dim, bool causal,
                               cudaStream_t stream) {
    if (head_dim == 64) launch_for<64, S>(q, k, v, o, batch * heads, seq, causal, stream);
    else launch_for<128, S>(q, k, v, o, batch * heads, seq, causal, stream);
}

void fa3_attention_launch(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                          int batch, int heads, int seq, int head_dim, bool causal, cudaStream_t stream) {
    fa3_attention_launch_with<Chosen>(q, k, v, o, batch, heads, seq, head_dim, causal, stream);
}

}  // namespace
