// The course's own kernels for the decode server (instructor build only: the student edition has
// no solutions/, and its server runs labs/10-production/server/fast_kernels_none.cu instead).
// These are answers: the attention below is a grouped-query split-KV decode attention, what lab
// 10's kernel file asks for (with an fp8 cache besides), and skinny_gemv.cu is lab 09's fused
// layer for a batch of rows. Linked into both server programs where solutions/ exists.
#include "check.cuh"
#include "decode_attention_api.cuh"
#include "fast_kernels.cuh"
#include "kernels.cuh"

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cfloat>

namespace server {

namespace {

// The plain decode attention, in two kernels, grouped-query and split over the context
// (flash-decoding). The first: a block of 128 threads per (chunk of positions, KV head, sequence)
// reads each K and V row of its chunk once for the group's query heads (4 for Llama-3-8B). A row
// is shared by 16 lanes, 8 dimensions each (one 16-byte load of bf16, 8 bytes of fp8): 8 rows per
// pass of the block, two passes' loads issued before their arithmetic. Each 16-lane slot keeps an
// online softmax per query head in fp32, in base-2 units (the scale folded into q with log2 e);
// the block merges its slots through shared memory and writes one record per query head:
// (max, sum, 128 unnormalized outputs). The second kernel merges a sequence's chunks.
constexpr int kAttnThreads = 128, kLanesPerRow = 16, kDimsPerLane = 8, kRowSlots = kAttnThreads / kLanesPerRow;
constexpr int kMaxGroup = 4, kChunkQuantum = 64, kAttnRecord = 130;

// A cache row's 8 dimensions of one lane, as floats: bf16 (one 16-byte load) or fp8 e4m3 (8 bytes).
__device__ __forceinline__ void load_dims(const bf16* row, int part, float (&out)[kDimsPerLane]) {
    uint4 raw = __ldg(reinterpret_cast<const uint4*>(row) + part);
    const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&raw);
    for (int i = 0; i < 4; ++i) {
        float2 f = __bfloat1622float2(pairs[i]);
        out[2 * i] = f.x, out[2 * i + 1] = f.y;
    }
}
__device__ __forceinline__ void load_dims(const std::uint8_t* row, int part, float (&out)[kDimsPerLane]) {
    uint2 raw = __ldg(reinterpret_cast<const uint2*>(row) + part);
    const __nv_fp8x2_storage_t* pairs = reinterpret_cast<const __nv_fp8x2_storage_t*>(&raw);
    for (int i = 0; i < 4; ++i) {
        float2 f = __half22float2(__half2(__nv_cvt_fp8x2_to_halfraw2(pairs[i], __NV_E4M3)));
        out[2 * i] = f.x, out[2 * i + 1] = f.y;
    }
}

// 2^x in one instruction (ex2.approx, about 2 ulp); 2^-inf = 0.
__device__ __forceinline__ float fast_exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// Over the 16 lanes that share a row. The two halves of a warp are two row slots whose loops may
// run a different number of times (a chunk's last pass), so each half names only itself.
__device__ __forceinline__ float row_sum(float v) {
    const unsigned half = 0xffffu << (threadIdx.x & 16);
    for (int offset = kLanesPerRow / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(half, v, offset);
    return v;
}

// Cache: bf16 (k_cache, v_cache) or std::uint8_t (fp8 e4m3: k_cache_fp8, v_cache_fp8 with per-head scales).
template <class Cache>
__global__ __launch_bounds__(kAttnThreads) void plain_attention_split_kernel(DecodeAttentionArgs a, const Cache* k_cache,
                                                                             const Cache* v_cache, int chunk, int splits) {
    const int split = blockIdx.x, kv = blockIdx.y, b = blockIdx.z;
    const int group = a.q_heads / a.kv_heads, length = a.positions[b] + 1;
    const int first = split * chunk;
    if (first >= length) return;  // past this sequence's end: the merge reads only its own chunks
    const int last = min(first + chunk, length);
    const int part = threadIdx.x % kLanesPerRow, slot = threadIdx.x / kLanesPerRow;
    const float k_scale = a.k_scales ? a.k_scales[kv] : 1.f, v_scale = a.v_scales ? a.v_scales[kv] : 1.f;
    // The group's queries, this lane's 8 dimensions, times the softmax scale, log2 e and K's scale.
    float q[kMaxGroup][kDimsPerLane];
    for (int h = 0; h < kMaxGroup; ++h) {
        if (h < group) {
            load_dims(a.q + std::size_t(b) * a.q_stride + std::size_t(kv * group + h) * a.head_dim, part, q[h]);
            for (int i = 0; i < kDimsPerLane; ++i) q[h][i] *= a.scale * 1.4426950408889634f * k_scale;
        } else {
            for (int i = 0; i < kDimsPerLane; ++i) q[h][i] = 0;
        }
    }
    float m[kMaxGroup], l[kMaxGroup], acc[kMaxGroup][kDimsPerLane];
    for (int h = 0; h < kMaxGroup; ++h) {
        m[h] = -INFINITY, l[h] = 0;
        for (int i = 0; i < kDimsPerLane; ++i) acc[h][i] = 0;
    }
    const std::size_t sequence_rows = (std::size_t(b) * a.kv_heads + kv) * a.max_context;
    for (int base = first + slot; base < last; base += 2 * kRowSlots) {
        // Two rows' loads in flight before their arithmetic; a second row past the end repeats the
        // first and is skipped below (never a position at or past the sequence's length).
        const int p0 = base, p1 = base + kRowSlots < last ? base + kRowSlots : base;
        float k0[kDimsPerLane], v0[kDimsPerLane], k1[kDimsPerLane], v1[kDimsPerLane];
        load_dims(k_cache + (sequence_rows + p0) * a.head_dim, part, k0);
        load_dims(v_cache + (sequence_rows + p0) * a.head_dim, part, v0);
        load_dims(k_cache + (sequence_rows + p1) * a.head_dim, part, k1);
        load_dims(v_cache + (sequence_rows + p1) * a.head_dim, part, v1);
        const int rows = p1 != p0 ? 2 : 1;
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            if (r >= rows) break;
            const float* k = r == 0 ? k0 : k1;
            const float* v = r == 0 ? v0 : v1;
#pragma unroll
            for (int h = 0; h < kMaxGroup; ++h) {
                if (h >= group) continue;
                float s = 0;
                for (int i = 0; i < kDimsPerLane; ++i) s = fmaf(q[h][i], k[i], s);
                s = row_sum(s);
                if (s > m[h]) {  // a new max (rare after a chunk's first rows): rescale what is summed
                    const float correction = fast_exp2(m[h] - s);  // 2^-inf = 0 on the first row
                    l[h] *= correction;
                    for (int i = 0; i < kDimsPerLane; ++i) acc[h][i] *= correction;
                    m[h] = s;
                }
                const float weight = fast_exp2(s - m[h]);
                l[h] += weight;
                for (int i = 0; i < kDimsPerLane; ++i) acc[h][i] = fmaf(weight, v[i], acc[h][i]);
            }
        }
    }
    // The block's slots merged per query head; thread t holds dimension t.
    __shared__ float slot_m[kRowSlots][kMaxGroup], slot_l[kRowSlots][kMaxGroup], slot_acc[kRowSlots][kMaxGroup][128];
    for (int h = 0; h < kMaxGroup; ++h) {
        if (part == 0) slot_m[slot][h] = m[h], slot_l[slot][h] = l[h];
        for (int i = 0; i < kDimsPerLane; ++i) slot_acc[slot][h][part * kDimsPerLane + i] = acc[h][i];
    }
    __syncthreads();
    const int d = threadIdx.x;
    for (int h = 0; h < group; ++h) {
        float top = -INFINITY;
        for (int s = 0; s < kRowSlots; ++s)
            if (slot_l[s][h] > 0) top = fmaxf(top, slot_m[s][h]);
        float total = 0, out = 0;
        for (int s = 0; s < kRowSlots; ++s) {
            if (!(slot_l[s][h] > 0)) continue;  // a slot with no position adds nothing
            const float f = exp2f(slot_m[s][h] - top);
            total += slot_l[s][h] * f;
            out += slot_acc[s][h][d] * f;
        }
        float* record = a.workspace + ((std::size_t(b) * a.q_heads + kv * group + h) * splits + split) * kAttnRecord;
        record[2 + d] = out * v_scale;
        if (d == 0) record[0] = top, record[1] = total;
    }
}

__global__ __launch_bounds__(128) void plain_attention_merge_kernel(DecodeAttentionArgs a, int chunk, int splits) {
    const int head = blockIdx.x, b = blockIdx.y, d = threadIdx.x;
    const int length = a.positions[b] + 1, used = (length + chunk - 1) / chunk;
    const float* records = a.workspace + (std::size_t(b) * a.q_heads + head) * splits * kAttnRecord;
    float top = -INFINITY;
    for (int c = 0; c < used; ++c) top = fmaxf(top, records[c * kAttnRecord]);
    float total = 0, out = 0;
    for (int c = 0; c < used; ++c) {
        const float f = exp2f(records[c * kAttnRecord] - top);
        total += records[c * kAttnRecord + 1] * f;
        out += records[c * kAttnRecord + 2 + d] * f;
    }
    a.out[(std::size_t(b) * a.q_heads + head) * a.head_dim + d] = __float2bfloat16(out / total);
}

}  // namespace

bool fast_kernels_linked() { return true; }

void fast_decode_attention(const DecodeAttentionArgs& a, cudaStream_t stream) {
    // The kernels hold 8 dimensions per lane over 16 lanes, the merge one per thread: head_dim 128,
    // and at most kMaxGroup query heads per KV head (Llama-3-8B: 4).
    const int group = a.kv_heads > 0 ? a.q_heads / a.kv_heads : 0;
    if (a.head_dim != 128 || group < 1 || group > kMaxGroup || a.q_heads != group * a.kv_heads || a.longest < 1)
        fail_now("the course's decode attention takes head_dim 128 and 1 to 4 query heads per KV head");
    static int sms = [] {
        int device = 0, count = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
        return count;
    }();
    // Two waves of 4 blocks per SM over the (sequence, KV head) pairs, chunks of a multiple of 64
    // positions (so no more chunks than the workspace holds: decode_attention_workspace_floats).
    const long long pairs = (long long)a.batch * a.kv_heads, wanted = 2LL * 4 * sms;
    const int most = (a.longest + kChunkQuantum - 1) / kChunkQuantum;
    const int want = int(std::min<long long>(std::max<long long>((wanted + pairs - 1) / pairs, 1), most));
    const int chunk = ((a.longest + want - 1) / want + kChunkQuantum - 1) / kChunkQuantum * kChunkQuantum;
    const int splits = (a.longest + chunk - 1) / chunk;
    const dim3 grid(splits, a.kv_heads, a.batch);
    if (a.k_cache_fp8)
        plain_attention_split_kernel<<<grid, kAttnThreads, 0, stream>>>(a, a.k_cache_fp8, a.v_cache_fp8, chunk, splits);
    else
        plain_attention_split_kernel<<<grid, kAttnThreads, 0, stream>>>(a, a.k_cache, a.v_cache, chunk, splits);
    plain_attention_merge_kernel<<<dim3(a.q_heads, a.batch), 128, 0, stream>>>(a, chunk, splits);
}

}  // namespace server
