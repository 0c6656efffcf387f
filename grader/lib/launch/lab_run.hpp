// A finished lab program turned into an outcome. The child reports through a JSON result file
// (protocol/lab_result.hpp); a hang, a signal, a missing or malformed result is turned into an
// outcome (grade_outcome.hpp) that names what happened and at which stage. Running the child
// is child_run.hpp's; building it, build_target.hpp's.
#pragma once
#include "child_run.hpp"
#include "grade_outcome.hpp"
#include "lab_job.hpp"
#include "lab_result.hpp"

#include <string>

namespace roofline {

struct LabRun {
    Outcome outcome = Outcome::harness_error;
    std::string message;  // one line a student can act on
    ChildRun child;
    // The child's answer, read once. Empty (no checks, no parts) when it died first or its
    // answer was malformed; when the outcome is correct, it holds the parts its job's mode
    // needs (protocol::missing_part).
    protocol::Result result;
};

// The answer a lab program wrote for `job` (at job.result_path), parsed and checked against
// the job: its variant and mode, and the parts an ok answer of that mode carries. Throws
// protocol::MalformedResult naming the file and the part; the file must exist.
protocol::Result read_answer(const protocol::Job& job);

// The signal a child died of: `signal` when one ended it; under the sandbox (ROOFLINE_SANDBOX
// set) also an exit status of 128+N, which is how bwrap hands back its child's signal N. 0 for
// a plain exit.
int death_signal(int exit_code, int signal);

// That death in words a student can act on: the signal by name and number, and what it
// usually means here, a limit named with its value (the output's file size: SIGXFSZ; CPU
// time: SIGXCPU; memory: SIGKILL from outside, or std::bad_alloc's abort; the stack: SIGSEGV).
std::string death_in_words(int signal);

// Interprets a finished child: the answer to `job`, exit status and stages. A missing
// or malformed answer is the variant's crash, never an exception.
LabRun interpret(const ChildRun& child, const protocol::Job& job, double timeout_s);

}  // namespace roofline
