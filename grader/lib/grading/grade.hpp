// `roofline grade` and `roofline run`, stage by stage (grader/README.md, "One `roofline grade`"):
// load, prediction gate, build (so a compile error shows even without a GPU),
// device check, run, verify and measure (in the lab program), score, record
// and report.
#pragma once
#include "hardware.hpp"
#include "lab_job.hpp"
#include "lab_spec.hpp"
#include "regime_sweep.hpp"
#include "runner.hpp"
#include "prediction_log.hpp"
#include "score.hpp"
#include "workspace.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace roofline {

class LabSession;

// Lab 00's size sweep, timed: the variant's median at each n / d.
struct SweepTimes {
    std::vector<SweepPoint> points;
    std::optional<LabRun> failure;  // a sweep run that crashed, hung or went wrong
};

// What the timing program gave for one variant: its result, the seed and the sweep.
struct TimedRun {
    LabRun run;
    double seconds = 0;  // wall time of the timing job and its sweep, the program's start included
    std::uint64_t seed = 0;
    std::string skipped;  // verify shapes left out, as notes
    std::optional<SweepTimes> sweep;
};
using TimedRuns = std::map<std::string, TimedRun>;  // by variant

// What every variant of one lab shares in `roofline grade --all`: loaded once, not per variant.
struct LabContext {
    LabSpec lab;
    std::vector<HardwareProfile> profiles;  // hardware/*.yaml
};
LabContext load_lab_context(const Workspace& workspace, const std::string& lab_id);

struct GradeRequest {
    std::string lab, variant;
    bool solutions = false;        // grade solutions/ (no prediction needed)
    bool verify_only = false;      // `roofline run`: correctness, no time, no prediction
    bool build = true;
    std::filesystem::path log;     // the prediction log
    std::string hardware;          // profile override; empty: match the device name
    std::optional<std::uint64_t> seed;  // empty: a fresh random seed
    bool require_prediction = true;     // false (roofline batch): grade anyway, with no prediction points
    const LabContext* context = nullptr;  // the lab's shared context; null: loaded for this variant
    LabSession* session = nullptr;      // the lab program all variants of `--all` share; null: one of its own
    LabSession* watch_session = nullptr;  // where watch jobs run: after it, the program never times; null: its own
    // Two passes (`roofline grade`): first every variant is timed (timing_only: the grading stops
    // after the timing program's run and keeps it in timed_runs), then each is graded again from
    // its kept run, the watch job included. No program times once it has watched, so the
    // program that timed the variants can watch them all afterwards (times_in_own_program says
    // which variants are timed in a program of their own).
    bool timing_only = false;
    TimedRuns* timed_runs = nullptr;
    // The prediction log as read before any lab program started (`--all` reads it once, so
    // that what a variant's code writes cannot move the gate of the ones after it); null: read `log` here.
    const PredictionLog* log_read = nullptr;
};

struct GradeOutcome {
    int exit_code = 0;     // the CLI's exit codes (command.hpp)
    std::string text;      // the terminal report
    nlohmann::json json;   // the same, for --json
    nlohmann::json gradescope;
    std::optional<Score> score;
    // The variant's debrief (debrief.hpp), once this grading put a correct measurement in
    // the log (or graded --solutions); printed after the report. Empty: still closed.
    std::string debrief;
    bool timed_only = false;  // a first pass that stopped after timing: nothing to print yet
};

// The prediction gate alone: the prediction for this variant's current source
// and timed shape, or an InputError-free refusal whose text is the exact
// `roofline predict` command to run.
struct GateResult {
    const Prediction* prediction = nullptr;
    std::string refusal;
    bool edited = false;
};
GateResult check_prediction(const PredictionLog& log, const LabSpec& lab, const VariantSpec& variant,
                            const std::string& source_hash, const std::string& log_flag);

GradeOutcome grade_variant(const Workspace& workspace, const GradeRequest& request);

// Whether `roofline grade`'s first pass times this variant in a fresh lab program of its own
// rather than in the one the lab's other variants share: a variant whose work sits in the
// overhead regime (both floors under one launch's cost) on any GPU in hardware/, where what the
// program ran before shows in the time. Lab 00's graph rung read 662-674 us after the other
// variants in one program and 488 us in its own (H200, runs 36-39, CUPTI nowhere near it); the
// memory- and compute-bound rungs kept their fractions within 2 points. Decided before the build
// and before any GPU is asked (the fastest profile gives the smallest floors); with no profiles,
// every variant. A fresh program costs ~0.3 s of driver start-up (lab_session.hpp): hence not all.
bool times_in_own_program(const LabSpec& lab, const VariantSpec& variant, const std::vector<HardwareProfile>& profiles);

// The variant's kernel file, or an InputError naming it when it is missing.
std::filesystem::path existing_kernel_file(const Workspace& ws, const LabSpec& lab, const VariantSpec& variant,
                                           bool solutions);

// What a grading reports when its build fails: the compiler's output, or why it never ran.
GradeOutcome build_failure(const std::string& target, const BuildResult& build);

// One job for the lab program from lab.yaml (tolerances, timeouts, the seed), up to the
// shapes, which the caller adds.
protocol::Job lab_job(const LabSpec& lab, const VariantSpec& variant, protocol::JobMode mode, std::uint64_t seed,
                      const std::filesystem::path& result_file, double time_cap_s);

}  // namespace roofline
