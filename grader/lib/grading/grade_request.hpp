// What one variant's grading is asked (GradeRequest) and what it answers (GradeOutcome), apart
// from the pipeline that does it (grade.hpp), so that the CPU grading (cpu_grade.hpp), which
// grade_variant hands a CPU-graded variant, needs only these and not grade.hpp.
#pragma once
#include "build_target.hpp"
#include "gpu_neighbours.hpp"
#include "hardware.hpp"
#include "lab_run.hpp"
#include "lab_spec.hpp"
#include "prediction_log.hpp"
#include "regime_sweep.hpp"
#include "score.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

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
    // Other processes nvidia-smi listed on the GPU just before or just after the timing (and
    // its sweep): the report says so in a note; the score stands.
    std::vector<GpuProcess> gpu_neighbours;
};
using TimedRuns = std::map<std::string, TimedRun>;  // by variant

// What every variant of one lab shares in `roofline grade --all`: loaded once, not per variant.
struct LabContext {
    LabSpec lab;
    std::vector<HardwareProfile> profiles;  // hardware/*.yaml
};

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

// What a grading reports when its build fails: the compiler's output, or why it never ran.
GradeOutcome build_failure(const std::string& target, const BuildResult& build);

}  // namespace roofline
