// Lab 04 mixes two operations with different shapes: each variant must get the
// shapes of its own operation, and the report's "bytes saved" comes from the
// unfused model.
#include "catch.hpp"
#include "lab_spec.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

using roofline::load_lab;

namespace {
roofline::LabSpec fusion_lab() {
    return load_lab(std::filesystem::path(ROOFLINE_SOURCE_DIR) / "labs" / "04-fusion" / "lab.yaml");
}
}  // namespace

TEST_CASE("each fusion variant is verified only on shapes of its operation", "[fusion]") {
    auto lab = fusion_lab();
    for (const auto& v : lab.variants) {
        auto shapes = lab.verify_shapes_for(v);
        CHECK_FALSE(shapes.empty());
        for (const auto& shape : shapes) {
            if (v.op == "chain") {
                CHECK(shape.count("n") == 1);
                CHECK(shape.size() == 1);
            } else if (v.op == "gemm_bias_gelu" || v.op == "gemm_bare") {
                CHECK(shape.count("m") == 1);
                CHECK(shape.count("n") == 1);
                CHECK(shape.count("k") == 1);
                CHECK_FALSE(lab.shape_refusal(v, shape).has_value());  // the given main loop's tile multiples
            } else {
                CHECK(shape.count("rows") == 1);
                CHECK(shape.count("cols") == 1);
            }
        }
    }
}

TEST_CASE("fused and unfused byte counts", "[fusion]") {
    auto lab = fusion_lab();
    const auto& chain = lab.variant("chain_fused");
    // n = 2^28 bf16: fused reads x and writes y, 4 bytes per element = 1 GiB;
    // unfused: three kernels each reading and writing: 12 bytes per element = 3 GiB.
    auto fused = lab.work(chain, chain.timed);
    auto unfused = lab.unfused_work(chain, chain.timed);
    REQUIRE(unfused.has_value());
    CHECK(fused.bytes == 4.0 * 268435456);
    CHECK(unfused->bytes == 12.0 * 268435456);

    const auto& norm = lab.variant("rmsnorm_fused_4096");
    // rows 65536 x cols 4096 bf16: fused = (2 * 2^28 + 4096) * 2 bytes;
    // unfused = (3 * 2^28 + 4096) * 2 + 2 * 4 * 65536 (a float per row written, then read).
    auto fused_norm = lab.work(norm, norm.timed);
    auto unfused_norm = lab.unfused_work(norm, norm.timed);
    REQUIRE(unfused_norm.has_value());
    CHECK(fused_norm.bytes == (2.0 * 268435456 + 4096) * 2);
    CHECK(unfused_norm->bytes == (3.0 * 268435456 + 4096) * 2 + 8.0 * 65536);
    // The peer copies x: one read and one write of 2^28 bf16.
    CHECK(lab.peer_work(norm, norm.timed).bytes == 2.0 * 2 * 268435456);
}

TEST_CASE("non-fusion labs have no unfused model", "[fusion]") {
    auto lab = load_lab(std::filesystem::path(ROOFLINE_SOURCE_DIR) / "labs" / "01-memory-roof" / "lab.yaml");
    const auto& v = lab.variant("add_fp32");
    CHECK_FALSE(lab.unfused_work(v, v.timed).has_value());
}

TEST_CASE("GEMM + bias + GELU: FLOPs, bytes, and the bytes the fused epilogue saves", "[fusion]") {
    auto lab = fusion_lab();
    const auto& fused = lab.variant("gemm_bias_gelu_fused");
    const auto& unfused_variant = lab.variant("gemm_bias_gelu_unfused");
    const auto& bare = lab.variant("gemm_bare");
    const double s = 4096;
    for (const auto* v : {&fused, &unfused_variant, &bare}) {
        CHECK(v->timed == roofline::Shape{{"m", 4096}, {"n", 4096}, {"k", 4096}});
        CHECK(v->divisible_by == std::map<std::string, long long>{{"m", 128}, {"n", 128}, {"k", 32}});
    }
    // Fused: A, B and bias read once, Y written once, bf16: 2 (3 s^2 + s) bytes = 100.67 MB;
    // 2 s^3 FLOPs for the GEMM plus 11 per output for the bias and the GELU.
    auto work = lab.work(fused, fused.timed);
    CHECK(work.bytes == 2 * (3 * s * s + s));
    CHECK(work.flops == 2 * s * s * s + 11 * s * s);
    // Unfused: the bias kernel and the GELU kernel each read and write Y: 8 s^2 bytes more.
    auto unfused = lab.unfused_work(fused, fused.timed);
    REQUIRE(unfused.has_value());
    CHECK(unfused->bytes == work.bytes + 8 * s * s);
    CHECK(unfused->bytes - work.bytes == 134217728.0);  // 128 MiB saved at 4096^2
    CHECK(unfused->flops == work.flops);
    // The given three-kernel version is the same operation, so it reports the same counts.
    CHECK(lab.work(unfused_variant, unfused_variant.timed).bytes == work.bytes);
    // The peer, cuBLASLt with its GELU_BIAS epilogue, does the same work.
    CHECK(lab.peer_work(fused, fused.timed).flops == work.flops);
    // The bare GEMM: no bias, no epilogue, nothing fused away.
    auto bare_work = lab.work(bare, bare.timed);
    CHECK(bare_work.flops == 2 * s * s * s);
    CHECK(bare_work.bytes == 2 * 3 * s * s);
    CHECK_FALSE(lab.unfused_work(bare, bare.timed).has_value());
    CHECK(lab.peer_work(bare, bare.timed).bytes == bare_work.bytes);
}

TEST_CASE("the second GEMM shape, 8192 x 8192 x 512: the same files, its counts by hand", "[fusion]") {
    auto lab = fusion_lab();
    const roofline::Shape k512{{"m", 8192}, {"n", 8192}, {"k", 512}};
    for (const auto& [name, first] : {std::pair{"gemm_bare_k512", "gemm_bare"},
                                      std::pair{"gemm_bias_gelu_unfused_k512", "gemm_bias_gelu_unfused"},
                                      std::pair{"gemm_bias_gelu_fused_k512", "gemm_bias_gelu_fused"}}) {
        INFO(name);
        const auto& v = lab.variant(name);
        const auto& at_4096 = lab.variant(first);
        CHECK(v.timed == k512);
        CHECK(v.file == at_4096.file);  // a variant of the existing rung, not a new kernel
        CHECK(v.op == at_4096.op);
        CHECK_FALSE(lab.shape_refusal(v, v.timed).has_value());  // the main loop's tile multiples
        CHECK(v.floor_fraction < v.target_fraction);
    }
    const auto& fused = lab.variant("gemm_bias_gelu_fused_k512");
    // 2 x 8192^2 x 512 = 68,719,476,736 FLOPs for the GEMM, + 11 x 8192^2 = 738,197,504 for the epilogue.
    auto work = lab.work(fused, fused.timed);
    CHECK(work.flops == 68719476736.0 + 738197504.0);
    // A and B 8 MiB each (8,388,608 bytes), Y 128 MiB (134,217,728), bias 16,384: 151,011,328 bytes.
    CHECK(work.bytes == 151011328.0);
    // The two passes over Y: 4 x 134,217,728 = 536,870,912 bytes more, 3.56x what the operation needs.
    auto unfused = lab.unfused_work(fused, fused.timed);
    REQUIRE(unfused.has_value());
    CHECK(unfused->bytes - work.bytes == 536870912.0);
    CHECK(unfused->flops == work.flops);
    // Against 4096^3: half the FLOPs, four times the bytes saved.
    const auto& fused_4096 = lab.variant("gemm_bias_gelu_fused");
    auto work_4096 = lab.work(fused_4096, fused_4096.timed);
    CHECK(2 * 68719476736.0 == work_4096.flops - 11.0 * 4096 * 4096);
    CHECK(unfused->bytes - work.bytes == 4 * (lab.unfused_work(fused_4096, fused_4096.timed)->bytes - work_4096.bytes));
}

TEST_CASE("beside a GEMM + bias + GELU the given three kernels are timed: their work is the unfused chain's",
          "[fusion]") {
    auto lab = fusion_lab();
    for (const char* name : {"gemm_bias_gelu_fused", "gemm_bias_gelu_unfused", "gemm_bias_gelu_fused_k512"}) {
        INFO(name);
        const auto& v = lab.variant(name);
        auto also = lab.also_work(v, v.timed);
        REQUIRE(also.has_value());
        CHECK(also->bytes == lab.unfused_work(v, v.timed)->bytes);
        CHECK(also->flops == lab.work(v, v.timed).flops);
    }
    // The bare GEMM has no chain to compare with; nor have the memory-bound chains (their peer is the copy).
    for (const char* name : {"gemm_bare", "gemm_bare_k512", "chain_fused", "rmsnorm_fused_4096"}) {
        INFO(name);
        const auto& v = lab.variant(name);
        CHECK_FALSE(lab.also_work(v, v.timed).has_value());
    }
}

TEST_CASE("GEMM ops take exactly m, n and k", "[fusion]") {
    auto dir = std::filesystem::temp_directory_path() / "roofline-fusion-gemm-keys" / "04-fusion";
    std::filesystem::create_directories(dir / "kernels");
    std::ofstream(dir / "kernels" / "x.cu") << "";
    auto write_lab = [&](const std::string& timed) {
        std::ofstream(dir / "lab.yaml") << "title: t\nlesson: l\nproblem: fusion\ntimeout_s: 10\n"
                                           "shapes:\n  timed: {n: 1024}\n  verify: [{m: 128, n: 128, k: 32}]\n"
                                           "tolerance:\n  bf16: {atol: 0.01, rtol: 0.02, max_rel_l2: 0.01}\n"
                                           "scoring: {correctness: 40, performance: 50, prediction: 10, against: peer,"
                                           " floor_fraction: 0.4, target_fraction: 0.85}\n"
                                           "variants:\n  - {name: g, op: gemm_bias_gelu, dtype: bf16, file: kernels/x.cu,"
                                           " timed: "
                                        << timed << ", summary: s}\n";
    };
    write_lab("{m: 256, n: 256, k: 64}");
    CHECK(load_lab(dir / "lab.yaml").variant("g").timed.at("k") == 64);
    write_lab("{n: 1024}");
    CHECK_THROWS(load_lab(dir / "lab.yaml"));
    write_lab("{rows: 4, cols: 8}");
    CHECK_THROWS(load_lab(dir / "lab.yaml"));
    std::filesystem::remove_all(dir.parent_path());
}
