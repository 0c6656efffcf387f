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

// Events around the ops of one instrumented step: one recorded before each op and one after it,
// so an op's span is its own and the time between two spans is time in which no op ran.
// An event fires when the stream reaches it. Recorded back to back on one stream, op i's end and
// op i+1's start are apart by the events' own cost (about 1-2 us each) when the GPU is behind, and
// by the host's time from one record to the next when the GPU ran dry waiting for it (the eager
// step's launches). A start event the GPU reaches before the host has launched the op's kernel
// fires at once: the rest of that wait falls inside the op's span, which events cannot split.
class OpRecorder {
public:
    explicit OpRecorder(int ops);  // room for this many ops' start and end
    ~OpRecorder();
    void mark(const char* name, cudaStream_t stream);  // ends the open op, if any, and starts this one
    void end(cudaStream_t stream);                     // ends the last op
    struct Span {
        std::string name;
        double start_s = 0, end_s = 0;  // from `origin`
    };
    // Each op's start and end in order, seconds from `origin` (an event recorded before the step),
    // rounded to the nanosecond (the events resolve about half a microsecond).
    std::vector<Span> spans(cudaEvent_t origin) const;

private:
    std::vector<cudaEvent_t> starts_, ends_;
    std::vector<const char*> names_;
    int used_ = 0;  // ops started
    bool open_ = false;
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
    // The most ops (recorder marks) one step names: per request, 7 per-sequence ops a layer, embed,
    // the final norm and argmax per sequence; batched, 11 a layer and 5 more (fused: fewer).
    int max_ops_per_step(bool per_request) const {
        const int B = shapes.batch, L = shapes.layers;
        return per_request ? B * (3 + 7 * L) + 4 * L + 2 : 11 * L + 5;
    }
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
