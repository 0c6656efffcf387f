#include "check.cuh"
#include "model.cuh"
#include "fast_kernels.cuh"
#include "skinny_gemv.cuh"

#include <cmath>

namespace server {

OpRecorder::OpRecorder(int ops) : starts_(ops), ends_(ops), names_(ops) {
    for (auto& e : starts_) CUDA_CHECK(cudaEventCreate(&e));
    for (auto& e : ends_) CUDA_CHECK(cudaEventCreate(&e));
}

OpRecorder::~OpRecorder() {
    for (auto& e : starts_) cudaEventDestroy(e);
    for (auto& e : ends_) cudaEventDestroy(e);
}

void OpRecorder::mark(const char* name, cudaStream_t stream) {
    if (used_ >= int(starts_.size())) fail_now("the op recorder ran out of events (Server::max_ops_per_step)");
    end(stream);
    names_[used_] = name;
    CUDA_CHECK(cudaEventRecord(starts_[used_++], stream));
    open_ = true;
}

void OpRecorder::end(cudaStream_t stream) {
    if (!open_) return;
    CUDA_CHECK(cudaEventRecord(ends_[used_ - 1], stream));
    open_ = false;
}

std::vector<OpRecorder::Span> OpRecorder::spans(cudaEvent_t origin) const {
    auto since = [&](cudaEvent_t e) {
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, origin, e));
        return std::round(double(ms) * 1e6) * 1e-9;
    };
    std::vector<Span> out;
    for (int i = 0; i < used_ - (open_ ? 1 : 0); ++i) out.push_back({names_[i], since(starts_[i]), since(ends_[i])});
    return out;
}

Server::Server(const ServerConfig& config, DecodeAttentionFn attention, cudaStream_t s)
    : stream(s), attention_(attention), fused_(config.fused()) {
    shapes.vocab = config.vocab;
    shapes.vocab_rows = config.padded_vocab();
    shapes.batch = config.batch;
    // The starting context, every step the run may take (warm-up, one measured alone, the timed
    // ones, the instrumented one, the checked ones), and a margin.
    shapes.max_context = config.context + config.warmup + config.steps + 64;
    const auto& S = shapes;

    // All weights in one allocation, made from the seed on the GPU.
    std::size_t H = S.hidden, per_layer = 2 * H + std::size_t(S.qkv_dim()) * H + H * S.q_heads * S.head_dim +
                                          2 * std::size_t(S.mlp) * H + H * S.mlp;
    std::size_t elements = S.layers * per_layer + std::size_t(S.vocab) * H + std::size_t(S.vocab_rows) * H + H;
    weight_bytes = elements * sizeof(bf16);
    CUDA_CHECK(cudaMalloc(&weight_block_, weight_bytes));
    bf16* next = static_cast<bf16*>(weight_block_);
    std::uint64_t seed = config.seed * 1000;
    // Uniform in [-a, a) has variance a^2 / 3: a = sqrt(3 / fan_in) keeps each GEMM's outputs at
    // about the variance of its inputs, so 32 random layers neither explode nor vanish.
    auto take = [&](std::size_t count, float scale, float offset) {
        bf16* p = next;
        next += count;
        fill_uniform(p, count, seed++, scale, offset, stream);
        return p;
    };
    auto fan_in = [](int n) { return float(std::sqrt(3.0 / n)); };
    for (int l = 0; l < S.layers; ++l) {
        LayerWeights w;
        w.attn_norm = take(H, 0.1f, 1.0f);
        w.wqkv = take(std::size_t(S.qkv_dim()) * H, fan_in(S.hidden), 0);
        w.wo = take(H * S.q_heads * S.head_dim, fan_in(S.q_heads * S.head_dim), 0);
        w.mlp_norm = take(H, 0.1f, 1.0f);
        w.gate_up = take(2 * std::size_t(S.mlp) * H, fan_in(S.hidden), 0);
        w.down = take(H * S.mlp, fan_in(S.mlp), 0);
        layers.push_back(w);
    }
    embedding = take(std::size_t(S.vocab) * H, 1.0f, 0);
    lm_head = take(std::size_t(S.vocab_rows) * H, fan_in(S.hidden), 0);
    if (S.vocab_rows > S.vocab)  // padding rows: zero, and never chosen (argmax reads the first vocab)
        CUDA_CHECK(cudaMemsetAsync(lm_head + std::size_t(S.vocab) * H, 0,
                                   std::size_t(S.vocab_rows - S.vocab) * H * sizeof(bf16), stream));
    final_norm = take(H, 0.1f, 1.0f);

    // The KV cache: random keys and values of about unit variance, as a prefill would leave them.
    std::size_t cache_elements = std::size_t(S.layers) * layer_cache_elements();
    fp8_kv = config.fp8_kv();
    if (!fp8_kv) {
        cache_bytes = 2 * cache_elements * sizeof(bf16);
        CUDA_CHECK(cudaMalloc(&k_cache, cache_elements * sizeof(bf16)));
        CUDA_CHECK(cudaMalloc(&v_cache, cache_elements * sizeof(bf16)));
        fill_uniform(k_cache, cache_elements, seed++, kPrefillAmax, 0, stream);
        fill_uniform(v_cache, cache_elements, seed++, kPrefillAmax, 0, stream);
    } else {
        // One scale per (layer, KV head) for the keys and one for the values, as a calibration on the
        // prefill sets them: twice the prefill's largest magnitude maps to e4m3's largest, 448, so a
        // new token's values up to twice the prefill's range are kept, larger ones clipped. The random
        // prefill has the same range in every head, so here the scales are equal.
        cache_bytes = 2 * cache_elements;
        CUDA_CHECK(cudaMalloc(&k_cache8, cache_elements));
        CUDA_CHECK(cudaMalloc(&v_cache8, cache_elements));
        std::size_t scales = std::size_t(S.layers) * 2 * S.kv_heads;
        CUDA_CHECK(cudaMalloc(&kv_scales, scales * sizeof(float)));
        const float scale = 2 * kPrefillAmax / 448.0f;
        fill_value(kv_scales, scales, scale, stream);
        fill_uniform_fp8(k_cache8, cache_elements, seed++, kPrefillAmax, scale, stream);
        fill_uniform_fp8(v_cache8, cache_elements, seed++, kPrefillAmax, scale, stream);
    }

    std::size_t B = S.batch;
    CUDA_CHECK(cudaMalloc(&x_, B * H * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc(&h_, B * H * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc(&qkv_, B * S.qkv_dim() * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc(&attn_, B * S.q_heads * S.head_dim * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc(&tmp_, B * H * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc(&gate_up_, B * 2 * S.mlp * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc(&act_, B * S.mlp * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc(&logits, B * S.vocab_rows * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&attention_workspace_,
                          decode_attention_workspace_floats(S.batch, S.q_heads, S.max_context) * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&tokens, B * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&positions, B * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&history, B * std::size_t(S.max_context) * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&step_counter, sizeof(int)));
    fill_tokens(tokens, S.batch, S.vocab, config.seed, stream);
    std::vector<int> start(B, config.context);  // the new token goes at position `context`
    CUDA_CHECK(cudaMemcpyAsync(positions, start.data(), B * sizeof(int), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemsetAsync(step_counter, 0, sizeof(int), stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaGetLastError());
}

Server::~Server() {
    if (graph_) cudaGraphExecDestroy(graph_);
    for (void* p : {static_cast<void*>(x_), static_cast<void*>(h_), static_cast<void*>(qkv_), static_cast<void*>(attn_),
                    static_cast<void*>(tmp_), static_cast<void*>(gate_up_), static_cast<void*>(act_),
                    static_cast<void*>(logits), static_cast<void*>(tokens), static_cast<void*>(positions),
                    static_cast<void*>(history), static_cast<void*>(step_counter), static_cast<void*>(k_cache),
                    static_cast<void*>(v_cache), static_cast<void*>(attention_workspace_), weight_block_,
                    static_cast<void*>(k_cache8), static_cast<void*>(v_cache8), static_cast<void*>(kv_scales)})
        cudaFree(p);
}

void Server::enqueue_step(bool per_request, OpRecorder* recorder) {
    const auto& S = shapes;
    const int H = S.hidden, B = S.batch, QD = S.q_heads * S.head_dim;
    launches_ = 0;
    auto op = [&](const char* name) {
        if (recorder) recorder->mark(name, stream);
    };
    // A per-sequence op: once for the batch, or once per sequence with its rows.
    auto each = [&](const char* name, auto&& launch) {
        if (!per_request) {
            op(name);
            launch(0, B);
            ++launches_;
            return;
        }
        for (int b = 0; b < B; ++b) {
            op(name);
            launch(b, 1);
            ++launches_;
        }
    };
    auto gemm = [&](const char* name, const bf16* w, const bf16* x, int k, bf16* y, float* y32, int m, int ldy) {
        op(name);
        gemms_.run(w, k, x, k, y, y32, ldy, m, B, k, stream);
        ++launches_;
    };
    const std::size_t xs = H, layer_cache = layer_cache_elements(),
                      seq_cache = std::size_t(S.kv_heads) * S.max_context * S.head_dim;

    auto attention = [&](int l, int b, int n) {
        DecodeAttentionArgs a;
        // q: the first q_heads x head_dim of each [q | k | v] row of qkv.
        a.q = qkv_ + std::size_t(b) * S.qkv_dim();
        if (fp8_kv) {
            a.k_cache_fp8 = k_cache8 + l * layer_cache + b * seq_cache;
            a.v_cache_fp8 = v_cache8 + l * layer_cache + b * seq_cache;
            a.k_scales = k_scales(l);
            a.v_scales = v_scales(l);
        } else {
            a.k_cache = k_cache + l * layer_cache + b * seq_cache;
            a.v_cache = v_cache + l * layer_cache + b * seq_cache;
        }
        a.positions = positions + b;
        a.out = attn_ + std::size_t(b) * QD;
        a.batch = n;
        a.q_heads = S.q_heads;
        a.kv_heads = S.kv_heads;
        a.head_dim = S.head_dim;
        a.max_context = S.max_context;
        a.longest = S.max_context;  // a graph replays at growing positions: size the grid for the cache
        a.scale = 1.0f / std::sqrt(float(S.head_dim));
        a.q_stride = S.qkv_dim();
        a.workspace = attention_workspace_;  // the per-request calls take turns with it, in stream order
        attention_(a, stream);
        // The plain kernels: split and merge. The lab's: the query gather, then (as its contract
        // suggests) a split and a combine kernel.
        launches_ += attention_ == plain_decode_attention || attention_ == fast_decode_attention ? 2 : 3;
    };

    if (fused_) {
        // The fused small-batch step (skinny_gemv.cuh): 5 kernels a layer and the attention's, each op
        // named after the GEMM its small ops were folded into. The whole batch at once.
        op("embed");
        embed(embedding, tokens, x_, B, H, stream);
        ++launches_;
        for (int l = 0; l < S.layers; ++l) {
            const auto& w = layers[l];
            op("qkv_gemm");
            NormQkvArgs q;
            q.w = w.wqkv;
            q.x = x_;
            q.gamma = w.attn_norm;
            q.qkv = qkv_;
            q.positions = positions;
            if (fp8_kv) {
                q.k_cache8 = k_cache8 + l * layer_cache;
                q.v_cache8 = v_cache8 + l * layer_cache;
                q.k_scales = k_scales(l);
                q.v_scales = v_scales(l);
            } else {
                q.k_cache = k_cache + l * layer_cache;
                q.v_cache = v_cache + l * layer_cache;
            }
            q.batch = B;
            q.hidden = H;
            q.q_heads = S.q_heads;
            q.kv_heads = S.kv_heads;
            q.max_context = S.max_context;
            norm_qkv_rope(q, stream);
            ++launches_;
            op("attention");
            attention(l, 0, B);
            op("o_gemm");
            gemv_residual(w.wo, attn_, x_, B, H, QD, stream);
            op("gate_up_gemm");
            norm_gate_up_swiglu(w.gate_up, x_, w.mlp_norm, act_, B, H, S.mlp, stream);
            op("down_gemm");
            gemv_residual(w.down, act_, x_, B, H, S.mlp, stream);
            launches_ += 3;
        }
        op("lm_head");
        norm_gemv_f32(lm_head, x_, final_norm, logits, S.vocab_rows, B, S.vocab_rows, H, stream);
        op("argmax");
        argmax(logits, S.vocab_rows, S.vocab, tokens, B, stream);
        advance(tokens, positions, history, step_counter, B, stream);
        launches_ += 3;
        if (recorder) recorder->end(stream);
        return;
    }

    each("embed", [&](int b, int n) { embed(embedding, tokens + b, x_ + b * xs, n, H, stream); });
    for (int l = 0; l < S.layers; ++l) {
        const auto& w = layers[l];
        bf16* kc = fp8_kv ? nullptr : k_cache + l * layer_cache;
        bf16* vc = fp8_kv ? nullptr : v_cache + l * layer_cache;
        std::uint8_t* kc8 = fp8_kv ? k_cache8 + l * layer_cache : nullptr;
        std::uint8_t* vc8 = fp8_kv ? v_cache8 + l * layer_cache : nullptr;
        each("rmsnorm", [&](int b, int n) { rmsnorm(x_ + b * xs, w.attn_norm, h_ + b * xs, n, H, stream); });
        gemm("qkv_gemm", w.wqkv, h_, H, qkv_, nullptr, S.qkv_dim(), S.qkv_dim());
        each("rope_kv", [&](int b, int n) {
            if (fp8_kv)
                rope_and_append_kv_fp8(qkv_ + std::size_t(b) * S.qkv_dim(), positions + b, kc8 + b * seq_cache,
                                       vc8 + b * seq_cache, k_scales(l), v_scales(l), n, S.q_heads, S.kv_heads,
                                       S.head_dim, S.max_context, stream);
            else
                rope_and_append_kv(qkv_ + std::size_t(b) * S.qkv_dim(), positions + b, kc + b * seq_cache,
                                   vc + b * seq_cache, n, S.q_heads, S.kv_heads, S.head_dim, S.max_context, stream);
        });
        each("attention", [&](int b, int n) {
            attention(l, b, n);
            --launches_;  // each() counts one
        });
        gemm("o_gemm", w.wo, attn_, QD, tmp_, nullptr, H, H);
        each("residual", [&](int b, int n) { residual_add(x_ + b * xs, tmp_ + b * xs, n, H, stream); });
        each("rmsnorm", [&](int b, int n) { rmsnorm(x_ + b * xs, w.mlp_norm, h_ + b * xs, n, H, stream); });
        gemm("gate_up_gemm", w.gate_up, h_, H, gate_up_, nullptr, 2 * S.mlp, 2 * S.mlp);
        each("swiglu", [&](int b, int n) {
            swiglu(gate_up_ + std::size_t(b) * 2 * S.mlp, act_ + std::size_t(b) * S.mlp, n, S.mlp, stream);
        });
        gemm("down_gemm", w.down, act_, S.mlp, tmp_, nullptr, H, H);
        each("residual", [&](int b, int n) { residual_add(x_ + b * xs, tmp_ + b * xs, n, H, stream); });
    }
    each("rmsnorm", [&](int b, int n) { rmsnorm(x_ + b * xs, final_norm, h_ + b * xs, n, H, stream); });
    gemm("lm_head", lm_head, h_, H, nullptr, logits, S.vocab_rows, S.vocab_rows);
    each("argmax", [&](int b, int n) {
        argmax(logits + std::size_t(b) * S.vocab_rows, S.vocab_rows, S.vocab, tokens + b, n, stream);
    });
    op("argmax");  // the bookkeeping launch: history, positions, step counter
    advance(tokens, positions, history, step_counter, B, stream);
    ++launches_;
    if (recorder) recorder->end(stream);
}

void Server::capture_graph() {
    cudaGraph_t graph;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    enqueue_step(false);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&graph_, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
}

void Server::launch_graph() { CUDA_CHECK(cudaGraphLaunch(graph_, stream)); }

}  // namespace server
