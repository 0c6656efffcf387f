// The roofline arithmetic (lib/core/roofline.cpp): FLOP and byte counts, intensity,
// ridge, floors, attainable rate, regime and the GEMM crossover size. Expected
// numbers are worked by hand in the comments.
#include "test_support.hpp"

#include "elementwise/model.hpp"
#include "gemm/model.hpp"
#include "hardware.hpp"
#include "roofline.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>

using namespace roofline;
using namespace roofline_test;

TEST_CASE("square fp16 GEMM N=4096: FLOPs, bytes and intensity", "[roofline]") {
    auto w = gemm::work_of(4096, 4096, 4096, dtype_bytes(Dtype::fp16));
    // 2 N^3 = 2 * 68,719,476,736 = 137,438,953,472 FLOP
    CHECK(w.flops == 137438953472.0);
    // three N^2 matrices of 2-byte elements: 3 * 16,777,216 * 2 = 100,663,296 bytes
    CHECK(w.bytes == 100663296.0);
    // 2N^3 / (3 N^2 * 2) = N / 3 = 1365.33 FLOP/byte
    auto p = analyze(w, Ceiling{1000, 1});
    CHECK(p.intensity == Approx(4096.0 / 3.0).epsilon(1e-12));
    CHECK(p.intensity == Approx(1365.33).epsilon(1e-5));
}

TEST_CASE("rectangular GEMM counts M*K + K*N + M*N elements", "[roofline]") {
    // M=1, N=8192, K=8192 in bf16: 2*1*8192*8192 = 134,217,728 FLOP;
    // (8192 + 67,108,864 + 8192) elements * 2 bytes = 134,250,496 bytes; intensity ~0.99976
    auto w = gemm::work_of(1, 8192, 8192, dtype_bytes(Dtype::bf16));
    CHECK(w.flops == 134217728.0);
    CHECK(w.bytes == 134250496.0);
    auto p = analyze(w, Ceiling{989.4, 4.8});
    CHECK(p.intensity == Approx(134217728.0 / 134250496.0));
    CHECK(p.regime == Regime::memory);  // ~1 FLOP/byte is far below a ridge of 206
}

TEST_CASE("fp16 elementwise add: 2 reads, 1 write, 1 FLOP is 1/6 FLOP/byte", "[roofline]") {
    // per element: 1 FLOP over (2 + 1) * 2 bytes = 1/6
    auto w = elementwise::work_of(1 << 20, 2, 1, 1, dtype_bytes(Dtype::fp16));
    CHECK(w.flops == 1048576.0);
    CHECK(w.bytes == 6.0 * 1048576.0);
    auto p = analyze(w, Ceiling{989.4, 4.8});
    CHECK(p.intensity == Approx(1.0 / 6.0));
    CHECK(p.regime == Regime::memory);
}

TEST_CASE("analyze: floors, ridge and attainable for the GEMM under custom ceilings", "[roofline]") {
    // 2000 TFLOP/s and 8 TB/s: ridge 2000e12 / 8e12 = 250 FLOP/byte
    auto p = analyze(gemm::work_of(4096, 4096, 4096, dtype_bytes(Dtype::fp16)), Ceiling{2000, 8});
    CHECK(p.ridge == Approx(250.0));
    // compute floor 137,438,953,472 / 2e15 = 68.72 us; memory floor 100,663,296 / 8e12 = 12.58 us
    CHECK(p.compute_floor_s == Approx(68.719476736e-6));
    CHECK(p.memory_floor_s == Approx(12.582912e-6));
    CHECK(p.floor_s == Approx(68.719476736e-6));
    // intensity 1365 > 250: compute-bound, attainable = min(2000, 8 * 1365.3 = 10923) = 2000
    CHECK(p.regime == Regime::compute);
    CHECK(p.attainable_tflops == Approx(2000.0));
    // the bytes moved in the floor time: 100,663,296 / 68.72e-6 s = 1.4648 TB/s
    CHECK(p.attainable_tbs == Approx(1.46484375));
}

TEST_CASE("analyze: a memory-bound add on H200 figures", "[roofline]") {
    // fp16 add over 2^28 elements: 3 * 2^28 * 2 = 1,610,612,736 bytes; 2^28 = 268,435,456 FLOP
    auto w = elementwise::work_of(268435456.0, 2, 1, 1, dtype_bytes(Dtype::fp16));
    auto p = analyze(w, Ceiling{989.4, 4.8});
    // memory floor 1,610,612,736 / 4.8e12 = 335.54 us; compute floor 2.68e8 / 989.4e12 = 0.2713 us
    CHECK(p.memory_floor_s == Approx(335.5443e-6).epsilon(1e-6));
    CHECK(p.compute_floor_s == Approx(0.271311e-6).epsilon(1e-5));
    CHECK(p.floor_s == p.memory_floor_s);
    CHECK(p.regime == Regime::memory);
    // attainable = min(989.4, 4.8 * 1/6 = 0.8) = 0.8 TFLOP/s; the bytes move at the full 4.8 TB/s
    CHECK(p.attainable_tflops == Approx(0.8));
    CHECK(p.attainable_tbs == Approx(4.8));
}

TEST_CASE("attainable = min(peak, bandwidth x intensity) across intensities", "[roofline]") {
    // fp32 elementwise, 1 read + 1 write = 8 bytes per element; f FLOP per element gives intensity f / 8.
    // Ceiling 67 TFLOP/s, 4.8 TB/s: ridge 13.96 FLOP/byte.
    struct Case {
        double flops_per_element, intensity, attainable;
        Regime regime;
    };
    // f = 8: I = 1, 4.8 * 1 = 4.8 ; f = 80: I = 10, 48 ; f = 112: I = 14, 67.2 > 67 -> 67 ; f = 8000: I = 1000 -> 67
    for (auto c : {Case{8, 1, 4.8, Regime::memory}, Case{80, 10, 48, Regime::memory},
                   Case{112, 14, 67, Regime::compute}, Case{8000, 1000, 67, Regime::compute}}) {
        INFO("flops per element " << c.flops_per_element);
        auto p =
            analyze(elementwise::work_of(1e9, 1, 1, c.flops_per_element, dtype_bytes(Dtype::fp32)), Ceiling{67, 4.8});
        CHECK(p.intensity == Approx(c.intensity));
        CHECK(p.attainable_tflops == Approx(c.attainable));
        CHECK(p.regime == c.regime);
    }
}

TEST_CASE("regime is overhead when both floors are under the launch overhead", "[roofline]") {
    Ceiling h200_fp16{989.4, 4.8};
    // fp16 add of 1024 elements: 6,144 bytes / 4.8e12 = 1.28 ns, far below a 5 us launch
    auto small = elementwise::work_of(1024, 2, 1, 1, dtype_bytes(Dtype::fp16));
    CHECK(analyze(small, h200_fp16, 5e-6).regime == Regime::overhead);
    CHECK(analyze(small, h200_fp16, 0).regime == Regime::memory);  // 0: classify by the roofs only
    // a 64^3 fp16 GEMM: 524,288 FLOP / 989.4e12 = 0.53 ns: overhead; by the roofs, intensity
    // 2*64/6 = 21.3 < ridge 206: memory
    auto tiny_gemm = gemm::work_of(64, 64, 64, dtype_bytes(Dtype::fp16));
    CHECK(analyze(tiny_gemm, h200_fp16, 5e-6).regime == Regime::overhead);
    CHECK(analyze(tiny_gemm, h200_fp16, 0).regime == Regime::memory);
    // fp16 GEMM 4096 on H200: compute floor 137.4e9 / 989.4e12 = 138.9 us > 5 us: not overhead
    auto big = analyze(gemm::work_of(4096, 4096, 4096, dtype_bytes(Dtype::fp16)), h200_fp16, 5e-6);
    CHECK(big.regime == Regime::compute);
    // the floors are the physics; overhead changes only the label
    CHECK(analyze(small, h200_fp16, 5e-6).floor_s == analyze(small, h200_fp16, 0).floor_s);
}

TEST_CASE("regime names round trip and reject unknown names", "[roofline]") {
    for (auto r : {Regime::compute, Regime::memory, Regime::overhead}) {
        CHECK(parse_regime(regime_name(r)) == r);
    }
    CHECK(regime_name(Regime::compute) == "compute");
    CHECK(regime_name(Regime::memory) == "memory");
    CHECK(regime_name(Regime::overhead) == "overhead");
    CHECK(parse_regime("Compute") == Regime::compute);  // case-insensitive, like dtypes and hardware ids
    CHECK(parse_regime("MEMORY") == Regime::memory);
    CHECK_FALSE(parse_regime("latency").has_value());
    CHECK_FALSE(parse_regime("computer").has_value());
}

TEST_CASE("dtype sizes and names", "[roofline]") {
    CHECK(dtype_bytes(Dtype::fp64) == 8);
    CHECK(dtype_bytes(Dtype::fp32) == 4);
    CHECK(dtype_bytes(Dtype::tf32) == 4);  // stored as fp32
    CHECK(dtype_bytes(Dtype::fp16) == 2);
    CHECK(dtype_bytes(Dtype::bf16) == 2);
    CHECK(dtype_bytes(Dtype::fp8) == 1);
    CHECK(dtype_bytes(Dtype::fp4) == 0.5);  // two per byte
    for (auto d : all_dtypes) CHECK(parse_dtype(dtype_name(d)) == d);
    CHECK_FALSE(parse_dtype("fp17").has_value());
    CHECK(parse_dtype("BF16") == Dtype::bf16);  // case-insensitive, like hardware ids
    CHECK(parse_dtype("Fp8") == Dtype::fp8);
    CHECK_FALSE(parse_dtype("bf1").has_value());
    auto message = input_error_of([] { require_dtype("int8", "--dtype"); });
    check_mentions(message, {"--dtype", "int8"});
    CHECK(contains(message, "bf16"));  // lists the known ones
}

TEST_CASE("GEMM crossover N: hand-worked values", "[roofline]") {
    // N = ceil(1.5 * bytes * ridge). 2000/8: ridge 250, fp16 -> 1.5 * 2 * 250 = 750
    CHECK(gemm_crossover_n(Ceiling{2000, 8}, Dtype::fp16) == 750);
    // H200 bf16: ridge 989.4 / 4.8 = 206.125 -> 1.5 * 2 * 206.125 = 618.375 -> 619
    CHECK(gemm_crossover_n(Ceiling{989.4, 4.8}, Dtype::bf16) == 619);
    // H200 fp32: ridge 67 / 4.8 = 13.958 -> 1.5 * 4 * 13.958 = 83.75 -> 84
    CHECK(gemm_crossover_n(Ceiling{67, 4.8}, Dtype::fp32) == 84);
}

TEST_CASE("GEMM crossover N agrees with analyze() for every shipped profile and dtype", "[roofline]") {
    auto profiles = load_profiles(repo_root() / "hardware");
    REQUIRE(!profiles.empty());
    for (const auto& p : profiles) {
        for (const auto& [dtype, figure] : p.peak) {
            INFO(p.id << " " << dtype_name(dtype));
            auto ceiling = p.datasheet_ceiling(dtype);
            auto n = gemm_crossover_n(ceiling, dtype);
            REQUIRE(n >= 2);
            // N is the first square size at or past the ridge: N is compute-bound, N - 1 is not
            CHECK(analyze(gemm::work_of(n, n, n, dtype_bytes(dtype)), ceiling).regime == Regime::compute);
            CHECK(analyze(gemm::work_of(n - 1, n - 1, n - 1, dtype_bytes(dtype)), ceiling).regime == Regime::memory);
        }
    }
}

TEST_CASE("ridge = peak / bandwidth for every dtype of every shipped profile", "[roofline][hardware]") {
    auto dir = repo_root() / "hardware";
    auto profiles = load_profiles(dir);
    int checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".yaml") continue;
        // Read the figures straight from the YAML, independently of load_profile.
        auto raw = YAML::LoadFile(entry.path().string());
        double bandwidth = raw["memory"]["bandwidth_tbs"].as<double>();
        const auto& profile = find_profile(profiles, entry.path().stem().string());
        std::size_t dtypes_in_file = 0;
        for (const auto& kv : raw["peak_tflops"]) {
            auto dtype = parse_dtype(kv.first.as<std::string>());
            REQUIRE(dtype.has_value());
            ++dtypes_in_file;
            double peak = kv.second["dense"].as<double>();
            INFO(entry.path().filename().string() << " " << kv.first.as<std::string>() << ": " << peak << " / "
                                                  << bandwidth);
            auto point =
                analyze(gemm::work_of(4096, 4096, 4096, dtype_bytes(*dtype)), profile.datasheet_ceiling(*dtype));
            CHECK(point.ridge == Approx(peak / bandwidth).epsilon(1e-12));
            ++checked;
        }
        CHECK(profile.peak.size() == dtypes_in_file);
    }
    CHECK(checked >= 5 * 9);  // nine profiles, at least fp64..bf16 each
}
