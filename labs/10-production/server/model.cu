#include "check.cuh"
#include "model.cuh"

#include <cmath>

namespace server {

OpRecorder::OpRecorder(int capacity) : events_(capacity), names_(capacity) {
    for (auto& e : events_) CUDA_CHECK(cudaEventCreate(&e));
}

OpRecorder::~OpRecorder() {
    for (auto& e : events_) cudaEventDestroy(e);
}

void OpRecorder::mark(const char* name, cudaStream_t stream) {
    if (used_ + 1 >= int(events_.size())) fail_now("the op recorder ran out of events");
    names_[used_] = name;
    CUDA_CHECK(cudaEventRecord(events_[used_++], stream));
}

void OpRecorder::end(cudaStream_t stream) {
    names_[used_] = nullptr;
    CUDA_CHECK(cudaEventRecord(events_[used_++], stream));
}

std::vector<std::pair<std::string, double>> OpRecorder::times() const {
    std::vector<std::pair<std::string, double>> out;
    for (int i = 0; i + 1 < used_; ++i) {
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, events_[i], events_[i + 1]));
        std::string name = names_[i];
        auto it = out.begin();
        while (it != out.end() && it->first != name) ++it;
        if (it == out.end()) out.emplace_back(name, ms * 1e-3);
        else it->second += ms * 1e-3;
    }
    return out;
}

Server::Server(const ServerConfig& config, DecodeAttentionFn attention, cudaStream_t s)
    : stream(s), attention_(attention) {
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
    cache_bytes = 2 * cache_elements * sizeof(bf16);
    CUDA_CHECK(cudaMalloc(&k_cache, cache_elements * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc(&v_cache, cache_elements * sizeof(bf16)));
    fill_uniform(k_cache, cache_elements, seed++, 1.7f, 0, stream);
    fill_uniform(v_cache, cache_elements, seed++, 1.7f, 0, stream);

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
                    static_cast<void*>(v_cache), static_cast<void*>(attention_workspace_), weight_block_})
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

    each("embed", [&](int b, int n) { embed(embedding, tokens + b, x_ + b * xs, n, H, stream); });
    for (int l = 0; l < S.layers; ++l) {
        const auto& w = layers[l];
        bf16* kc = k_cache + l * layer_cache;
        bf16* vc = v_cache + l * layer_cache;
        each("rmsnorm", [&](int b, int n) { rmsnorm(x_ + b * xs, w.attn_norm, h_ + b * xs, n, H, stream); });
        gemm("qkv_gemm", w.wqkv, h_, H, qkv_, nullptr, S.qkv_dim(), S.qkv_dim());
        each("rope_kv", [&](int b, int n) {
            rope_and_append_kv(qkv_ + std::size_t(b) * S.qkv_dim(), positions + b, kc + b * seq_cache,
                               vc + b * seq_cache, n, S.q_heads, S.kv_heads, S.head_dim, S.max_context, stream);
        });
        each("attention", [&](int b, int n) {
            DecodeAttentionArgs a;
            // q: the first q_heads x head_dim of each [q | k | v] row of qkv.
            a.q = qkv_ + std::size_t(b) * S.qkv_dim();
            a.k_cache = kc + b * seq_cache;
            a.v_cache = vc + b * seq_cache;
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
            if (attention_ == plain_decode_attention) ++launches_;  // its second kernel (the merge)
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
