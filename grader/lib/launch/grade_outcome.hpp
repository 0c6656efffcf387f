// How one variant's grading ended: one word per way, used by the grade JSON ("outcome", success
// included), the CLI's exit code (exit_code.hpp), the terminal report and `roofline batch`, which
// sums a submission's variants into a word of its own (batch/outcome.hpp) through this table.
// The lab program reports its own status on the wire (protocol/lab_job.hpp, JobStatus); the
// runner turns that into one of these.
#pragma once
#include <optional>
#include <string_view>

namespace roofline {

enum class Outcome {
    correct,           // every check passed (and, when graded, it was timed and scored)
    incorrect,         // a check failed: a wrong element, a changed input, a guard overwritten
    crashed,           // the lab program died (a signal, an exit) or failed at start-up
    timed_out,         // a launch or the whole run went past its timeout
    cuda_error,        // a CUDA call failed inside the run (an illegal address, a bad launch)
    harness_error,     // the grader or the lab program could not do its part (bad shape, unknown variant)
    forbidden_call,    // the run did work that was not the kernel file's own (a library's kernel, a copy)
    forbidden_symbol,  // a kernel file defines a function the runtime, a library or the harness defines
    timing_refused,    // the two clocks disagree, or the timed launches did less than the watched ones
    no_prediction,     // no prediction for the variant's current source (the gate, before any GPU)
    build_failed,      // the compiler refused the lab program
    no_device,         // no CUDA device to run on
    other_hardware,    // the variant's machine code is for another GPU (lab.yaml `requires`)
};

std::string_view outcome_name(Outcome outcome);
std::optional<Outcome> parse_outcome(std::string_view name);

// The CLI's exit code (exit_code.hpp) for how a grading ended.
int exit_code_for(Outcome outcome);

}  // namespace roofline
