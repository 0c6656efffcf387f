// The lab program's judge role: `roofline-judge` (judge_main.cpp) runs the same job loop as a
// lab program (lab_main.cpp) but holds no student code. Its variants are the families' own
// Problems (inputs, poison, reference, peer, checks) around a launch that is recorded and
// sent to the runner, the real lab program started with --runner (remote_runner.hpp).
// Everything the grader believes comes from here; the runner only launches.
#pragma once
#include "registry.hpp"
#include "remote_runner.hpp"

#include <string>
#include <vector>

namespace roofline::harness {

// Makes this process the judge of the lab program started by `runner_argv` (the lab
// program's path last, with any sandbox in front).
// `find_kind` (judge_kinds.hpp) turns what the runner says of a variant into the family's entry.
using KindFinder = const VariantEntry* (*)(const std::string& problem, const std::string& dtype,
                                           const std::string& signature);
void become_judge(std::vector<std::string> runner_argv, KindFinder find_kind);
bool is_judge();

// Starts the runner if it is not running (the first job does); throws RunnerGone.
void ensure_runner(double limit_s = 120);

// The runner's variant `name` as a judge's entry (the family's Problem around a trampoline),
// with the runner's claims (op, dtype, file) as its registration; null when the runner has no
// such variant. Throws std::runtime_error when no family has its kind. Sets the variant the
// next launches go to.
const VariantEntry* judge_entry(const std::string& name);
std::vector<std::string> runner_variant_names();

// Sends the launches recorded since the last call to the runner and waits for them.
RunnerLaunch launch_remotely(double launch_timeout_s);
// The variant the judge's launches go to (the last judge_entry).
const std::string& current_variant();
// The runner's median event time of the last launch_remotely, per launch (0 before any).
double last_remote_launch_s();

// The runner died: end this process the same way (its exit code, or its signal), with no
// result file, so that the grader names the death as it would have named the lab program's.
[[noreturn]] void die_like_runner(const RunnerGone& gone);

}  // namespace roofline::harness
