// The `roofline` command line, run as a student would run it (the built binary,
// ROOFLINE_CLI), with --root at the course checkout or at a temporary copy and
// --log at a temporary prediction log. Exit codes per `roofline --help`:
// 0 correct, 1 incorrect, 2 bad input, 3 no prediction, 4 no CUDA device,
// 5 build failed, 6 crashed or timed out.
#include "test_support.hpp"

#include "device_query.hpp"
#include "hardware.hpp"
#include "lab_spec.hpp"
#include "prediction_log.hpp"
#include "source_hash.hpp"
#include "workspace.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

using namespace roofline;
using namespace roofline_test;
using nlohmann::json;

namespace {

std::set<std::string> shipped_profile_ids() {
    std::set<std::string> ids;
    for (const auto& entry : std::filesystem::directory_iterator(repo_root() / "hardware")) {
        if (entry.path().extension() == ".yaml") ids.insert(entry.path().stem().string());
    }
    return ids;
}

HardwareProfile h200() { return load_profile(repo_root() / "hardware" / "h200-sxm.yaml"); }

bool have_cuda_device() {
    std::string why;
    return first_device(&why).has_value();
}

const std::string kPredictArgs =
    "predict 01-memory-roof/copy_naive_fp32 --time-us 600 --regime memory --why 'two arrays of 1 GiB at 3.6 TB/s'";

}  // namespace

TEST_CASE("cli: --help lists the exit codes", "[cli]") {
    auto r = run_cli("--help");
    CHECK(r.exit_code == 0);
    INFO(r.out);
    check_mentions(r.out, {"Exit codes", "2 bad usage or input", "3 no prediction", "4 no CUDA device",
                           "5 build failed", "6 the lab program crashed", "8 refused"});
    for (const char* command : {"calc", "hardware", "predict", "grade", "run", "log", "list"}) CHECK(contains(r.out, command));
}

TEST_CASE("cli: no subcommand is bad usage", "[cli]") {
    CHECK(run_cli("").exit_code == 2);
    CHECK(run_cli("frobnicate").exit_code == 2);
}

TEST_CASE("cli calc: fp16 GEMM 4096 under custom ceilings", "[cli]") {
    auto r = run_cli("calc --gemm 4096 --dtype fp16 --peak-tflops 2000 --bandwidth-tbs 8");
    INFO(r.all());
    REQUIRE(r.exit_code == 0);
    CHECK(contains(r.out, "1365.3"));         // intensity N/3
    CHECK(contains(r.out, "250.0"));          // ridge 2000 / 8
    CHECK(contains(r.out, "compute-bound"));
    CHECK(contains(r.out, "68.72 us"));       // compute floor 137.44 GFLOP / 2 PFLOP/s
    CHECK(contains(r.out, "12.58 us"));       // memory floor 100.66 MB / 8 TB/s
    CHECK(contains(r.out, "below 750"));      // crossover 1.5 * 2 * 250
}

TEST_CASE("cli calc: an fp16 elementwise add is memory-bound at 1/6 FLOP/byte", "[cli]") {
    auto r = run_cli(repo_flag() + " calc --elementwise 268435456 --reads 2 --writes 1 --flops-per-element 1 --dtype fp16 "
                     "--hardware h200-sxm --json");
    INFO(r.all());
    REQUIRE(r.exit_code == 0);
    auto j = json::parse(r.out);
    CHECK(j["workload"]["intensity_flop_per_byte"].get<double>() == Approx(1.0 / 6.0));
    CHECK(j["workload"]["bytes"].get<double>() == 1610612736.0);  // 3 * 2^28 * 2
    REQUIRE(j["results"].size() == 1);
    CHECK(j["results"][0]["regime"] == "memory");
    // floor = bytes / bandwidth (335.5 us at 4.8 TB/s); attainable = bandwidth / 6 (0.8 TFLOP/s at 4.8 TB/s)
    double bandwidth = h200().memory.bandwidth_tbs;
    CHECK(j["results"][0]["floor_s"].get<double>() == Approx(1610612736.0 / (bandwidth * 1e12)));
    CHECK(j["results"][0]["attainable_tflops"].get<double>() == Approx(bandwidth / 6));
}

TEST_CASE("cli calc --hardware all --json: one entry per profile file", "[cli]") {
    auto ids = shipped_profile_ids();
    auto r = run_cli(repo_flag() + " calc --gemm 4096 --dtype bf16 --hardware all --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto j = json::parse(r.out);
    CHECK(j["workload"]["dtype"] == "bf16");
    CHECK(j["workload"]["intensity_flop_per_byte"].get<double>() == Approx(4096.0 / 3.0));
    REQUIRE(j["results"].size() == ids.size());
    std::set<std::string> seen;
    for (const auto& entry : j["results"]) {
        seen.insert(entry["hardware"].get<std::string>());
        CHECK(entry["supported"] == true);
        CHECK(entry["ridge_flop_per_byte"].get<double>() ==
              Approx(entry["peak_tflops"].get<double>() / entry["bandwidth_tbs"].get<double>()));
    }
    CHECK(seen == ids);
    for (const auto& entry : j["results"]) {
        if (entry["hardware"] != "h200-sxm") continue;
        // with the datasheet's 989.4 TFLOP/s and 4.8 TB/s: ridge 206.1, crossover ceil(3 * 206.1) = 619,
        // floor 137.44 GFLOP / 989.4 TFLOP/s = 138.9 us
        double peak = h200().peak.at(Dtype::bf16).dense_tflops, bandwidth = h200().memory.bandwidth_tbs;
        CHECK(entry["peak_tflops"].get<double>() == peak);
        CHECK(entry["bandwidth_tbs"].get<double>() == bandwidth);
        CHECK(entry["ridge_flop_per_byte"].get<double>() == Approx(peak / bandwidth));
        CHECK(entry["regime"] == "compute");
        CHECK(entry["gemm_crossover_n"] == static_cast<long long>(std::ceil(1.5 * 2 * peak / bandwidth)));
        CHECK(entry["floor_s"].get<double>() == Approx(137438953472.0 / (peak * 1e12)));
    }
}

TEST_CASE("cli calc --dtype fp8 --hardware all: parts without fp8 say so", "[cli]") {
    auto r = run_cli(repo_flag() + " calc --gemm 4096 --dtype fp8 --hardware all --json");
    REQUIRE(r.exit_code == 0);
    auto j = json::parse(r.out);
    REQUIRE(j["results"].size() == shipped_profile_ids().size());
    for (const auto& entry : j["results"]) {
        if (entry["hardware"] == "a100-80gb-sxm" || entry["hardware"] == "a100-40gb") {
            CHECK(entry["supported"] == false);
        }
        if (entry["hardware"] == "h200-sxm") CHECK(entry["supported"] == true);
    }
}

TEST_CASE("cli calc: the H200's fp8 ridge is twice its bf16 ridge, and calc shows the switch", "[cli]") {
    // The profile's own figures: fp8 and bf16 dense peaks over the one memory bandwidth.
    const auto gpu = h200();
    const double bf16_ridge = gpu.peak.at(Dtype::bf16).dense_tflops / gpu.memory.bandwidth_tbs;
    const double fp8_ridge = gpu.peak.at(Dtype::fp8).dense_tflops / gpu.memory.bandwidth_tbs;
    CHECK(fp8_ridge / bf16_ridge == Approx(2.0).epsilon(1e-3));  // 1978.9 / 989.4: the datasheet's rounding

    // A 256-token GEMM: compute-bound in bf16 just past the bf16 ridge
    auto calc = [](const std::string& dtype) {
        auto r = run_cli(repo_flag() + " calc --gemm 256,8192,8192 --hardware h200-sxm --json --dtype " + dtype);
        INFO(r.all());
        REQUIRE(r.exit_code == 0);
        return json::parse(r.out);
    };
    auto bf16 = calc("bf16"), fp8 = calc("fp8");
    const auto &bf16_row = bf16["results"][0], &fp8_row = fp8["results"][0];
    CHECK(bf16_row["ridge_flop_per_byte"].get<double>() == Approx(bf16_ridge));
    CHECK(fp8_row["ridge_flop_per_byte"].get<double>() == Approx(fp8_ridge));
    CHECK(fp8_row["peak_tflops"].get<double>() == gpu.peak.at(Dtype::fp8).dense_tflops);
    // fp8 operands are half the bytes: the same FLOPs at twice the intensity
    CHECK(fp8["workload"]["flops"].get<double>() == bf16["workload"]["flops"].get<double>());
    CHECK(fp8["workload"]["intensity_flop_per_byte"].get<double>() ==
          Approx(2 * bf16["workload"]["intensity_flop_per_byte"].get<double>()));

    // The switch, both ways: bf16 -> fp8 from a bf16 run, and the same figures from an fp8 run.
    for (const auto* row : {&bf16_row, &fp8_row}) {
        const auto& sw = (*row)["dtype_switch"];
        REQUIRE(sw.is_object());
        CHECK(sw["from"]["dtype"] == "bf16");
        CHECK(sw["to"]["dtype"] == "fp8");
        CHECK(sw["from"]["ridge_flop_per_byte"].get<double>() == Approx(bf16_ridge));
        CHECK(sw["to"]["ridge_flop_per_byte"].get<double>() == Approx(fp8_ridge));
        CHECK(sw["ridge_ratio"].get<double>() == Approx(fp8_ridge / bf16_ridge));
        CHECK(sw["peak_ratio"].get<double>() == Approx(fp8_ridge / bf16_ridge));
        CHECK(sw["to"]["intensity_flop_per_byte"].get<double>() == fp8["workload"]["intensity_flop_per_byte"].get<double>());
        CHECK(sw["from"]["regime"] == bf16_row["regime"]);
        CHECK(sw["to"]["regime"] == fp8_row["regime"]);
    }
    // The same point: the bf16 GEMM's bytes under the fp8 roof sit left of its ridge (memory-bound),
    // and the fp8 GEMM's under the bf16 roof far right of bf16's.
    const auto& same_under_fp8 = bf16_row["dtype_switch"]["same_point_under_other_roof"];
    CHECK(same_under_fp8["dtype"] == "fp8");
    CHECK(same_under_fp8["intensity_flop_per_byte"].get<double>() == bf16["workload"]["intensity_flop_per_byte"].get<double>());
    CHECK(bf16_row["regime"] == "compute");
    CHECK(same_under_fp8["regime"] == "memory");
    CHECK(same_under_fp8["floor_s"].get<double>() == Approx(bf16_row["memory_floor_s"].get<double>()));
    const auto& same_under_bf16 = fp8_row["dtype_switch"]["same_point_under_other_roof"];
    CHECK(same_under_bf16["dtype"] == "bf16");
    CHECK(same_under_bf16["regime"] == "compute");
    CHECK(same_under_bf16["ridge_flop_per_byte"].get<double>() == Approx(bf16_ridge));
    auto text = run_cli(repo_flag() + " calc --gemm 256,8192,8192 --dtype bf16 --hardware h200-sxm");
    INFO(text.all());
    check_mentions(text.out, {"bf16 -> fp8", fmt::format("ridge {:.1f} -> {:.1f} FLOP/byte", bf16_ridge, fp8_ridge),
                              "this point under the fp8 roof: 0.58x its ridge, memory-bound", "the same work in fp8"});

    // No switch where the part has no FP8 roof, for a format outside it, or with overridden roofs.
    auto none = [](const std::string& args) {
        auto r = run_cli(repo_flag() + " calc --gemm 4096 --json " + args);
        INFO(r.all());
        REQUIRE(r.exit_code == 0);
        return json::parse(r.out)["results"][0]["dtype_switch"];
    };
    CHECK(none("--dtype bf16 --hardware a100-40gb").is_null());
    CHECK(none("--dtype fp32 --hardware h200-sxm").is_null());
    CHECK(none("--dtype bf16 --hardware h200-sxm --peak-tflops 500").is_null());
    CHECK(none("--dtype fp16 --hardware l4").is_object());
}

TEST_CASE("cli calc: the fp8 roof measured on this machine is shown beside the datasheet's", "[cli]") {
    TempDir dir;
    fs::copy(repo_root() / "hardware", dir / "hardware", fs::copy_options::recursive);
    auto calc = [&](const std::string& args) {
        auto r = run_cli("--root " + shell_quote(dir.path().string()) + " calc --gemm 4096 --hardware h200-sxm " + args);
        INFO(r.all());
        REQUIRE(r.exit_code == 0);
        return r.out;
    };
    CHECK(json::parse(calc("--dtype fp8 --json"))["results"][0]["measured_here"].is_null());  // nothing measured yet

    auto measured = h200_measured_ceilings();
    measured.wgmma_fp8_tflops = 1650;  // the FP8 wgmma probe's rate, as `roofline ceilings` saves it
    save_measured(measured, Workspace{dir.path(), dir / "build"}.measured_ceilings("h200-sxm"));
    auto row = json::parse(calc("--dtype fp8 --json"))["results"][0];
    CHECK(row["peak_tflops"].get<double>() == h200().peak.at(Dtype::fp8).dense_tflops);  // calc computes with the datasheet
    CHECK(row["measured_here"]["peak_tflops"].get<double>() == 1650);
    CHECK(contains(row["measured_here"]["peak_origin"].get<std::string>(), "fp8 wgmma probe"));
    CHECK(row["measured_here"]["bandwidth_tbs"].get<double>() == measured.memcpy_tbs);
    check_mentions(calc("--dtype fp8"), {"measured here    1650 TFLOP/s fp8 (measured fp8 wgmma probe"});
    // bf16 has its cuBLAS figure
    CHECK(json::parse(calc("--dtype bf16 --json"))["results"][0]["measured_here"]["peak_tflops"].get<double>() ==
          measured.gemm_tflops.at(Dtype::bf16));
}

TEST_CASE("cli calc: bad input exits 2 with one line", "[cli]") {
    SECTION("unknown hardware lists the known ids") {
        auto r = run_cli(repo_flag() + " calc --gemm 4096 --hardware h300");
        check_one_line_error(r);
        CHECK(contains(r.err, "h300"));
        for (const auto& id : shipped_profile_ids()) CHECK(contains(r.err, id));
    }
    SECTION("unknown dtype") {
        check_refused(repo_flag() + " calc --gemm 4096 --dtype fp17 --hardware h200-sxm", {"fp17", "--dtype"});
    }
    SECTION("--gemm 0") {
        check_refused(repo_flag() + " calc --gemm 0 --hardware h200-sxm", {"--gemm"});
    }
    SECTION("--gemm -5") {
        check_refused(repo_flag() + " calc --gemm -5 --hardware h200-sxm", {"--gemm"});
    }
    SECTION("--gemm 4096,0,4096") {
        auto r = run_cli(repo_flag() + " calc --gemm 4096,0,4096 --hardware h200-sxm");
        check_one_line_error(r);
    }
    SECTION("--elementwise 0") {
        check_refused(repo_flag() + " calc --elementwise 0 --hardware h200-sxm", {"--elementwise"});
    }
    SECTION("--elementwise -3") {
        auto r = run_cli(repo_flag() + " calc --elementwise -3 --hardware h200-sxm");
        check_one_line_error(r);
    }
    SECTION("no workload") {
        check_one_line_error(run_cli(repo_flag() + " calc --hardware h200-sxm"));
    }
    SECTION("no ceiling") {
        check_one_line_error(run_cli("calc --gemm 4096"));
    }
}

TEST_CASE("cli: a malformed hardware profile is one line naming file:line and field", "[cli]") {
    TempDir root;
    copy_course(root.path());
    std::filesystem::copy_file(test_data() / "hardware" / "negative_bandwidth.yaml",
                               root / "hardware/broken-gpu.yaml");
    for (const std::string& command : {std::string("calc --gemm 4096 --hardware all"),
                                       std::string("calc --gemm 4096 --hardware h200-sxm"),
                                       std::string("hardware list")}) {
        INFO(command);
        check_refused("--root " + shell_quote(root.path().string()) + " " + command,
                      {"broken-gpu.yaml:10:", "memory.bandwidth_tbs"});
    }
}

TEST_CASE("cli hardware show and list", "[cli]") {
    auto show = run_cli(repo_flag() + " hardware show h200-sxm");
    INFO(show.all());
    REQUIRE(show.exit_code == 0);
    // the figures of hardware/h200-sxm.yaml (4.8 TB/s, bf16 989.4 dense / 1978.9 sparse, ridge 206.1)
    auto p = h200();
    const auto& bf16 = p.peak.at(Dtype::bf16);
    check_mentions(show.out, {p.name, "h200-sxm.yaml", fmt::format("{:g} TB/s", p.memory.bandwidth_tbs),
                              fmt::format("{} SMs", p.sm_count)});
    CHECK(contains(show.out, fmt::format("{:.1f}", bf16.dense_tflops / p.memory.bandwidth_tbs)));  // bf16 ridge
    REQUIRE(bf16.sparse_tflops.has_value());
    check_mentions(show.out, {fmt::format("sparse {:g}: never used", *bf16.sparse_tflops), "fp4   none on this part",
                              p.match.at(0)});

    check_refused(repo_flag() + " hardware show h300", {"h200-sxm"});

    auto list = run_cli(repo_flag() + " hardware list");
    REQUIRE(list.exit_code == 0);
    for (const auto& id : shipped_profile_ids()) CHECK(contains(list.out, id));
}

TEST_CASE("cli predict then grade, without a GPU", "[cli]") {
    TempDir dir;
    auto log = dir / "predictions.yaml";
    std::string log_flag = " --log " + shell_quote(log.string());
    std::string grade = repo_flag() + " grade 01-memory-roof/copy_naive_fp32" + log_flag;

    // 1. No prediction: exit 3, the exact command to run, nothing written.
    auto refused = run_cli(grade + " --no-build");
    INFO(refused.all());
    CHECK(refused.exit_code == 3);
    CHECK(contains(refused.out, "no prediction for 01-memory-roof/copy_naive_fp32"));
    CHECK(contains(refused.out, "  roofline predict 01-memory-roof/copy_naive_fp32 --time-us <microseconds> "
                                "--regime <compute|memory|overhead> --why \"<one sentence>\" --log " +
                                    log.string()));
    CHECK_FALSE(std::filesystem::exists(log));

    // 2. Predict: p1, bound to the kernel source's hash and the timed shape.
    auto predicted = run_cli(repo_flag() + " " + kPredictArgs + log_flag);
    INFO(predicted.all());
    REQUIRE(predicted.exit_code == 0);
    check_mentions(predicted.out, {"recorded p1",
                                   "roofline grade 01-memory-roof/copy_naive_fp32 --log " + log.string()});
    auto entries = load_log(log);
    REQUIRE(entries.predictions.size() == 1);
    const auto& p = entries.predictions[0];
    CHECK(p.id == "p1");
    auto lab = load_lab(repo_root() / "labs/01-memory-roof/lab.yaml");
    const auto& variant = lab.variant("copy_naive_fp32");
    CHECK(p.shape == shape_text(variant.timed));
    CHECK(p.predicted_time_s == Approx(600e-6));
    CHECK(p.regime == Regime::memory);
    CHECK(p.why == "two arrays of 1 GiB at 3.6 TB/s");
    CHECK(p.source_hash == hash_file(repo_root() / "labs/01-memory-roof" / variant.file));
    auto log_bytes = read_file(log);

    // 3. The gate passes. The code's order is gate, build, device (grade.cpp), so a
    //    build into a folder that is not a CMake build fails with 5 on any machine ...
    auto no_build_dir = run_cli("--build-dir /nonexistent " + grade);
    INFO(no_build_dir.all());
    CHECK(no_build_dir.exit_code == 5);
    check_mentions(no_build_dir.out, {"build failed", "/nonexistent"});

    // ... and with --no-build the next stage is the device check: 4 where there is no GPU.
    if (have_cuda_device()) {
        WARN("a CUDA device is present: the exit-4 (no device) check is skipped here");
    } else {
        auto no_device = run_cli(grade + " --no-build");
        INFO(no_device.all());
        CHECK(no_device.exit_code == 4);
        check_mentions(no_device.out, {"no CUDA device", "prediction gate passed"});
        // --json says the same as JSON
        auto as_json = run_cli(grade + " --no-build --json");
        CHECK(as_json.exit_code == 4);
        CHECK(json::parse(as_json.out)["outcome"] == "no_device");
    }
    // None of that touched the log.
    CHECK(read_file(log) == log_bytes);

    // --gbps is converted to a time at the timed shape: bytes / 4000e9 B/s (2^31 bytes: 536.87 us)
    auto by_rate = run_cli(repo_flag() + " predict 01-memory-roof/copy_naive_fp32 --gbps 4000 --regime memory "
                                         "--why 'at 4 TB/s'" + log_flag);
    REQUIRE(by_rate.exit_code == 0);
    CHECK(contains(by_rate.out, "recorded p2"));
    auto after = load_log(log);
    REQUIRE(after.predictions.size() == 2);
    CHECK(after.predictions[1].predicted_time_s == Approx(lab.work(variant, variant.timed).bytes / 4000e9));
    CHECK(after.predictions[1].given_as == "gbps 4000");
    CHECK(read_file(log).compare(0, log_bytes.size(), log_bytes) == 0);
}

TEST_CASE("cli grade: a kernel edited since its prediction is refused (3)", "[cli]") {
    TempDir root;
    copy_course(root.path());
    auto root_flag = "--root " + shell_quote(root.path().string());
    auto log_flag = " --log " + shell_quote((root / "p.yaml").string());
    REQUIRE(run_cli(root_flag + " " + kPredictArgs + log_flag).exit_code == 0);
    {
        std::ofstream kernel(root / "labs/01-memory-roof/kernels/01_copy_naive.cu", std::ios::app);
        kernel << "\n// an edit after the prediction\n";
    }
    // --build-dir: this binary's own build compiles the course checkout's kernels, not the copy's (refused, exit 2)
    auto build_flag = " --build-dir " + shell_quote((root / "build").string());
    auto r = run_cli(root_flag + build_flag + " grade 01-memory-roof/copy_naive_fp32 --no-build" + log_flag);
    INFO(r.all());
    CHECK(r.exit_code == 3);
    check_mentions(r.out, {"kernel changed", "roofline predict 01-memory-roof/copy_naive_fp32"});
}

TEST_CASE("cli predict: bad input exits 2", "[cli]") {
    TempDir dir;
    auto log_flag = " --log " + shell_quote((dir / "p.yaml").string());
    auto base = repo_flag() + " predict 01-memory-roof/copy_naive_fp32 --regime memory --why 'w'" + log_flag;
    check_one_line_error(run_cli(base));                                      // no figure
    check_one_line_error(run_cli(base + " --time-us 600 --gbps 4000"));       // two figures
    check_one_line_error(run_cli(base + " --tflops 1"));                      // a copy does no arithmetic
    check_one_line_error(run_cli(repo_flag() + " predict 01-memory-roof/copy_naive_fp32 --time-us 600 --regime fast "
                                               "--why 'w'" + log_flag));
    auto no_variant = run_cli(repo_flag() + " predict 01-memory-roof/copy_turbo --time-us 600 --regime memory --why 'w'" +
                              log_flag);
    check_one_line_error(no_variant);
    CHECK(contains(no_variant.err, "copy_naive_fp32"));
    CHECK_FALSE(std::filesystem::exists(dir / "p.yaml"));
}

TEST_CASE("cli run / grade: bad targets exit 2 with one line", "[cli]") {
    SECTION("run on a variant that does not exist names the variants") {
        auto r = run_cli(repo_flag() + " run 01-memory-roof/copy_turbo --no-build");
        check_one_line_error(r);
        check_mentions(r.err, {"copy_turbo", "copy_naive_fp32", "add_bf16"});
    }
    SECTION("grade foo: not LAB/VARIANT") {
        check_refused(repo_flag() + " grade foo", {"LAB/VARIANT"});
    }
    SECTION("grade of a lab that does not exist") {
        check_refused(repo_flag() + " grade 99-nope/x", {"99-nope"});
    }
}

TEST_CASE("cli log: predicted against measured, calibration, --json", "[cli]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    // three predictions; p1 measured at 2x its time, p2 exactly; p3 never measured
    auto prediction = [](const std::string& variant, double us) {
        return make_prediction(variant, "n=268435456", "h", us, "w");
    };
    append_prediction(file, prediction("copy_naive_fp32", 500));
    append_prediction(file, prediction("add_fp32", 800));
    append_prediction(file, prediction("scale_fp32", 600));
    auto log = load_log(file);
    auto measure = [&](const Prediction& p, double us, const std::string& at) {
        auto m = make_measurement(p, us);
        m.measured_at = at;
        append_measurement(file, m);
    };
    measure(log.predictions[0], 1000, "2026-11-29T11:00:00Z");  // ratio 2.0: |log2| = 1
    measure(log.predictions[1], 800, "2026-11-29T12:00:00Z");   // ratio 1.0: |log2| = 0

    auto text = run_cli("log --log " + shell_quote(file.string()));
    INFO(text.all());
    REQUIRE(text.exit_code == 0);
    check_mentions(text.out, {"3 predictions, 2 measurements", "calibration"});
    // median of {1, 0} = 0.5 -> 2^0.5 = 1.41x; one of two within 1.5x
    check_mentions(text.out, {"2 entries: median error 1.41x, 50% within 1.5x", "2.00x"});
    CHECK(contains(text.out, "the gap is closing"));  // first half 2x off, second half exact
    CHECK(contains(text.out, "p3 01-memory-roof/scale_fp32"));

    auto as_json = run_cli("log --json --log " + shell_quote(file.string()));
    REQUIRE(as_json.exit_code == 0);
    auto j = json::parse(as_json.out);
    REQUIRE(j["entries"].size() == 2);
    CHECK(j["entries"][0]["ratio"].get<double>() == Approx(2.0));
    CHECK(j["entries"][1]["ratio"].get<double>() == Approx(1.0));
    CHECK(j["entries"][0]["edited_after_measurement"] == false);
    CHECK(j["calibration"]["all"]["count"] == 2);
    CHECK(j["calibration"]["all"]["median_abs_log2_ratio"].get<double>() == Approx(0.5));
    CHECK(j["calibration"]["all"]["share_within_1_5x"].get<double>() == Approx(0.5));
    CHECK(j["calibration"]["first_half"]["median_abs_log2_ratio"].get<double>() == Approx(1.0));
    CHECK(j["calibration"]["second_half"]["median_abs_log2_ratio"].get<double>() == Approx(0.0));
    REQUIRE(j["not_yet_measured"].size() == 1);
    CHECK(contains(j["not_yet_measured"][0].get<std::string>(), "p3"));

    // edit p1's why after its measurement: the log says so
    write_file(file, replaced(read_file(file), "why: \"w\"", "why: \"v\""));
    auto edited = run_cli("log --log " + shell_quote(file.string()));
    CHECK(contains(edited.out, "PREDICTION EDITED AFTER MEASUREMENT"));

    // an empty log is fine; a broken one is one line naming file:line
    auto empty = run_cli("log --json --log " + shell_quote((dir / "none.yaml").string()));
    CHECK(empty.exit_code == 0);
    CHECK(json::parse(empty.out)["calibration"]["all"]["count"] == 0);
    std::filesystem::copy_file(test_data() / "logs" / "unknown_kind.yaml", dir / "broken.yaml");
    check_refused("log --log " + shell_quote((dir / "broken.yaml").string()), {"broken.yaml:14:"});
}

TEST_CASE("cli list: labs, variants and prediction state", "[cli]") {
    TempDir dir;
    auto log_flag = " --log " + shell_quote((dir / "p.yaml").string());
    auto before = run_cli(repo_flag() + " list" + log_flag);
    INFO(before.all());
    REQUIRE(before.exit_code == 0);
    for (const char* text : {"01-memory-roof", "The memory roof", "copy_naive_fp32", "add_bf16", "03-gemm",
                             "r1_naive", "r9_pipelined"}) {
        CHECK(contains(before.out, text));
    }
    CHECK_FALSE(contains(before.out, " predicted "));
    REQUIRE(run_cli(repo_flag() + " " + kPredictArgs + log_flag).exit_code == 0);
    auto after = run_cli(repo_flag() + " list" + log_flag);
    REQUIRE(after.exit_code == 0);
    // exactly one variant now shows as predicted: the one just predicted
    std::istringstream lines(after.out);
    std::string line;
    int predicted = 0;
    while (std::getline(lines, line)) {
        if (contains(line, " predicted ")) {
            ++predicted;
            CHECK(contains(line, "copy_naive_fp32"));
        }
    }
    CHECK(predicted == 1);
}

TEST_CASE("classify --check shows an answer only for a question the student tried", "[cli][classify]") {
    TempDir dir;
    auto answers = dir / "answers.yaml";
    write_file(answers, "- {id: little-h200-datasheet, kib_per_sm: 21, stages: 2}\n"
                        "- {id: lever-layernorm-large, helps:}\n");  // left blank: not tried
    auto r = run_cli(repo_flag() + " classify --check " + shell_quote(answers.string()) + " --json");
    INFO(r.all());
    REQUIRE(r.exit_code == 0);
    auto j = json::parse(r.out);
    bool tried_seen = false, blank_seen = false;
    for (const auto& q : j["questions"]) {
        if (q["id"] == "little-h200-datasheet") {
            tried_seen = true;
            CHECK(q["expected"]["stages"] == 3);
            CHECK(q["points"] == 1.5);
            CHECK(q.contains("explanation"));  // not full marks: the explanation comes with the answer
        } else {
            blank_seen |= q["id"] == "lever-layernorm-large";
            CHECK(q["expected"].is_null());
            CHECK(q["working"].is_null());
            CHECK_FALSE(q.contains("explanation"));
        }
    }
    CHECK(tried_seen);
    CHECK(blank_seen);
    CHECK(j["answered"] == 1);

    // The table hides the same way: the lever question's expected answer is a '?'.
    auto table = run_cli(repo_flag() + " classify --check " + shell_quote(answers.string()));
    CHECK(contains(table.out, "21.3 KiB per SM, 3 stages"));
    CHECK_FALSE(contains(table.out, "helps: fuse, fp8"));
}
