// The one definition of what the grader asks a lab program to do (a Job) and the
// words the program answers with (JobStatus). The grader writes a Job as one JSON
// object per line on the program's stdin (lab_session.hpp); the program (harness/
// lab_main.cpp) reads it back with the same functions, and so does the fake lab
// program of the CPU tests. Run by hand, the program's flags fill the same struct.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofline::protocol {

using Shape = std::map<std::string, long long>;

// device_info: only say which GPU the program sees (or why none).
// verify: correctness only, every check watched (launch_watch.hpp).
// grade: verify, time the variant and its peer in turns, verify again; nothing watched,
//   and refused in a process that has watched before (CUPTI, once attached, slows launches).
// watch: the checks of a grading, each watched, then the timed launches replayed under
//   the watch, then the peer once: what the GPU ran, for the grader to judge.
// once: one unwatched launch per shape (the verify shapes, then the timed one if given)
//   between cudaProfilerStart and cudaProfilerStop, each verified after it: what
//   `roofline profile` runs under ncu and `roofline run --sanitize` under compute-sanitizer.
// timeline: the checks, then one warm-up launch and one watched launch of the variant at the
//   timed shape, every kernel with its start and end on the GPU's clock (`roofline timeline`).
enum class JobMode { device_info, verify, grade, watch, once, timeline };

NLOHMANN_JSON_SERIALIZE_ENUM(JobMode, {{JobMode::device_info, "device_info"},
                                       {JobMode::verify, "verify"},
                                       {JobMode::grade, "grade"},
                                       {JobMode::watch, "watch"},
                                       {JobMode::once, "once"},
                                       {JobMode::timeline, "timeline"}})

// The modes whose last check is at the timed shape, which the job must give.
inline bool needs_timed_shape(JobMode mode) {
    return mode == JobMode::grade || mode == JobMode::watch || mode == JobMode::timeline;
}

struct Job {
    JobMode mode = JobMode::verify;
    std::string variant;
    std::vector<Shape> verify_shapes;
    std::optional<Shape> timed_shape;  // grade and watch
    std::uint64_t seed = 1;            // the first check's; each next check takes the next one
    double atol = 0, rtol = 1e-6, max_rel_l2 = 1e-6;
    int min_samples = 10, max_samples = 1000;
    double target_rse = 0.005;
    double time_cap_s = 3.0;        // timing stops here even when the error is still above target
    double launch_timeout_s = 0;    // > 0: a launch still running after this is a hang
    bool flush_l2 = true;
    int replay_launches = 0;        // watch: how many timed launches to replay (the grade job's count)
    int replay_batch_launches = 1;  // watch: back to back between two events, as the judge's batches were
    std::string result_path = "-";  // where the program writes its JSON result ("-": stdout)
};

inline void to_json(nlohmann::json& j, const Job& job) {
    j = {{"mode", job.mode},
         {"variant", job.variant},
         {"verify_shapes", job.verify_shapes},
         {"seed", job.seed},
         {"atol", job.atol},
         {"rtol", job.rtol},
         {"max_rel_l2", job.max_rel_l2},
         {"min_samples", job.min_samples},
         {"max_samples", job.max_samples},
         {"target_rse", job.target_rse},
         {"time_cap_s", job.time_cap_s},
         {"launch_timeout_s", job.launch_timeout_s},
         {"flush_l2", job.flush_l2},
         {"replay_launches", job.replay_launches},
         {"replay_batch_launches", job.replay_batch_launches},
         {"result_path", job.result_path}};
    if (job.timed_shape) j["timed_shape"] = *job.timed_shape;
}

// Every field must be present except timed_shape: a job from an older grader is refused, not guessed.
inline void from_json(const nlohmann::json& j, Job& job) {
    j.at("mode").get_to(job.mode);
    j.at("variant").get_to(job.variant);
    j.at("verify_shapes").get_to(job.verify_shapes);
    j.at("seed").get_to(job.seed);
    j.at("atol").get_to(job.atol);
    j.at("rtol").get_to(job.rtol);
    j.at("max_rel_l2").get_to(job.max_rel_l2);
    j.at("min_samples").get_to(job.min_samples);
    j.at("max_samples").get_to(job.max_samples);
    j.at("target_rse").get_to(job.target_rse);
    j.at("time_cap_s").get_to(job.time_cap_s);
    j.at("launch_timeout_s").get_to(job.launch_timeout_s);
    j.at("flush_l2").get_to(job.flush_l2);
    j.at("replay_launches").get_to(job.replay_launches);
    job.replay_batch_launches = j.value("replay_batch_launches", 1);
    j.at("result_path").get_to(job.result_path);
    if (j.contains("timed_shape")) job.timed_shape = j.at("timed_shape").get<Shape>();
    else job.timed_shape.reset();
}

// What the program's result file says in "status", and the exit code that goes with it.
enum class JobStatus { ok, incorrect, timing_refused, unknown_variant, bad_shape, cuda_error, hang, no_device, error };

NLOHMANN_JSON_SERIALIZE_ENUM(JobStatus, {{JobStatus::error, "error"},  // first: what an unknown word reads as
                                         {JobStatus::ok, "ok"},
                                         {JobStatus::incorrect, "incorrect"},
                                         {JobStatus::timing_refused, "timing_refused"},
                                         {JobStatus::unknown_variant, "unknown_variant"},
                                         {JobStatus::bad_shape, "bad_shape"},
                                         {JobStatus::cuda_error, "cuda_error"},
                                         {JobStatus::hang, "hang"},
                                         {JobStatus::no_device, "no_device"}})

inline int exit_code_of(JobStatus status) {
    switch (status) {
        case JobStatus::ok: return 0;
        case JobStatus::incorrect:
        case JobStatus::timing_refused: return 1;
        case JobStatus::unknown_variant:
        case JobStatus::bad_shape: return 2;
        case JobStatus::cuda_error: return 3;
        case JobStatus::no_device:
        case JobStatus::error: return 4;
        case JobStatus::hang: return 5;
    }
    return 4;
}

}  // namespace roofline::protocol
