// `roofline batch`: a whole class, unattended. Every submission is staged in a
// tree of its own, built with nvcc on a pool of CPU jobs, graded by one worker
// per GPU in a process of its own, and recorded in OUT/submissions/NAME/ with a
// completion marker, so a re-run resumes. At the end: OUT/gradebook.csv,
// OUT/summary.md and one Gradescope results.json per submission.
//
//   OUT/batch.json                      lab, seed, hidden file, every submission's name
//   OUT/lab/LAB/lab.yaml                the lab.yaml graded against (hidden shapes in place)
//   OUT/submissions/NAME/result.json    outcome, points, reason (the gradebook row)
//   OUT/submissions/NAME/results.json   Gradescope
//   OUT/submissions/NAME/build.log      the compiler's output
//   OUT/submissions/NAME/grade.json     `roofline grade --json` as it came
//   OUT/submissions/NAME/done           written last: this submission is finished
//   OUT/gradebook.csv, OUT/summary.md
#pragma once
#include "staging.hpp"
#include "workspace.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace roofline::batch {

struct BatchOptions {
    std::string lab;
    std::filesystem::path submissions, out;
    std::filesystem::path hidden;  // empty: public shapes
    std::string gpus = "all";
    int jobs = 0;  // build jobs; 0: the CPU count
    bool force = false;
    std::optional<std::uint64_t> seed;
    double timeout_s = 0;  // per submission; 0: from the lab's timeout and variant count
    std::optional<Slice> slice;
    std::string hardware;
    bool keep_stage = false;
    std::filesystem::path roofline;  // the `roofline` program that grades each submission
    double compile_timeout_s = 120;        // per compiler run (one kernel file, or the link)
    long long compile_memory_mib = 4096;   // address space per compiler process; 0: no limit
    // The compiles' total: build jobs are capped so that jobs x compile_memory_mib fits in it.
    // 0: three quarters of the machine's memory.
    long long compile_memory_total_mib = 0;
    // Memory per lab program and CPU-part program (sandbox.hpp says how it is held); 0: none.
    long long program_memory_mib = 8192;
    // Grade without a sandbox (--no-sandbox-i-trust-these-submissions): every submission's
    // code runs with the instructor's rights. Recorded per submission (result.json "sandbox",
    // the gradebook's last column) and in the summary.
    bool no_sandbox = false;
};

// The flag that turns the sandbox off: its name says what the instructor accepts.
inline constexpr const char* kNoSandboxFlag = "--no-sandbox-i-trust-these-submissions";

// Runs the batch (or one slice of it). Returns 0 when every submission has a result;
// a submission's failure is a result, not an error; 130 when interrupted (request_stop).
// Throws InputError on bad options, and where bwrap cannot make a sandbox (before anything
// is graded). Every submission's compile and lab program run in a sandbox (sandbox.hpp),
// unless `no_sandbox` says to grade without one.
int run_batch(const Workspace& course, const BatchOptions& options);

// How many compiles run at once: --jobs (default the CPU count), capped so that their memory
// limits add up to no more than the total; `note` (when given) says when it was capped.
int build_jobs(const BatchOptions& options, std::string* note = nullptr);

// Writes OUT/gradebook.csv and OUT/summary.md from the results in OUT. Returns 0 when
// every submission in OUT/batch.json has a result, 1 (and names the missing) otherwise.
int merge_batch(const std::filesystem::path& out);

// Removes the staging trees (TEMP/roofline-batch-PID-*) of batches that were killed: those of
// this user whose pid is no longer running, unless --keep-stage marked them (kKeepStageMarker).
// Returns how many it removed.
int remove_stale_staging_trees(const std::filesystem::path& temp_dir);
inline constexpr const char* kKeepStageMarker = ".keep-stage";

// The per-submission folder and its completion marker.
std::filesystem::path submission_dir(const std::filesystem::path& out, const std::string& name);
bool is_finished(const std::filesystem::path& out, const std::string& name);

}  // namespace roofline::batch
