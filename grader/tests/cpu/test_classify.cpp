// The regime classifier practice (`roofline classify`): expected answers worked by
// hand from the shipped hardware profiles, deterministic generation, the scoring
// edges, and errors for malformed answer files.
#include "catch.hpp"

#include "classify.hpp"
#include "hardware.hpp"
#include "input_error.hpp"

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

using namespace roofline;
using namespace roofline::classify;

namespace {

const std::filesystem::path kRoot = ROOFLINE_SOURCE_DIR;

const std::vector<HardwareProfile>& profiles() {
    static const auto loaded = load_profiles(kRoot / "hardware");
    return loaded;
}

bool near(double got, double want, double rel = 1e-3) { return std::fabs(got - want) <= rel * std::fabs(want); }

Question gemm(double m, double n, double k, Dtype dtype, const std::string& gpu) {
    Question q;
    q.id = "t";
    q.gpu = gpu;
    q.op.kind = OpKind::gemm;
    q.op.dtype = dtype;
    q.op.m = m;
    q.op.n = n;
    q.op.k = k;
    return q;
}

Question elementwise(double n, double reads, double writes, double flops, Dtype dtype, const std::string& gpu,
                     int launches = 1) {
    Question q;
    q.id = "t";
    q.gpu = gpu;
    q.launches = launches;
    q.op.kind = OpKind::elementwise;
    q.op.dtype = dtype;
    q.op.count = n;
    q.op.reads = reads;
    q.op.writes = writes;
    q.op.flops_per_element = flops;
    return q;
}

Question attention(bool materialized, const std::string& gpu) {
    Question q;
    q.id = "t";
    q.gpu = gpu;
    q.op.kind = OpKind::attention;
    q.op.dtype = Dtype::fp16;
    q.op.batch = 1;
    q.op.heads = 32;
    q.op.seq = 4096;
    q.op.head_dim = 128;
    q.op.materialized = materialized;
    return q;
}

Expected answer_for(const Question& q, double overhead_s = 5e-6) {
    return expected_answer(q, find_profile(profiles(), q.gpu), overhead_s);
}

// A scratch file under the system temp folder, removed when the test ends.
struct TempFile {
    std::filesystem::path path;
    TempFile(const std::string& name, const std::string& text) {
        path = std::filesystem::temp_directory_path() / ("roofline_classify_test_" + name);
        std::ofstream(path) << text;
    }
    ~TempFile() { std::filesystem::remove(path); }
};

// The message of the InputError that `f` throws ("" if it throws none).
template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a 4096^3 fp16 GEMM on the H100 SXM is compute-bound at about 139 us", "[classify]") {
    // FLOPs 2 * 4096^3 = 137,438,953,472; bytes 3 * 4096^2 * 2 = 100,663,296.
    // Intensity 1365.3 FLOP/B; ridge 989.4 / 3.35 = 295.3. Compute floor 137.44e9 / 989.4e12 = 138.91 us;
    // memory floor 100.66e6 / 3.35e12 = 30.05 us.
    auto e = answer_for(gemm(4096, 4096, 4096, Dtype::fp16, "h100-sxm"));
    CHECK(e.regime == Regime::compute);
    CHECK(near(e.time_us, 138.91));
    CHECK(near(e.point.memory_floor_s * 1e6, 30.05));
    CHECK(near(e.point.intensity, 1365.3));
}

TEST_CASE("a batch-1 decode GEMM (m = 1) is memory-bound", "[classify]") {
    // 1 x 8192 x 8192 bf16: bytes (8192 + 8192*8192 + 8192) * 2 = 134,250,496 -> / 3.35e12 = 40.075 us.
    // FLOPs 2 * 8192^2 = 134,217,728 -> 0.136 us. Intensity ~1 FLOP/B, far below the ridge of 295.
    auto e = answer_for(gemm(1, 8192, 8192, Dtype::bf16, "h100-sxm"));
    CHECK(e.regime == Regime::memory);
    CHECK(near(e.time_us, 40.075));
    CHECK(e.point.intensity < 1.01);
}

TEST_CASE("attention flips from compute- to memory-bound when the score matrix is materialized", "[classify]") {
    // B=1, H=32, S=4096, D=128, fp16 on the H100 SXM. FLOPs 4 * 32 * 4096^2 * 128 = 274.88e9 -> 277.83 us.
    // Fused bytes 4 * 32 * 4096 * 128 * 2 = 134.2e6 -> 40.06 us: compute-bound at 277.83 us.
    // Materialized adds 2 * 32 * 4096^2 * 2 = 2147.5e6 bytes: 2281.7e6 -> 681.1 us: memory-bound.
    auto fused = answer_for(attention(false, "h100-sxm"));
    auto materialized = answer_for(attention(true, "h100-sxm"));
    CHECK(fused.regime == Regime::compute);
    CHECK(near(fused.time_us, 277.83));
    CHECK(materialized.regime == Regime::memory);
    CHECK(near(materialized.time_us, 681.1));
    CHECK(fused.work.flops == materialized.work.flops);
}

TEST_CASE("the same GEMM is compute-bound on the H100 and memory-bound on the L4", "[classify]") {
    // 384 x 8192 x 8192 fp16: FLOPs 51.54e9; bytes (384*8192*2 + 8192^2) * 2 = 146.8e6; intensity 351.1.
    // H100 SXM ridge 295.3 < 351 -> compute, 51.54e9 / 989.4e12 = 52.09 us.
    // L4 ridge 121 / 0.3 = 403.3 > 351 -> memory, 146.8e6 / 0.3e12 = 489.3 us.
    auto h100 = answer_for(gemm(384, 8192, 8192, Dtype::fp16, "h100-sxm"));
    auto l4 = answer_for(gemm(384, 8192, 8192, Dtype::fp16, "l4"));
    CHECK(h100.regime == Regime::compute);
    CHECK(near(h100.time_us, 52.09));
    CHECK(l4.regime == Regime::memory);
    CHECK(near(l4.time_us, 489.3));
}

TEST_CASE("small operations are overhead-bound, and launches multiply the floor", "[classify]") {
    // c = a + b over 65536 fp32: 65536 * 3 * 4 = 786,432 B -> 0.235 us on the H100 SXM, under 5 us.
    auto tiny = answer_for(elementwise(65536, 2, 1, 1, Dtype::fp32, "h100-sxm"));
    CHECK(tiny.regime == Regime::overhead);
    CHECK(near(tiny.time_us, 5.0));
    // Five launches: the overhead floor is 25 us.
    auto five = answer_for(elementwise(65536, 6, 4, 8, Dtype::fp32, "h100-sxm", 5));
    CHECK(five.regime == Regime::overhead);
    CHECK(near(five.time_us, 25.0));
    // The same five kernels over 2^26 elements: 2^26 * 10 * 4 = 2.684e9 B -> 801.3 us, memory-bound.
    auto big = answer_for(elementwise(67108864, 6, 4, 8, Dtype::fp32, "h100-sxm", 5));
    CHECK(big.regime == Regime::memory);
    CHECK(near(big.time_us, 801.3));
    // A measured launch cost replaces the 5 us: at 0.1 us per launch the tiny add is memory-bound at 0.235 us.
    auto graph = answer_for(elementwise(65536, 2, 1, 1, Dtype::fp32, "h100-sxm"), 0.1e-6);
    CHECK(graph.regime == Regime::memory);
    CHECK(near(graph.time_us, 0.23475));
}

TEST_CASE("elementwise math is held to the CUDA-core peak, not the tensor cores", "[classify]") {
    // 2^26 fp32, 1 read + 1 write, 400 FLOP each: 26.84e9 FLOP over 536.9e6 B = 50 FLOP/B.
    // H100 SXM fp32 ridge 66.9 / 3.35 = 20 -> compute, 26.84e9 / 66.9e12 = 401.2 us.
    // L4 fp32 ridge 30.3 / 0.3 = 101 -> memory, 536.9e6 / 0.3e12 = 1789.6 us.
    auto h100 = answer_for(elementwise(67108864, 1, 1, 400, Dtype::fp32, "h100-sxm"));
    auto l4 = answer_for(elementwise(67108864, 1, 1, 400, Dtype::fp32, "l4"));
    CHECK(h100.regime == Regime::compute);
    CHECK(near(h100.time_us, 401.2));
    CHECK(l4.regime == Regime::memory);
    CHECK(near(l4.time_us, 1789.6));
    // bf16 storage still computes on the fp32 CUDA cores.
    auto bf16 = elementwise(1024, 1, 1, 1, Dtype::bf16, "h100-sxm");
    CHECK(compute_dtype(bf16.op) == Dtype::fp32);
    CHECK(ceiling_for(bf16.op, find_profile(profiles(), "h100-sxm")).peak_tflops == 66.9);
}

TEST_CASE("a sparse-quoted question is still answered with the dense peak", "[classify]") {
    // 8192^3 fp16 on the L4: 1.0995e12 FLOP / 121e12 (dense; the datasheet's 242 is sparse) = 9086.7 us.
    auto q = gemm(8192, 8192, 8192, Dtype::fp16, "l4");
    q.quote_sparse = true;
    auto e = answer_for(q);
    CHECK(e.regime == Regime::compute);
    CHECK(near(e.time_us, 9086.7));
    auto prompt = prompt_text(q, find_profile(profiles(), "l4"));
    CHECK(contains(prompt, "242*"));
    CHECK_FALSE(contains(prompt, "121 TFLOP/s"));
    q.quote_sparse = false;
    CHECK(contains(prompt_text(q, find_profile(profiles(), "l4")), "121 TFLOP/s"));
}

TEST_CASE("the shipped bank loads, covers what the lessons promise, and agrees with its explanations", "[classify]") {
    auto bank = load_bank(kRoot / "lessons" / "practice" / "bank.yaml");
    REQUIRE_NOTHROW(validate_questions(bank, profiles()));
    CHECK(bank.size() >= 20);
    std::set<Regime> regimes;
    bool sparse = false, decode = false, fused = false, unfused = false, multi_launch = false;
    for (const auto& q : bank) {
        auto e = answer_for(q);
        regimes.insert(e.regime);
        // An explanation that argues for another regime than the roofline gives has gone stale.
        INFO(q.id << " computes as " << regime_name(e.regime) << "-bound");
        std::string lower = q.explanation;
        for (auto& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
        CHECK(contains(lower, std::string(regime_name(e.regime)) + "-bound"));
        sparse |= q.quote_sparse;
        decode |= q.op.kind == OpKind::gemm && q.op.m == 1 && e.regime == Regime::memory;
        fused |= q.op.kind == OpKind::attention && !q.op.materialized;
        unfused |= q.op.kind == OpKind::attention && q.op.materialized;
        multi_launch |= q.launches > 1 && e.regime == Regime::overhead;
    }
    CHECK(regimes.size() == 3);
    CHECK(sparse);
    CHECK(decode);
    CHECK(fused);
    CHECK(unfused);
    CHECK(multi_launch);
    // Some operation appears on two GPUs with two different regimes.
    bool flips = false;
    for (const auto& a : bank) {
        for (const auto& b : bank) {
            bool same_op = a.op.kind == b.op.kind && a.op.dtype == b.op.dtype && a.op.m == b.op.m &&
                           a.op.n == b.op.n && a.op.k == b.op.k && a.op.count == b.op.count &&
                           a.op.flops_per_element == b.op.flops_per_element && a.launches == b.launches;
            if (same_op && a.gpu != b.gpu && answer_for(a).regime != answer_for(b).regime) flips = true;
        }
    }
    CHECK(flips);
}

TEST_CASE("bank errors name the file and line", "[classify]") {
    TempFile bank("bank_bad_kind.yaml",
                  "questions:\n"
                  "  - id: a\n"
                  "    gpu: h100-sxm\n"
                  "    op: {kind: convolution, dtype: fp16}\n"
                  "    explanation: x\n");
    auto message = error_of([&] { load_bank(bank.path); });
    CHECK(contains(message, bank.path.string() + ":4"));
    CHECK(contains(message, "gemm, elementwise, raw or attention"));

    TempFile unknown_gpu("bank_bad_gpu.yaml",
                         "questions:\n"
                         "  - id: a\n"
                         "    gpu: h300\n"
                         "    op: {kind: gemm, dtype: fp16, m: 1, n: 2, k: 3}\n"
                         "    explanation: x\n");
    auto questions = load_bank(unknown_gpu.path);
    message = error_of([&] { validate_questions(questions, profiles()); });
    CHECK(contains(message, unknown_gpu.path.string() + ":2"));
    CHECK(contains(message, "h300"));
}

TEST_CASE("generated questions are deterministic for a seed and differ between seeds", "[classify]") {
    auto describe = [](const std::vector<Question>& qs) {
        std::string out;
        for (const auto& q : qs) {
            out += q.id + " " + q.gpu + " " + prompt_text(q, find_profile(profiles(), q.gpu)) + "\n";
        }
        return out;
    };
    auto a = generate_questions(10, 42, profiles());
    auto b = generate_questions(10, 42, profiles());
    auto c = generate_questions(10, 43, profiles());
    REQUIRE(a.size() == 10);
    CHECK(describe(a) == describe(b));
    CHECK(describe(a) != describe(c));
    CHECK(a.front().id == "s42-01");
    CHECK(a.back().id == "s42-10");
    REQUIRE_NOTHROW(validate_questions(a, profiles()));

    // Over many draws every kind and every regime turns up.
    auto many = generate_questions(300, 7, profiles());
    std::set<OpKind> kinds;
    std::set<Regime> regimes;
    for (const auto& q : many) {
        kinds.insert(q.op.kind);
        regimes.insert(answer_for(q).regime);
    }
    CHECK(kinds.size() == 4);
    CHECK(regimes.size() == 3);
}

TEST_CASE("uniform_below stays in range and reaches every value", "[classify]") {
    std::mt19937_64 rng(1);
    std::set<std::uint64_t> seen;
    for (int i = 0; i < 1000; ++i) {
        auto v = uniform_below(rng, 7);
        REQUIRE(v < 7);
        seen.insert(v);
    }
    CHECK(seen.size() == 7);
    CHECK(uniform_below(rng, 1) == 0);
}

TEST_CASE("time credit: full within 1.5x, half within 3x, the edges inclusive", "[classify]") {
    CHECK(time_credit(100, 100) == 1.0);
    CHECK(time_credit(150, 100) == 1.0);      // exactly 1.5x over
    CHECK(time_credit(100, 150) == 1.0);      // exactly 1.5x under
    CHECK(time_credit(150.1, 100) == 0.5);    // just past 1.5x
    CHECK(time_credit(300, 100) == 0.5);      // exactly 3x
    CHECK(time_credit(100.0 / 3, 100) == 0.5);  // exactly 3x under
    CHECK(time_credit(300.1, 100) == 0.0);    // just past 3x
    CHECK(time_credit(0, 100) == 0.0);
}

TEST_CASE("check_answers scores regime and time separately", "[classify]") {
    std::vector<Question> qs{gemm(4096, 4096, 4096, Dtype::fp16, "h100-sxm"),
                             gemm(1, 8192, 8192, Dtype::bf16, "h100-sxm"),
                             gemm(256, 256, 256, Dtype::fp16, "h100-sxm"),
                             gemm(4096, 4096, 4096, Dtype::fp16, "l4")};
    qs[0].id = "big";
    qs[1].id = "decode";
    qs[2].id = "tiny";
    qs[3].id = "unanswered";
    // Hand-worked floors: big 138.91 us compute; decode 40.075 us memory; tiny overhead at 5 us.
    // The edges are taken from the computed floors so that 1.5x and 3x are exact up to rounding.
    double big_us = answer_for(qs[0]).time_us, decode_us = answer_for(qs[1]).time_us;
    REQUIRE(near(big_us, 138.91));
    REQUIRE(near(decode_us, 40.075));
    std::vector<Answer> answers{
        {"big", Regime::compute, big_us * 1.5, 1},      // right regime, exactly 1.5x: 2 points
        {"decode", Regime::compute, decode_us * 3, 2},  // wrong regime, exactly 3x: 0.5 points
        {"tiny", Regime::overhead, std::nullopt, 3},  // right regime, no time: 1 point
    };
    auto report = check_answers(qs, profiles(), answers);
    REQUIRE(report.grades.size() == 4);
    CHECK(report.grades[0].points == 2.0);
    CHECK_FALSE(report.grades[1].regime_correct);
    CHECK(report.grades[1].points == 0.5);
    CHECK(report.grades[2].points == 1.0);
    CHECK(report.grades[3].points == 0.0);
    CHECK_FALSE(report.grades[3].answer.has_value());
    CHECK(report.points == 3.5);
    CHECK(report.max_points == 8.0);
    CHECK(report.answered == 3);
    // A launch cost measured below the tiny GEMM's 0.117 us memory floor makes it memory-bound.
    auto measured = check_answers(qs, profiles(), answers, {{"h100-sxm", 0.05e-6}});
    CHECK(measured.grades[2].expected.regime == Regime::memory);
    CHECK(measured.grades[2].points == 0.0);
}

TEST_CASE("answers files: the template round-trips and malformed files name the line", "[classify]") {
    auto bank = load_bank(kRoot / "lessons" / "practice" / "bank.yaml");
    TempFile blank("answers_template.yaml", answers_template(bank, "test"));
    auto answers = load_answers(blank.path, bank);
    CHECK(answers.size() == bank.size());
    CHECK(check_answers(bank, profiles(), answers).answered == 0);

    const std::string good_id = bank.front().id;
    struct Case {
        std::string name, text, where, says;
    };
    std::vector<Case> cases{
        {"bad_regime.yaml", "- id: " + good_id + "\n  regime: fast\n  time_us: 10\n", ":2", "compute, memory or overhead"},
        {"unknown_id.yaml", "- {id: " + good_id + ", regime: compute, time_us: 1}\n- {id: no-such-question, regime: memory}\n",
         ":2", "no-such-question"},
        {"unit_in_time.yaml", "- id: " + good_id + "\n  regime: memory\n  time_us: 5 us\n", ":3", "without a unit"},
        {"typo_key.yaml", "- id: " + good_id + "\n  regime: memory\n  time_ms: 5\n", ":3", "time_ms"},
        {"syntax.yaml", "- id: " + good_id + "\n  regime: [memory\n", ":", "malformed YAML"},
        {"not_a_list.yaml", "id: " + good_id + "\nregime: memory\n", ":1", "must be a list"},
        {"duplicate.yaml", "- {id: " + good_id + "}\n- {id: " + good_id + "}\n", ":2", "second time"},
        {"negative.yaml", "- {id: " + good_id + ", time_us: -4}\n", ":1", "positive"},
    };
    for (const auto& c : cases) {
        TempFile file(c.name, c.text);
        auto message = error_of([&] { load_answers(file.path, bank); });
        INFO(c.name << ": " << message);
        CHECK(contains(message, file.path.string() + c.where));
        CHECK(contains(message, c.says));
    }
}
