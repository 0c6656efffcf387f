#include "timeline_run.hpp"

#include "build_progress.hpp"
#include "device_query.hpp"
#include "exit_code.hpp"
#include "job_from_spec.hpp"
#include "lab_run.hpp"
#include "lab_session.hpp"

#include <fmt/format.h>

#include <unistd.h>

namespace roofline {

TimelineRun run_timeline(const Workspace& ws, const TimelineRequest& request) {
    const auto& lab = *request.lab;
    const auto& variant = *request.variant;
    TimelineRun out;
    const auto program = ws.lab_target(lab.id, request.solutions);
    if (request.build) {
        auto build = build_with_progress(ws.build_dir, program, true);
        if (!build.ok) {
            out.refusal = fmt::format("build of {} failed:\n{}", program, build.output);
            out.exit_code = kBuildFailed;
            return out;
        }
    }
    auto work_dir = std::filesystem::temp_directory_path() / fmt::format("roofline-timeline-{}", ::getpid());
    std::filesystem::create_directories(work_dir);
    auto result_file = work_dir / "timeline.json";
    auto job = lab_job(lab, variant, protocol::JobMode::timeline, request.seed, result_file, 2);
    job.timed_shape = request.shape;
    LabRun run;
    std::string why_no_device;
    {
        LabSession session(ws.lab_executable(lab.id, request.solutions), work_dir / "program", /*judged=*/false);
        if (session.device(&why_no_device))
            run = interpret(session.run(job, lab.timeout_s), job, lab.timeout_s);
    }
    std::filesystem::remove_all(work_dir);
    if (!why_no_device.empty()) {
        if (auto missing = missing_gpu_driver()) why_no_device = *missing;
        out.refusal = fmt::format("no timeline: no CUDA device here ({})", why_no_device);
        out.exit_code = kNoDevice;
        return out;
    }
    if (run.outcome != Outcome::correct) {
        out.refusal = fmt::format("no timeline: {}", run.message);
        out.exit_code = exit_code_for(run.outcome);
        return out;
    }
    // interpret() saw to it that a correct timeline job's answer holds its timeline and device.
    out.records = *run.result.timeline;
    out.timeline = build_timeline(timeline_records(*run.result.timeline, result_file.string()),
                                  double(run.result.timeline->began_ns));
    out.device = run.result.device->name;
    return out;
}

}  // namespace roofline
