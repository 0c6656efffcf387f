// A second library run beside the peer, never scored (score.hpp's AlsoMeasured): lab 09's
// GEMVs time cuBLAS's bf16 GEMV in the same run as the variant and cudaMemcpy. Read from the
// lab program's JSON, shown as a fraction of its rate when it does the same work (the bf16
// GEMV) and as a measured speedup beside the bytes' prediction when it does not (int8, fp8
// against the bf16 baseline); the points come from the peer alone.
#include "test_support.hpp"

#include "lab_spec.hpp"
#include "report.hpp"
#include "score.hpp"

using namespace roofline;
using namespace roofline_test;

namespace {

LabSpec decode_lab() { return load_lab(repo_root() / "labs" / "09-decode" / "lab.yaml"); }

// `variant` of `lab` scored from `result` on the test GPU's datasheet ceiling, with no prediction.
Score scored(const LabSpec& lab, const std::string& variant, const protocol::Result& result) {
    const auto& v = lab.variant(variant);
    const auto gpu = test_gpu();
    return score_run(lab, v, result, gpu, choose_ceiling(gpu, nullptr, v.dtype), nullptr);
}

protocol::Result with_also(protocol::Result result, const std::string& name, double median_s) {
    result.timing->also_measured = protocol::AlsoMeasured{name, timing_stats(median_s)};
    return result;
}

}  // namespace

TEST_CASE("also measured, the same work: the variant's rate as a fraction of the library's", "[score][gemv]") {
    // W 2 x 8192^2 + x and y 2 x 8192 each = 134,250,496 bytes; the variant 40 us, cudaMemcpy 41 us,
    // cuBLAS 42 us
    auto s = scored(decode_lab(), "gemv_bf16_8192", with_also(lab_result("ok", 40e-6, 41e-6), "cuBLAS GEMV", 42e-6));
    REQUIRE(s.also.has_value());
    CHECK(s.also->name == "cuBLAS GEMV");
    CHECK(s.also->timing.median_s == 42e-6);
    CHECK(s.also->work.bytes == 134250496.0);
    CHECK(s.also->achieved == Approx(134250496.0 / 42e-6 / 1e12));
    CHECK(s.also->speedup == Approx(1.05));
    CHECK(s.also->bytes_speedup == Approx(1.0));
    CHECK(s.also->same_work());
    // Scored against the peer alone, whatever cuBLAS did: cudaMemcpy moves W's 134,217,728 bytes in
    // 41 us, the variant its 134,250,496 in 40 us: 1.02525.
    CHECK(s.fraction == Approx(134250496.0 / 40 / (134217728.0 / 41)));
    auto line = also_measured_line(*s.also, s.unit);
    CHECK(contains(line, "cuBLAS GEMV: 3.196 TB/s; yours is 105.0% of it (not scored)"));

    GradeContext context;
    context.target = "09-decode/gemv_bf16_8192";
    auto report = terminal_report(context, s, lab_result("ok", 40e-6, 41e-6));
    CHECK(contains(report, "  also      cuBLAS GEMV"));
    auto json = score_json(context, s, lab_result("ok", 40e-6, 41e-6));
    REQUIRE(json.contains("also_measured"));
    CHECK(json["also_measured"]["name"] == "cuBLAS GEMV");
    CHECK(json["also_measured"]["median_s"].get<double>() == 42e-6);
    CHECK(json["also_measured"]["speedup"].get<double>() == Approx(1.05));
    CHECK(json["also_measured"]["scored"] == false);
}

TEST_CASE("also measured, the bf16 baseline: the measured speedup beside the bytes' prediction", "[score][gemv]") {
    // int8: 8192^2 + 4 x 8192 scales + x and y = 67,174,400 bytes; the bf16 GEMV 134,250,496: 1.9986x
    auto s = scored(decode_lab(), "gemv_int8_8192", with_also(lab_result("ok", 24e-6, 20e-6), "cuBLAS bf16", 42e-6));
    REQUIRE(s.also.has_value());
    CHECK(s.also->bytes_speedup == Approx(134250496.0 / 67174400.0));
    CHECK(s.also->speedup == Approx(1.75));
    CHECK_FALSE(s.also->same_work());
    CHECK(s.fraction == Approx(s.achieved / s.peer_achieved));  // still scored against cudaMemcpy
    auto line = also_measured_line(*s.also, s.unit);
    check_mentions(line, {"cuBLAS bf16: 42 us (3.196 TB/s on its own bytes)",
                          "yours is 1.75x faster, the bytes predict 2.00x (not scored)"});
}

TEST_CASE("also measured: nothing shown without the timing, or for an op that has none", "[score][gemv]") {
    auto lab = decode_lab();
    auto gpu = test_gpu();
    const auto& gemv = lab.variant("gemv_bf16_8192");
    auto ceiling = choose_ceiling(gpu, nullptr, gemv.dtype);
    CHECK_FALSE(score_run(lab, gemv, lab_result("ok", 40e-6, 41e-6), gpu, ceiling, nullptr).also.has_value());
    // The skinny GEMM's peer is already cuBLAS: a stray also_measured entry is ignored.
    const auto& skinny = lab.variant("skinny_m4");
    auto s = score_run(lab, skinny, with_also(lab_result("ok", 40e-6, 41e-6), "x", 42e-6), gpu, ceiling, nullptr);
    CHECK_FALSE(s.also.has_value());
    GradeContext context;
    CHECK_FALSE(contains(terminal_report(context, s, lab_result("ok", 40e-6, 41e-6)), "also"));
    CHECK_FALSE(score_json(context, s, lab_result("ok", 40e-6, 41e-6)).contains("also_measured"));
}

TEST_CASE("also measured, compute-bound: the fused GEMM epilogue against the given three kernels", "[score][fusion]") {
    auto lab = load_lab(repo_root() / "labs" / "04-fusion" / "lab.yaml");
    // The variant 275 us, cuBLASLt 130 us, the given three kernels 374 us: 1.36x.
    auto s = scored(lab, "gemm_bias_gelu_fused_k512",
                    with_also(lab_result("ok", 275e-6, 130e-6, "cuBLASLt"), "the given three kernels", 374e-6));
    REQUIRE(s.also.has_value());
    CHECK(s.unit == "TFLOP/s");
    CHECK(s.also->speedup == Approx(374.0 / 275.0));
    CHECK_FALSE(s.also->same_work());
    CHECK(s.fraction == Approx(130.0 / 275.0));  // scored against cuBLASLt alone: the same FLOPs
    auto line = also_measured_line(*s.also, s.unit);
    INFO(line);
    CHECK(contains(line, "the given three kernels: 374 us; yours is 1.36x faster; it moves 536.9 MB more than yours"));
    // Bytes do not set a compute-bound time: no speedup is read off their ratio (3.56x here).
    CHECK_FALSE(contains(line, "predict"));
    GradeContext context;
    context.target = "04-fusion/gemm_bias_gelu_fused_k512";
    CHECK(contains(terminal_report(context, s, lab_result("ok", 275e-6, 130e-6)), "  also      the given three kernels"));
}
