// Profiles under `roofline batch`, for a lab whose points depend on them (lab 02: the byte
// prediction and the diagnosis are scored against `roofline profile`'s counters). A
// submission's own profile entries are never trusted: its log is staged without them (only
// its predictions and diagnoses come along, staging.cpp), and the batch profiles instead:
//   - the course's own kernels (the given ones, as handed out) once per batch, at the public
//     shapes, as the students profiled them: the "before" a diagnosis names;
//   - each submission's kernels before it is graded, at the graded shapes, with its lab
//     program inside the sandbox (profile.cpp wraps ncu in it): the "after", and the DRAM
//     bytes its byte predictions are scored on.
// Where ncu is missing the batch says so once, and those points are 0 for everyone.
#pragma once
#include "grading.hpp"
#include "lab_spec.hpp"
#include "workspace.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace roofline::batch {

// True when lab.yaml gives points that only a profile can earn.
bool scores_profiles(const LabSpec& lab);

// The one paragraph the batch prints when ncu is not there (`ncu_found` false) for such a lab:
// which points score 0 and what to install; empty when nothing is lost.
std::string profiler_missing_note(const LabSpec& lab, bool ncu_found);

struct ProfilingRun {
    int profiled = 0;
    std::vector<std::string> failures;  // "VARIANT: exit N: the last line roofline profile said"
};

// `roofline profile` of every variant of `lab` in `root` (a course or a staged submission),
// appending to `log`. `job` gives the GPU, the sandbox and the cache folder; its staged
// submission is not read. Each run has `timeout_s`; `build` lets the first rebuild the lab
// program (the course's own, which the batch does not otherwise build).
ProfilingRun profile_variants(const GradeJob& job, const Workspace& root, const LabSpec& lab,
                              const std::filesystem::path& log, double timeout_s, bool build = false);

// Appends every profile entry of `from` to `to` (the batch's given-kernel profiles to a
// staged submission's log). A missing `from` appends nothing.
void copy_profiles(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace roofline::batch
