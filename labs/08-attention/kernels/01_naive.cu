// Rung 1 (given): attention as three kernels, with the seq x seq score matrix in memory.
//
//   1. scores = Q K^T * scale (fp32, masked scores set to -infinity): writes seq^2 floats per head;
//   2. softmax along each row, in place: reads them and writes them back;
//   3. O = P V: reads them once more.
//
// The two matmuls are the same work a fused kernel does (4 seq^2 head_dim FLOPs per head),
// but the scores cross memory four times: 16 seq^2 bytes per head against 8 seq head_dim
// bytes for Q, K, V and O. At seq 4096 and head_dim 128 that is 64x more traffic than the
// operation needs, and the intensity falls from seq/2 to about head_dim/4 FLOP/byte, under
// the H200's ridge (`roofline calc --attention 4,16,4096,128`). The matmuls here are plain
// shared-memory tiles on the CUDA cores (lab 03, rung 3), not the tensor cores: this rung is
// the baseline the report's byte count is about, not a fast kernel.
//
// Not yours to edit: the lab's rungs 2 and 3 replace it.
#include "roofline/contract/attention.cuh"

namespace {

using roofline::attention::softmax_scale;

constexpr int kTile = 16;

// scores[i][j] = scale * q_i . k_j for one head (blockIdx.z), a 16 x 16 tile per block.
__global__ void scores_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, float* scores, int seq, int head_dim,
                              float scale, bool causal) {
    __shared__ float sQ[kTile][kTile + 1], sK[kTile][kTile + 1];
    const std::size_t head = blockIdx.z * std::size_t(seq) * head_dim;
    const int i = blockIdx.y * kTile + threadIdx.y;  // query
    const int j = blockIdx.x * kTile + threadIdx.x;  // key
    const int key_row = blockIdx.x * kTile + threadIdx.y;
    float sum = 0;
    for (int d0 = 0; d0 < head_dim; d0 += kTile) {
        sQ[threadIdx.y][threadIdx.x] = i < seq ? __bfloat162float(q[head + std::size_t(i) * head_dim + d0 + threadIdx.x]) : 0.0f;
        sK[threadIdx.y][threadIdx.x] =
            key_row < seq ? __bfloat162float(k[head + std::size_t(key_row) * head_dim + d0 + threadIdx.x]) : 0.0f;
        __syncthreads();
        for (int d = 0; d < kTile; ++d) sum += sQ[threadIdx.y][d] * sK[threadIdx.x][d];
        __syncthreads();
    }
    if (i < seq && j < seq) {
        scores[blockIdx.z * std::size_t(seq) * seq + std::size_t(i) * seq + j] =
            causal && j > i ? -INFINITY : sum * scale;
    }
}

// One block per row: p = exp(s - max) / sum, in place.
__global__ void softmax_kernel(float* scores, int seq) {
    __shared__ float partial[256];
    float* row = scores + std::size_t(blockIdx.x) * seq;
    float row_max = -INFINITY;
    for (int j = threadIdx.x; j < seq; j += blockDim.x) row_max = fmaxf(row_max, row[j]);
    partial[threadIdx.x] = row_max;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + stride]);
        __syncthreads();
    }
    row_max = partial[0];
    __syncthreads();
    float sum = 0;
    for (int j = threadIdx.x; j < seq; j += blockDim.x) sum += expf(row[j] - row_max);
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    const float inverse = 1.0f / partial[0];
    for (int j = threadIdx.x; j < seq; j += blockDim.x) row[j] = expf(row[j] - row_max) * inverse;
}

// o[i][d] = sum_j p[i][j] v[j][d] for one head (blockIdx.z), a 16 x 16 tile per block.
__global__ void pv_kernel(const float* p, const __nv_bfloat16* v, __nv_bfloat16* o, int seq, int head_dim) {
    __shared__ float sP[kTile][kTile + 1], sV[kTile][kTile + 1];
    const std::size_t head = blockIdx.z * std::size_t(seq) * head_dim;
    const float* head_p = p + blockIdx.z * std::size_t(seq) * seq;
    const int i = blockIdx.y * kTile + threadIdx.y;  // query
    const int d = blockIdx.x * kTile + threadIdx.x;  // output column (head_dim is a multiple of 16)
    float sum = 0;
    for (int j0 = 0; j0 < seq; j0 += kTile) {
        const int pj = j0 + threadIdx.x, vj = j0 + threadIdx.y;
        sP[threadIdx.y][threadIdx.x] = i < seq && pj < seq ? head_p[std::size_t(i) * seq + pj] : 0.0f;
        sV[threadIdx.y][threadIdx.x] = vj < seq ? __bfloat162float(v[head + std::size_t(vj) * head_dim + d]) : 0.0f;
        __syncthreads();
        for (int j = 0; j < kTile; ++j) sum += sP[threadIdx.y][j] * sV[j][threadIdx.x];
        __syncthreads();
    }
    if (i < seq) o[head + std::size_t(i) * head_dim + d] = __float2bfloat16(sum);
}

void naive_attention(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                     float* scores, int batch, int heads, int seq, int head_dim, bool causal, cudaStream_t stream) {
    const int tiles = (seq + kTile - 1) / kTile;
    const dim3 block(kTile, kTile);
    scores_kernel<<<dim3(tiles, tiles, batch * heads), block, 0, stream>>>(q, k, scores, seq, head_dim,
                                                                            softmax_scale(head_dim), causal);
    softmax_kernel<<<batch * heads * seq, 256, 0, stream>>>(scores, seq);
    pv_kernel<<<dim3(head_dim / kTile, tiles, batch * heads), block, 0, stream>>>(scores, v, o, seq, head_dim);
}

}  // namespace

ROOFLINE_ATTENTION_VARIANT(naive, naive_attention);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(naive_causal, naive_attention);
