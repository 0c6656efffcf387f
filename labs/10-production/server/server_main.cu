// roofline-decode-server: module 10's decode server (README.md). Reads a configuration, makes the
// model and its cache on the GPU, checks steps against the reference step where asked, times the
// decode loop, splits one instrumented step by op, and writes what it measured as JSON.
//
// It times itself (CUDA events around the steps, the host clock around one step's enqueue): fine
// for `roofline serve`, which reports a server's speed and is no grade of a student's submission.
// A grade of a fixed step would go through the judge (grader/harness/judge.hpp), which times code
// it does not trust from a process of its own.
//
//   roofline-decode-server --config incidents/incident-a.yaml [--json OUT] [--check N]
//                          [--batch B] [--context C] [--steps S] [--no-graph] [--attention plain|student]
//                          [--plain-kernels]
// Exit: 0 done, 1 a checked step outside the tolerance (the JSON is still written), 2 bad input,
// 3 a CUDA or cuBLAS error (check.cuh).
#include "check.cuh"
#include "fast_kernels.cuh"
#include "model.cuh"
#include "reference.cuh"
#include "server_config.hpp"
#include "skinny_gemv.cuh"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

using namespace server;

namespace {

struct Flags {
    std::string config, json;
    int check = 0;
    int batch = 0, context = -1, steps = 0;
    bool no_graph = false;
    bool plain_kernels = false;
    std::string attention;
};

double seconds_between(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e-3;
}

// Seconds per op name over the instrumented step, each op from its start to its end, summed, in
// the order first seen.
std::vector<std::pair<std::string, double>> op_seconds(const std::vector<OpRecorder::Span>& spans) {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& span : spans) {
        auto it = out.begin();
        while (it != out.end() && it->first != span.name) ++it;
        if (it == out.end()) out.emplace_back(span.name, span.end_s - span.start_s);
        else it->second += span.end_s - span.start_s;
    }
    return out;
}

// The spans the JSON keeps. Every one up to kMaxEventsKept (the batched step's ~360; per request,
// up to a batch of about 17); beyond, a run of one op's spans (64 sequences' RMSNorms) becomes one
// span that starts where the run starts and lasts the run's summed op time, so that each op's
// time and the step's total gap time stay exact and the record stays a few hundred spans.
constexpr std::size_t kMaxEventsKept = 4096;
std::vector<OpRecorder::Span> kept_spans(const std::vector<OpRecorder::Span>& spans) {
    if (spans.size() <= kMaxEventsKept) return spans;
    std::vector<OpRecorder::Span> out;
    for (const auto& span : spans) {
        if (!out.empty() && out.back().name == span.name) {
            out.back().end_s += span.end_s - span.start_s;
        } else {
            out.push_back(span);
        }
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"module 10's decode server: Llama-3-8B's shapes, random weights, greedy decoding"};
    Flags f;
    app.add_option("--config", f.config, "the server's configuration (labs/10-production/server/incidents/*.yaml)")->required();
    app.add_option("--json", f.json, "write what was measured here");
    app.add_option("--check", f.check, "check this many steps against the reference step first (default 0)");
    app.add_option("--batch", f.batch, "override the configuration's batch");
    app.add_option("--context", f.context, "override the configuration's context");
    app.add_option("--steps", f.steps, "override the configuration's timed steps");
    app.add_flag("--no-graph", f.no_graph, "run the batched step eagerly, without its CUDA graph");
    app.add_option("--attention", f.attention, "override the configuration's attention: plain or student");
    app.add_flag("--plain-kernels", f.plain_kernels,
                 "run the server's own plain kernels (kernels.cu) even where the course's are linked: the student edition's server");
    CLI11_PARSE(app, argc, argv);

    ServerConfig config;
    try {
        config = read_config(f.config);
        if (f.batch > 0) config.batch = f.batch;
        if (f.context >= 0) config.context = f.context;
        if (f.steps > 0) config.steps = f.steps;
        if (!f.attention.empty()) config.attention = f.attention;
        check_config(config);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "decode server: %s\n", e.what());
        return 2;
    }
    if (f.check < 0 || f.check > 64) {
        std::fprintf(stderr, "decode server: --check %d: give 0 to 64 steps\n", f.check);
        return 2;
    }
    // `attention: plain`: the course's grouped-query kernel where this build links it (fast_kernels.cuh),
    // else kernels.cu's plain one (bf16 or fp8 cache); --plain-kernels asks for kernels.cu's where
    // both are linked (the student edition's server, run from ours). The fused step needs the course's kernels.
    const bool course_kernels = fast_kernels_linked() && !f.plain_kernels;
    DecodeAttentionFn attention = course_kernels ? fast_decode_attention : plain_decode_attention;
    std::string attention_file = course_kernels ? "fast_attention.cu (the course's kernels)"
                                                : "kernels.cu (the server's plain kernels)";
    if (!course_kernels && config.fused_max_batch > 0) {
        std::fprintf(stderr, "decode server: %s: fused_max_batch above 0 needs the course's kernels, which %s; set "
                             "fused_max_batch: 0\n", config.file.c_str(),
                     f.plain_kernels ? "--plain-kernels leaves out" : "this build does not have (solutions/10-production/server/)");
        return 2;
    }
    if (course_kernels) set_overlap_launches(config.overlap_launches);
    if (config.attention == "student") {
        auto lab = lab_decode_attention(config.batch);
        if (!lab.launch) {
            std::fprintf(stderr, "decode server: %s asks for the lab's attention, but no kernel file registered one in "
                                 "this program (labs/10-production/kernels/*.cu: ROOFLINE_DECODE_ATTENTION_VARIANT); "
                                 "use attention: plain\n", config.file.c_str());
            return 2;
        }
        attention = lab.launch;
        attention_file = lab.file;
        // A kernel that faults is named in the CUDA error's message, whichever call reports it.
        failure_note() = "the step runs the lab's decode attention from " + lab.file + " (attention: student)";
        std::printf("attention: the lab's kernel, %s (variant %s's launcher)\n", lab.file.c_str(), lab.variant.c_str());
    }
    // The checked steps come out of the cache's spare positions too.
    config.steps += f.check;

    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    auto made = std::chrono::steady_clock::now();
    Server s(config, attention, stream);
    double make_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - made).count();
    config.steps -= f.check;
    const bool graph = config.uses_graph() && !f.no_graph;
    // The eager fallback serves one request at a time (the fused small-batch step is always batched).
    const bool per_request = !config.uses_graph() && !config.fused();
    std::printf("decode server on %s: batch %d, context %d, vocab %d (LM head rows %d), %s%s\n", prop.name, config.batch,
                config.context, config.vocab, s.shapes.vocab_rows, graph ? "CUDA graph" : "eager",
                per_request ? ", one request at a time" : "");
    std::printf("weights %.2f GB, KV cache %.2f GB, made in %.2f s\n", s.weight_bytes / 1e9, s.cache_bytes / 1e9, make_s);

    // One eager step first: cuBLASLt's plans are made on the host before any capture.
    s.enqueue_step(per_request);
    int graph_launches = 0;
    if (graph) {
        s.capture_graph();
        graph_launches = s.launches_in_last_step();  // the captured step's kernels and cuBLASLt calls
    }
    auto run_step = [&] {
        if (graph) s.launch_graph();
        else s.enqueue_step(per_request);
    };

    nlohmann::json out;
    int status = 0;
    if (f.check > 0) {
        Reference reference(s);
        double worst_logits = 0, worst_kv = 0;
        int mismatches = 0, close_calls = 0;
        for (int i = 0; i < f.check; ++i) {
            reference.save_inputs();
            run_step();
            auto c = reference.check_step();
            std::printf("check step %d: logits rel err %.3e, new K/V rel err %.3e, tokens off %d, close calls %d: %s\n", i,
                        c.logits_rel_err, c.kv_rel_err, c.token_mismatches, c.close_calls, c.passed() ? "ok" : "WRONG");
            worst_logits = std::max(worst_logits, c.logits_rel_err);
            worst_kv = std::max(worst_kv, c.kv_rel_err);
            mismatches += c.token_mismatches;
            close_calls += c.close_calls;
            if (!c.passed()) status = 1;
        }
        if (status != 0 && config.attention == "student")
            std::printf("the lab's decode attention from %s is outside the reference's tolerance: fix the kernel (roofline "
                        "grade 10-production) before timing the server with it\n", attention_file.c_str());
        out["check"] = {{"steps", f.check},           {"max_logits_rel_err", worst_logits},
                        {"max_kv_rel_err", worst_kv}, {"token_mismatches", mismatches},
                        {"close_calls", close_calls}, {"tolerance", kLogitTolerance},
                        {"kv_tolerance", s.fp8_kv ? kFp8KvTolerance : kLogitTolerance},
                        {"passed", status == 0}};
    }

    cudaEvent_t begin, end;
    CUDA_CHECK(cudaEventCreate(&begin));
    CUDA_CHECK(cudaEventCreate(&end));
    for (int i = 0; i < config.warmup; ++i) run_step();
    // One step alone, from an idle GPU: how long the host takes to enqueue it against how long the
    // GPU takes to run it. A host as slow as the GPU means the GPU waited for launches.
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaEventRecord(begin, stream));
    auto host_begin = std::chrono::steady_clock::now();
    run_step();
    double host_enqueue_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - host_begin).count();
    CUDA_CHECK(cudaEventRecord(end, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double single_step_s = seconds_between(begin, end);
    int launches = graph ? graph_launches : s.launches_in_last_step();
    // The cached positions at the middle of the timed steps (the floor is linear in the context).
    std::vector<int> positions(config.batch);
    CUDA_CHECK(cudaMemcpy(positions.data(), s.positions, positions.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaEventRecord(begin, stream));
    for (int i = 0; i < config.steps; ++i) run_step();
    CUDA_CHECK(cudaEventRecord(end, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double step_s = seconds_between(begin, end) / config.steps;

    // The split: one more step, eager, with an event before and after every op (model.cuh says what
    // the time between one op's end and the next one's start is).
    OpRecorder recorder(s.max_ops_per_step(per_request));
    CUDA_CHECK(cudaEventRecord(begin, stream));
    s.enqueue_step(per_request, &recorder);
    CUDA_CHECK(cudaEventRecord(end, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaGetLastError());
    double instrumented_s = seconds_between(begin, end);

    std::vector<int> first_tokens(config.batch);
    CUDA_CHECK(cudaMemcpy(first_tokens.data(), s.history, first_tokens.size() * sizeof(int), cudaMemcpyDeviceToHost));

    std::printf("step %.3f ms over %d steps: %.1f tokens/s; one step alone %.3f ms, enqueued by the host in %.3f ms "
                "(%d launches)\n",
                step_s * 1e3, config.steps, config.batch / step_s, single_step_s * 1e3, host_enqueue_s * 1e3, launches);
    const auto spans = recorder.spans(begin);
    nlohmann::json ops = nlohmann::json::array();
    double busy_s = 0;
    for (const auto& [name, seconds] : op_seconds(spans)) {
        std::printf("  %-14s %9.3f ms\n", name.c_str(), seconds * 1e3);
        ops.push_back({{"name", name}, {"seconds", seconds}});
        busy_s += seconds;
    }
    std::printf("  %-14s %9.3f ms (%.0f%% of the instrumented step's %.3f ms)\n", "(gaps)",
                (instrumented_s - busy_s) * 1e3, 100 * (instrumented_s - busy_s) / instrumented_s, instrumented_s * 1e3);
    nlohmann::json events = nlohmann::json::array();
    for (const auto& e : kept_spans(spans)) events.push_back({{"name", e.name}, {"start_s", e.start_s}, {"end_s", e.end_s}});
    std::vector<long long> contexts;
    for (int p : positions) contexts.push_back(p + (config.steps - 1) / 2);  // cached positions, mid-run
    out["program"] = "roofline-decode-server";
    out["config"] = config.file;
    out["device"] = prop.name;
    out["model"] = {{"hidden", s.shapes.hidden}, {"layers", s.shapes.layers},   {"q_heads", s.shapes.q_heads},
                    {"kv_heads", s.shapes.kv_heads}, {"head_dim", s.shapes.head_dim}, {"mlp", s.shapes.mlp},
                    {"vocab", s.shapes.vocab},   {"vocab_rows", s.shapes.vocab_rows},
                    {"kv_bytes", s.fp8_kv ? 1 : 2}};
    out["batch"] = config.batch;
    out["context"] = config.context;
    out["contexts"] = contexts;
    out["graph"] = graph;
    out["per_request"] = per_request;
    out["attention"] = config.attention;
    out["attention_file"] = attention_file;
    out["kv_cache"] = config.kv_cache;
    out["fused"] = config.fused();
    out["fused_max_batch"] = config.fused_max_batch;
    out["overlap_launches"] = config.overlap_launches;
    out["weight_bytes"] = s.weight_bytes;
    out["cache_bytes"] = s.cache_bytes;
    out["timed_steps"] = config.steps;
    out["step_s"] = step_s;
    out["tokens_per_s"] = config.batch / step_s;
    out["single_step_s"] = single_step_s;
    out["host_enqueue_s"] = host_enqueue_s;
    out["launches_per_step"] = launches;
    out["instrumented_step_s"] = instrumented_s;
    out["ops"] = ops;
    out["events"] = events;
    out["first_tokens"] = first_tokens;
    if (!f.json.empty()) {
        std::ofstream file(f.json);
        file << out.dump(1) << "\n";
        if (!file) {
            std::fprintf(stderr, "decode server: cannot write %s\n", f.json.c_str());
            return 2;
        }
    }
    return status;
}
