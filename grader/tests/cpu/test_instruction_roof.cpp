// The mma.sync roof (lib/core/instruction_roof.cpp): lab.yaml's `instruction_roof`, the
// measured ceiling it reads (`roofline ceilings`' mma_sync_bf16_tflops), and the report's
// second fraction beside the peer's, or "not measured".
#include "test_support.hpp"

#include "hardware.hpp"
#include "instruction_roof.hpp"
#include "lab_spec.hpp"
#include "report.hpp"
#include "score.hpp"

using namespace roofline;
using namespace roofline_test;

namespace {

// A bf16 GEMM lab whose one variant may name an instruction roof (`roof` empty: none).
LabSpec gemm_lab(TempDir& dir, const std::string& roof) {
    write_file(dir / "lab" / "kernels" / "k.cu", "// empty\n");
    write_file(dir / "lab" / "lab.yaml",
               "title: t\nlesson: lessons/03-gemm.md\nproblem: gemm\ntimeout_s: 10\n"
               "shapes:\n  timed: {m: 4096, n: 4096, k: 4096}\n  verify:\n    - {m: 128, n: 128, k: 32}\n"
               "tolerance:\n  bf16: {atol: 1.0e-2, rtol: 8.0e-3, max_rel_l2: 4.0e-3}\n"
               "scoring: {correctness: 40, performance: 50, prediction: 10, against: peer, floor_fraction: 0.0, "
               "target_fraction: 0.5}\n"
               "variants:\n"
               "  - {name: r9, op: gemm, dtype: bf16, file: kernels/k.cu, summary: \"mma.sync\"" +
                   (roof.empty() ? std::string() : ", instruction_roof: " + roof) + "}\n");
    return load_lab(dir / "lab" / "lab.yaml");
}

MeasuredCeilings measured_h200(double mma_sync_tflops) {
    MeasuredCeilings m;
    m.profile_id = "test-gpu";
    m.measured_at = "2026-12-01T02:00:00Z";
    m.memcpy_tbs = 4.2;
    m.fp32_fma_tflops = 50;
    m.gemm_tflops = {{Dtype::bf16, 780}};
    m.launch_us = 5;
    m.mma_sync_bf16_tflops = mma_sync_tflops;
    return m;
}

}  // namespace

TEST_CASE("lab.yaml instruction_roof: mma_sync is read; an unknown roof names the line and the known ones",
          "[instruction_roof]") {
    TempDir dir;
    CHECK(gemm_lab(dir, "mma_sync").variant("r9").instruction_roof == "mma_sync");
    CHECK(gemm_lab(dir, "").variant("r9").instruction_roof.empty());
    auto message = input_error_of([&] { gemm_lab(dir, "wgmma"); });
    check_mentions(message, {"lab.yaml:", "instruction_roof", "'wgmma'", "mma_sync"});
}

TEST_CASE("measured ceilings: the mma.sync ceiling round-trips, and a file from before it loads as not measured",
          "[instruction_roof][hardware]") {
    TempDir dir;
    auto m = measured_h200(645.5);
    m.device_name = "NVIDIA H200";
    m.copy_kernel_tbs = 3.9;
    m.read_only_tbs = 4.5;
    m.graph_launch_us = 0.5;
    m.sm_clock_mhz = 1500;
    auto file = dir / "h200.yaml";
    save_measured(m, file);
    CHECK(load_measured(file).mma_sync_bf16_tflops == Approx(645.5));

    auto older = dir / "older.yaml";
    write_file(older,
               "profile: h200-sxm\ndevice: NVIDIA H200\nmeasured_at: 2026-11-29T10:00:00Z\ncopy_kernel_tbs: 3.95\n"
               "memcpy_tbs: 4.2\nread_only_tbs: 4.55\nfp32_fma_tflops: 50\nlaunch_us: 5\ngraph_launch_us: 0.5\n"
               "sm_clock_mhz: 1500\ngemm_tflops: {bf16: 733}\n");
    CHECK(load_measured(older).mma_sync_bf16_tflops == 0);

    auto zero = dir / "zero.yaml";
    write_file(zero, read_file(older) + "mma_sync_bf16_tflops: 0\n");
    auto message = input_error_of([&] { load_measured(zero); });
    check_mentions(message, {"zero.yaml:12:", "mma_sync_bf16_tflops"});
}

TEST_CASE("score: a rung on mma.sync shows its fraction of the mma.sync roof beside cuBLAS's, unscored",
          "[instruction_roof][score]") {
    TempDir dir;
    auto lab = gemm_lab(dir, "mma_sync");
    const auto& v = lab.variant("r9");
    auto gpu = test_gpu();
    // 2 * 4096^3 = 137.44 GFLOP in 0.3 ms = 458.1 TFLOP/s; cuBLAS in 0.18 ms = 763.6 TFLOP/s.
    auto result = lab_result("ok", 0.3e-3, 0.18e-3, "cuBLAS bf16");
    const double achieved = 2.0 * 4096.0 * 4096.0 * 4096.0 / 0.3e-3 / 1e12;
    GradeContext context{"03-gemm/r9", "NVIDIA H200", "labs", false};

    SECTION("measured on this GPU: the fraction of it") {
        auto m = measured_h200(645);
        auto ceiling = choose_ceiling(gpu, &m, Dtype::bf16);
        auto s = score_run(lab, v, result, gpu, ceiling, nullptr);
        REQUIRE(s.instruction_roof);
        CHECK(s.instruction_roof->measured());
        CHECK(s.instruction_roof->fraction == Approx(achieved / 645));
        CHECK(s.fraction == Approx(0.6));  // still scored against cuBLAS: 0.18 / 0.3
        auto text = terminal_report(context, s, result);
        check_mentions(text, {"71.0% of the mma.sync roof", "645 TFLOP/s", "60.0% of cuBLAS bf16"});
        auto j = score_json(context, s, result);
        CHECK(j["instruction_roof"]["fraction"].get<double>() == Approx(achieved / 645));
        CHECK(j["instruction_roof"]["scored"] == false);
    }
    SECTION("measured ceilings without it, or none at all: not measured, and how to measure it") {
        auto m = measured_h200(0);
        for (const MeasuredCeilings* measured : {static_cast<const MeasuredCeilings*>(&m),
                                                 static_cast<const MeasuredCeilings*>(nullptr)}) {
            auto s = score_run(lab, v, result, gpu, choose_ceiling(gpu, measured, Dtype::bf16), nullptr);
            REQUIRE(s.instruction_roof);
            CHECK_FALSE(s.instruction_roof->measured());
            auto text = terminal_report(context, s, result);
            check_mentions(text, {"mma.sync roof (bf16 m16n8k16 from registers): not measured on this GPU",
                                  "roofline ceilings"});
            CHECK(score_json(context, s, result)["instruction_roof"]["measured"] == false);
        }
    }
    SECTION("a variant that names no instruction roof shows none") {
        TempDir other;
        auto plain = gemm_lab(other, "");
        auto m = measured_h200(645);
        auto s = score_run(plain, plain.variant("r9"), result, gpu, choose_ceiling(gpu, &m, Dtype::bf16), nullptr);
        CHECK_FALSE(s.instruction_roof);
        CHECK_FALSE(contains(terminal_report(context, s, result), "mma.sync roof"));
    }
}

TEST_CASE("the shipped labs: the mma.sync rungs of labs 03 and 06 name the roof; lab 06's DSMEM rung needs clusters",
          "[instruction_roof][labs]") {
    auto gemm = load_lab(repo_root() / "labs" / "03-gemm" / "lab.yaml");
    CHECK(gemm.variant("r8_tensor_core").instruction_roof == "mma_sync");
    CHECK(gemm.variant("r9_pipelined").instruction_roof == "mma_sync");
    CHECK(gemm.variant("r7_warptiled").instruction_roof.empty());  // fp32 FMAs: the FMA roof is the roofline's

    auto async = load_lab(repo_root() / "labs" / "06-async" / "lab.yaml");
    // The bridge rung (issue 36) is mma.sync fed by TMA: its goal is a fraction of that roof.
    CHECK(async.variant("mma_sync_tma_4096").instruction_roof == "mma_sync");
    CHECK(async.variant("mma_sync_tma_8192").instruction_roof == "mma_sync");
    CHECK(async.variant("wgmma_two_consumers_4096").instruction_roof.empty());  // wgmma: cuBLAS's instruction
    const auto& dsmem = async.variant("row_sum_cluster_dsmem");
    REQUIRE(dsmem.requires_cc);
    CHECK(*dsmem.requires_cc == (ComputeCapability{9, 0}));
    CHECK(dsmem.file == "kernels/09_row_sum_cluster_dsmem.cu");
    // Few long rows: fewer 32-row groups than a quarter of an H200's 132 SMs.
    CHECK(dsmem.timed.at("rows") / 32 < 132 / 4);
    // The odd shapes the rung is checked on: a rank with no chunk, uneven chunks, more
    // groups than clusters. Each must pass its divisible_by rule.
    int accepted = 0;
    for (const auto& shape : async.verify_shapes_for(dsmem)) {
        if (!async.shape_refusal(dsmem, shape)) ++accepted;
    }
    CHECK(accepted >= 4);
}
