// The one definition of a lab program's answer to a Job (lab_job.hpp): what it saw, checked,
// timed and watched. The lab program (harness/lab_main.cpp) fills a Result and writes it as
// one JSON object; the grader (lib/launch/lab_run.hpp `interpret`) reads it back once with the same
// functions, and so does the fake lab program of the CPU tests. The answer comes from a
// process that runs a student's code, which can write anything there: reading never trusts
// it, and a part that is there but wrong throws a MalformedResult naming the part
// ("timing.variant.median_s: ..."). Parts a job may not reach are std::optional.
//
// The JSON keys are the ones grade JSON files, reports and tests already read.
#pragma once
#include "lab_job.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace roofline::protocol {

// What a part of an answer lacks or has wrong: what() is "PATH: PROBLEM", the path as in
// "timing.variant.median_s" or "checks[2].report.passed".
class MalformedResult : public std::runtime_error {
public:
    MalformedResult(std::string path, std::string problem)
        : std::runtime_error(path.empty() ? problem : path + ": " + problem), path_(std::move(path)),
          problem_(std::move(problem)) {}
    // The same problem, seen from the part around it.
    MalformedResult within(const std::string& outer) const {
        if (path_.empty()) return {outer, problem_};
        return {outer + (path_[0] == '[' ? "" : ".") + path_, problem_};
    }

private:
    std::string path_, problem_;
};

// device_info, and every job that found its variant: the GPU the program runs on.
struct Device {
    std::string name;
    int sm_count = 0;
    long long l2_bytes = 0;
    std::string compute_capability;  // "9.0"
};

// The variant as the kernel file registered it (its ROOFLINE_*_VARIANT line).
struct Registration {
    std::string problem;  // the op
    std::string dtype;
    std::string source_file;
};

// One output element outside the tolerance. JSON has no NaN or Inf: `got` travels as the
// word "NaN", "Inf" or "-Inf", and an element the kernel never wrote as "unwritten".
struct Mismatch {
    long long index = 0;
    double expected = 0;
    double got = 0;
    bool unwritten = false;  // still the poison pattern
};

// One comparison of the output with the trusted reference (harness/verify.cuh).
struct VerifyReport {
    bool passed = false;
    std::string verdict;  // one line: what went wrong, or "correct"
    long long elements = 0, mismatches = 0, unwritten = 0, nonfinite = 0, guard_bytes_damaged = 0;
    double rel_l2 = 0, max_abs_error = 0;
    std::vector<Mismatch> first_mismatches;
};

// An input the launch wrote to (harness/input_guard.cuh).
struct InputChange {
    std::string input;
    long long changed = 0, elements = 0;
};

// What the GPU ran during a watched launch (harness/launch_watch.hpp); when CUPTI could not
// watch, only `error` says why.
struct WatchedLaunches {
    bool watched = false;
    std::string error;
    std::map<std::string, long long> kernels;               // mangled name -> launches
    std::map<std::string, long long> other_stream_kernels;  // ran on a stream other than the one given
    long long copies = 0, memsets = 0;
};

// One check of the variant: fresh inputs, one launch, the comparison. A check made while
// timing (the inputs compared after the timed launches) has no seed and no launch of its own.
struct Check {
    Shape shape;
    std::optional<std::uint64_t> seed;
    std::string when;  // "before timing", "after timing", "during timing", "one profiled launch"
    VerifyReport report;
    std::vector<InputChange> inputs_changed;
    std::optional<WatchedLaunches> launched;  // watched jobs only
};

// A watch job's replay of the timed launches under CUPTI. On the wire it is the last entry
// of "checks", the one with a "median_s".
struct Replay {
    Shape shape;
    long long launches = 0;
    double median_s = 0;
    WatchedLaunches launched;
};

// One target's timed samples (harness/measure.cuh).
struct TimingStats {
    int count = 0;
    double median_s = 0, q1_s = 0, q3_s = 0, min_s = 0, mean_s = 0;
    double rse = 0;  // standard error of the mean over the mean
    std::vector<double> samples_s;
};

// CUDA events against the GPU's global timer around the same samples (harness/clock_cross_check.hpp).
struct ClockCrossCheck {
    double event_median_s = 0, globaltimer_median_s = 0;
};

struct SmClock {
    double median = 0, min = 0, max = 0;  // MHz, sampled after each timed launch
};

// A second library run timed beside the peer, never scored (lib/grading/score.hpp).
struct AlsoMeasured {
    std::string name;
    TimingStats stats;
};

// A grade job's timing: the variant and its peer sampled in turns.
struct Timing {
    TimingStats variant, peer;
    std::vector<ClockCrossCheck> cross_check;  // one per target, in the order variant, peer, also measured
    std::string peer_name;
    SmClock sm_clock_mhz;
    bool hit_time_cap = false;
    long long l2_flush_bytes = 0;
    std::optional<AlsoMeasured> also_measured;
    // Judged timing (harness/judge.hpp): launches per timed batch, each on its own inputs and
    // outputs, and the batch's fixed costs taken off the judge's clock. 0 where the lab program
    // timed itself (a lab program run by hand).
    int batch_launches = 0;
    double fixed_cost_s = 0;
};

// A timeline job's one watched launch, every kernel on the GPU's clock (lib/profile/timeline.hpp).
struct TimelineKernel {
    std::string name;  // mangled
    std::uint64_t start_ns = 0, end_ns = 0;
    unsigned stream = 0;
};
struct Timeline {
    bool watched = false;
    std::string error;   // when not watched
    std::uint64_t began_ns = 0;  // the host's call of the launch function, on the kernels' clock
    std::vector<TimelineKernel> kernels;
};

struct Result {
    JobStatus status = JobStatus::error;
    std::string variant;
    JobMode mode = JobMode::verify;
    std::string message;  // why, when the status is not ok
    std::optional<Registration> registration;  // once the variant was found
    std::optional<Device> device;
    std::vector<Check> checks;  // in the order they ran
    std::optional<Replay> replay;                // watch
    std::optional<WatchedLaunches> peer_launched;  // watch: the peer once
    std::optional<double> watch_seconds;         // watch: the program's time under CUPTI so far
    std::optional<Timing> timing;                // grade
    std::optional<Timeline> timeline;            // timeline
};

// The part a job of `mode` must carry when its status is ok, or nothing. A Result that
// lacks it did not come from a lab program answering that job.
inline std::optional<std::string> missing_part(const Result& result, JobMode mode) {
    if (result.status != JobStatus::ok) return std::nullopt;
    if (!result.device) return "device";
    if (mode == JobMode::device_info) return std::nullopt;
    if (!result.registration) return "problem, dtype and source_file";
    if (mode == JobMode::grade && !result.timing) return "timing";
    if (mode == JobMode::watch && !result.replay) return "replay of the timed launches (the last check, with median_s)";
    if (mode == JobMode::watch && !result.peer_launched) return "peer_launched";
    if (mode == JobMode::timeline && !result.timeline) return "timeline";
    return std::nullopt;
}

namespace result_fields {

// How a field stands on the wire when it has nothing to say. An optional part is written
// when set and reads as empty when absent or null, whatever its presence says.
enum class Presence {
    required,          // written always; reading without it is an error
    may_be_absent,     // written always; absent reads as the default (older answers lack it)
    omitted_if_empty,  // a string: written only when not empty; absent reads as the default
    null_if_empty,     // an optional part: written as null when unset
};

// The reading side: every field by name, so that an error says which one.
inline std::string without_prefix(const std::string& what) {  // "[json.exception.type_error.302] " off
    auto end = what.find("] ");
    return what.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? what.substr(end + 2) : what;
}

// JSON writes NaN and Inf as null: a double reads null back as NaN.
template <class T>
void read_value(const nlohmann::json& value, T& out) {
    value.get_to(out);
}
inline void read_value(const nlohmann::json& value, double& out) {
    out = value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
}

// `value` into `out`; what is wrong inside it throws MalformedResult under `path`.
template <class T>
void read_at(const nlohmann::json& value, const std::string& path, T& out) {
    try {
        read_value(value, out);
    } catch (const MalformedResult& e) {
        throw e.within(path);
    } catch (const nlohmann::json::exception& e) {
        throw MalformedResult(path, without_prefix(e.what()));
    }
}

inline const nlohmann::json& object(const nlohmann::json& j) {
    if (!j.is_object()) throw MalformedResult("", std::string("must be a JSON object, not ") + j.type_name());
    return j;
}

inline const nlohmann::json& field(const nlohmann::json& j, const char* key) {
    auto it = object(j).find(key);
    if (it == j.end()) throw MalformedResult(key, "missing");
    return *it;
}

template <class T>
void read(const nlohmann::json& j, const char* key, T& out) {
    read_at(field(j, key), key, out);
}

// A part that may be absent: absent or null reads as empty.
template <class T>
void read(const nlohmann::json& j, const char* key, std::optional<T>& out) {
    out.reset();
    if (!object(j).contains(key) || j.at(key).is_null()) return;
    read_at(j.at(key), key, out.emplace());
}

// An array, each element's index in the path.
template <class T>
void read(const nlohmann::json& j, const char* key, std::vector<T>& out) {
    const auto& array = field(j, key);
    if (!array.is_array()) throw MalformedResult(key, std::string("must be an array, not ") + array.type_name());
    out.clear();
    for (std::size_t i = 0; i < array.size(); ++i) read_at(array[i], key + ("[" + std::to_string(i) + "]"), out.emplace_back());
}

template <class T>
void read(const nlohmann::json& j, const char* key, T& out, Presence presence) {
    if (presence != Presence::required && !object(j).contains(key)) return;
    read(j, key, out);
}

// The writing side: the same names.
template <class T>
void write(nlohmann::json& j, const char* key, const T& value, Presence presence) {
    if constexpr (std::is_same_v<T, std::string>) {
        if (presence == Presence::omitted_if_empty && value.empty()) return;
    }
    j[key] = value;
}
template <class T>
void write(nlohmann::json& j, const char* key, const std::optional<T>& value, Presence presence) {
    if (value) j[key] = *value;
    else if (presence == Presence::null_if_empty) j[key] = nullptr;
}

// A key whose value is always the same words: written for the reader's sake, never read.
struct FixedText {
    const char* text;
};
inline void write(nlohmann::json& j, const char* key, const FixedText& value, Presence) { j[key] = value.text; }
inline void read(const nlohmann::json&, const char*, FixedText&, Presence) {}

// Answers `fields(part, visit)` for any part, for the test below.
struct AnyVisit {
    template <class T>
    void operator()(const char*, T&, Presence = Presence::required) const {}
};
template <class Part, class = void>
struct has_fields : std::false_type {};
template <class Part>
struct has_fields<Part, std::void_t<decltype(fields(std::declval<Part&>(), std::declval<AnyVisit&>()))>>
    : std::true_type {};

}  // namespace result_fields

// ---- to_json / from_json, part by part ----

// Each part names its fields once, in `fields(part, visit)`, in the order they are read:
// visit(key, member) or visit(key, member, presence). These two walk that list, and every
// part with such a list gets its to_json and from_json from them.
template <class Part>
void write_fields(nlohmann::json& j, const Part& part) {
    using result_fields::Presence;
    j = nlohmann::json::object();
    // The visit only reads: the list is written once for both directions, on a mutable part.
    fields(const_cast<Part&>(part), [&](const char* key, const auto& value, Presence presence = Presence::required) {
        result_fields::write(j, key, value, presence);
    });
}
template <class Part>
void read_fields(const nlohmann::json& j, Part& part) {
    using result_fields::Presence;
    part = Part{};  // a field the answer may leave out keeps its default, not an earlier value
    fields(part, [&](const char* key, auto& value, Presence presence = Presence::required) {
        result_fields::read(j, key, value, presence);
    });
}
template <class Part, std::enable_if_t<result_fields::has_fields<Part>::value, int> = 0>
void to_json(nlohmann::json& j, const Part& part) {
    write_fields(j, part);
}
template <class Part, std::enable_if_t<result_fields::has_fields<Part>::value, int> = 0>
void from_json(const nlohmann::json& j, Part& part) {
    read_fields(j, part);
}

using result_fields::Presence;

template <class Visit>
void fields(Device& p, Visit&& v) {
    v("name", p.name);
    v("sm_count", p.sm_count);
    v("l2_bytes", p.l2_bytes);
    v("compute_capability", p.compute_capability);
}

// On the wire at the top of a Result, beside its other keys.
template <class Visit>
void fields(Registration& p, Visit&& v) {
    v("problem", p.problem); v("dtype", p.dtype); v("source_file", p.source_file);
}

// A Mismatch's `got` on the wire: the number, or the word for what a number cannot say.
struct GotWord {
    double& got;
    bool& unwritten;
};
inline void to_json(nlohmann::json& j, const GotWord& g) {
    j = g.unwritten           ? nlohmann::json("unwritten")
        : std::isnan(g.got) ? nlohmann::json("NaN")
        : std::isinf(g.got) ? nlohmann::json(g.got > 0 ? "Inf" : "-Inf")
                            : nlohmann::json(g.got);
}
inline void from_json(const nlohmann::json& j, GotWord& g) {
    g.unwritten = j == "unwritten";
    if (j.is_number()) g.got = j.get<double>();
    else if (j == "NaN" || g.unwritten) g.got = std::numeric_limits<double>::quiet_NaN();
    else if (j == "Inf") g.got = std::numeric_limits<double>::infinity();
    else if (j == "-Inf") g.got = -std::numeric_limits<double>::infinity();
    else throw MalformedResult("", "must be a number, \"NaN\", \"Inf\", \"-Inf\" or \"unwritten\"");
}

template <class Visit>
void fields(Mismatch& p, Visit&& v) {
    GotWord got{p.got, p.unwritten};
    v("index", p.index); v("expected", p.expected); v("got", got);
}

template <class Visit>
void fields(VerifyReport& p, Visit&& v) {
    v("passed", p.passed);
    v("verdict", p.verdict);
    v("elements", p.elements);
    v("mismatches", p.mismatches);
    v("unwritten", p.unwritten);
    v("nonfinite", p.nonfinite);
    v("guard_bytes_damaged", p.guard_bytes_damaged);
    v("rel_l2", p.rel_l2);
    v("max_abs_error", p.max_abs_error);
    v("first_mismatches", p.first_mismatches);
}

template <class Visit>
void fields(InputChange& p, Visit&& v) {
    v("input", p.input); v("changed", p.changed); v("elements", p.elements);
}

// A watch (WatchedLaunches, Timeline) that did not happen says only why: "watched" false and
// "error". True when it did, and the part's other fields follow.
template <class Watch, class Visit>
bool visit_watched(Watch& p, Visit& v) {
    v("watched", p.watched);
    if (!p.watched) v("error", p.error, Presence::may_be_absent);
    return p.watched;
}

template <class Visit>
void fields(WatchedLaunches& p, Visit&& v) {
    if (!visit_watched(p, v)) return;
    v("kernels", p.kernels);
    v("other_stream_kernels", p.other_stream_kernels);
    v("copies", p.copies);
    v("memsets", p.memsets);
}

template <class Visit>
void fields(Check& p, Visit&& v) {
    v("shape", p.shape);
    v("seed", p.seed);
    v("when", p.when);
    v("report", p.report);
    v("inputs_changed", p.inputs_changed);
    v("launched", p.launched, Presence::null_if_empty);
}

template <class Visit>
void fields(Replay& p, Visit&& v) {
    result_fields::FixedText when{"replaying the timed launches"};
    v("shape", p.shape);
    v("when", when);
    v("launches", p.launches);
    v("median_s", p.median_s);
    v("launched", p.launched);
}

template <class Visit>
void fields(TimingStats& p, Visit&& v) {
    v("count", p.count);
    v("median_s", p.median_s);
    v("q1_s", p.q1_s);
    v("q3_s", p.q3_s);
    v("min_s", p.min_s);
    v("mean_s", p.mean_s);
    v("rse", p.rse);
    v("samples_s", p.samples_s);
}

template <class Visit>
void fields(ClockCrossCheck& p, Visit&& v) {
    v("event_median_s", p.event_median_s); v("globaltimer_median_s", p.globaltimer_median_s);
}

template <class Visit>
void fields(SmClock& p, Visit&& v) {
    v("median", p.median); v("min", p.min); v("max", p.max);
}

template <class Visit>
void fields(AlsoMeasured& p, Visit&& v) {
    v("name", p.name); v("stats", p.stats);
}

template <class Visit>
void fields(Timing& p, Visit&& v) {
    v("variant", p.variant);
    v("peer", p.peer);
    v("cross_check", p.cross_check);
    v("peer_name", p.peer_name);
    v("sm_clock_mhz", p.sm_clock_mhz);
    v("hit_time_cap", p.hit_time_cap);
    v("l2_flush_bytes", p.l2_flush_bytes);
    v("also_measured", p.also_measured);
    v("batch_launches", p.batch_launches, Presence::may_be_absent);
    v("fixed_cost_s", p.fixed_cost_s, Presence::may_be_absent);
}

template <class Visit>
void fields(TimelineKernel& p, Visit&& v) {
    v("name", p.name); v("start_ns", p.start_ns); v("end_ns", p.end_ns); v("stream", p.stream, Presence::may_be_absent);
}

template <class Visit>
void fields(Timeline& p, Visit&& v) {
    if (!visit_watched(p, v)) return;
    v("began_ns", p.began_ns);
    v("kernels", p.kernels);
}

// The keys of a Result but two: the registration's, which stand beside them, and "checks"
// (below). status, variant and mode must be there; every other part may be absent, never
// wrong. Unknown keys are ignored.
template <class Visit>
void fields(Result& p, Visit&& v) {
    // A word the grader does not know reads as an error (the enum's first entry), as do other values.
    v("status", p.status);
    v("variant", p.variant);
    v("mode", p.mode);
    v("message", p.message, Presence::omitted_if_empty);
    v("device", p.device);
    v("peer_launched", p.peer_launched);
    v("watch_seconds", p.watch_seconds);
    v("timing", p.timing);
    v("timeline", p.timeline);
}

// The "checks" array as the wire and the grade JSON carry it: the checks, then the replay.
inline nlohmann::json checks_json(const Result& r) {
    nlohmann::json checks = r.checks;
    if (r.replay) checks.push_back(*r.replay);
    return checks;
}

inline void to_json(nlohmann::json& j, const Result& r) {
    write_fields(j, r);
    j["checks"] = checks_json(r);
    if (r.registration) j.update(nlohmann::json(*r.registration));
}

// Throws MalformedResult.
inline void from_json(const nlohmann::json& j, Result& r) {
    using namespace result_fields;
    if (!j.is_object()) throw MalformedResult("", std::string("the answer must be a JSON object, not ") + j.type_name());
    read_fields(j, r);
    if (j.contains("problem") || j.contains("dtype") || j.contains("source_file")) read_fields(j, r.registration.emplace());
    if (!j.contains("checks")) return;
    const auto& checks = field(j, "checks");
    if (!checks.is_array()) throw MalformedResult("checks", std::string("must be an array, not ") + checks.type_name());
    for (std::size_t i = 0; i < checks.size(); ++i) {
        const auto path = "checks[" + std::to_string(i) + "]";
        if (!checks[i].is_object() || !checks[i].contains("median_s")) {
            read_at(checks[i], path, r.checks.emplace_back());
            continue;
        }
        if (i + 1 != checks.size()) throw MalformedResult(path, "the replay (the check with median_s) must come last");
        read_at(checks[i], path, r.replay.emplace());
    }
}

}  // namespace roofline::protocol
