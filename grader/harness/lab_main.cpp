// The job loop of every lab executable (lab-NN-name, solution-NN-name; main() in
// lab_program_main.cpp) and of the judge (judge_main.cpp, judge.hpp). It verifies
// and times one variant and writes its answer (protocol/lab_result.hpp) as a JSON file. `roofline` runs
// the judge with --serve, as one child process for a whole lab (lab_session.hpp): one job
// (protocol/lab_job.hpp, a JSON object) per line on stdin; the judge starts the lab program with
// --runner and has it launch the variants on the judge's buffers. A lab program run by hand
// judges itself (in its own process: for a look, never for a grade):
//   build/labs/lab-01-memory-roof --list
//   build/labs/lab-01-memory-roof --variant copy_naive_fp32 --mode verify --verify-shape n=1000 --result -
// `--mode once` launches the variant once per shape between cudaProfilerStart and
// cudaProfilerStop, unwatched, then verifies it: what `roofline profile` runs under ncu
// (--profile-from-start off) and `roofline run --sanitize` under compute-sanitizer.
#include "clock_cross_check.hpp"
#include "hang_watch.hpp"
#include "judge.hpp"
#include "lab_program.hpp"
#include "runner_serve.hpp"
#include "input_guard.cuh"
#include "launch_watch.hpp"
#include "measure.cuh"
#include "registry.hpp"

#include "lab_job.hpp"
#include "lab_result.hpp"
#include "stage_trace.hpp"

#include <CLI/CLI.hpp>
#include <cuda_profiler_api.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace roofline::harness;
namespace protocol = roofline::protocol;
using roofline::protocol::Job;
using roofline::protocol::JobMode;
using roofline::protocol::JobStatus;
using roofline::protocol::Result;
using nlohmann::json;

namespace {

Shape parse_shape(const std::string& text) {
    Shape shape;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        auto eq = item.find('=');
        if (eq == std::string::npos) throw std::invalid_argument("shape '" + text + "' must look like m=4096,n=4096,k=4096");
        shape[item.substr(0, eq)] = std::stoll(item.substr(eq + 1));
    }
    return shape;
}

// The harness's working types in their wire form.
protocol::TimingStats stats_of(const SampleStats& s) {
    return {s.count, s.median_s, s.q1_s, s.q3_s, s.min_s, s.mean_s, s.rse, s.samples_s};
}

protocol::VerifyReport report_of(const VerifyReport& r) {
    protocol::VerifyReport out{r.passed,    r.verdict,  r.elements,           r.mismatches, r.unwritten, r.nonfinite,
                               r.guard_bytes_damaged, r.rel_l2, r.max_abs_error, {}};
    for (const auto& m : r.first_mismatches) out.first_mismatches.push_back({m.index, m.expected, m.got, m.unwritten});
    return out;
}

std::string shape_text(const Shape& shape) {
    std::string out;
    for (const auto& [key, value] : shape) out += fmt::format("{}{}={}", out.empty() ? "" : ",", key, value);
    return out;
}

std::string& last_stage() {
    static std::string stage = "start-up";
    return stage;
}

// Progress for the parent: if this process hangs or dies, the last stage names where.
void stage(const std::string& what) {
    last_stage() = what;
    roofline::trace_stage(what);
    std::fprintf(stderr, "roofline-stage: %s\n", what.c_str());
    std::fflush(stderr);
}

// Read once per process: cudaGetDeviceProperties asks the driver for every property,
// some of them slowly, and a program serves hundreds of jobs on the same device.
const protocol::Device& device_info() {
    static const protocol::Device info = [] {
        int device = 0;
        cudaDeviceProp prop{};
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
        return protocol::Device{prop.name, prop.multiProcessorCount, prop.l2CacheSize,
                                fmt::format("{}.{}", prop.major, prop.minor)};
    }();
    return info;
}

std::vector<protocol::ClockCrossCheck> cross_checks_of(const std::vector<ClockCrossCheck>& checks) {
    std::vector<protocol::ClockCrossCheck> out;
    for (const auto& c : checks) out.push_back({c.event_median_s, c.globaltimer_median_s});
    return out;
}

protocol::WatchedLaunches launched_of(const WatchedWork& work) {
    if (!work.watched) return {.watched = false, .error = work.error};
    return {.watched = true, .kernels = work.kernels, .other_stream_kernels = work.other_stream_kernels,
            .copies = work.copies, .memsets = work.memsets};
}

std::vector<protocol::InputChange> changes_of(const std::vector<InputChange>& changes) {
    std::vector<protocol::InputChange> out;
    for (const auto& c : changes) out.push_back({c.name, c.changed, c.elements});
    return out;
}

// Verifies on a fresh seed with poisoned outputs; returns the check. The inputs
// are copied aside first: a launch that changes them fails here, named, and the
// reference is computed from inputs equal to the copy. Everything the launch ran on
// the GPU is recorded for the grader (launch_watch.hpp).
protocol::Check check_once(Problem& problem, InputGuard& guard, const Shape& shape, std::uint64_t seed, const std::string& when,
                const Tolerance& tolerance, double launch_timeout_s, bool watch, cudaStream_t stream,
                bool profiled = false) {
    stage(fmt::format("verify {} seed {} ({})", shape_text(shape), seed, when));
    problem.fill(seed, stream);
    guard.snapshot(problem.inputs(), stream);
    problem.poison_outputs(stream);
    // The fills, the reference and the poison finish before the variant launches: a launch on
    // another stream (the legacy default one) is not ordered after them, and would race them
    // instead of being caught below.
    CUDA_CHECK(cudaStreamSynchronize(stream));
    roofline::trace_stage("  inputs filled and snapshotted, outputs poisoned");
    if (watch) LaunchWatch::instance().start(stream);
    // Only the variant's own launch lies inside the range a profiler is told to record.
    if (profiled) CUDA_CHECK(cudaProfilerStart());
    problem.launch_variant(stream);
    CUDA_CHECK(cudaGetLastError());
    bool on_legacy_stream = false;
    if (is_judge()) {
        // The launch was recorded, not made: the runner makes it now, after the wait above for
        // the judge's fills and poison (two processes' work is not ordered on the GPU).
        on_legacy_stream = launch_remotely(launch_timeout_s).legacy_stream_busy;
    } else {
        on_legacy_stream = legacy_stream_busy();
        if (on_legacy_stream) wait_for_stream(cudaStreamLegacy, launch_timeout_s);
        wait_for_stream(stream, launch_timeout_s);
    }
    if (profiled) CUDA_CHECK(cudaProfilerStop());
    auto launched = watch ? LaunchWatch::instance().stop() : WatchedWork{};
    CUDA_CHECK(cudaGetLastError());
    roofline::trace_stage("  launched");
    auto changes = guard.changes(problem.inputs(), stream);
    roofline::trace_stage("  inputs compared with the snapshot");
    VerifyReport report;
    if (on_legacy_stream) {
        report.verdict = "launched work on a stream other than the one it was given (the legacy default stream: "
                         "`stream` left out of <<<grid, block, shared, stream>>>): it races the checks and the "
                         "timer, so its answer and its time mean nothing; launch everything on `stream`";
    } else if (changes.empty()) {
        report = problem.verify(tolerance, stream);
    } else {
        report.verdict = describe_changes(changes);
    }
    roofline::trace_stage("  verified");
    protocol::Check check{shape, seed, when, report_of(report), changes_of(changes), std::nullopt};
    if (watch) check.launched = launched_of(launched);
    return check;
}

Tolerance tolerance_of(const Job& job) { return {job.atol, job.rtol, job.max_rel_l2}; }

// A judged batch lasts at least this long, so that the clock's fixed costs and their jitter
// (0.02-0.1 ms, and a per-batch jitter of 1-2% at 3 ms, on the H200) weigh little; at most this
// many launches (and copies).
constexpr double kBatchSeconds = 0.005;
constexpr int kMaxBatchLaunches = 64;

// The timed launches again, watched: what the GPU ran while the variant was timed, in
// a process that is not timing (the grade job's process never watches). Warm L2, no
// flush kernel in the window; stops after `launches` or about a second.
protocol::Replay replay_watched(Problem& problem, const Job& job, cudaStream_t stream) {
    struct Events {
        cudaEvent_t begin = nullptr, end = nullptr;
        Events() {
            CUDA_CHECK(cudaEventCreate(&begin));
            CUDA_CHECK(cudaEventCreate(&end));
        }
        ~Events() {
            cudaEventDestroy(begin);
            cudaEventDestroy(end);
        }
    } events;
    stage(fmt::format("replaying {} timed launches, watched", job.replay_launches));
    // In the form the judge timed them: batches of back-to-back launches between two events
    // (lab_main.cpp, time_remotely), as many a batch as the judge put in one (at most kMaxBatchLaunches), so that
    // a tiny kernel's launch latency, hidden in a timed batch, is hidden here too.
    const int per_batch = std::clamp(job.replay_batch_launches, 1, kMaxBatchLaunches);
    std::vector<double> times_s;
    double spent_s = 0;
    LaunchWatch::instance().start(stream);
    for (int done = 0; done < std::max(1, job.replay_launches) && (done < 3 || spent_s < 1.0); done += per_batch) {
        CUDA_CHECK(cudaEventRecord(events.begin, stream));
        for (int i = 0; i < per_batch; ++i) problem.launch_variant(stream);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventRecord(events.end, stream));
        wait_for_stream(stream, job.launch_timeout_s * per_batch);
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, events.begin, events.end));
        for (int i = 0; i < per_batch; ++i) times_s.push_back(ms * 1e-3 / per_batch);
        spent_s += ms * 1e-3;
    }
    auto launched = LaunchWatch::instance().stop();
    std::sort(times_s.begin(), times_s.end());
    return {*job.timed_shape, static_cast<long long>(times_s.size()), times_s[times_s.size() / 2],
            launched_of(launched)};
}

// `roofline timeline`: one launch of the variant at the timed shape (set up by the last
// check), after one unwatched warm-up launch, with every kernel's start and end on the GPU's
// clock (lib/profile/timeline.hpp reads it). Watching costs ~1 us per launch (launch_watch.hpp), so
// the gaps it shows are an upper bound on an unwatched run's.
protocol::Timeline record_timeline(Problem& problem, const Job& job, cudaStream_t stream) {
    stage("timeline " + shape_text(*job.timed_shape));
    problem.launch_variant(stream);
    wait_for_stream(stream, job.launch_timeout_s);
    LaunchWatch::instance().start(stream);
    problem.launch_variant(stream);
    wait_for_stream(stream, job.launch_timeout_s);
    auto watched = LaunchWatch::instance().stop();
    if (!watched.watched) return {.watched = false, .error = watched.error};
    protocol::Timeline timeline{.watched = true, .began_ns = watched.began_ns};
    for (const auto& span : watched.spans)
        timeline.kernels.push_back({span.name, span.start_ns, span.end_ns, span.stream_id});
    return timeline;
}


// The judge's timing (measure.cuh, measure_batches): the variant's launches are the runner's,
// so the judge times each batch of them on its own clock, one batch on `copies` distinct
// inputs and outputs (the verified problem and more of the same family, each filled from its
// own seed, so that no launch finds its answer left by another), with every output poisoned
// before and checked after each batch. The peer runs the same way in this process.
// Returns 0, or the job's exit code when a check failed or the clocks disagree.
int time_remotely(const VariantEntry& entry, Problem& verified, InputGuard& verified_guard, const Job& job,
                  const Tolerance& tolerance, std::uint64_t& seed, cudaStream_t stream, Result& result) {
    // Enough launches per batch that the clock's fixed costs (~0.1 ms) weigh little, and as
    // many copies as fit in half the free memory; a copy per launch.
    const double verified_launch_s = std::max(1e-6, last_remote_launch_s());
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    struct Copy {
        std::unique_ptr<Problem> problem;
        InputGuard guard;
    };
    std::vector<Copy> copies;
    const auto copies_began = std::chrono::steady_clock::now();
    const int wanted = std::clamp(static_cast<int>(std::ceil(kBatchSeconds / verified_launch_s)), 1, kMaxBatchLaunches);
    std::size_t footprint = 0;
    for (int i = 1; i < wanted; ++i) {
        std::size_t before = 0;
        CUDA_CHECK(cudaMemGetInfo(&before, &total_bytes));
        if (footprint > 0 && footprint * (i + 1) > free_bytes / 2) break;
        Copy copy{entry.make(), {}};
        copy.problem->setup(*job.timed_shape);
        copy.problem->fill(seed++, stream);
        copy.guard.snapshot(copy.problem->inputs(), stream);
        std::size_t after = 0;
        CUDA_CHECK(cudaMemGetInfo(&after, &total_bytes));
        footprint = std::max(footprint, before > after ? before - after : 0);
        copies.push_back(std::move(copy));
    }
    roofline::trace_stage(fmt::format("  {} copies made in {:.3f} s", copies.size(), roofline::seconds_since(copies_began)));
    std::vector<std::pair<Problem*, InputGuard*>> all{{&verified, &verified_guard}};
    for (auto& c : copies) all.push_back({c.problem.get(), &c.guard});
    const int launches = static_cast<int>(all.size());

    std::string failed_when;
    // Every output after every batch. The inputs once, after the last: an input changed during
    // a batch already shows as a wrong output there (the references are of the pristine inputs),
    // and a change that lasts is caught at the end; checking them every batch doubled the judge's
    // own traffic for a memory-bound kernel (run 88: the checks took twice the batches' time).
    auto check_outputs = [&](cudaStream_t s) {
        for (auto [problem, guard] : all) {
            VerifyReport report = problem->verify(tolerance, s);
            if (!report.passed) {
                result.checks.push_back(
                    {*job.timed_shape, std::nullopt, "during timing", report_of(report), {}, std::nullopt});
                return false;
            }
        }
        return true;
    };
    auto check_inputs = [&](cudaStream_t s) {
        for (auto [problem, guard] : all) {
            auto changes = guard->changes(problem->inputs(), s);
            if (!changes.empty()) {
                VerifyReport report;
                report.verdict = describe_changes(changes) + " (while it was timed)";
                result.checks.push_back({*job.timed_shape, std::nullopt, "during timing", report_of(report),
                                         changes_of(changes), std::nullopt});
                return false;
            }
        }
        return true;
    };
    auto poison_all = [&](cudaStream_t s) {
        for (auto [problem, guard] : all) problem->poison_outputs(s);
    };
    auto empty_here = [&] {
        launch_empty_kernel(stream);
        wait_for_stream(stream, job.launch_timeout_s);
    };
    struct Events {  // made once, outside the clock
        std::vector<cudaEvent_t> list;
        ~Events() {
            for (auto e : list) cudaEventDestroy(e);
        }
    } peer_events;
    peer_events.list.resize(2);
    for (auto& e : peer_events.list) CUDA_CHECK(cudaEventCreate(&e));
    auto run_here = [&](auto launch_one) {  // as the runner does: two events around the batch
        return [&, launch_one] {
            auto& events = peer_events.list;
            CUDA_CHECK(cudaEventRecord(events[0], stream));
            for (std::size_t i = 0; i < all.size(); ++i) launch_one(*all[i].first);
            CUDA_CHECK(cudaEventRecord(events[1], stream));
            wait_for_stream(stream, job.launch_timeout_s * all.size());
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, events[0], events[1]));
            return std::vector<double>{ms * 1e-3 / all.size()};
        };
    };
    // The calls are recorded before the clock starts, and the baseline sends the same ones.
    nlohmann::json calls;
    auto& runner = RemoteRunner::instance();
    std::vector<BatchTarget> targets;
    targets.push_back({"variant", launches,
                       [&](cudaStream_t s) {
                           poison_all(s);
                           for (auto [problem, guard] : all) problem->launch_variant(s);
                           calls = RemoteRunner::take_pending();
                       },
                       [&] { return runner.launch_calls(current_variant(), calls, job.launch_timeout_s).event_s; },
                       [&] { runner.launch_calls(current_variant(), calls, job.launch_timeout_s, /*baseline=*/true); },
                       check_outputs, check_inputs});
    targets.push_back({"peer", launches, poison_all, run_here([stream](Problem& p) { p.launch_peer(stream); }),
                       empty_here, [](cudaStream_t) { return true; }});
    const std::string also_name = verified.also_measured_name();
    if (!also_name.empty())
        targets.push_back({"also measured", launches, poison_all,
                           run_here([stream](Problem& p) { p.launch_also_measured(stream); }), empty_here,
                           [](cudaStream_t) { return true; }});
    auto measured = measure_batches(targets, measure_config_of(job), stream);
    if (measured.check_failed) {
        result.status = JobStatus::incorrect;
        return 1;
    }
    const auto& phases = measured.phases;
    roofline::trace_stage(fmt::format(
        "  timed: {} rounds, batches of {} launches; variant spread {:.2f}%, peer {:.2f}%; seconds: prepare {:.3f}, "
        "settle {:.3f}, batches {:.3f}, checks {:.3f}, baselines {:.3f}, clock {:.3f}",
        phases.rounds, launches, 100 * measured.per_launch[0].rse * std::sqrt(double(measured.per_launch[0].count)),
        100 * measured.per_launch[1].rse * std::sqrt(double(measured.per_launch[1].count)), phases.prepare_s,
        phases.settle_s, phases.batch_s, phases.check_s, phases.empty_s, phases.clock_s));
    auto& timing = result.timing.emplace();
    timing.variant = stats_of(measured.per_launch[0]);
    timing.peer = stats_of(measured.per_launch[1]);
    // What the runner's events said against the judge's clock; the peer's own events likewise.
    for (std::size_t t = 0; t < measured.per_launch.size(); ++t)
        timing.cross_check.push_back({measured.event_per_launch[t].median_s, measured.per_launch[t].median_s});
    timing.peer_name = verified.peer_name();
    timing.sm_clock_mhz = {measured.sm_clock_mhz_median, measured.sm_clock_mhz_min, measured.sm_clock_mhz_max};
    timing.hit_time_cap = measured.hit_time_cap;
    timing.l2_flush_bytes = static_cast<long long>(measured.l2_flush_bytes);
    timing.batch_launches = launches;
    timing.fixed_cost_s = measured.empty_round_trip[0].median_s;
    if (!also_name.empty()) timing.also_measured = protocol::AlsoMeasured{also_name, stats_of(measured.per_launch[2])};
    // A runner that reports less time than its launches took, beyond both clocks' noise: its
    // claim is refused (clock_cross_check.hpp).
    const double judged = measured.per_launch[0].median_s, claimed = measured.event_per_launch[0].median_s;
    if (judged_clock_refuses(judged, claimed, measured.per_launch[0].median_rse)) {
        result.status = JobStatus::timing_refused;
        result.message = fmt::format(
            "the lab program's own events say {:.2f} us a launch; the judge's clock around the same {} batches of {} "
            "says {:.2f} us: a launch function that hides work from its events, or works after it says it is done",
            claimed * 1e6, measured.per_launch[0].count, launches, judged * 1e6);
        return 1;
    }
    return 0;
}

// What every mode's run of one variant shares: the job and its result, the variant's problem,
// the guard over its inputs, the next check's seed, the process's stream.
struct VariantRun {
    const Job& job;
    Result& result;
    const VariantEntry& entry;
    std::unique_ptr<Problem> problem;
    InputGuard guard;
    std::uint64_t seed;
    cudaStream_t stream;
    Tolerance tolerance;

    // Sets up and checks each shape in turn, each check recorded; false at the first that fails.
    bool verify(const std::vector<Shape>& shapes, const std::string& when, bool watch, bool profiled = false) {
        for (const auto& shape : shapes) {
            stage("setup " + shape_text(shape));
            problem->setup(shape);
            auto check = check_once(*problem, guard, shape, seed++, when, tolerance, job.launch_timeout_s, watch, stream,
                                    profiled);
            result.checks.push_back(check);
            if (!check.report.passed) return false;
        }
        return true;
    }

    int incorrect() {
        result.status = JobStatus::incorrect;
        return 1;
    }

    int done() {
        roofline::trace_stage("job done");
        result.status = JobStatus::ok;
        return 0;
    }
};

// The verify shapes, then the timed shape when the job gives one: the last check sets up the
// shape the later steps (timing, replay, timeline) use.
std::vector<Shape> shapes_then_timed(const Job& job) {
    std::vector<Shape> shapes = job.verify_shapes;
    if (job.timed_shape) shapes.push_back(*job.timed_shape);
    return shapes;
}

// verify: correctness only, every check watched.
int run_verify(VariantRun& variant) {
    if (!variant.verify(variant.job.verify_shapes, "before timing", /*watch=*/true)) return variant.incorrect();
    return variant.done();
}

// once: one unwatched launch per shape between cudaProfilerStart and cudaProfilerStop (ncu and
// compute-sanitizer need the profiling interface to themselves), each verified after it.
int run_once(VariantRun& variant) {
    if (!variant.verify(shapes_then_timed(variant.job), "one profiled launch", /*watch=*/false, /*profiled=*/true))
        return variant.incorrect();
    return variant.done();
}

// watch: the checks, watched; the timed launches replayed under the watch; the peer once.
int run_watch(VariantRun& variant) {
    const Job& job = variant.job;
    Result& result = variant.result;
    if (!variant.verify(shapes_then_timed(job), "before timing", /*watch=*/true)) return variant.incorrect();
    result.replay = replay_watched(*variant.problem, job, variant.stream);
    stage("the peer once, watched");
    // The peer alone, watched once: its time must be the library's own work.
    LaunchWatch::instance().start(variant.stream);
    variant.problem->launch_peer(variant.stream);
    wait_for_stream(variant.stream, job.launch_timeout_s);
    result.peer_launched = launched_of(LaunchWatch::instance().stop());
    result.watch_seconds = LaunchWatch::instance().seconds_spent();  // this process's total so far
    return variant.done();
}

// A lab program run by hand times itself: its events, interleaved with the peer's, in-process.
// Returns 0, or the job's exit code when the inputs changed or the clocks disagree.
int time_in_process(VariantRun& variant) {
    const Job& job = variant.job;
    Result& result = variant.result;
    Problem* problem = variant.problem.get();
    cudaStream_t stream = variant.stream;
    stage("timing " + shape_text(*job.timed_shape));
    std::vector<TimedTarget> targets{{"variant", [&](cudaStream_t s) { problem->launch_variant(s); }},
                                     {"peer", [&](cudaStream_t s) { problem->launch_peer(s); }}};
    const std::string also_name = problem->also_measured_name();
    if (!also_name.empty())
        targets.push_back({"also measured", [&](cudaStream_t s) { problem->launch_also_measured(s); }});
    auto measured = measure_interleaved(targets, measure_config_of(job), stream);
    roofline::trace_stage(fmt::format("  timed: {} + {} samples", measured.stats[0].samples_s.size(), measured.stats[1].samples_s.size()));
    // The inputs the timed launches read are still those of the last check.
    auto timing_changes = variant.guard.changes(problem->inputs(), stream);
    auto& timing = result.timing.emplace();
    timing.variant = stats_of(measured.stats[0]);
    timing.peer = stats_of(measured.stats[1]);
    timing.cross_check = cross_checks_of(measured.cross_checks);
    timing.peer_name = problem->peer_name();
    timing.sm_clock_mhz = {measured.sm_clock_mhz_median, measured.sm_clock_mhz_min, measured.sm_clock_mhz_max};
    timing.hit_time_cap = measured.hit_time_cap;
    timing.l2_flush_bytes = static_cast<long long>(measured.l2_flush_bytes);
    if (!also_name.empty())  // shown beside the peer, never scored (score.hpp)
        timing.also_measured = protocol::AlsoMeasured{also_name, stats_of(measured.stats[2])};
    if (!timing_changes.empty()) {
        VerifyReport report;
        report.verdict = describe_changes(timing_changes) + " (while it was timed)";
        result.checks.push_back({*job.timed_shape, std::nullopt, "during timing", report_of(report),
                                 changes_of(timing_changes), std::nullopt});
        result.status = JobStatus::incorrect;
        return 1;
    }
    if (auto disagreement = timing_disagreement(measured.cross_checks, {"variant", "peer", "also measured"})) {
        result.status = JobStatus::timing_refused;
        result.message = *disagreement;
        return 1;
    }
    return 0;
}

// grade: the checks, unwatched; the variant timed against its peer (by the judge on its own
// clock, or in-process when run by hand); one more check on new inputs.
int run_grade(VariantRun& variant) {
    const Job& job = variant.job;
    if (!variant.verify(shapes_then_timed(job), "before timing", /*watch=*/false)) return variant.incorrect();
    if (is_judge()) {
        stage("timing " + shape_text(*job.timed_shape) + ", the runner's launches on the judge's clock");
        if (int refused = time_remotely(variant.entry, *variant.problem, variant.guard, job, variant.tolerance,
                                        variant.seed, variant.stream, variant.result))
            return refused;
    } else if (int refused = time_in_process(variant)) {
        return refused;
    }
    // New inputs after timing: a kernel that replays a cached answer fails here.
    auto check = check_once(*variant.problem, variant.guard, *job.timed_shape, variant.seed++, "after timing",
                            variant.tolerance, job.launch_timeout_s, false, variant.stream);
    variant.result.checks.push_back(check);
    if (!check.report.passed) return variant.incorrect();
    return variant.done();
}

// timeline: the checks, watched; then every kernel of one launch at the timed shape.
int run_timeline(VariantRun& variant) {
    if (!variant.verify(shapes_then_timed(variant.job), "before timing", /*watch=*/true)) return variant.incorrect();
    variant.result.timeline = record_timeline(*variant.problem, variant.job, variant.stream);
    return variant.done();
}

// One job for one variant, after device_info jobs have been answered (run_job): the checks the
// process refuses, then the job's mode.
int run(const Job& job, Result& result) {
    const VariantEntry* entry = is_judge() ? judge_entry(job.variant) : find_variant(job.variant);
    if (!entry) {
        result.status = JobStatus::unknown_variant;
        std::vector<std::string> names = is_judge() ? runner_variant_names() : std::vector<std::string>{};
        if (!is_judge())
            for (const auto& e : registered_variants()) names.push_back(e.name);
        result.message = fmt::format("no variant '{}' is registered in this executable; registered: {}",
                                        job.variant, fmt::join(names, ", "));
        return 2;
    }
    // CUPTI, attached, slows every launch of its process (launch_watch.hpp). The grader keeps
    // a program for watching and others for timing; this keeps them apart.
    if (is_judge() && (job.mode == JobMode::watch || job.mode == JobMode::timeline || job.mode == JobMode::once)) {
        result.status = JobStatus::error;
        result.message = "the judge verifies and times; watch, timeline and once jobs go to the lab program itself";
        return 4;
    }
    if (job.mode == JobMode::grade && LaunchWatch::instance().ever_started()) {
        result.status = JobStatus::error;
        result.message = "this lab program has watched launches (CUPTI) and will not time any more; the grader "
                            "must send grade jobs to a program that never watches";
        return 4;
    }
    result.registration = protocol::Registration{entry->problem, entry->dtype, entry->source_file};
    stage("device setup");
    result.device = device_info();

    // One stream for every job of the process (made once: a stream made and destroyed per job
    // cost ~8 ms in run 48's trace). A job ends with the stream idle; one that cannot ends the process.
    static const cudaStream_t stream = [] {
        cudaStream_t made = nullptr;
        CUDA_CHECK(cudaStreamCreateWithFlags(&made, cudaStreamNonBlocking));
        return made;
    }();
    roofline::trace_stage("  device read, stream ready");
    VariantRun variant{job, result, *entry, entry->make(), InputGuard{}, job.seed, stream, tolerance_of(job)};
    switch (job.mode) {
        case JobMode::verify: return run_verify(variant);
        case JobMode::once: return run_once(variant);
        case JobMode::watch: return run_watch(variant);
        case JobMode::grade: return run_grade(variant);
        case JobMode::timeline: return run_timeline(variant);
        case JobMode::device_info: break;
    }
    throw std::logic_error("a device_info job reached run(); run_job answers it");
}

// Written beside and renamed into place: the parent takes the file's existence as "done".
void write_result(const Result& result, const std::string& path) {
    const auto text = json(result).dump(2);
    if (path == "-") {
        std::cout << text << "\n";
        return;
    }
    auto temporary = path + ".tmp";
    {
        std::ofstream out(temporary);
        out << text << "\n";
    }
    std::filesystem::rename(temporary, path);
}

// The flags of a run by hand, filling the same Job the grader sends with --serve.
struct HandFlags {
    bool device_info = false;
    std::string mode = "verify";
    std::vector<std::string> verify_shapes;
    std::string timed_shape;
};

void add_job_options(CLI::App& app, Job& job, HandFlags& flags) {
    app.add_flag("--device-info", flags.device_info, "only write the device this program sees, or why there is none");
    app.add_option("--variant", job.variant, "variant name, as in lab.yaml");
    app.add_option("--mode", flags.mode,
                   "verify (correctness only), grade (verify, time, verify again), watch (what the GPU ran) or "
                   "once (one unwatched launch per shape inside cudaProfilerStart/Stop, then verified: for ncu and "
                   "compute-sanitizer) or timeline (verify, then every kernel of one launch on the GPU's clock)")
        ->check(CLI::IsMember({"verify", "grade", "watch", "once", "timeline"}));
    app.add_option("--verify-shape", flags.verify_shapes, "a shape to verify on, e.g. n=1000 or m=64,n=64,k=64");
    app.add_option("--timed-shape", flags.timed_shape, "the shape to time (grade and watch modes; once: one more shape)");
    app.add_option("--seed", job.seed, "first random seed; each check uses the next one");
    app.add_option("--atol", job.atol);
    app.add_option("--rtol", job.rtol);
    app.add_option("--max-rel-l2", job.max_rel_l2);
    app.add_option("--min-samples", job.min_samples);
    app.add_option("--max-samples", job.max_samples);
    app.add_option("--target-rse", job.target_rse);
    app.add_option("--time-cap-s", job.time_cap_s);
    app.add_option("--launch-timeout-s", job.launch_timeout_s,
                   "a kernel launch still running after this many seconds is a hang (0: wait for ever)");
    app.add_flag("!--no-flush", job.flush_l2, "do not flush the L2 before each sample");
    app.add_option("--replay-launches", job.replay_launches, "watch mode: how many timed launches to replay");
    app.add_option("--result", job.result_path, "where to write the JSON result ('-' for stdout)");
}

Job job_from_flags(Job job, const HandFlags& flags) {
    job.mode = flags.device_info ? JobMode::device_info : json(flags.mode).get<JobMode>();
    for (const auto& text : flags.verify_shapes) job.verify_shapes.push_back(parse_shape(text));
    if (!flags.timed_shape.empty()) job.timed_shape = parse_shape(flags.timed_shape);
    return job;
}

// What a job lacks, or nothing.
const char* usage_error(const Job& job) {
    if (job.mode == JobMode::device_info) return nullptr;
    if (job.variant.empty() || (roofline::protocol::needs_timed_shape(job.mode) && !job.timed_shape)) {
        return "--variant is required, and --timed-shape in grade, watch and timeline modes (see --help)";
    }
    return nullptr;
}

// One job: the result's status says how it went; the return value is the exit code.
int run_job(const Job& job, Result& result) {
    result = Result{};
    result.variant = job.variant;
    result.mode = job.mode;
    // A hung kernel cannot be stopped: report it and end here, skipping the destructors.
    set_hang_handler([&result, &job](double limit_s) {
        result.status = JobStatus::hang;
        result.message = fmt::format("a kernel was still running {:g} s after its launch, during '{}'", limit_s,
                                        last_stage());
        ::close(STDIN_FILENO);  // with --serve, the parent's next job goes to a fresh program
        write_result(result, job.result_path);
        std::fflush(nullptr);
        std::_Exit(roofline::protocol::exit_code_of(JobStatus::hang));
    });
    if (job.mode == JobMode::device_info) {
        // A judge starts its runner first: a kernel file that dies before main() dies here, as
        // the variant's crash, before anything is asked of it (on a machine with no GPU too).
        if (is_judge()) {
            try {
                ensure_runner();
            } catch (const RunnerGone& e) {
                die_like_runner(e);
            } catch (const RunnerFailure& e) {
                result.status = e.kind == "no_device" ? JobStatus::no_device : JobStatus::error;
                result.message = e.what();
                return 4;
            } catch (const CudaError& e) {
                result.status = JobStatus::no_device;
                result.message = e.what();
                return 4;
            } catch (const std::runtime_error& e) {  // the runner on another GPU, or not a lab program
                result.status = JobStatus::error;
                result.message = e.what();
                return 4;
            }
        }
        int count = 0;
        cudaError_t status = cudaGetDeviceCount(&count);
        if (status != cudaSuccess || count == 0) {
            result.status = JobStatus::no_device;
            result.message = status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device found";
            return 4;
        }
        try {
            result.device = device_info();
        } catch (const CudaError& e) {
            result.status = JobStatus::no_device;
            result.message = e.what();
            return 4;
        }
        result.status = JobStatus::ok;
        return 0;
    }
    if (const char* error = usage_error(job)) {
        result.status = JobStatus::error;
        result.message = error;
        return 2;
    }
    try {
        return run(job, result);
    } catch (const RunnerGone& e) {
        die_like_runner(e);
    } catch (const RunnerFailure& e) {
        if (e.kind == "hang") {
            result.status = JobStatus::hang;
            result.message = fmt::format("{}, during '{}'", e.what(), last_stage());
            ::close(STDIN_FILENO);  // with --serve, the parent's next job goes to a fresh program
            write_result(result, job.result_path);
            std::fflush(nullptr);
            std::_Exit(roofline::protocol::exit_code_of(JobStatus::hang));
        }
        result.status = e.kind == "cuda_error" ? JobStatus::cuda_error : JobStatus::error;
        result.message = e.kind == "cuda_error" ? e.what() : std::string("the lab program refused a launch: ") + e.what();
        return e.kind == "cuda_error" ? 3 : 4;
    } catch (const CudaError& e) {
        result.status = JobStatus::cuda_error;
        result.message = e.what();
        return 3;
    } catch (const std::invalid_argument& e) {
        result.status = JobStatus::bad_shape;
        result.message = e.what();
        return 2;
    } catch (const std::exception& e) {
        result.status = JobStatus::error;
        result.message = e.what();
        return 4;
    }
}

// --serve: jobs from stdin until it closes. A CUDA error ends the program (the
// context may be broken); the parent starts a fresh one for the next job.
int serve() {
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        Job job;
        try {
            job = json::parse(line).get<Job>();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "error: a job line the lab program cannot read (%s): %s\n", e.what(), line.c_str());
            return 2;
        }
        Result result;
        int code = run_job(job, result);
        bool ending = result.status == JobStatus::cuda_error;
        // Stdin closed before the result exists: the parent's next job is refused at once
        // (and goes to a fresh program) rather than sent to one that is exiting.
        if (ending) ::close(STDIN_FILENO);
        write_result(result, job.result_path);
        if (ending) return code;
    }
    return 0;
}

}  // namespace

int run_lab_program(int argc, char** argv, roofline::harness::KindFinder judge_kinds) {
    CLI::App app{judge_kinds ? "The roofline course's judge: verifies and times the variants of a lab program it starts as its runner.\n"
                               "Normally started by `roofline grade` (protocol: lab_main.cpp, judge.hpp)."
                             : "A lab executable of the roofline course: verifies and times one registered variant.\n"
                               "Normally started by `roofline grade` or `roofline run`."};
    bool as_runner = false;
    std::string runner_argv_json;
    if (judge_kinds) {
        app.add_option("--runner-argv", runner_argv_json,
                       "the lab program to judge, as a JSON array: [sandbox..., program] (it is started with --runner)")
            ->required();
    } else {
        app.add_flag("--runner", as_runner, "launch variants for a judge on the socket at fd 3 (runner_serve.hpp)");
    }
    Job job;
    HandFlags flags;
    bool list = false, serve_jobs = false;
    app.add_flag("--list", list, "print the registered variants as JSON and exit");
    std::string job_file;
    app.add_flag("--serve", serve_jobs, "run jobs read from stdin, one JSON object (protocol/lab_job.hpp) per line");
    app.add_option("--job", job_file, "run the one job in this JSON file (protocol/lab_job.hpp; what `roofline profile` "
                                      "and `run --sanitize` send, since the tool around the program owns its stdin)");
    add_job_options(app, job, flags);
    CLI11_PARSE(app, argc, argv);
    if (as_runner) return serve_as_runner();
    if (judge_kinds) {
        try {
            become_judge(json::parse(runner_argv_json).get<std::vector<std::string>>(), judge_kinds);
        } catch (const std::exception& e) {
            std::cerr << "error: --runner-argv must be a JSON array of strings: " << e.what() << "\n";
            return 2;
        }
    }

    if (list) {
        json variants = json::array();
        for (const auto& e : registered_variants()) {
            variants.push_back({{"name", e.name}, {"problem", e.problem}, {"dtype", e.dtype}, {"source_file", e.source_file}});
        }
        std::cout << variants.dump(2) << "\n";
        return 0;
    }
    if (serve_jobs) return serve();
    try {
        if (job_file.empty()) {
            job = job_from_flags(job, flags);
        } else {
            std::ifstream in(job_file);
            if (!in) throw std::invalid_argument("cannot read the job file " + job_file);
            job = json::parse(in).get<Job>();
        }
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 2;
    }
    if (const char* error = usage_error(job)) {
        std::cerr << "error: " << error << "\n";
        return 2;
    }
    Result result;
    int code = run_job(job, result);
    write_result(result, job.result_path);
    return code;
}
