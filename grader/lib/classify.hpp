// The regime classifier practice behind `roofline classify`: a bank of
// questions (lessons/practice/bank.yaml) or questions generated from a seed,
// the expected answer computed from the roofline (never typed into the bank),
// and the checker that scores a student's answers file.
//
// Everything here is a pure function of its arguments, so the tests can
// hand-work an answer and compare.
#pragma once
#include "dtype.hpp"
#include "hardware.hpp"
#include "roofline.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace roofline::classify {

enum class OpKind { gemm, elementwise, raw, attention };
std::string_view op_kind_name(OpKind kind);

// One operation with its shapes and number format. Only the fields of its kind are used.
struct Operation {
    OpKind kind = OpKind::raw;
    Dtype dtype = Dtype::fp32;
    // gemm: C[m,n] = A[m,k] B[k,n]
    double m = 0, n = 0, k = 0;
    // elementwise: `count` elements, each reading `reads` and writing `writes` values
    double count = 0, reads = 0, writes = 0, flops_per_element = 0;
    // raw: the counts themselves
    double flops = 0, bytes = 0;
    // attention: softmax(Q K^T) V per (batch, head), Q K V O each [seq, head_dim]
    double batch = 0, heads = 0, seq = 0, head_dim = 0;
    bool materialized = false;  // the seq x seq score matrix goes to memory and comes back
};

struct Question {
    std::string id;
    Operation op;
    std::string gpu;          // a hardware profile id
    int launches = 1;         // separate kernel launches the operation takes
    bool quote_sparse = false;  // the prompt prints the datasheet's sparse figure, as datasheets do
    std::string prompt;       // extra text for the prompt (optional)
    std::string explanation;  // shown when the answer is wrong
    std::filesystem::path file;  // where it came from (empty for generated questions)
    int line = 0;
};

// FLOPs and fewest bytes of the operation:
//   gemm        2mnk FLOPs; (mk + kn + mn) elements
//   elementwise count * flops_per_element FLOPs; count * (reads + writes) elements
//   raw         as given
//   attention   4 * batch * heads * seq^2 * head_dim FLOPs (Q K^T and P V; softmax not counted);
//               Q, K, V read and O written: 4 * batch * heads * seq * head_dim elements,
//               plus, when materialized, the score matrix written once and read back once:
//               2 * batch * heads * seq^2 elements
Workload workload_of(const Operation& op);

// Which unit does the arithmetic: gemm, attention and raw use the dtype's (tensor-core) peak;
// elementwise math runs on the CUDA cores, so it uses the fp32 peak (fp64 for fp64 data).
Dtype compute_dtype(const Operation& op);
Ceiling ceiling_for(const Operation& op, const HardwareProfile& profile);

struct Expected {
    Regime regime = Regime::memory;
    double time_us = 0;        // max(roofline floor, launches x launch overhead)
    double overhead_us = 0;    // launches x launch overhead
    Workload work;
    Ceiling ceiling;
    RooflinePoint point;
};

// `launch_overhead_s` is the cost of one launch (5 us unless measured ceilings say otherwise).
Expected expected_answer(const Question& question, const HardwareProfile& profile, double launch_overhead_s = 5e-6);

// One line of working: the two floors, the intensity against the ridge, and the verdict.
std::string working(const Question& question, const Expected& expected);

// The text a student reads: the operation, the GPU's numbers it needs, never the answer.
std::string prompt_text(const Question& question, const HardwareProfile& profile, double launch_overhead_s = 5e-6);
// The counting rules, printed once above the questions.
std::string counting_rules();

// Reads and checks a bank file; errors name the file, the line and the fix.
std::vector<Question> load_bank(const std::filesystem::path& file);
// Every question's GPU exists and has a unit for its dtype; a quote_sparse question has a sparse figure.
void validate_questions(const std::vector<Question>& questions, const std::vector<HardwareProfile>& profiles);

// Deterministic across standard libraries: std::mt19937_64's output is fixed by the
// standard, and this draw from it is ours (std distributions differ between libraries).
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n);  // in [0, n), n > 0
// `count` questions drawn from the same kinds as the bank, ids "s<seed>-01", "s<seed>-02", ...
// The profiles are used in the order given (load_profiles sorts them by id).
std::vector<Question> generate_questions(int count, std::uint64_t seed, const std::vector<HardwareProfile>& profiles);

// A student's answer; a blank field means "not answered" and scores nothing.
struct Answer {
    std::string id;
    std::optional<Regime> regime;
    std::optional<double> time_us;
    int line = 0;
};

// Reads an answers file (a list of {id, regime, time_us}); every error names the file and line.
// An id that is not among `questions` is an error naming it.
std::vector<Answer> load_answers(const std::filesystem::path& file, const std::vector<Question>& questions);

// Credit for a time answer: 1 within 1.5x of the expected either way, 0.5 within 3x, else 0.
// The boundaries count as inside (exactly 1.5x is full marks).
double time_credit(double answered_us, double expected_us);

inline constexpr double kRegimePoints = 1.0;
inline constexpr double kTimePoints = 1.0;

struct Grade {
    const Question* question = nullptr;
    Expected expected;
    std::optional<Answer> answer;  // absent: not in the answers file
    bool regime_correct = false;
    std::optional<double> time_ratio;  // answered / expected
    double points = 0;
    double max_points = kRegimePoints + kTimePoints;
    std::string working;
};

struct Report {
    std::vector<Grade> grades;
    double points = 0;
    double max_points = 0;
    int answered = 0;
};

// Grades every question; `overhead_s` gives the launch overhead per profile id (5 us when absent).
Report check_answers(const std::vector<Question>& questions, const std::vector<HardwareProfile>& profiles,
                     const std::vector<Answer>& answers, const std::map<std::string, double>& overhead_s = {});

// An answers file with every id and blank fields, ready to fill in.
std::string answers_template(const std::vector<Question>& questions, const std::string& how_made);

}  // namespace roofline::classify
