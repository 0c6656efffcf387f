// The practice behind `roofline classify`: a bank of questions
// (lessons/practice/bank.yaml) or questions generated from a seed, the
// expected answer computed from the roofline (never typed into the bank),
// and the checker that scores a student's answers file. The question types
// and what each is answered with are listed at QuestionType.
//
// Everything here is a pure function of its arguments, so the tests can
// hand-work an answer and compare.
#pragma once
#include "decode_step.hpp"
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

// What a question asks, and so which fields of the answers file it is answered with.
enum class QuestionType {
    regime,          // regime + time_us: the class and floor from the datasheet roofline (lessons 00, 01)
    predict,         // time_us: the time at the rates a measurement gave (measured_tbs, measured_tflops)
    lever,           // helps: which of the offered changes lower the time per unit of work (lessons 00, 04)
    read_roofline,   // regime (memory or compute) + fraction: the roof above a plotted point, and how close
    littles_law,     // kib_per_sm + stages: bytes in flight per SM for a bandwidth, and ring stages of a size
    tile_intensity,  // flop_per_byte + regime: a block tile's FLOP per byte loaded (lesson 03)
    incident,        // regime + time_us: a decode step's per-op table; which regime binds, and its floor (lesson 10)
};
std::string_view question_type_name(QuestionType type);

// The changes a lever question offers, each computed on the operation (lever_effect below).
enum class Lever {
    fuse,          // one launch; elementwise: the fused reads/writes; attention: scores stay on chip
    graph,         // launched from a CUDA graph: a dependent kernel node costs ~1 us (lesson 00, section 5)
    tensor_cores,  // fp32 math on the tf32 tensor cores (elementwise math stays on the CUDA cores)
    fp8,           // operands stored in fp8 (and, for GEMM/attention, fp8 tensor cores)
    batch,         // `batch` problems in one launch; time counted per problem
};
std::string_view lever_name(Lever lever);
std::optional<Lever> parse_lever(std::string_view name);

// An incident question's decode step (Llama-3-8B's shapes, lesson 10): what `roofline serve` printed,
// its per-op times; the bytes and FLOPs of each op and the floor are computed (decode_step.hpp).
struct StepTable {
    int batch = 0;
    long long context = 0;     // cached positions of every sequence
    long long vocab_rows = 0;  // the LM head's rows (0: the model's 128,256)
    bool graph = false;
    int launches = 0;
    double step_s = 0, single_step_s = 0, host_enqueue_s = 0;
    std::vector<StepOpTime> ops;  // the instrumented step, by op, summed over the layers
    std::string source;           // where the table came from
};

struct Question {
    std::string id;
    QuestionType type = QuestionType::regime;
    int difficulty = 1;  // 1 one step, 2 two or three steps, 3 a judgement over several; the bank is in this order
    int lesson = 1;      // the lesson it drills (0-10)
    Operation op;        // regime, predict and lever questions
    std::string gpu;          // a hardware profile id
    int launches = 1;         // separate kernel launches the operation takes
    bool quote_sparse = false;  // the prompt prints the datasheet's sparse figure, as datasheets do
    std::string prompt;       // extra text for the prompt (optional)
    std::string explanation;  // shown when the answer is wrong
    // predict: the rates a measurement gave, and where from
    double measured_tbs = 0, measured_tflops = 0;
    std::string measured_source;
    // lever: the changes offered; what fusion leaves (elementwise); how many problems a batch holds
    std::vector<Lever> levers;
    double fused_reads = -1, fused_writes = -1;
    int batch = 0;
    // read_roofline and tile_intensity: the roof's number format
    Dtype dtype = Dtype::bf16;
    // read_roofline: the plotted point
    double point_flop_per_byte = 0, point_tflops = 0;
    // littles_law: the latency to cover, the bandwidth (0: the datasheet's), one stage's size
    double latency_ns = 0, bandwidth_tbs = 0, stage_kib = 0;
    // tile_intensity: the block tile of C (bm x bn), stepping along K
    double tile_m = 0, tile_n = 0;
    // incident: the step
    StepTable step;
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
    // lever: each offered lever's time per unit of the original work, and whether it helps
    std::vector<std::pair<Lever, double>> lever_time_us;
    std::vector<Lever> helps;
    double fraction = 0;     // read_roofline: the point's share of the roof above it
    double bytes_in_flight = 0;  // littles_law: bandwidth x latency, over the whole GPU
    int sm_count = 0;
    double kib_per_sm = 0;   // littles_law: bandwidth x latency / SMs
    int stages = 0;          // littles_law: ceil(kib_per_sm / stage_kib) in flight, plus the one being read
    double flop_per_byte = 0;  // tile_intensity
    StepReading reading;       // incident: read_step on the table at the datasheet's roofs
    DecodeStepFloor step_floor;  // incident
};

// A lever helps when it cuts the time per unit of work to this share or less, does
// nothing when it leaves at least kLeverNothing of it; between the two a bank question is
// refused as too close to call.
inline constexpr double kLeverHelps = 0.8, kLeverNothing = 0.95;
// A dependent kernel node in a CUDA graph (lesson 00, section 5: about 1 us per node in lab 00).
inline constexpr double kGraphNodeS = 1e-6;

// `launch_overhead_s` is the cost of one launch (5 us unless measured ceilings say otherwise).
// Every type is answered here; an unanswerable question (a lever too close to call, a point
// above its roof) throws InputError naming the bank's line.
Expected expected_answer(const Question& question, const HardwareProfile& profile, double launch_overhead_s = 5e-6);

// One line of working: the two floors, the intensity against the ridge, and the verdict.
std::string working(const Question& question, const Expected& expected);

// The text a student reads: the operation, the GPU's numbers it needs, never the answer.
std::string prompt_text(const Question& question, const HardwareProfile& profile, double launch_overhead_s = 5e-6);
// The counting rules, printed once above the questions.
std::string counting_rules();

// Reads and checks a bank file; errors name the file, the line and the fix. The questions
// must come in order of difficulty (1, then 2, then 3).
std::vector<Question> load_bank(const std::filesystem::path& file);
// Every question's GPU exists and has a unit for its dtype; a quote_sparse question has a sparse
// figure; every question has an answer (expected_answer does not throw).
void validate_questions(const std::vector<Question>& questions, const std::vector<HardwareProfile>& profiles);

// Deterministic across standard libraries: std::mt19937_64's output is fixed by the
// standard, and this draw from it is ours (std distributions differ between libraries).
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n);  // in [0, n), n > 0
// `count` questions drawn from the same kinds as the bank, ids "s<seed>-01", "s<seed>-02", ...
// The profiles are used in the order given (load_profiles sorts them by id).
std::vector<Question> generate_questions(int count, std::uint64_t seed, const std::vector<HardwareProfile>& profiles);

// A student's answer; a blank field means "not answered" and scores nothing.
// Which fields answer each type: regime/time_us, time_us, helps, regime/fraction,
// kib_per_sm/stages, flop_per_byte/regime.
struct Answer {
    std::string id;
    std::optional<Regime> regime;
    std::optional<double> time_us;
    int line = 0;
    std::optional<std::vector<Lever>> helps;  // an empty list is an answer: "none of them"
    std::optional<double> fraction;
    std::optional<double> kib_per_sm;
    std::optional<int> stages;
    std::optional<double> flop_per_byte;

    bool attempted() const {
        return regime || time_us || helps || fraction || kib_per_sm || stages || flop_per_byte;
    }
};
// The answer fields a question type takes, in the order the template writes them.
std::vector<std::string> answer_fields(QuestionType type);

// Reads an answers file (a list of {id, FIELD: value, ...}); every error names the file and line.
// An id that is not among `questions` is an error naming it, and so is a field its question's
// type is not answered with.
std::vector<Answer> load_answers(const std::filesystem::path& file, const std::vector<Question>& questions);

// Credit for a time answer: 1 within 1.5x of the expected either way, 0.5 within 3x, else 0.
// The boundaries count as inside (exactly 1.5x is full marks).
double time_credit(double answered_us, double expected_us);
// The same rule for any positive number, with the two bounds given.
double ratio_credit(double answered, double expected, double full_within, double half_within);
// A fraction of a roof: 1 within 0.05 of the expected, 0.5 within 0.15.
double fraction_credit(double answered, double expected);

inline constexpr double kRegimePoints = 1.0;
inline constexpr double kTimePoints = 1.0;

struct Grade {
    const Question* question = nullptr;
    Expected expected;
    std::optional<Answer> answer;  // absent: not in the answers file
    bool regime_correct = false;
    std::optional<double> time_ratio;  // answered / expected
    std::vector<std::string> misses;   // what lost points, in words (empty: full marks or not attempted)
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

// The expected answer in one line ("compute-bound, floor 139 us"; "helps: fuse, graph").
std::string expected_text(const Question& question, const Expected& expected);
// The student's answer in one line, "-" for a blank.
std::string answer_text(const Question& question, const Answer& answer);

// An answers file with every id and its type's blank fields, ready to fill in.
std::string answers_template(const std::vector<Question>& questions, const std::string& how_made);

}  // namespace roofline::classify
