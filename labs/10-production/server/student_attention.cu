// Where the lab's decode-attention kernel plugs into the server. The server is built twice, as a
// lab program is (CMakeLists.txt): roofline-decode-server links the objects of the student's
// labs/10-production/kernels/*.cu, roofline-decode-server-solution those of solutions/. A kernel
// file registers its launcher with ROOFLINE_DECODE_ATTENTION_VARIANT, which calls
// register_decode_attention before main() runs: the lab program's registry is the grader's, the
// server's is this file's, which keeps the first launcher and the file it came from.
//
// The lab's contract (roofline/contract/decode_attention.cuh) differs from the server's call in
// three ways, bridged here: q contiguous ([batch][32][128], the server's sits in its [q | k | v]
// rows), the lengths (positions + 1) instead of the positions, and its own workspace size.
#include "check.cuh"
#include "decode_attention_api.cuh"

#include "roofline/contract/decode_attention.cuh"

#include <string>

namespace roofline::decode_attention {

namespace {
struct Registered {
    DecodeAttentionLaunch launch = nullptr;
    std::string file, name;
    int count = 0;
};
Registered& registered() {  // a function's static: the kernel files' initializers may run before this file's
    static Registered r;
    return r;
}
}  // namespace

bool register_decode_attention(const char* name, DecodeAttentionLaunch launch, const char* file) {
    auto& r = registered();
    if (!r.launch) r.launch = launch, r.file = file ? file : "", r.name = name ? name : "";
    ++r.count;
    return true;
}

}  // namespace roofline::decode_attention

namespace server {

namespace {

namespace lab = roofline::decode_attention;

struct Bridge {
    __nv_bfloat16* q = nullptr;  // [max_batch][32][128]
    int* lengths = nullptr;      // [max_batch]
    float* workspace = nullptr;  // lab::decode_attention_workspace_floats(max_batch)
    int max_batch = 0;
};
Bridge& bridge() {
    static Bridge b;
    return b;
}

// Block b: sequence b's queries copied out of its [q | k | v] row, and its length.
__global__ void gather_queries(const __nv_bfloat16* q, int q_stride, const int* positions, __nv_bfloat16* q_out,
                               int* lengths) {
    const int b = blockIdx.x;
    const uint4* from = reinterpret_cast<const uint4*>(q + std::size_t(b) * q_stride);
    uint4* to = reinterpret_cast<uint4*>(q_out + std::size_t(b) * lab::kQueryHeads * lab::kHeadDim);
    for (int i = threadIdx.x; i < lab::kQueryHeads * lab::kHeadDim / 8; i += blockDim.x) to[i] = from[i];
    if (threadIdx.x == 0) lengths[b] = positions[b] + 1;
}

void lab_attention(const DecodeAttentionArgs& a, cudaStream_t stream) {
    auto& br = bridge();
    if (a.batch > br.max_batch)
        fail_now("the lab's decode attention was prepared for " + std::to_string(br.max_batch) + " sequences, called with " +
                 std::to_string(a.batch));
    if (a.q_heads != lab::kQueryHeads || a.kv_heads != lab::kKvHeads || a.head_dim != lab::kHeadDim || a.q_stride % 8 != 0)
        fail_now("the lab's decode attention takes 32 query heads and 8 KV heads of 128 (Llama-3-8B's)");
    gather_queries<<<a.batch, 256, 0, stream>>>(a.q, a.q_stride, a.positions, br.q, br.lengths);
    lab::registered().launch(br.q, a.k_cache, a.v_cache, br.lengths, a.out, br.workspace, a.batch, a.max_context, stream);
}


}  // namespace

LabAttention lab_decode_attention(int max_batch) {
    const auto& r = lab::registered();
    LabAttention out;
    if (!r.launch) return out;
    auto& br = bridge();
    if (max_batch > br.max_batch) {
        cudaFree(br.q);
        cudaFree(br.lengths);
        cudaFree(br.workspace);
        CUDA_CHECK(cudaMalloc(&br.q, std::size_t(max_batch) * lab::kQueryHeads * lab::kHeadDim * sizeof(__nv_bfloat16)));
        CUDA_CHECK(cudaMalloc(&br.lengths, std::size_t(max_batch) * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&br.workspace, lab::decode_attention_workspace_floats(max_batch) * sizeof(float)));
        br.max_batch = max_batch;
    }
    out.launch = lab_attention;
    out.file = r.file;
    out.variant = r.name;
    return out;
}

}  // namespace server
