// The decode server's model: Llama-3-8B's shapes with random bf16 weights made on the GPU from a
// seed, a KV cache filled with random keys and values for the starting context, and the decode
// step (embed, 32 x [RMSNorm, QKV GEMM, RoPE + KV append, attention, O GEMM, residual, RMSNorm,
// gate/up GEMM, SwiGLU, down GEMM, residual], RMSNorm, LM head, greedy argmax), enqueued
// batched or one request at a time, eagerly or as one CUDA graph.
#pragma once
#include "decode_attention_api.cuh"
#include "gemm.cuh"
#include "kernels.cuh"
#include "server_config.hpp"

#include <string>
#include <vector>

namespace server {

struct Shapes {
    int hidden = 4096, layers = 32, q_heads = 32, kv_heads = 8, head_dim = 128, mlp = 14336;
    int vocab = 128256;       // tokens the model can emit
    int vocab_rows = 128256;  // the LM head's rows (vocab padded)
    int batch = 1;
    int max_context = 0;      // positions each sequence's cache holds
    int qkv_dim() const { return (q_heads + 2 * kv_heads) * head_dim; }
};

struct LayerWeights {
    bf16 *attn_norm, *wqkv, *wo, *mlp_norm, *gate_up, *down;
};

// Events between the ops of one instrumented step: the time from one mark to the next is the
// op's (its GPU time, and any wait for the host before it).
class OpRecorder {
public:
    explicit OpRecorder(int capacity);
    ~OpRecorder();
    void mark(const char* name, cudaStream_t stream);
    void end(cudaStream_t stream);
    // Seconds per op name, summed, in the order first seen.
    std::vector<std::pair<std::string, double>> times() const;

private:
    std::vector<cudaEvent_t> events_;
    std::vector<const char*> names_;
    int used_ = 0;
};

class Server {
public:
    Server(const ServerConfig& config, DecodeAttentionFn attention, cudaStream_t stream);
    ~Server();

    // One step's launches onto the stream. per_request: the per-sequence ops (embed, norms, RoPE,
    // attention, residuals, SwiGLU, argmax) launched once per sequence; the GEMMs stay batched.
    void enqueue_step(bool per_request, OpRecorder* recorder = nullptr);
    void capture_graph();  // the batched step as a CUDA graph
    void launch_graph();
    int launches_in_last_step() const { return launches_; }  // kernels and cuBLASLt calls enqueued
    bool fused() const { return fused_; }

    Shapes shapes;
    std::vector<LayerWeights> layers;
    bf16 *embedding = nullptr, *lm_head = nullptr, *final_norm = nullptr;
    bf16 *k_cache = nullptr, *v_cache = nullptr;  // [layer][batch][kv_heads][max_context][head_dim]; null with fp8
    // kv_cache: fp8: the caches in e4m3, the same layout, and the scales: [layer][2][kv_heads] (keys, then values).
    std::uint8_t *k_cache8 = nullptr, *v_cache8 = nullptr;
    float* kv_scales = nullptr;
    bool fp8_kv = false;
    const float* k_scales(int layer) const { return kv_scales + std::size_t(layer) * 2 * shapes.kv_heads; }
    const float* v_scales(int layer) const { return k_scales(layer) + shapes.kv_heads; }
    int *tokens = nullptr, *positions = nullptr, *history = nullptr, *step_counter = nullptr;
    float* logits = nullptr;  // [batch][vocab_rows]
    std::size_t layer_cache_elements() const {
        return std::size_t(shapes.batch) * shapes.kv_heads * shapes.max_context * shapes.head_dim;
    }
    std::size_t weight_bytes = 0, cache_bytes = 0;
    cudaStream_t stream;

private:
    DecodeAttentionFn attention_;
    bool fused_ = false;  // the fused small-batch step (config.fused())
    Gemms gemms_;
    bf16 *x_ = nullptr, *h_ = nullptr, *qkv_ = nullptr, *attn_ = nullptr, *tmp_ = nullptr, *gate_up_ = nullptr,
         *act_ = nullptr;
    float* attention_workspace_ = nullptr;
    void* weight_block_ = nullptr;
    cudaGraphExec_t graph_ = nullptr;
    int launches_ = 0;
};

}  // namespace server
