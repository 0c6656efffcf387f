// The regime classifier practice (`roofline classify`): expected answers worked by
// hand from the shipped hardware profiles, deterministic generation, the scoring
// edges, and errors for malformed answer files.
#include "catch.hpp"

#include "classify.hpp"
#include "hardware.hpp"
#include "input_error.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
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

std::string fmt_misses(const Grade& g) {
    std::string out;
    for (const auto& m : g.misses) out += m + "; ";
    return out;
}

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
    // Materialized (lesson 08, attention/model.hpp: fp32 scores, four passes) adds 16 * 32 * 4096^2 =
    // 8589.9e6 bytes: 8724.2e6 -> 2604.2 us: memory-bound, as `roofline calc --attention` says.
    auto fused = answer_for(attention(false, "h100-sxm"));
    auto materialized = answer_for(attention(true, "h100-sxm"));
    CHECK(fused.regime == Regime::compute);
    CHECK(near(fused.time_us, 277.83));
    CHECK(materialized.regime == Regime::memory);
    CHECK(near(materialized.time_us, 2604.22));
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

// What an explanation must say for the answer the roofline gives: the regime, the roof,
// the levers that help, the stage count.
std::vector<std::string> explanation_must_name(const Question& q, const Expected& e) {
    switch (q.type) {
        case QuestionType::regime:
        case QuestionType::predict:
        case QuestionType::incident:
        case QuestionType::tile_intensity: return {std::string(regime_name(e.regime)) + "-bound"};
        case QuestionType::read_roofline: return {std::string(regime_name(e.regime)) + " roof"};
        case QuestionType::littles_law: return {std::to_string(e.stages) + " stages"};
        case QuestionType::lever: {
            std::vector<std::string> names;
            for (auto lever : e.helps) names.emplace_back(lever_name(lever));
            return names;
        }
    }
    return {};
}

TEST_CASE("the shipped bank loads, covers what the lessons promise, and agrees with its explanations", "[classify]") {
    auto bank = load_bank(kRoot / "lessons" / "practice" / "bank.yaml");
    REQUIRE_NOTHROW(validate_questions(bank, profiles()));
    CHECK(bank.size() >= 40);
    std::set<Regime> regimes;
    std::set<QuestionType> types;
    std::set<int> lessons, difficulties;
    bool sparse = false, decode = false, fused = false, unfused = false, multi_launch = false;
    bool lever_helps = false, lever_nothing = false;
    int previous_difficulty = 1;
    for (const auto& q : bank) {
        auto e = answer_for(q);
        types.insert(q.type);
        lessons.insert(q.lesson);
        difficulties.insert(q.difficulty);
        CHECK(q.difficulty >= previous_difficulty);  // easiest first
        previous_difficulty = q.difficulty;
        // An explanation that argues for another answer than the roofline gives has gone stale.
        std::string lower = q.explanation;
        for (auto& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
        for (const auto& word : explanation_must_name(q, e)) {
            INFO(q.id << " (" << question_type_name(q.type) << ") computes as " << expected_text(q, e)
                      << "; its explanation should say '" << word << "'");
            CHECK(contains(lower, word));
        }
        if (q.type == QuestionType::lever) {
            lever_helps |= !e.helps.empty();
            lever_nothing |= e.helps.size() < q.levers.size();
        }
        if (q.type != QuestionType::regime) continue;
        regimes.insert(e.regime);
        sparse |= q.quote_sparse;
        decode |= q.op.kind == OpKind::gemm && q.op.m == 1 && e.regime == Regime::memory;
        fused |= q.op.kind == OpKind::attention && !q.op.materialized;
        unfused |= q.op.kind == OpKind::attention && q.op.materialized;
        multi_launch |= q.launches > 1 && e.regime == Regime::overhead;
    }
    CHECK(regimes.size() == 3);
    CHECK(types.size() == 7);                              // every question type
    CHECK(lessons == std::set<int>{0, 1, 3, 4, 6, 7, 10});  // every lesson the bank promises
    CHECK(difficulties == std::set<int>{1, 2, 3});
    CHECK(lever_helps);
    CHECK(lever_nothing);  // some lever in the bank does nothing
    CHECK(sparse);
    CHECK(decode);
    CHECK(fused);
    CHECK(unfused);
    CHECK(multi_launch);
    // Some operation appears on two GPUs with two different regimes.
    bool flips = false;
    for (const auto& a : bank) {
        for (const auto& b : bank) {
            if (a.type != QuestionType::regime || b.type != QuestionType::regime) continue;
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
                  "    difficulty: 1\n"
                  "    lesson: 1\n"
                  "    gpu: h100-sxm\n"
                  "    op: {kind: convolution, dtype: fp16}\n"
                  "    explanation: x\n");
    auto message = error_of([&] { load_bank(bank.path); });
    CHECK(contains(message, bank.path.string() + ":6"));
    CHECK(contains(message, "gemm, elementwise, raw or attention"));

    TempFile unknown_gpu("bank_bad_gpu.yaml",
                         "questions:\n"
                         "  - id: a\n"
                         "    difficulty: 1\n"
                         "    lesson: 1\n"
                         "    gpu: h300\n"
                         "    op: {kind: gemm, dtype: fp16, m: 1, n: 2, k: 3}\n"
                         "    explanation: x\n");
    auto questions = load_bank(unknown_gpu.path);
    message = error_of([&] { validate_questions(questions, profiles()); });
    CHECK(contains(message, unknown_gpu.path.string() + ":2"));
    CHECK(contains(message, "h300"));
}

TEST_CASE("a bank out of difficulty order is refused at the question that breaks it", "[classify]") {
    TempFile bank("bank_order.yaml",
                  "questions:\n"
                  "  - {id: a, difficulty: 1, lesson: 1, gpu: h100-sxm, explanation: x,\n"
                  "     op: {kind: gemm, dtype: fp16, m: 4096, n: 4096, k: 4096}}\n"
                  "  - {id: b, difficulty: 3, lesson: 1, gpu: h100-sxm, explanation: x,\n"
                  "     op: {kind: gemm, dtype: fp16, m: 4096, n: 4096, k: 4096}}\n"
                  "  - {id: c, difficulty: 2, lesson: 1, gpu: h100-sxm, explanation: x,\n"
                  "     op: {kind: gemm, dtype: fp16, m: 4096, n: 4096, k: 4096}}\n");
    auto message = error_of([&] { load_bank(bank.path); });
    CHECK(contains(message, bank.path.string() + ":6"));
    CHECK(contains(message, "after question 'b'"));
    CHECK(contains(message, "move 'c' up"));

    // The same questions in order load.
    TempFile ordered("bank_ordered.yaml",
                     "questions:\n"
                     "  - {id: a, difficulty: 1, lesson: 1, gpu: h100-sxm, explanation: x,\n"
                     "     op: {kind: gemm, dtype: fp16, m: 4096, n: 4096, k: 4096}}\n"
                     "  - {id: c, difficulty: 2, lesson: 1, gpu: h100-sxm, explanation: x,\n"
                     "     op: {kind: gemm, dtype: fp16, m: 4096, n: 4096, k: 4096}}\n");
    CHECK(load_bank(ordered.path).size() == 2);
}

TEST_CASE("a question without an answer is refused, naming its line", "[classify]") {
    struct Case {
        std::string name, question, says;
        bool at_load;  // refused by load_bank; else by validate_questions
    };
    std::vector<Case> cases{
        {"no_difficulty", "  - {id: a, lesson: 1, gpu: h100-sxm, explanation: x, "
                          "op: {kind: gemm, dtype: fp16, m: 64, n: 64, k: 64}}\n",
         "difficulty", true},
        {"no_explanation", "  - {id: a, difficulty: 1, lesson: 1, gpu: h100-sxm, "
                           "op: {kind: gemm, dtype: fp16, m: 64, n: 64, k: 64}}\n",
         "explanation", true},
        {"no_levers", "  - {id: a, type: lever, difficulty: 1, lesson: 0, gpu: h100-sxm, explanation: x, levers: [],\n"
                      "     op: {kind: gemm, dtype: fp16, m: 4096, n: 4096, k: 4096}}\n",
         "offers no levers", false},
        {"fuse_without_fused", "  - {id: a, type: lever, difficulty: 1, lesson: 3, gpu: h100-sxm, explanation: x,\n"
                               "     levers: [fuse], launches: 3,\n"
                               "     op: {kind: elementwise, dtype: fp32, n: 67108864, reads: 4, writes: 2, "
                               "flops_per_element: 1}}\n",
         "fused: {reads", false},
        // A 9 us memory floor behind 2 launches (10 us): a graph leaves max(9, 2 x 1) = 9 us, 90% of the
        // time, between "helps" (80%) and "nothing" (95%).
        {"too_close", "  - {id: a, type: lever, difficulty: 1, lesson: 0, gpu: h100-sxm, explanation: x,\n"
                      "     levers: [graph], launches: 2,\n"
                      "     op: {kind: raw, dtype: fp32, flops: 0, bytes: 3.015e7}}\n",
         "too close to call", false},
        {"above_the_roof", "  - {id: a, type: read_roofline, difficulty: 1, lesson: 1, gpu: h100-sxm, explanation: x,\n"
                           "     dtype: bf16, point: {flop_per_byte: 10, tflops: 50}}\n",
         "above the roof", false},
        {"unknown_type", "  - {id: a, type: essay, difficulty: 1, lesson: 1, gpu: h100-sxm, explanation: x}\n",
         "regime, predict, lever", true},
    };
    for (const auto& c : cases) {
        TempFile bank("bank_" + c.name + ".yaml", "questions:\n" + c.question);
        std::string message;
        if (c.at_load) {
            message = error_of([&] { load_bank(bank.path); });
        } else {
            auto questions = load_bank(bank.path);
            message = error_of([&] { validate_questions(questions, profiles()); });
        }
        INFO(c.name << ": " << message);
        CHECK(contains(message, bank.path.string() + ":2"));
        CHECK(contains(message, c.says));
    }
}

TEST_CASE("the new question types, worked by hand", "[classify]") {
    auto question = [](QuestionType type, const std::string& gpu) {
        Question q;
        q.id = "t";
        q.type = type;
        q.gpu = gpu;
        return q;
    };
    SECTION("Little's law: 4.8 TB/s x 600 ns over 132 SMs, 16 KiB stages") {
        auto q = question(QuestionType::littles_law, "h200-sxm");
        q.latency_ns = 600;
        q.stage_kib = 16;
        auto e = answer_for(q);
        CHECK(near(e.kib_per_sm, 4.8e12 * 600e-9 / 132 / 1024));  // 21.3 KiB
        CHECK(e.stages == 3);                                       // 2 in flight + 1 being read
        q.bandwidth_tbs = 2.4;                                      // half the rate: one tile in flight is enough
        CHECK(answer_for(q).stages == 2);
        q.stage_kib = 4;                                            // 10.65 KiB in 4 KiB stages: 3 in flight
        CHECK(answer_for(q).stages == 4);
    }
    SECTION("read a roofline: 40 FLOP/B and 100 TFLOP/s on the H100 SXM") {
        auto q = question(QuestionType::read_roofline, "h100-sxm");
        q.dtype = Dtype::bf16;
        q.point_flop_per_byte = 40;
        q.point_tflops = 100;
        auto e = answer_for(q);
        CHECK(e.regime == Regime::memory);
        CHECK(near(e.fraction, 100 / (3.35 * 40)));
        q.point_flop_per_byte = 400;  // right of the ridge (295): the compute roof
        e = answer_for(q);
        CHECK(e.regime == Regime::compute);
        CHECK(near(e.fraction, 100 / 989.4));
    }
    SECTION("tile intensity: 128 x 256 bf16 is 85.3 FLOP/B, under the H200's ridge of 206") {
        auto q = question(QuestionType::tile_intensity, "h200-sxm");
        q.dtype = Dtype::bf16;
        q.tile_m = 128;
        q.tile_n = 256;
        auto e = answer_for(q);
        CHECK(near(e.flop_per_byte, 2.0 * 128 * 256 / (384 * 2)));
        CHECK(e.regime == Regime::memory);
        q.dtype = Dtype::fp32;  // the fp32 ridge is 14: 42.7 FLOP/B is past it
        CHECK(answer_for(q).regime == Regime::compute);
    }
    SECTION("predict: the floor at the measured rates") {
        auto q = elementwise(1e8, 3, 1, 3, Dtype::fp32, "h200-sxm");
        q.type = QuestionType::predict;
        q.measured_tbs = 4.2;
        q.measured_tflops = 63.6;
        auto e = answer_for(q);
        CHECK(near(e.time_us, 1.6e9 / 4.2e12 * 1e6));  // 381 us, not the datasheet's 333
        CHECK(e.regime == Regime::memory);
    }
    SECTION("levers: a memory-bound layer norm gains from fusion and fp8, not from a graph or tensor cores") {
        auto q = elementwise(67108864, 6, 4, 8, Dtype::fp32, "h100-sxm", 5);
        q.type = QuestionType::lever;
        q.levers = {Lever::fuse, Lever::graph, Lever::fp8, Lever::tensor_cores};
        q.fused_reads = 1;
        q.fused_writes = 1;
        auto e = answer_for(q);
        CHECK(e.regime == Regime::memory);
        CHECK(e.helps == std::vector<Lever>{Lever::fuse, Lever::fp8});
        REQUIRE(e.lever_time_us.size() == 4);
        CHECK(near(e.lever_time_us[0].second, 67108864.0 * 2 * 4 / 3.35e12 * 1e6));  // fused: 2 values per element
        // The small one is overhead-bound: launches matter, bytes do not.
        q.op.count = 65536;
        e = answer_for(q);
        CHECK(e.regime == Regime::overhead);
        CHECK(e.helps == std::vector<Lever>{Lever::fuse, Lever::graph});
    }
    SECTION("levers: batching a decode GEMV divides the weight's bytes among the requests") {
        auto q = gemm(1, 8192, 8192, Dtype::bf16, "h200-sxm");
        q.type = QuestionType::lever;
        q.levers = {Lever::batch, Lever::tensor_cores};
        q.batch = 32;
        auto e = answer_for(q);
        CHECK(e.helps == std::vector<Lever>{Lever::batch});
        CHECK(e.lever_time_us[0].second < e.time_us / 20);
    }
}

TEST_CASE("check_answers scores the new types, and an answer field of another type is refused", "[classify]") {
    auto bank = load_bank(kRoot / "lessons" / "practice" / "bank.yaml");
    auto find = [&](const std::string& id) {
        for (const auto& q : bank) {
            if (q.id == id) return q;
        }
        FAIL("no question " << id);
        return Question{};
    };
    std::vector<Question> qs{find("little-h200-datasheet"), find("roofline-read-h100-memory"),
                             find("lever-layernorm-large"), find("tile-128x256-bf16-h200"), find("predict-axpby-h200")};
    TempFile file("answers_types.yaml",
                  "- {id: little-h200-datasheet, kib_per_sm: 21, stages: 2}\n"         // 1 + 0.5
                  "- {id: roofline-read-h100-memory, regime: memory, fraction: 0.6}\n"  // 1 + 0.5 (0.15 off)
                  "- {id: lever-layernorm-large, helps: [fuse]}\n"                       // 3 of 4 right: 1.5
                  "- {id: tile-128x256-bf16-h200, flop_per_byte: 85, regime: compute}\n"  // 1 + 0
                  "- {id: predict-axpby-h200, time_us: 381}\n");                         // 2
    auto answers = load_answers(file.path, qs);
    auto report = check_answers(qs, profiles(), answers);
    REQUIRE(report.grades.size() == 5);
    CHECK(report.grades[0].points == 1.5);
    CHECK(report.grades[1].points == 1.5);
    CHECK(report.grades[2].points == 1.5);
    CHECK(contains(fmt_misses(report.grades[2]), "fp8 helps"));
    CHECK(report.grades[3].points == 1.0);
    CHECK(report.grades[4].points == 2.0);
    CHECK(report.max_points == 10.0);

    TempFile wrong_field("answers_wrong_field.yaml", "- id: little-h200-datasheet\n  regime: memory\n");
    auto message = error_of([&] { load_answers(wrong_field.path, qs); });
    CHECK(contains(message, wrong_field.path.string() + ":2"));
    CHECK(contains(message, "answer it with kib_per_sm and stages"));
    TempFile not_offered("answers_not_offered.yaml", "- {id: lever-layernorm-large, helps: [batch]}\n");
    message = error_of([&] { load_answers(not_offered.path, qs); });
    CHECK(contains(message, not_offered.path.string() + ":1"));
    CHECK(contains(message, "does not offer"));
    TempFile percent("answers_percent.yaml", "- {id: roofline-read-h100-memory, regime: memory, fraction: 62}\n");
    message = error_of([&] { load_answers(percent.path, qs); });
    CHECK(contains(message, "0.62, not 62"));
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

    // Over many draws every kind, every regime and every generated type turns up.
    auto many = generate_questions(300, 7, profiles());
    REQUIRE_NOTHROW(validate_questions(many, profiles()));  // every one has an answer
    std::set<OpKind> kinds;
    std::set<Regime> regimes;
    std::set<QuestionType> types;
    for (const auto& q : many) {
        types.insert(q.type);
        if (q.type != QuestionType::regime) continue;
        kinds.insert(q.op.kind);
        regimes.insert(answer_for(q).regime);
    }
    CHECK(kinds.size() == 4);
    CHECK(regimes.size() == 3);
    CHECK(types == std::set<QuestionType>{QuestionType::regime, QuestionType::littles_law,
                                         QuestionType::tile_intensity, QuestionType::read_roofline});

    // The expected answers, written into an answers file, score full marks through the same checker.
    std::string text;
    for (const auto& q : many) {
        auto e = answer_for(q);
        text += fmt::format("- id: {}\n", q.id);
        switch (q.type) {
            case QuestionType::regime:
                text += fmt::format("  regime: {}\n  time_us: {:.17g}\n", regime_name(e.regime), e.time_us);
                break;
            case QuestionType::littles_law:
                text += fmt::format("  kib_per_sm: {:.17g}\n  stages: {}\n", e.kib_per_sm, e.stages);
                break;
            case QuestionType::tile_intensity:
                text += fmt::format("  flop_per_byte: {:.17g}\n  regime: {}\n", e.flop_per_byte, regime_name(e.regime));
                break;
            case QuestionType::read_roofline:
                text += fmt::format("  regime: {}\n  fraction: {:.17g}\n", regime_name(e.regime), e.fraction);
                break;
            default: FAIL("generated a " << question_type_name(q.type) << " question");
        }
    }
    TempFile perfect("answers_generated.yaml", text);
    auto report = check_answers(many, profiles(), load_answers(perfect.path, many));
    CHECK(report.answered == 300);
    CHECK(report.points == report.max_points);
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

TEST_CASE("incident questions: a decode step's per-op table, its regime and floor computed by lesson 10's rules",
          "[classify][incident]") {
    auto bank = load_bank(kRoot / "lessons" / "practice" / "bank.yaml");
    std::map<std::string, Question> by_id;
    for (const auto& q : bank)
        if (q.type == QuestionType::incident) by_id[q.id] = q;
    REQUIRE(by_id.size() >= 3);
    std::set<Regime> regimes;
    for (const auto& [id, q] : by_id) regimes.insert(answer_for(q).regime);
    CHECK(regimes.size() == 3);  // one table per regime

    // The recorded run: 15.55 GB at the H200's 4.8 TB/s is the 3.239 ms floor `roofline serve` printed.
    const auto& recorded = by_id.at("incident-step-b1-recorded");
    auto e = answer_for(recorded);
    CHECK(e.regime == Regime::memory);
    CHECK(near(e.time_us, 3239, 5e-4));
    CHECK(e.reading.culprit == "attention");
    CHECK(contains(working(recorded, e), "attention"));
    CHECK(answer_for(by_id.at("incident-step-lm-head-fp32")).reading.culprit == "lm_head");
    CHECK(answer_for(by_id.at("incident-step-launch-storm")).regime == Regime::overhead);
    // The prompt gives the table and the roofs, never the answer.
    auto prompt = prompt_text(recorded, find_profile(profiles(), "h200-sxm"));
    CHECK(contains(prompt, "attention"));
    CHECK(contains(prompt, "1.177 ms"));
    CHECK_FALSE(contains(prompt, "memory-bound"));

    // The answer's rule changes with the table, not with the bank: the same step with the host as slow as the GPU.
    auto slow_host = recorded;
    slow_host.step.host_enqueue_s = slow_host.step.single_step_s;
    CHECK(answer_for(slow_host).regime == Regime::overhead);

    // Scored like a regime question: regime, then the floor within 1.5x.
    std::vector<Question> qs{recorded, by_id.at("incident-step-launch-storm")};
    TempFile file("answers_incident.yaml",
                  "- {id: incident-step-b1-recorded, regime: memory, time_us: 3700}\n"
                  "- {id: incident-step-launch-storm, regime: memory, time_us: 20000}\n");
    auto report = check_answers(qs, profiles(), load_answers(file.path, qs));
    CHECK(report.grades[0].points == kRegimePoints + kTimePoints);
    CHECK(report.grades[1].points == 0);  // the wrong regime, and the step's time is not its floor
}

TEST_CASE("a malformed incident question is refused, naming its line", "[classify][incident]") {
    std::string head = "  - id: a\n    type: incident\n    difficulty: 3\n    lesson: 10\n    gpu: h200-sxm\n"
                       "    explanation: x\n    step: {batch: 1, context: 4096, graph: true, launches: 389, step_ms: 5.9,\n"
                       "           single_step_ms: 5.9, host_enqueue_ms: 0.01, source: test}\n";
    TempFile unknown_op("bank_incident_op.yaml", "questions:\n" + head + "    ops: [[moe_router, 1.0]]\n");
    auto questions = load_bank(unknown_op.path);
    auto message = error_of([&] { validate_questions(questions, profiles()); });
    CHECK(contains(message, unknown_op.path.string() + ":2"));
    CHECK(contains(message, "moe_router"));
    TempFile bad_row("bank_incident_row.yaml", "questions:\n" + head + "    ops: [[attention, fast]]\n");
    message = error_of([&] { load_bank(bad_row.path); });
    CHECK(contains(message, bad_row.path.string() + ":10"));
    CHECK(contains(message, "not a number"));
    auto batch_65 = head;
    batch_65.replace(batch_65.find("batch: 1,"), 9, "batch: 65,");
    TempFile big_batch("bank_incident_batch.yaml", "questions:\n" + batch_65 + "    ops: [[attention, 1]]\n");
    message = error_of([&] { load_bank(big_batch.path); });
    CHECK(contains(message, "1 to 64"));
}
