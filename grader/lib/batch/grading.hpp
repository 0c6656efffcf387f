// Grading one built submission: `roofline grade LAB --all --no-build --json` run on
// its staging tree as a process of its own, on one GPU (CUDA_VISIBLE_DEVICES), in a
// temporary working folder, under a timeout and resource limits; then its JSON
// turned into the submission's outcome, points and reason. The grader reads the
// prediction log and the lab.yaml outside the sandbox; only the lab program it
// starts (the submission's code) runs inside, and sees neither.
#pragma once
#include "process.hpp"
#include "result.hpp"
#include "staging.hpp"
#include "lab_spec.hpp"
#include "sandbox.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace roofline::batch {

struct GradeJob {
    std::filesystem::path roofline;  // the `roofline` program
    const StagedSubmission* staged = nullptr;
    std::string lab;
    std::uint64_t seed = 0;
    std::string gpu;       // CUDA device index for CUDA_VISIBLE_DEVICES; empty: leave it as it is
    std::string hardware;  // --hardware for grade; empty: match the device
    double timeout_s = 600;
    std::filesystem::path out_dir;  // grade.json, grade-stderr.txt and gradescope/ land here
    const Sandbox* sandbox = nullptr;  // the lab program's (grade itself runs outside); null: none
    // Where the gradings of one batch keep what they share (the libraries' symbol listings),
    // inside the batch's temporary folder: a batch writes nothing into the instructor's home.
    std::filesystem::path cache_dir;
};

struct GradingRun {
    ProcessResult process;
    std::string stdout_text;  // grade's --json output
    std::string stderr_text;
    double timeout_s = 0;
};

GradingRun run_grading(const GradeJob& job);

// What a grading run means for the submission (pure, so tests can feed it).
struct LogFacts {
    LogState state = LogState::present;
    std::string message;
    std::vector<std::string> notes;
    std::vector<std::string> gap_noted;  // variants with a gap note (`roofline explain`) in the log
    std::optional<double> logged_hours;   // time on the lab by the log's entries (time_on_lab.hpp)
};
SubmissionResult classify_grading(const std::string& submission, const LabSpec& lab, const LogFacts& log,
                                  const GradingRun& run);

// A submission that never reached grading (compile error, grader error): every variant 0.
SubmissionResult ungraded_result(const std::string& submission, const LabSpec& lab, SubmissionOutcome outcome,
                                  const std::string& reason);

// One Gradescope results.json for the whole submission: the per-variant files that
// `grade --gradescope` wrote (missing ones become a failed test naming the reason).
nlohmann::json submission_gradescope(const LabSpec& lab, const SubmissionResult& result,
                                     const std::filesystem::path& variant_files_dir);

}  // namespace roofline::batch
