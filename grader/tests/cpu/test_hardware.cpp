// GPU profiles (lib/core/hardware.cpp): the shipped spec sheets load and pass the
// schema, lookups by id and by CUDA device name, schema errors that name file,
// line and field, measured ceilings on disk, and which ceiling grading uses.
#include "test_support.hpp"

#include "hardware.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

using namespace roofline;
using namespace roofline_test;

namespace {

std::vector<HardwareProfile> shipped() { return load_profiles(repo_root() / "hardware"); }

std::string load_error(const std::string& fixture) {
    auto file = test_data() / "hardware" / fixture;
    REQUIRE(std::filesystem::exists(file));
    return input_error_of([&] { load_profile(file); });
}

}  // namespace

TEST_CASE("every shipped profile loads and passes the schema", "[hardware]") {
    auto dir = repo_root() / "hardware";
    std::set<std::string> stems;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() == ".yaml") stems.insert(entry.path().stem().string());
    }
    REQUIRE(stems.size() >= 9);
    auto profiles = shipped();
    REQUIRE(profiles.size() == stems.size());
    for (std::size_t i = 0; i + 1 < profiles.size(); ++i) CHECK(profiles[i].id < profiles[i + 1].id);  // sorted
    for (const auto& p : profiles) {
        INFO(p.file.string());
        CHECK(stems.count(p.id) == 1);
        CHECK(p.file.stem().string() == p.id);
        CHECK(!p.name.empty());
        CHECK(!p.match.empty());
        CHECK(p.architecture.rfind("sm_", 0) == 0);
        CHECK(p.sm_count > 0);
        CHECK(p.l2_mb > 0);
        CHECK(p.memory.bandwidth_tbs > 0);
        CHECK(p.memory.capacity_gb > 0);
        CHECK(!p.memory.source.empty());
        for (auto required : {Dtype::fp64, Dtype::fp32, Dtype::tf32, Dtype::fp16, Dtype::bf16}) {
            CHECK(p.supports(required));
        }
        for (const auto& [dtype, figure] : p.peak) {
            INFO(dtype_name(dtype));
            CHECK(figure.dense_tflops > 0);
            CHECK(!figure.source.empty());
            if (figure.sparse_tflops) CHECK(*figure.sparse_tflops > figure.dense_tflops);
            // the ceiling is the dense figure, never the sparse one
            CHECK(p.datasheet_ceiling(dtype).peak_tflops == figure.dense_tflops);
            CHECK(p.datasheet_ceiling(dtype).bandwidth_tbs == p.memory.bandwidth_tbs);
        }
    }
}

TEST_CASE("the hardware README lists every shipped profile id", "[hardware]") {
    auto readme = read_file(repo_root() / "hardware" / "README.md");
    for (const auto& p : shipped()) {
        INFO(p.id);
        CHECK(contains(readme, "| `" + p.id + "` |"));
    }
}

TEST_CASE("a dtype a part has no unit for is absent, and asking for it is an error", "[hardware]") {
    auto profiles = shipped();
    // Hopper has fp8 and no fp4; Ampere has neither
    const auto& h200 = find_profile(profiles, "h200-sxm");
    CHECK(h200.supports(Dtype::fp8));
    CHECK_FALSE(h200.supports(Dtype::fp4));
    const auto& a100 = find_profile(profiles, "a100-80gb-sxm");
    CHECK_FALSE(a100.supports(Dtype::fp8));
    auto message = input_error_of([&] { a100.datasheet_ceiling(Dtype::fp8); });
    check_mentions(message, {"fp8", "a100-80gb-sxm.yaml"});
}

TEST_CASE("every part of an architecture with FP8 tensor cores has an fp8 roof; Ampere has none", "[hardware]") {
    for (const auto& p : shipped()) {
        INFO(p.id << " (" << p.architecture << ")");
        bool has_fp8_units = p.architecture == "sm_89" || p.architecture == "sm_90" || p.architecture == "sm_100" ||
                             p.architecture == "sm_120";
        CHECK(p.supports(Dtype::fp8) == has_fp8_units);
        if (!p.supports(Dtype::fp8)) continue;
        // Half the bytes per operand, at least twice the 16-bit rate (four times on consumer Blackwell,
        // whose bf16 figure is the halved fp32-accumulate one): a sparse figure typed as dense, or a
        // 16-bit one typed as fp8, breaks this.
        double ratio = p.peak.at(Dtype::fp8).dense_tflops / p.peak.at(Dtype::bf16).dense_tflops;
        CHECK(ratio >= 1.99);
        CHECK(ratio <= 4.01);
        CHECK_FALSE(p.peak.at(Dtype::fp8).source.empty());
    }
}

TEST_CASE("find_profile: by id or name, case-insensitive; unknown names list the known ids", "[hardware]") {
    auto profiles = shipped();
    CHECK(find_profile(profiles, "h200-sxm").id == "h200-sxm");
    CHECK(find_profile(profiles, "H200-SXM").id == "h200-sxm");
    auto shouted = find_profile(profiles, "h200-sxm").name;  // by its name, in any case
    std::transform(shouted.begin(), shouted.end(), shouted.begin(), [](unsigned char c) { return std::toupper(c); });
    CHECK(find_profile(profiles, shouted).id == "h200-sxm");
    auto message = input_error_of([&] { find_profile(profiles, "h300"); });
    CHECK(contains(message, "unknown hardware 'h300'"));
    for (const auto& p : profiles) {
        INFO(p.id);
        CHECK(contains(message, p.id));
    }
}

TEST_CASE("match_device maps CUDA device names to profiles", "[hardware]") {
    auto profiles = shipped();
    auto id_for = [&](const std::string& device) -> std::string {
        const auto* p = match_device(profiles, device);
        return p ? p->id : "(none)";
    };
    CHECK(id_for("NVIDIA H200") == "h200-sxm");
    CHECK(id_for("NVIDIA A100-SXM4-80GB") == "a100-80gb-sxm");
    CHECK(id_for("NVIDIA A100-SXM4-40GB") == "a100-40gb");
    CHECK(id_for("NVIDIA A100-PCIE-40GB") == "a100-40gb");
    CHECK(id_for("NVIDIA H100 80GB HBM3") == "h100-sxm");
    CHECK(id_for("NVIDIA H100 PCIe") == "h100-pcie");
    CHECK(id_for("NVIDIA GeForce RTX 4090") == "rtx-4090");
    CHECK(id_for("NVIDIA B200") == "b200");
    CHECK(id_for("nvidia h200") == "h200-sxm");  // case-insensitive
    // names the profiles deliberately do not claim
    CHECK(id_for("NVIDIA GH200 480GB") == "(none)");
    CHECK(id_for("NVIDIA GB200") == "(none)");
    CHECK(id_for("NVIDIA A100 80GB PCIe") == "(none)");
    CHECK(id_for("Tesla V100-SXM2-16GB") == "(none)");
}

TEST_CASE("the valid hardware fixture loads (so each bad fixture fails for its one defect)", "[hardware]") {
    auto p = load_profile(test_data() / "hardware" / "valid_fixture.yaml");
    CHECK(p.id == "valid_fixture");
    CHECK(p.memory.bandwidth_tbs == 3.0);
    CHECK(p.peak.at(Dtype::fp16).dense_tflops == 800);
}

TEST_CASE("hardware schema errors name the file, the line and the field", "[hardware]") {
    SECTION("missing field inside memory") {
        auto message = load_error("missing_bandwidth.yaml");
        INFO(message);
        check_mentions(message, {"missing_bandwidth.yaml:", "memory.bandwidth_tbs", "missing"});
        // the memory mapping starts on line 8 (its first key); line 7 (`memory:`) would do as well
        CHECK((contains(message, "missing_bandwidth.yaml:8:") || contains(message, "missing_bandwidth.yaml:7:")));
    }
    // A bad fixture under tests/data/hardware/, and what its error must say.
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"missing_sm_count.yaml", {"missing_sm_count.yaml:", "sm_count"}},
        {"negative_bandwidth.yaml", {"negative_bandwidth.yaml:10:", "memory.bandwidth_tbs", "-2.0"}},
        // the typo, and the allowed key, so that the fix is visible
        {"typo_bandwith.yaml", {"typo_bandwith.yaml:10:", "bandwith_tbs", "bandwidth_tbs"}},
        {"sparse_not_above_dense.yaml", {"sparse_not_above_dense.yaml:16:", "peak_tflops.fp16", "sparse"}},
        {"syntax_error.yaml", {"syntax_error.yaml:9:", "malformed YAML"}},
    };
    for (const auto& [fixture, mentions] : cases) {
        DYNAMIC_SECTION(fixture) { check_mentions(load_error(fixture), mentions); }
    }
    SECTION("missing file") {
        auto message = input_error_of([] { load_profile(test_data() / "hardware" / "no_such_gpu.yaml"); });
        CHECK(contains(message, "no_such_gpu.yaml"));
    }
}

TEST_CASE("measured ceilings: save and load round trip", "[hardware]") {
    TempDir dir;
    auto m = h200_measured_ceilings();  // every field set
    m.gemm_tflops[Dtype::fp16] = 721.5;
    auto file = dir / ".roofline/ceilings/h200-sxm.yaml";  // folders that do not exist yet
    save_measured(m, file);
    REQUIRE(std::filesystem::exists(file));
    CHECK_FALSE(std::filesystem::exists(dir / ".roofline/ceilings/h200-sxm.yaml.tmp"));

    auto back = load_measured(file);
    CHECK(back.file == file);
    CHECK(back.profile_id == m.profile_id);
    CHECK(back.device_name == m.device_name);
    CHECK(back.measured_at == m.measured_at);
    CHECK(back.copy_kernel_tbs == Approx(m.copy_kernel_tbs));
    CHECK(back.memcpy_tbs == Approx(m.memcpy_tbs));
    CHECK(back.read_only_tbs == Approx(m.read_only_tbs));
    CHECK(back.fp32_fma_tflops == Approx(m.fp32_fma_tflops));
    CHECK(back.launch_us == Approx(m.launch_us));
    CHECK(back.graph_launch_us == Approx(m.graph_launch_us));
    CHECK(back.sm_clock_mhz == Approx(m.sm_clock_mhz));
    REQUIRE(back.gemm_tflops.size() == 2);
    CHECK(back.gemm_tflops.at(Dtype::bf16) == Approx(m.gemm_tflops.at(Dtype::bf16)));
    CHECK(back.gemm_tflops.at(Dtype::fp16) == Approx(m.gemm_tflops.at(Dtype::fp16)));
}

TEST_CASE("measured ceilings: a broken file names the file and field", "[hardware]") {
    TempDir dir;
    auto file = dir / "h200-sxm.yaml";
    write_file(file,
               "profile: h200-sxm\ndevice: NVIDIA H200\nmeasured_at: 2026-11-29T10:00:00Z\ncopy_kernel_tbs: 3.95\n"
               "memcpy_tbs: 0\nread_only_tbs: 4.55\nfp32_fma_tflops: 50\nlaunch_us: 5\ngraph_launch_us: 0.5\n"
               "sm_clock_mhz: 1500\ngemm_tflops: {bf16: 733}\n");
    auto message = input_error_of([&] { load_measured(file); });
    check_mentions(message, {"h200-sxm.yaml:5:", "memcpy_tbs"});
}

namespace {

// The ceilings probe's answer as roofline-ceilings writes it (nlohmann's dump(2)), with the
// fields `roofline ceilings` does not keep; `figure` and `status` replace a field's value.
nlohmann::json probe_answer() {
    return {{"device", "NVIDIA H200"}, {"sm_count", 132}, {"l2_bytes", 62914560},
            {"copy_kernel_styles_tbs", {{"float4", 3.9}}}, {"copy_kernel_tbs", 3.95}, {"memcpy_tbs", 4.1},
            {"read_only_tbs", 4.55}, {"fp32_fma_tflops", 50.2}, {"fp32_fma_sm_clock_mhz", 1980},
            {"mma_sync_bf16_tflops", 610.0}, {"wgmma_fp8_tflops", 1650.0}, {"timing", {{"copy", {{"median_s", 1e-3}}}}},
            {"gemm", {{"bf16", {{"tflops", 733.0}, {"n", 8192}}}, {"fp16", {{"tflops", 721.5}}}}},
            {"sm_clock_mhz", 1830}, {"launch", {{"launch_us", 2.1}, {"graph_launch_us", 0.6}}}, {"status", "ok"}};
}

}  // namespace

TEST_CASE("the ceilings probe's answer is read with the profiles' checked readers", "[hardware]") {
    TempDir dir;
    auto file = dir / "ceilings.json";
    write_file(file, probe_answer().dump(2));
    auto m = read_ceilings_probe(file);
    CHECK(m.device_name == "NVIDIA H200");
    CHECK(m.copy_kernel_tbs == Approx(3.95));
    CHECK(m.memcpy_tbs == Approx(4.1));
    CHECK(m.read_only_tbs == Approx(4.55));
    CHECK(m.fp32_fma_tflops == Approx(50.2));
    CHECK(m.mma_sync_bf16_tflops == Approx(610.0));
    CHECK(m.wgmma_fp8_tflops == Approx(1650.0));
    CHECK(m.wgmma_fp8_skipped.empty());
    REQUIRE(m.gemm_tflops.size() == 2);
    CHECK(m.gemm_tflops.at(Dtype::bf16) == Approx(733.0));
    CHECK(m.launch_us == Approx(2.1));
    CHECK(m.graph_launch_us == Approx(0.6));
    CHECK(m.sm_clock_mhz == Approx(1830));

    SECTION("a figure of zero names the file, its line and the field") {
        auto answer = probe_answer();
        answer["memcpy_tbs"] = 0;
        auto text = answer.dump(2);
        write_file(file, text);
        // the line the field is on, as the reader must name it
        int line = 1 + int(std::count(text.begin(), text.begin() + long(text.find("\"memcpy_tbs\"")), '\n'));
        check_mentions(input_error_of([&] { read_ceilings_probe(file); }),
                       {"ceilings.json:" + std::to_string(line) + ":", "memcpy_tbs", "positive"});
    }
    SECTION("a missing figure, a figure that was NaN (JSON null) and a nested one are named") {
        auto answer = probe_answer();
        answer.erase("read_only_tbs");
        write_file(file, answer.dump(2));
        check_mentions(input_error_of([&] { read_ceilings_probe(file); }), {"ceilings.json", "read_only_tbs"});
        answer = probe_answer();
        answer["fp32_fma_tflops"] = nullptr;
        write_file(file, answer.dump(2));
        check_mentions(input_error_of([&] { read_ceilings_probe(file); }), {"ceilings.json", "fp32_fma_tflops"});
        answer = probe_answer();
        answer["launch"]["graph_launch_us"] = -1;
        write_file(file, answer.dump(2));
        check_mentions(input_error_of([&] { read_ceilings_probe(file); }), {"ceilings.json", "launch.graph_launch_us"});
        answer = probe_answer();
        answer["gemm"]["fp9"] = {{"tflops", 1}};
        write_file(file, answer.dump(2));
        check_mentions(input_error_of([&] { read_ceilings_probe(file); }), {"ceilings.json", "fp9"});
    }
    SECTION("the FP8 wgmma rate: a figure, or the probe's note on why not, never neither") {
        auto answer = probe_answer();
        answer["wgmma_fp8_tflops"] = 0;
        write_file(file, answer.dump(2));
        check_mentions(input_error_of([&] { read_ceilings_probe(file); }), {"ceilings.json", "wgmma_fp8_tflops", "positive"});
        answer.erase("wgmma_fp8_tflops");
        write_file(file, answer.dump(2));
        check_mentions(input_error_of([&] { read_ceilings_probe(file); }),
                       {"ceilings.json", "wgmma_fp8_tflops", "wgmma_fp8_skipped", "roofline ceilings"});
        answer["wgmma_fp8_skipped"] = "the FP8 wgmma probe runs on Hopper (compute capability 9.0) alone; this GPU is 8.0";
        write_file(file, answer.dump(2));
        auto a100 = read_ceilings_probe(file);
        CHECK(a100.wgmma_fp8_tflops == 0);
        CHECK(contains(a100.wgmma_fp8_skipped, "this GPU is 8.0"));
    }
    SECTION("a probe that says it failed is refused with its message") {
        write_file(file, nlohmann::json{{"status", "error"}, {"message", "cudaMalloc: out of memory"}}.dump(2));
        check_mentions(input_error_of([&] { read_ceilings_probe(file); }),
                       {"ceilings.json", "the probe failed", "cudaMalloc: out of memory"});
    }
    SECTION("an answer that is not JSON names the file") {
        write_file(file, "{\"device\": \"NVIDIA H200\", \"copy_kernel_tbs\": [");
        check_mentions(input_error_of([&] { read_ceilings_probe(file); }), {"ceilings.json"});
    }
}

TEST_CASE("choose_ceiling prefers measured figures and says where each came from", "[hardware]") {
    // the valid fixture: 3.0 TB/s; fp64 30, fp32 60, bf16 800 TFLOP/s
    auto gpu = load_profile(test_data() / "hardware" / "valid_fixture.yaml");

    SECTION("datasheet only") {
        auto c = choose_ceiling(gpu, nullptr, Dtype::bf16);
        CHECK(c.ceiling.peak_tflops == 800);
        CHECK(c.ceiling.bandwidth_tbs == 3.0);
        check_mentions(c.peak_origin, {"valid_fixture", "datasheet"});
        CHECK(contains(c.bandwidth_origin, "datasheet"));
        CHECK(c.launch_overhead_s == Approx(5e-6));
    }

    auto m = h200_measured_ceilings();  // bf16 733 TFLOP/s
    m.profile_id = "valid_fixture";
    m.memcpy_tbs = 2.7;
    m.fp32_fma_tflops = 50.3;
    m.launch_us = 4.5;

    SECTION("measured GEMM and bandwidth") {
        auto c = choose_ceiling(gpu, &m, Dtype::bf16);
        CHECK(c.ceiling.peak_tflops == 733);
        CHECK(c.ceiling.bandwidth_tbs == 2.7);
        check_mentions(c.peak_origin, {"measured", "bf16"});
        check_mentions(c.bandwidth_origin, {"measured", "cudaMemcpy"});
        CHECK(c.launch_overhead_s == Approx(4.5e-6));
    }
    SECTION("fp32 falls back to the measured FMA kernel") {
        auto c = choose_ceiling(gpu, &m, Dtype::fp32);
        CHECK(c.ceiling.peak_tflops == 50.3);
        check_mentions(c.peak_origin, {"measured", "FMA"});
    }
    SECTION("a dtype not measured keeps the datasheet peak but the measured bandwidth") {
        auto c = choose_ceiling(gpu, &m, Dtype::fp64);
        CHECK(c.ceiling.peak_tflops == 30);
        CHECK(contains(c.peak_origin, "datasheet"));
        CHECK(c.ceiling.bandwidth_tbs == 2.7);
        CHECK(contains(c.bandwidth_origin, "measured"));
    }
    SECTION("fp8 takes the measured FP8 wgmma rate where the probe has one, and the datasheet's where not") {
        auto h200 = load_profile(repo_root() / "hardware" / "h200-sxm.yaml");
        auto sheet = choose_ceiling(h200, &m, Dtype::fp8);
        CHECK(sheet.ceiling.peak_tflops == h200.peak.at(Dtype::fp8).dense_tflops);
        CHECK(contains(sheet.peak_origin, "datasheet"));
        m.wgmma_fp8_tflops = 1650;
        auto measured = choose_ceiling(h200, &m, Dtype::fp8);
        CHECK(measured.ceiling.peak_tflops == 1650);
        check_mentions(measured.peak_origin, {"measured", "fp8 wgmma"});
        CHECK(measured.ceiling.bandwidth_tbs == 2.7);
        // a measured cuBLAS FP8 GEMM, where a file has one, stays the roof (the rule of the other tensor dtypes)
        m.gemm_tflops[Dtype::fp8] = 1400;
        CHECK(choose_ceiling(h200, &m, Dtype::fp8).ceiling.peak_tflops == 1400);
    }
    SECTION("a dtype the part lacks is an error even with measurements") {
        auto message = input_error_of([&] { choose_ceiling(gpu, &m, Dtype::fp8); });
        CHECK(contains(message, "fp8"));
    }
}
