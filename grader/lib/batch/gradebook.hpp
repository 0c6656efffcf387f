// The gradebook: OUT/gradebook.csv, one row per submission, sorted by name.
// RFC 4180 CSV (comma separated, fields with a comma, quote or line break
// quoted, quotes doubled); the reason is flattened to one line. The header is
// stable: tools may rely on the column names and their order; new columns are
// added at the end (gap_notes came after reason, sandbox after gap_notes, logged_hours
// after sandbox: empty without a log; shared_gpu after logged_hours: empty unless a variant
// was timed beside other processes on its GPU).
#pragma once
#include "result.hpp"

#include <string>
#include <vector>

namespace roofline::batch {

inline const char* kGradebookHeader =
    "submission,outcome,score,max_score,correctness,performance,prediction,"
    "mean_fraction_of_roofline,best_fraction_of_roofline,gpu,seconds,reason,gap_notes,sandbox,logged_hours,"
    "shared_gpu";

std::string csv_field(const std::string& text);
std::string gradebook_row(const SubmissionResult& result);
// The shared_gpu cell: "VARIANT: note" for each variant timed beside other processes, " | " between.
std::string shared_gpu_cell(const SubmissionResult& result);
std::string gradebook_csv(std::vector<SubmissionResult> results);  // header, then rows sorted by submission

}  // namespace roofline::batch
