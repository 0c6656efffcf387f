// One submission's record in a batch: OUT/submissions/NAME/result.json. The
// gradebook row, the summary and `--merge` are all made from these files.
#pragma once
#include "outcome.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace roofline::batch {

struct VariantResult {
    std::string name;
    SubmissionOutcome outcome = SubmissionOutcome::error;
    double points = 0, max_points = 0;
    double fraction_of_roofline = 0;  // 0 when not timed
    std::string verdict;
};

// A variant timed while other processes used its GPU: the grading JSON's shared_gpu.note, which
// names them (pid, name, memory). For the instructor; the score is as measured.
struct SharedGpuNote {
    std::string variant;
    std::string note;
    bool operator==(const SharedGpuNote&) const = default;
};

struct SubmissionResult {
    std::string submission;
    SubmissionOutcome outcome = SubmissionOutcome::error;
    double score = 0, max_score = 0;
    double correctness = 0, performance = 0, prediction = 0;  // points, summed over variants
    double mean_fraction_of_roofline = 0;  // over every variant, 0 for one not timed
    double best_fraction_of_roofline = 0;
    std::string gpu = "-";  // the CUDA device index it was graded on, "-" for none
    double seconds = 0;     // build and grade, wall clock
    std::string reason;     // why the outcome is not "graded"; notes otherwise
    int gap_notes = 0;      // variants with a gap note in the student's log (`roofline explain`)
    // Time on the lab by the entries of the student's log (time_on_lab.hpp): the student's own
    // account, shown to the instructor for the module's hours, never scored. None without a log.
    std::optional<double> logged_hours;
    // "bwrap": its code ran in the sandbox; "none": graded with --no-sandbox-i-trust-these-submissions;
    // "unrecorded": a result.json from before the field existed.
    std::string sandbox = "unrecorded";
    // What the instructor should look at whatever the outcome (the submission folder is a
    // symbolic link, or holds the same files as another submission): in the gradebook's reason
    // column and the summary, not in the reason the student sees (Gradescope).
    std::vector<std::string> warnings;
    // The variants timed beside other processes on the GPU, in the lab's order: the gradebook's
    // shared_gpu column and the summary name the processes; Gradescope says only which variants
    // (another student's lab program, named by its path, is not this student's to read).
    std::vector<SharedGpuNote> shared_gpu;
    std::vector<VariantResult> variants;
};

nlohmann::json to_json(const SubmissionResult& result);
SubmissionResult result_from_json(const nlohmann::json& j);  // throws nlohmann::json::exception on a bad file

// Fills the totals from `variants` (score, points, fractions).
void add_up(SubmissionResult& result);

}  // namespace roofline::batch
