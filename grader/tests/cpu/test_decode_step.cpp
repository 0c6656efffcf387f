// The decode step's floor (lib/core/decode_step.*) against the worked example of
// lessons/10-production.md, "The decode step and its floor": Llama-3-8B's shapes, batch 1 at a
// 4,096-token context, and batch 64 at 4k and 8k. Every figure below is worked in the lesson.
#include "test_support.hpp"

#include "decode_step.hpp"
#include "serve_report.hpp"
#include "input_error.hpp"

using namespace roofline;

namespace {

double op_bytes(const std::vector<DecodeOpCost>& ops, const std::string& name) {
    for (const auto& op : ops)
        if (op.name == name) return op.bytes;
    FAIL("no op named " << name);
    return 0;
}

}  // namespace

TEST_CASE("Llama-3-8B's shapes hold 8.03 billion parameters", "[decode_step]") {
    auto model = llama3_8b_shapes();
    // per layer: QKV 6144x4096 = 25,165,824; O 16,777,216; gate+up 117,440,512; down 58,720,256;
    // two norms 8,192: 218,112,000. x32 = 6,979,584,000; + embedding and LM head 2 x 525,336,576;
    // + final norm 4,096 = 8,030,261,248.
    CHECK(model_parameters(model) == 8030261248.0);
    CHECK(kv_bytes_per_position(model) == 131072.0);  // 32 layers x K,V x 8 heads x 128 x 2 bytes
}

TEST_CASE("the decode step at batch 1, context 4096: 15.55 GB, 3.70 ms at 4.2 TB/s, 270 tokens/s",
          "[decode_step]") {
    auto model = llama3_8b_shapes();
    std::vector<long long> contexts{4096};
    auto ops = decode_step_ops(model, contexts);
    // Weights read: the GEMMs' 7,504,658,432 params + 65 norms x 4,096 + one embedding row of 4,096,
    // x 2 bytes = 15,009,857,536.
    double weights = 0;
    for (const char* name : {"embed", "rmsnorm", "qkv_gemm", "o_gemm", "gate_up_gemm", "down_gemm", "lm_head"})
        weights += op_bytes(ops, name);
    CHECK(weights == 15009857536.0);
    CHECK(op_bytes(ops, "lm_head") == 1050673152.0);  // 128,256 x 4,096 x 2
    // KV read: 4,097 positions x 131,072 = 537,001,984; written: one position, 131,072.
    CHECK(op_bytes(ops, "attention") == 537001984.0);
    CHECK(op_bytes(ops, "rope_kv") == 131072.0);
    CHECK(decode_step_bytes(model, contexts) == 15546990592.0);
    // FLOPs: 2 x 7,504,658,432 + 32 layers x 4,097 x 4 x 32 heads x 128 = 15,009,316,864 + 2,148,007,936.
    CHECK(decode_step_flops(model, contexts) == 17157324800.0);

    auto floor = decode_step_floor(model, contexts, 4.2e12, 989.4e12);
    CHECK(floor.memory_binds);
    CHECK(floor.bytes_s == Approx(3.70166e-3).epsilon(1e-5));
    CHECK(floor.flops_s == Approx(17.341e-6).epsilon(1e-4));
    CHECK(floor.floor_s == floor.bytes_s);
    CHECK(floor.tokens_per_s == Approx(270.149).epsilon(1e-5));
}

TEST_CASE("the decode step at batch 64: the KV cache outweighs the weights, and doubling the context costs 70%",
          "[decode_step]") {
    auto model = llama3_8b_shapes();
    std::vector<long long> at_4k(64, 4096), at_8k(64, 8192);
    // 64 embedding rows: weights 15,010,373,632; KV read 64 x 4,097 x 131,072 = 34,368,126,976;
    // written 64 x 131,072 = 8,388,608.
    CHECK(decode_step_bytes(model, at_4k) == 49386889216.0);
    CHECK(decode_step_bytes(model, at_8k) == 83746627584.0);
    auto floor_4k = decode_step_floor(model, at_4k, 4.2e12, 989.4e12);
    auto floor_8k = decode_step_floor(model, at_8k, 4.2e12, 989.4e12);
    CHECK(floor_4k.memory_binds);
    CHECK(floor_4k.floor_s == Approx(11.7588e-3).epsilon(1e-4));
    CHECK(floor_4k.tokens_per_s == Approx(5442.7).epsilon(1e-4));
    CHECK(floor_8k.tokens_per_s == Approx(3209.7).epsilon(1e-4));
    // 1.098 TFLOP at 989.4 TFLOP/s: 1.11 ms, a tenth of the byte floor.
    CHECK(floor_4k.flops == 1098068787200.0);
    CHECK(floor_4k.flops_s == Approx(1.10983e-3).epsilon(1e-4));
}

TEST_CASE("sequences of different lengths each read their own cache", "[decode_step]") {
    auto model = llama3_8b_shapes();
    auto ragged = decode_step_bytes(model, {0, 100, 4095});
    auto even = decode_step_bytes(model, {1397, 1398, 1400});  // the same 4,195 cached positions
    CHECK(ragged == even);
    // One more cached position anywhere is one more position's K and V.
    CHECK(decode_step_bytes(model, {0, 100, 4096}) - ragged == 131072.0);
}

TEST_CASE("bad decode-step inputs are refused with a reason", "[decode_step]") {
    auto model = llama3_8b_shapes();
    CHECK_THROWS_AS(decode_step_bytes(model, {}), InputError);
    CHECK_THROWS_AS(decode_step_bytes(model, {4096, -1}), InputError);
    auto odd = model;
    odd.kv_heads = 5;  // 32 query heads do not group over 5
    CHECK_THROWS_AS(decode_step_ops(odd, {1}), InputError);
    CHECK_THROWS_AS(decode_step_floor(model, {1}, 0, 1e15), InputError);
}

TEST_CASE("reading a measured step: overhead, memory at the floor, a GEMM off the tensor cores", "[decode_step]") {
    auto model = llama3_8b_shapes();
    std::vector<long long> contexts(64, 4096);
    auto ops = decode_step_ops(model, contexts);
    auto floor = decode_step_floor(model, contexts, 4.2e12, 989.4e12);  // 11.76 ms
    const double copy = 4.2e12, fp32 = 67e12;

    SECTION("near the floor: the floor's regime, no culprit") {
        std::vector<StepOpTime> times{{"attention", 8.6e-3}, {"gate_up_gemm", 1.9e-3}, {"lm_head", 0.3e-3}};
        auto r = read_step(ops, times, {12.9e-3, 12.9e-3, 0.01e-3}, floor, copy, fp32);
        CHECK(r.regime == "memory");
        CHECK(r.fraction == Approx(11.7588 / 12.9).epsilon(1e-4));
        CHECK(r.culprit.empty());
    }
    SECTION("the host enqueued as long as the GPU ran: overhead") {
        std::vector<StepOpTime> times{{"attention", 8.6e-3}, {"residual", 6e-3}};
        auto r = read_step(ops, times, {25e-3, 25e-3, 24e-3}, floor, copy, fp32);
        CHECK(r.regime == "overhead");
        // The same step with a fast host is not overhead.
        CHECK(read_step(ops, times, {25e-3, 25e-3, 2e-3}, floor, copy, fp32).regime != "overhead");
    }
    SECTION("3,000 launches at 5 us in a 25 ms step: overhead, though the host kept up") {
        std::vector<StepOpTime> times{{"attention", 8.6e-3}, {"residual", 6e-3}};
        auto r = read_step(ops, times, {25e-3, 25e-3, 2e-3, 3000, 5e-6}, floor, copy, fp32);
        CHECK(r.regime == "overhead");
        CHECK(r.evidence.find("3000 launches") != std::string::npos);
        // 420 launches of a graph (1 us each) in the same step are not.
        CHECK(read_step(ops, times, {25e-3, 25e-3, 2e-3, 420, 1e-6}, floor, copy, fp32).regime != "overhead");
    }
    SECTION("the LM head at CUDA-core rates: compute, and the LM head named") {
        // 67.2 GFLOP in 3.5 ms: 19 TFLOP/s, 29% of the fp32 roof; 1.05 GB in 3.5 ms is 7% of the copy rate.
        std::vector<StepOpTime> times{{"attention", 8.6e-3}, {"gate_up_gemm", 1.9e-3}, {"lm_head", 3.5e-3}};
        auto r = read_step(ops, times, {18e-3, 18e-3, 0.01e-3}, floor, copy, fp32);
        CHECK(r.regime == "compute");
        CHECK(r.culprit == "lm_head");
        CHECK(r.culprit_excess_s == Approx(3.5e-3 - 1050673152.0 / 4.2e12).epsilon(1e-6));
    }
    SECTION("attention far over its bytes: memory, and attention named") {
        std::vector<StepOpTime> times{{"attention", 18e-3}, {"lm_head", 0.3e-3}};
        auto r = read_step(ops, times, {22e-3, 22e-3, 0.01e-3}, floor, copy, fp32);
        CHECK(r.regime == "memory");
        CHECK(r.culprit == "attention");
    }
}

// Incident D's step as the server timed it on the H200 (2026-12-02): batch 64 at ~4k, a vocabulary
// of 128,258, whose LM head (ld 128,258, not a multiple of 8) fell to the CUDA-core GEMM. The op
// times are built from that run: the step at 39.8 ms against 34.5 ms healthy, the LM head ~5.5 ms
// instead of ~0.3, the server's plain attention far over its bytes in both.
namespace {

std::vector<StepOpTime> incident_d_times(double lm_head_s) {
    return {{"embed", 0.05e-3},       {"rmsnorm", 0.40e-3},  {"qkv_gemm", 0.45e-3}, {"rope_kv", 0.20e-3},
            {"attention", 28.0e-3},   {"o_gemm", 0.30e-3},   {"residual", 0.25e-3}, {"gate_up_gemm", 1.95e-3},
            {"swiglu", 0.20e-3},      {"down_gemm", 1.00e-3}, {"lm_head", lm_head_s}, {"argmax", 0.10e-3}};
}

}  // namespace

TEST_CASE("incident D: a GEMM off the tensor cores reads as compute beside a slower memory-bound attention",
          "[decode_step]") {
    auto model = llama3_8b_shapes();
    model.vocab = 128258;
    std::vector<long long> contexts(64, 4100);
    auto ops = decode_step_ops(model, contexts);
    const double copy = 4.195e12, tensor = 989.4e12, fp32 = 63.6e12;  // run 93's ceilings
    auto floor = decode_step_floor(model, contexts, copy, tensor);
    const StepTiming timing{39.8e-3, 39.8e-3, 0.02e-3, 229, 1e-6};

    auto r = read_step(ops, incident_d_times(5.5e-3), timing, floor, copy, fp32);
    // The attention is ~20 ms over its floor, the LM head ~5.2 ms: naming the op furthest over its floor
    // (the rule before this one) reads memory. 67.3 GFLOP in 5.5 ms is 12.2 TFLOP/s, under the fp32
    // roof, and at that roof those FLOPs would take 1.06 ms against 0.25 ms of bytes: tensor-core work.
    CHECK(r.regime == "compute");
    CHECK(r.rule == "tensor_cores_idle");
    CHECK(r.culprit == "lm_head");
    CHECK(r.culprit_excess_s == Approx(5.5e-3 - 128258.0 * 4096 * 2 / copy).epsilon(1e-6));
    roofline_test::check_mentions(r.evidence, {"lm_head", "fp32 roof", "tensor cores are not doing its FLOPs"});

    SECTION("the same step with the LM head on the tensor cores reads memory, the attention named") {
        auto healthy = read_step(ops, incident_d_times(0.3e-3), {34.5e-3, 34.5e-3, 0.02e-3, 229, 1e-6}, floor, copy, fp32);
        CHECK(healthy.regime == "memory");
        CHECK(healthy.rule == "worst_op");
        CHECK(healthy.culprit == "attention");
    }
    SECTION("a GEMM at batch 64 on the tensor cores is never 'idle': its FLOP rate is far above the fp32 roof") {
        // gate/up at 64 sequences: 481 GFLOP. In 4 ms, 2.2 ms over its 1.79 ms of bytes and the op
        // furthest over its floor, it still runs at 120 TFLOP/s: the tensor cores are working.
        auto times = incident_d_times(0.3e-3);
        for (auto& t : times)
            if (t.name == "gate_up_gemm") t.seconds = 4e-3;
            else if (t.name == "attention") t.seconds = 8e-3;
        auto slow = read_step(ops, times, {16e-3, 16e-3, 0.02e-3, 229, 1e-6}, floor, copy, fp32);
        CHECK(slow.rule != "tensor_cores_idle");
        CHECK(slow.regime == "memory");
        // At 9 ms the same GEMM runs at 53 TFLOP/s, under the fp32 roof: that is the tensor cores idle.
        for (auto& t : times)
            if (t.name == "gate_up_gemm") t.seconds = 9e-3;
        auto idle = read_step(ops, times, {22e-3, 22e-3, 0.02e-3, 229, 1e-6}, floor, copy, fp32);
        CHECK(idle.rule == "tensor_cores_idle");
        CHECK(idle.culprit == "gate_up_gemm");
    }
    SECTION("an off-tensor-core GEMM costing under a tenth of the step is left to the other rules") {
        auto small = read_step(ops, incident_d_times(3.0e-3), {60e-3, 60e-3, 0.02e-3, 229, 1e-6}, floor, copy, fp32);
        CHECK(small.rule != "tensor_cores_idle");
    }
    SECTION("batch 1's recorded step (run 92): every op moves more bytes than the CUDA cores' FLOPs would take") {
        auto b1 = llama3_8b_shapes();
        std::vector<long long> one{4103};
        auto b1_ops = decode_step_ops(b1, one);
        auto b1_floor = decode_step_floor(b1, one, copy, tensor);
        std::vector<StepOpTime> recorded{{"embed", 0.031e-3},       {"rmsnorm", 0.860e-3},   {"qkv_gemm", 0.603e-3},
                                         {"rope_kv", 0.162e-3},     {"attention", 1.177e-3}, {"o_gemm", 0.508e-3},
                                         {"residual", 0.257e-3},    {"gate_up_gemm", 1.930e-3}, {"swiglu", 0.156e-3},
                                         {"down_gemm", 1.079e-3},   {"lm_head", 0.238e-3},   {"argmax", 0.053e-3}};
        auto b1_reading = read_step(b1_ops, recorded, {5.860e-3, 5.893e-3, 0.009e-3, 389, 1e-6}, b1_floor, copy, fp32);
        CHECK(b1_reading.regime == "memory");
        CHECK(b1_reading.rule == "worst_op");
        CHECK(b1_reading.culprit == "attention");
    }
}

TEST_CASE("roofline serve reads an fp8 KV cache's bytes per element from the server", "[decode_step]") {
    auto profile = roofline_test::test_gpu();
    auto out = nlohmann::json::parse(R"({
      "program": "roofline-decode-server", "config": "incidents/incident-a-fixed.yaml", "device": "Test GPU",
      "model": {"hidden": 4096, "layers": 32, "q_heads": 32, "kv_heads": 8, "head_dim": 128, "mlp": 14336,
                "vocab": 128256, "vocab_rows": 128256, "kv_bytes": 1},
      "batch": 2, "context": 8192, "contexts": [8195, 8195], "graph": true, "per_request": false,
      "launches_per_step": 196, "step_s": 0.0075, "single_step_s": 0.0076, "host_enqueue_s": 0.00001,
      "instrumented_step_s": 0.0080, "kv_cache": "fp8", "attention": "plain", "fused": true,
      "ops": [{"name": "attention", "seconds": 0.0004}]
    })");
    auto r = serve_report(out, "server.json", profile, nullptr);
    auto model = llama3_8b_shapes();
    model.kv_bytes = 1;
    CHECK(r.floor.bytes == Approx(decode_step_bytes(model, {8195, 8195})));
    // Half the KV bytes of bf16 at the same context: each sequence reads 8,196 positions and writes
    // one, 131,072 bytes each in bf16 (all layers, K and V), 65,536 fewer in fp8.
    model.kv_bytes = 2;
    CHECK(decode_step_bytes(model, {8195, 8195}) - r.floor.bytes == Approx(2 * 8197 * 65536.0));
    auto json = serve_json(r);
    CHECK(json["kv_cache"] == "fp8");
    CHECK(json["kv_bytes_per_element"] == 1);
    CHECK(json["regime_rule"] == r.reading.rule);
}

namespace {

// What roofline-decode-server writes (server_main.cu), for a batch of 2 at ~4k, made up here:
// the step at 7.5 ms, one op over its floor by far.
nlohmann::json server_output() {
    return nlohmann::json::parse(R"({
      "program": "roofline-decode-server", "config": "incidents/baseline.yaml", "device": "Test GPU",
      "model": {"hidden": 4096, "layers": 32, "q_heads": 32, "kv_heads": 8, "head_dim": 128, "mlp": 14336,
                "vocab": 128256, "vocab_rows": 128256},
      "batch": 2, "context": 4096, "contexts": [4099, 4099], "graph": true, "per_request": false,
      "launches_per_step": 420, "step_s": 0.0075, "single_step_s": 0.0076, "host_enqueue_s": 0.00001,
      "instrumented_step_s": 0.0080,
      "ops": [{"name": "attention", "seconds": 0.0004}, {"name": "gate_up_gemm", "seconds": 0.0020},
              {"name": "lm_head", "seconds": 0.0030}, {"name": "residual", "seconds": 0.0001}],
      "check": {"steps": 2, "max_logits_rel_err": 0.01, "max_kv_rel_err": 0.004, "passed": true, "tolerance": 0.05}
    })");
}

}  // namespace

TEST_CASE("roofline serve's report: the floor from the server's shapes and contexts, each op against its own",
          "[decode_step]") {
    auto profile = roofline_test::test_gpu();  // 4.8 TB/s, 989.4 TFLOP/s bf16, 67 fp32
    auto r = serve_report(server_output(), "server.json", profile, nullptr);
    auto floor = decode_step_floor(llama3_8b_shapes(), {4099, 4099}, 4.8e12, 989.4e12);
    CHECK(r.floor.floor_s == Approx(floor.floor_s));
    CHECK(r.tokens_per_s == Approx(2 / 0.0075));
    CHECK(r.reading.fraction == Approx(floor.floor_s / 0.0075));
    // lm_head: 1.05 GB at 4.8 TB/s = 0.219 ms of floor against 3 ms: the culprit, at CUDA-core rates.
    REQUIRE(r.ops.size() == 4);
    CHECK(r.ops[2].name == "lm_head");
    CHECK(r.ops[2].floor_s == Approx(1050673152.0 / 4.8e12));
    CHECK(r.reading.culprit == "lm_head");
    CHECK(r.check_ran);
    CHECK(r.check_passed);
    auto text = serve_text(r);
    roofline_test::check_mentions(text, {"266.7 tokens/s", "lm_head", "regime:", "not a grade"});
    auto json = serve_json(r);
    CHECK(json["regime"] == r.reading.regime);
    CHECK(json["floor"]["binds"] == "memory");

    // The measured copy rate, where `roofline ceilings` saved one, moves the floor.
    auto measured = roofline_test::h200_measured_ceilings();
    auto with_measured = serve_report(server_output(), "server.json", profile, &measured);
    CHECK(with_measured.copy_bytes_per_s == Approx(measured.memcpy_tbs * 1e12));
    CHECK(with_measured.floor.floor_s > r.floor.floor_s);
}

TEST_CASE("roofline serve refuses a server output it cannot read, naming the key", "[decode_step]") {
    auto profile = roofline_test::test_gpu();
    auto out = server_output();
    out.erase("step_s");
    CHECK(roofline_test::input_error_of([&] { serve_report(out, "server.json", profile, nullptr); }).find("step_s") !=
          std::string::npos);
    out = server_output();
    out["contexts"] = nlohmann::json::array({4099});  // one context for a batch of two
    CHECK_THROWS_AS(serve_report(out, "server.json", profile, nullptr), InputError);
    out = server_output();
    out["step_s"] = -1;
    CHECK_THROWS_AS(serve_report(out, "server.json", profile, nullptr), InputError);
}

TEST_CASE("roofline serve refuses a configuration that does not exist, before any build", "[decode_step][cli]") {
    auto r = roofline_test::run_cli(roofline_test::course_flags() + " serve no-such-config.yaml");
    roofline_test::check_one_line_error(r);
    roofline_test::check_mentions(r.err, {"no-such-config.yaml"});
}
