#include "classify.hpp"

#include "elementwise/model.hpp"
#include "gemm/model.hpp"
#include "input_error.hpp"
#include "units.hpp"
#include "yaml_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>

namespace roofline::classify {

std::string_view op_kind_name(OpKind kind) {
    switch (kind) {
        case OpKind::gemm: return "gemm";
        case OpKind::elementwise: return "elementwise";
        case OpKind::raw: return "raw";
        case OpKind::attention: return "attention";
    }
    return "?";
}

Workload workload_of(const Operation& op) {
    double size = dtype_bytes(op.dtype);
    switch (op.kind) {
        case OpKind::gemm: return gemm::work_of(op.m, op.n, op.k, size);
        case OpKind::elementwise: return elementwise::work_of(op.count, op.reads, op.writes, op.flops_per_element, size);
        case OpKind::raw: return {op.flops, op.bytes};
        case OpKind::attention: {
            double pairs = op.batch * op.heads;  // independent (batch, head) problems
            double flops = 4.0 * pairs * op.seq * op.seq * op.head_dim;
            double elements = 4.0 * pairs * op.seq * op.head_dim;
            if (op.materialized) elements += 2.0 * pairs * op.seq * op.seq;
            return {flops, elements * size};
        }
    }
    return {};
}

Dtype compute_dtype(const Operation& op) {
    if (op.kind == OpKind::elementwise) return op.dtype == Dtype::fp64 ? Dtype::fp64 : Dtype::fp32;
    return op.dtype;
}

Ceiling ceiling_for(const Operation& op, const HardwareProfile& profile) {
    return profile.datasheet_ceiling(compute_dtype(op));
}

Expected expected_answer(const Question& question, const HardwareProfile& profile, double launch_overhead_s) {
    Expected e;
    e.work = workload_of(question.op);
    e.ceiling = ceiling_for(question.op, profile);
    double overhead_s = question.launches * launch_overhead_s;
    e.point = analyze(e.work, e.ceiling, overhead_s);
    e.regime = e.point.regime;
    e.overhead_us = overhead_s * 1e6;
    e.time_us = std::max(e.point.floor_s, overhead_s) * 1e6;
    return e;
}

namespace {

std::string count_text(double value) {
    // Shapes are whole numbers; print them with thousands separators for reading.
    auto digits = fmt::format("{:.0f}", value);
    std::string out;
    int since = 0;
    for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
        if (since == 3) {
            out.insert(out.begin(), ',');
            since = 0;
        }
        out.insert(out.begin(), *it);
        ++since;
    }
    return out;
}

std::string unit_name(const Operation& op) {
    auto dtype = compute_dtype(op);
    if (op.kind == OpKind::elementwise) {
        return fmt::format("{} on the CUDA cores (elementwise math does not use the tensor cores)", dtype_name(dtype));
    }
    if (dtype == Dtype::fp64 || dtype == Dtype::fp32) return fmt::format("{} on the CUDA cores", dtype_name(dtype));
    return fmt::format("{} tensor core", dtype_name(dtype));
}

std::string operation_text(const Operation& op) {
    auto dt = dtype_name(op.dtype);
    switch (op.kind) {
        case OpKind::gemm:
            return fmt::format("GEMM C[M,N] = A[M,K] B[K,N] with M = {}, N = {}, K = {}; A, B and C in {}.",
                               count_text(op.m), count_text(op.n), count_text(op.k), dt);
        case OpKind::elementwise:
            return fmt::format(
                "Elementwise over {} elements of {}: per element {:g} value(s) read, {:g} written, {:g} FLOP.",
                count_text(op.count), dt, op.reads, op.writes, op.flops_per_element);
        case OpKind::raw:
            return fmt::format("A kernel that does {} of {} arithmetic and must move {} through device memory.",
                               si(op.flops, "FLOP"), dt, si(op.bytes, "B"));
        case OpKind::attention:
            return fmt::format(
                "Attention softmax(Q K^T) V: batch {}, {} heads, seq {}, head_dim {}, {}; {}.",
                count_text(op.batch), count_text(op.heads), count_text(op.seq), count_text(op.head_dim), dt,
                op.materialized ? "unfused: the seq x seq score matrix is written to memory and read back"
                                : "fused: the scores stay on chip (FlashAttention-style)");
    }
    return "?";
}

}  // namespace

std::string counting_rules() {
    return "Counting rules (elements x bytes per element; bf16/fp16 2 B, fp32 4 B, fp8 1 B, fp4 0.5 B):\n"
           "  GEMM         2*M*N*K FLOP; bytes (M*K + K*N + M*N) elements, each matrix moved once\n"
           "  elementwise  n * FLOP-per-element; bytes n * (reads + writes) elements\n"
           "  attention    4*batch*heads*seq^2*head_dim FLOP (softmax not counted); bytes Q, K, V, O:\n"
           "               4*batch*heads*seq*head_dim elements, plus 2*batch*heads*seq^2 when the score\n"
           "               matrix is materialized (written once, read back once)\n"
           "  time floor   max(FLOP / peak, bytes / bandwidth, launches x launch overhead)\n"
           "  regime       overhead if the roofline floor max(FLOP/peak, bytes/bandwidth) is below\n"
           "               launches x launch overhead; else compute if FLOP/byte >= peak/bandwidth, else memory\n";
}

std::string prompt_text(const Question& q, const HardwareProfile& profile, double launch_overhead_s) {
    auto dtype = compute_dtype(q.op);
    auto it = profile.peak.find(dtype);
    std::string peak;
    if (it == profile.peak.end()) {
        peak = fmt::format("no {} unit", dtype_name(dtype));
    } else if (q.quote_sparse && it->second.sparse_tflops) {
        peak = fmt::format("{:g}* TFLOP/s {} (datasheet; footnote: * with sparsity)", *it->second.sparse_tflops,
                           unit_name(q.op));
    } else {
        peak = fmt::format("{:g} TFLOP/s {}", it->second.dense_tflops, unit_name(q.op));
    }
    std::string text = fmt::format("[{}] on {} ({})\n  {}\n  GPU: {}; memory {:g} TB/s; {:g} us per kernel launch.\n",
                                   q.id, profile.name, profile.id, operation_text(q.op), peak,
                                   profile.memory.bandwidth_tbs, launch_overhead_s * 1e6);
    if (q.launches > 1) text += fmt::format("  It takes {} separate kernel launches.\n", q.launches);
    if (!q.prompt.empty()) text += fmt::format("  {}\n", q.prompt);
    return text;
}

std::string working(const Question& q, const Expected& e) {
    const auto& p = e.point;
    std::string verdict;
    if (e.regime == Regime::overhead) {
        verdict = fmt::format("; roofline floor {} < {} launch(es) x {} = {} -> overhead-bound, floor {}",
                              seconds(p.floor_s), q.launches, seconds(e.overhead_us * 1e-6 / q.launches),
                              seconds(e.overhead_us * 1e-6), seconds(e.time_us * 1e-6));
    } else {
        verdict = fmt::format(" -> {}-bound, floor {}", regime_name(e.regime), seconds(e.time_us * 1e-6));
    }
    return fmt::format("{} / {:g} TFLOP/s = {}; {} / {:g} TB/s = {}; intensity {:.4g} FLOP/B {} ridge {:.4g}{}",
                       si(e.work.flops, "FLOP"), e.ceiling.peak_tflops, seconds(p.compute_floor_s),
                       si(e.work.bytes, "B"), e.ceiling.bandwidth_tbs, seconds(p.memory_floor_s), p.intensity,
                       p.intensity >= p.ridge ? ">=" : "<", p.ridge, verdict);
}

// ---------------------------------------------------------------- the bank

namespace {

bool read_bool(const YamlView& view) {
    auto text = view.as_string();
    if (text == "true") return true;
    if (text == "false") return false;
    view.fail(fmt::format("must be true or false (got '{}')", text));
}

Operation read_operation(const YamlView& view) {
    if (!view.node().IsMap()) view.fail("must be a mapping such as {kind: gemm, dtype: bf16, m: 4096, n: 4096, k: 4096}");
    Operation op;
    auto kind = view.string("kind");
    op.dtype = require_dtype(view.string("dtype"),
                             fmt::format("{}:{}: field '{}.dtype'", view.file().string(), view.at("dtype").line(),
                                         view.path()));
    if (kind == "gemm") {
        view.only_keys({"kind", "dtype", "m", "n", "k"});
        op.kind = OpKind::gemm;
        op.m = double(view.positive_int("m"));
        op.n = double(view.positive_int("n"));
        op.k = double(view.positive_int("k"));
    } else if (kind == "elementwise") {
        view.only_keys({"kind", "dtype", "n", "reads", "writes", "flops_per_element"});
        op.kind = OpKind::elementwise;
        op.count = double(view.positive_int("n"));
        op.reads = view.at("reads").as_nonnegative_double();
        op.writes = view.at("writes").as_nonnegative_double();
        op.flops_per_element = view.at("flops_per_element").as_nonnegative_double();
        if (op.reads + op.writes <= 0) view.fail("moves no bytes: give reads or writes a value above 0");
    } else if (kind == "raw") {
        view.only_keys({"kind", "dtype", "flops", "bytes"});
        op.kind = OpKind::raw;
        op.flops = view.at("flops").as_nonnegative_double();
        op.bytes = view.positive("bytes");
    } else if (kind == "attention") {
        view.only_keys({"kind", "dtype", "batch", "heads", "seq", "head_dim", "materialized"});
        op.kind = OpKind::attention;
        op.batch = double(view.positive_int("batch"));
        op.heads = double(view.positive_int("heads"));
        op.seq = double(view.positive_int("seq"));
        op.head_dim = double(view.positive_int("head_dim"));
        op.materialized = read_bool(view.at("materialized"));
    } else {
        view.at("kind").fail(fmt::format("must be gemm, elementwise, raw or attention (got '{}')", kind));
    }
    return op;
}

}  // namespace

std::vector<Question> load_bank(const std::filesystem::path& file) {
    auto root = YamlView::load_file(file);
    if (!root.node().IsMap()) root.fail("a question bank must be a mapping with a 'questions:' list");
    root.only_keys({"questions"});
    std::vector<Question> out;
    std::map<std::string, int> seen;
    for (const auto& item : root.at("questions").items()) {
        if (!item.node().IsMap()) item.fail("must be a mapping with id, gpu, op and explanation");
        item.only_keys({"id", "gpu", "op", "launches", "quote_sparse", "prompt", "explanation"});
        Question q;
        q.file = file;
        q.line = item.line();
        q.id = item.string("id");
        if (q.id.empty() || q.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_") != std::string::npos) {
            item.at("id").fail("must use only lowercase letters, digits, '-' and '_'");
        }
        if (auto [it, fresh] = seen.emplace(q.id, q.line); !fresh) {
            item.at("id").fail(fmt::format("repeats id '{}' (first at line {}); give each question its own id", q.id,
                                           it->second));
        }
        q.gpu = item.string("gpu");
        q.op = read_operation(item.at("op"));
        if (auto launches = item.maybe("launches")) q.launches = int(launches->as_positive_int());
        if (auto quote = item.maybe("quote_sparse")) q.quote_sparse = read_bool(*quote);
        if (auto prompt = item.maybe("prompt")) q.prompt = prompt->as_string();
        q.explanation = item.string("explanation");
        // Folded YAML blocks end with a newline; keep the text one paragraph.
        while (!q.explanation.empty() && std::isspace(static_cast<unsigned char>(q.explanation.back()))) {
            q.explanation.pop_back();
        }
        out.push_back(std::move(q));
    }
    if (out.empty()) root.at("questions").fail("is empty; add at least one question");
    return out;
}

void validate_questions(const std::vector<Question>& questions, const std::vector<HardwareProfile>& profiles) {
    for (const auto& q : questions) {
        const HardwareProfile* profile = nullptr;
        for (const auto& p : profiles) {
            if (p.id == q.gpu) profile = &p;
        }
        std::vector<std::string> ids;
        for (const auto& p : profiles) ids.push_back(p.id);
        if (!profile) {
            throw InputError(q.file, q.line,
                             fmt::format("question '{}': unknown gpu '{}'; use a profile id from hardware/: {}", q.id,
                                         q.gpu, fmt::join(ids, ", ")));
        }
        auto dtype = compute_dtype(q.op);
        auto it = profile->peak.find(dtype);
        if (it == profile->peak.end()) {
            throw InputError(q.file, q.line,
                             fmt::format("question '{}': {} has no {} unit; pick another dtype or gpu", q.id,
                                         profile->id, dtype_name(dtype)));
        }
        if (q.quote_sparse && !it->second.sparse_tflops) {
            throw InputError(q.file, q.line,
                             fmt::format("question '{}': quote_sparse is set but {} lists no sparse {} figure; "
                                         "remove quote_sparse",
                                         q.id, profile->id, dtype_name(dtype)));
        }
    }
}

// ---------------------------------------------------------------- generation

std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n) {
    // Rejection sampling: accept only draws below the largest multiple of n that fits in
    // 2^64 values, so every residue is equally likely. rem = 2^64 mod n.
    std::uint64_t rem = (std::numeric_limits<std::uint64_t>::max() % n + 1) % n;
    if (rem == 0) return rng() % n;
    std::uint64_t limit = std::uint64_t(0) - rem;  // 2^64 - rem
    for (;;) {
        std::uint64_t draw = rng();
        if (draw < limit) return draw % n;
    }
}

namespace {

template <typename T, std::size_t N>
T pick(std::mt19937_64& rng, const std::array<T, N>& options) {
    return options[uniform_below(rng, N)];
}

Dtype pick_dtype(std::mt19937_64& rng, const HardwareProfile& profile, const std::vector<Dtype>& wanted) {
    std::vector<Dtype> usable;
    for (auto dtype : wanted) {
        if (profile.supports(dtype)) usable.push_back(dtype);
    }
    return usable[uniform_below(rng, usable.size())];
}

}  // namespace

std::vector<Question> generate_questions(int count, std::uint64_t seed, const std::vector<HardwareProfile>& profiles) {
    if (count <= 0) throw InputError(fmt::format("--generate {}: ask for at least one question", count));
    if (profiles.empty()) throw InputError("no hardware profiles to generate questions for");
    std::mt19937_64 rng(seed);
    int width = std::max(2, int(std::to_string(count).size()));
    std::vector<Question> out;
    for (int i = 0; i < count; ++i) {
        Question q;
        q.id = fmt::format("s{}-{:0{}}", seed, i + 1, width);
        const auto& profile = profiles[uniform_below(rng, profiles.size())];
        q.gpu = profile.id;
        auto& op = q.op;
        switch (uniform_below(rng, 4)) {
            case 0:
                op.kind = OpKind::gemm;
                op.dtype = pick_dtype(rng, profile, {Dtype::bf16, Dtype::fp16, Dtype::fp8, Dtype::fp32});
                op.m = pick(rng, std::array<double, 10>{1, 8, 64, 256, 512, 1024, 2048, 4096, 8192, 16384});
                op.n = pick(rng, std::array<double, 7>{256, 1024, 2048, 4096, 8192, 14336, 28672});
                op.k = pick(rng, std::array<double, 7>{256, 1024, 2048, 4096, 8192, 14336, 28672});
                break;
            case 1:
                op.kind = OpKind::elementwise;
                op.dtype = pick_dtype(rng, profile, {Dtype::fp32, Dtype::bf16, Dtype::fp16});
                op.count = std::ldexp(1.0, int(12 + uniform_below(rng, 19)));  // 2^12 .. 2^30
                op.reads = double(1 + uniform_below(rng, 3));
                op.writes = double(1 + uniform_below(rng, 2));
                op.flops_per_element = pick(rng, std::array<double, 9>{0, 1, 2, 4, 8, 20, 50, 100, 400});
                if (uniform_below(rng, 4) == 0) q.launches = int(2 + uniform_below(rng, 5));
                break;
            case 2: {
                op.kind = OpKind::raw;
                op.dtype = pick_dtype(rng, profile, {Dtype::fp32, Dtype::bf16, Dtype::fp8});
                std::array<double, 3> mantissa{1, 2, 5};
                op.bytes = pick(rng, mantissa) * std::pow(10.0, double(5 + uniform_below(rng, 6)));  // 1e5 .. 5e10
                // Intensities from far below every ridge to far above it.
                op.flops = op.bytes * pick(rng, std::array<double, 8>{0.25, 1, 4, 16, 64, 256, 1024, 4096});
                break;
            }
            default:
                op.kind = OpKind::attention;
                op.dtype = pick_dtype(rng, profile, {Dtype::bf16, Dtype::fp16});
                op.batch = pick(rng, std::array<double, 5>{1, 2, 4, 8, 16});
                op.heads = pick(rng, std::array<double, 4>{8, 16, 32, 64});
                op.seq = pick(rng, std::array<double, 7>{128, 512, 1024, 2048, 4096, 8192, 16384});
                op.head_dim = pick(rng, std::array<double, 3>{64, 128, 256});
                op.materialized = uniform_below(rng, 2) == 1;
                if (op.materialized) q.launches = 3;  // Q K^T, softmax, P V
                break;
        }
        q.explanation = fmt::format(
            "Generated question (seed {}): no written explanation; follow the working line, which applies the "
            "counting rules printed above the questions.",
            seed);
        out.push_back(std::move(q));
    }
    return out;
}

// ---------------------------------------------------------------- answers

std::vector<Answer> load_answers(const std::filesystem::path& file, const std::vector<Question>& questions) {
    auto root = YamlView::load_file(file);
    if (!root.node().IsDefined() || root.node().IsNull()) {
        throw InputError(file, 1,
                         "the answers file is empty; write a list of {id, regime, time_us} "
                         "(make one with `roofline classify --write-template FILE`)");
    }
    if (!root.node().IsSequence()) {
        root.fail("the answers file must be a list, one '- {id: ..., regime: ..., time_us: ...}' per question");
    }
    std::set<std::string> known;
    for (const auto& q : questions) known.insert(q.id);
    std::map<std::string, int> seen;
    std::vector<Answer> out;
    for (const auto& item : root.items()) {
        if (!item.node().IsMap()) item.fail("must be a mapping like {id: gemm-4096-h100, regime: compute, time_us: 140}");
        item.only_keys({"id", "regime", "time_us"});
        Answer a;
        a.line = item.line();
        a.id = item.string("id");
        if (!known.count(a.id)) {
            std::string hint = a.id.size() > 1 && a.id[0] == 's' && a.id.find('-') != std::string::npos
                                   ? "; for generated questions pass the same --generate N --seed S"
                                   : "; check the spelling against `roofline classify` (or --write-template)";
            item.at("id").fail(fmt::format("names question '{}', which is not in this question set{}", a.id, hint));
        }
        if (auto [it, fresh] = seen.emplace(a.id, a.line); !fresh) {
            item.at("id").fail(fmt::format("answers '{}' a second time (first at line {}); keep one answer per question",
                                           a.id, it->second));
        }
        if (auto regime = item.maybe("regime")) {
            auto text = regime->as_string();
            a.regime = parse_regime(text);
            if (!a.regime) regime->fail(fmt::format("must be compute, memory or overhead (got '{}')", text));
        }
        if (auto time = item.maybe("time_us")) {
            auto text = time->as_string();
            if (text.find_first_not_of("0123456789.eE+-") != std::string::npos) {
                time->fail(fmt::format("must be a plain number of microseconds, without a unit (got '{}')", text));
            }
            a.time_us = time->as_positive_double();
        }
        out.push_back(std::move(a));
    }
    return out;
}

double time_credit(double answered_us, double expected_us) {
    if (!(answered_us > 0) || !(expected_us > 0)) return 0;
    double ratio = std::max(answered_us / expected_us, expected_us / answered_us);
    // A hair of slack so that an answer of exactly 1.5x or 3x (as typed) is not lost to rounding.
    constexpr double slack = 1e-9;
    if (ratio <= 1.5 * (1 + slack)) return 1.0;
    if (ratio <= 3.0 * (1 + slack)) return 0.5;
    return 0.0;
}

Report check_answers(const std::vector<Question>& questions, const std::vector<HardwareProfile>& profiles,
                     const std::vector<Answer>& answers, const std::map<std::string, double>& overhead_s) {
    std::map<std::string, const Answer*> by_id;
    for (const auto& a : answers) by_id[a.id] = &a;
    Report report;
    for (const auto& q : questions) {
        const auto& profile = find_profile(profiles, q.gpu);
        auto it = overhead_s.find(profile.id);
        Grade g;
        g.question = &q;
        g.expected = expected_answer(q, profile, it != overhead_s.end() ? it->second : 5e-6);
        g.working = working(q, g.expected);
        if (auto found = by_id.find(q.id); found != by_id.end()) {
            g.answer = *found->second;
            if (g.answer->regime || g.answer->time_us) ++report.answered;
            g.regime_correct = g.answer->regime && *g.answer->regime == g.expected.regime;
            if (g.regime_correct) g.points += kRegimePoints;
            if (g.answer->time_us) {
                g.time_ratio = *g.answer->time_us / g.expected.time_us;
                g.points += kTimePoints * time_credit(*g.answer->time_us, g.expected.time_us);
            }
        }
        report.points += g.points;
        report.max_points += g.max_points;
        report.grades.push_back(std::move(g));
    }
    return report;
}

std::string answers_template(const std::vector<Question>& questions, const std::string& how_made) {
    std::string out = fmt::format(
        "# Answers for `roofline classify`. Made by: {}\n"
        "# For each question fill in the regime (compute, memory or overhead) and the time floor in\n"
        "# microseconds (a plain number, e.g. 139 or 1.2e3). A blank field scores nothing.\n"
        "# Then: roofline classify --check THIS_FILE (with the same --bank / --generate / --seed).\n",
        how_made);
    for (const auto& q : questions) {
        out += fmt::format("- id: {}\n  regime:\n  time_us:\n", q.id);
    }
    return out;
}

}  // namespace roofline::classify
