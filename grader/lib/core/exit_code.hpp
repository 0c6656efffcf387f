// What `roofline` exits with: one table for every command (`grade` and `run` in
// lib/grading/grade.cpp, the rest in cli/), listed in `roofline --help` and README.md.
#pragma once

namespace roofline {

enum ExitCode : int {
    kGradedCorrect = 0,
    kGradedIncorrect = 1,
    kBadInput = 2,
    kNoPrediction = 3,
    kNoDevice = 4,
    kBuildFailed = 5,
    kCrashedOrTimedOut = 6,
    kNeedsOtherHardware = 7,  // the variant's machine code is for another GPU (lab.yaml `requires`)
    kForbidden = 8,           // the timed work was not the kernel file's own
    kNotGradedYet = 9,        // debrief, explain: no graded measurement of the variant in the log
    kToolUnavailable = 10,    // profile, run --sanitize: ncu or compute-sanitizer missing, or counters not permitted
};

}  // namespace roofline
