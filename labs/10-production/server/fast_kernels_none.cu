// The server without the course's fast kernels (fast_kernels.cuh): the student edition's build,
// which has no solutions/. server_main.cu refuses the configuration keys that need them before
// any of these is called.
#include "check.cuh"
#include "fast_kernels.cuh"
#include "skinny_gemv.cuh"

namespace server {

bool fast_kernels_linked() { return false; }

namespace {
[[noreturn]] void absent() { fail_now("this build has no fast kernels (solutions/10-production/server/)"); }
}  // namespace

void fast_decode_attention(const DecodeAttentionArgs&, cudaStream_t) { absent(); }
void set_overlap_launches(bool) {}
void norm_qkv_rope(const NormQkvArgs&, cudaStream_t) { absent(); }
void gemv_residual(const bf16*, const bf16*, bf16*, int, int, int, cudaStream_t) { absent(); }
void norm_gate_up_swiglu(const bf16*, const bf16*, const bf16*, bf16*, int, int, int, cudaStream_t) { absent(); }
void norm_gemv_f32(const bf16*, const bf16*, const bf16*, float*, int, int, int, int, cudaStream_t) { absent(); }

}  // namespace server
