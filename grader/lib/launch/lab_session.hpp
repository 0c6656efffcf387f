// One lab program that runs every variant of a `roofline grade --all` (or a
// lab 00 size sweep) in turn, instead of one process per variant. Starting a
// CUDA process costs ~0.3 s of driver time, and the driver does it for one
// process at a time even on different GPUs (H200, 2026-11-29): with a process
// per variant a grading was nearly all start-up, and two GPUs barely beat one.
//
// The lab program runs with --serve: it reads one job (protocol/lab_job.hpp, a
// JSON object) per line on stdin and writes each job's result
// file when it is done. A job that crashes, hangs past its timeout, exits, or
// ends in a CUDA error (the program then exits: its context may be broken)
// ends the process; the next job starts a fresh one. So a variant can only
// take the ones after it down with it as far as the restart. Under `roofline
// batch` (ROOFLINE_SANDBOX set) the program runs in the batch's sandbox (sandbox.hpp).
#pragma once
#include "device_query.hpp"
#include "lab_job.hpp"
#include "process.hpp"
#include "lab_run.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

// The judge program: roofline-judge beside the running `roofline`.
std::filesystem::path judge_program();

class LabSession {
public:
    // `work_dir`: the program's working folder and output, made on the first job and
    // removed (with the program killed) by the destructor.
    //
    // `judged` (every grading): the process that answers is roofline-judge (beside the
    // `roofline` binary), which starts the lab program as its runner and decides every verdict
    // and time itself (harness/judge.hpp). The other jobs (watch, timeline: what the lab
    // program's own process ran; verify: `roofline run`'s look) go to the lab program itself,
    // as they do in an unjudged session.
    LabSession(std::filesystem::path executable, std::filesystem::path work_dir, bool judged = true);
    ~LabSession();
    LabSession(const LabSession&) = delete;
    LabSession& operator=(const LabSession&) = delete;

    // Runs one job and waits for its result file (job.result_path), the program's
    // end, or `timeout_s`.
    ChildRun run(const protocol::Job& job, double timeout_s);

    // The GPU the program sees (asked once, with the job --device-info), or nothing
    // and why: no driver, no device, or the program could not answer. `failed` (when
    // given) tells the last apart: the program crashed, quit or hung before it answered
    // (a submission's static initializer runs first), which is the submission's failure,
    // not a missing GPU. Throws an InputError when the program is not built.
    std::optional<DeviceInfo> device(std::string* why_not, bool* failed = nullptr);

    // Ends the program now; the next job starts a fresh one.
    void end();

    const std::filesystem::path& executable() const { return executable_; }
    bool judged() const { return judged_; }
    int starts() const { return starts_; }  // how many processes it took so far

private:
    bool start();
    bool send(const std::string& line);
    void forward_trace() const;

    std::filesystem::path executable_, work_dir_, output_file_;
    bool judged_ = true;
    std::unique_ptr<LabSession> unjudged_;  // a judged session's watch and timeline jobs
    std::optional<DeviceInfo> device_;
    RunningProcess process_;
    int starts_ = 0;
};

}  // namespace roofline
