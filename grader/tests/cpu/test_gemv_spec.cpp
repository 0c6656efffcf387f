// Lab 09 and the gemv family: the byte and FLOP model of each op (weights in
// their own format), the peers' work, the intensity climbing with M, each variant
// verified on the shapes of its own op (odd ones among them), and a gemv op given
// the wrong shape keys reported with file:line.
#include "test_support.hpp"

#include "gemv/model.hpp"
#include "lab_spec.hpp"

#include <set>

using namespace roofline;
using namespace roofline_test;

namespace {
LabSpec decode_lab() { return load_lab(repo_root() / "labs" / "09-decode" / "lab.yaml"); }
}  // namespace

TEST_CASE("gemv moves W once in its own format, plus x and y", "[gemv]") {
    auto lab = decode_lab();
    const double n = 8192, k = 8192;
    const auto& bf16 = lab.variant("gemv_bf16_8192");
    auto w = lab.work(bf16, bf16.timed);
    CHECK(w.flops == 2 * n * k);
    CHECK(w.bytes == 2 * n * k + 2 * k + 2 * n);
    CHECK(lab.peer_work(bf16, bf16.timed).bytes == 2 * n * k);  // cudaMemcpy moving W's bytes
    CHECK(lab.peer_work(bf16, bf16.timed).flops == 0);

    const auto& int8 = lab.variant("gemv_int8_8192");
    auto q = lab.work(int8, int8.timed);
    CHECK(q.flops == 2 * n * k);
    CHECK(q.bytes == n * k + 4 * n + 2 * k + 2 * n);  // one byte a weight, one fp32 scale a row
    CHECK(lab.peer_work(int8, int8.timed).bytes == n * k);
    CHECK(lab.work(lab.variant("gemv_fp8_8192"), int8.timed).bytes == q.bytes);
    // The speedup the bytes promise: just under 2x.
    CHECK(w.bytes / q.bytes == Approx(2.0).epsilon(0.002));
    CHECK(w.bytes / q.bytes < 2.0);
}

TEST_CASE("the skinny GEMM's intensity climbs with M; its peer is cuBLAS on the same work", "[gemv]") {
    auto lab = decode_lab();
    double previous = 0;
    for (const char* name : {"skinny_m1", "skinny_m2", "skinny_m4", "skinny_m8", "skinny_m16"}) {
        INFO(name);
        const auto& v = lab.variant(name);
        auto w = lab.work(v, v.timed);
        auto peer = lab.peer_work(v, v.timed);
        CHECK(peer.flops == w.flops);
        CHECK(peer.bytes == w.bytes);
        const double m = v.timed.at("m"), n = v.timed.at("n"), k = v.timed.at("k");
        CHECK(w.flops == 2 * m * n * k);
        CHECK(w.bytes == 2 * n * k + 2 * m * k + 2 * m * n);
        const double intensity = w.flops / w.bytes;
        CHECK(intensity > previous);
        CHECK(intensity == Approx(m).epsilon(0.01));  // W dominates: ~M FLOPs per byte
        previous = intensity;
    }
    CHECK(gemv::intensity("gemv", 1, 8192, 8192) == Approx(1.0).epsilon(0.001));
    CHECK(gemv::intensity("gemv_int8", 1, 8192, 8192) == Approx(2.0).epsilon(0.002));
}

TEST_CASE("each gemv variant is verified on its own op's shapes, odd ones included", "[gemv]") {
    auto lab = decode_lab();
    for (const auto& v : lab.variants) {
        if (v.op == "decode_layer") continue;  // the next test
        INFO(v.name);
        auto shapes = lab.verify_shapes_for(v);
        REQUIRE_FALSE(shapes.empty());
        bool one_row = false, odd_k = false, seventeen = false;
        for (const auto& shape : shapes) {
            CHECK(shape.count("m") == (v.op == "gemv_batched" ? 1u : 0u));
            one_row = one_row || shape.at("n") == 1;
            odd_k = odd_k || shape.at("k") % 2 == 1;
            seventeen = seventeen || shape.at("n") == 17;
        }
        CHECK(odd_k);
        CHECK(seventeen);
        if (v.op != "gemv_batched") CHECK(one_row);
    }
}

TEST_CASE("a gemv variant with a batched shape is refused with file:line", "[gemv]") {
    TempDir dir;
    write_file(dir / "08-x/kernels/a.cu", "");
    write_file(dir / "08-x/lab.yaml", R"(title: t
lesson: lessons/09-decode.md
problem: gemv
timeout_s: 10
shapes:
  timed: {n: 64, k: 64}
  verify: [{n: 1, k: 8}]
tolerance:
  bf16: {atol: 0.01, rtol: 0.01, max_rel_l2: 0.01}
scoring: {correctness: 1, performance: 1, prediction: 1, against: peer, floor_fraction: 0.1, target_fraction: 0.9}
variants:
  - {name: a, op: gemv_int8, dtype: bf16, file: kernels/a.cu, timed: {m: 2, n: 64, k: 64}, summary: s}
)");
    auto message = input_error_of([&] { load_lab(dir / "08-x/lab.yaml"); });
    check_mentions(message, {"lab.yaml:12", "k, n", "gemv_int8"});
}

TEST_CASE("the decoder layer is timed at two hidden sizes and verified on small, odd ones", "[gemv]") {
    auto lab = decode_lab();
    std::set<long long> hidden_sizes;
    int layer_variants = 0;
    for (const auto& v : lab.variants) {
        if (v.op != "decode_layer") continue;
        INFO(v.name);
        ++layer_variants;
        hidden_sizes.insert(v.timed.at("hidden"));
        CHECK(v.timed.at("hidden") == 128 * v.timed.at("heads"));  // head_dim 128
        auto shapes = lab.verify_shapes_for(v);
        REQUIRE(shapes.size() >= 3);
        bool one_position = false, odd_ffn = false;
        for (const auto& shape : shapes) {
            CHECK(shape.at("hidden") == 128 * shape.at("heads"));
            one_position = one_position || shape.at("cache") == 1;
            odd_ffn = odd_ffn || shape.at("ffn") % 8 != 0;
        }
        CHECK(one_position);
        CHECK(odd_ffn);
    }
    CHECK(layer_variants == 7);  // given launches, graph, fused, each at both sizes; the open rung
    CHECK(hidden_sizes == std::set<long long>{512, 4096});
}

TEST_CASE("the decoder layer's bytes put hidden 512 under the launches and hidden 4096 above them", "[gemv]") {
    auto lab = decode_lab();
    const auto& small = lab.variant("decode_launches_h512");
    const auto& large = lab.variant("decode_launches_h4096");
    auto w_small = lab.work(small, small.timed), w_large = lab.work(large, large.timed);
    // hidden 512, ffn 1408: 4 x 512^2 + 3 x 1408 x 512 + 1,024 = 3,212,288 weights; cache 2 x 4 x 512 x 128
    // = 524,288 values; all bf16, plus x and y: 7,475,200 bytes
    CHECK(w_small.bytes == 7475200.0);
    // hidden 4096, ffn 11008, 32 heads, 4096 positions: 202,383,360 weights, 33,554,432 cache values
    CHECK(w_large.bytes == 2 * (4.0 * 4096 * 4096 + 3.0 * 11008 * 4096 + 2 * 4096) + 2 * 33554432.0 + 4 * 4096);
    // At 4.2 TB/s: ~1.8 us against 13 launches of a few us each; ~112 us against the same 13.
    CHECK(w_small.bytes / 4.2e12 < 2e-6);
    CHECK(w_large.bytes / 4.2e12 > 100e-6);
    // Intensity ~1 FLOP per byte at both: memory-bound whenever the launches are hidden.
    CHECK(w_small.flops / w_small.bytes == Approx(1.0).epsilon(0.05));
    CHECK(w_large.flops / w_large.bytes == Approx(1.0).epsilon(0.05));
    // The peer is cudaMemcpy moving the same bytes; nothing is shown beside it.
    CHECK(lab.peer_work(small, small.timed).bytes == w_small.bytes);
    CHECK_FALSE(lab.also_work(small, small.timed).has_value());
}

