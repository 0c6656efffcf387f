// The one definition of a lab program's answer to a Job (lab_job.hpp): what it saw, checked,
// timed and watched. The lab program (harness/lab_main.cpp) fills a Result and writes it as
// one JSON object; the grader (lib/runner.hpp `interpret`) reads it back once with the same
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

// A second library run timed beside the peer, never scored (lib/score.hpp).
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
};

// A timeline job's one watched launch, every kernel on the GPU's clock (lib/timeline.hpp).
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

inline const nlohmann::json& field(const nlohmann::json& j, const char* key) {
    if (!j.is_object()) throw MalformedResult("", std::string("must be a JSON object, not ") + j.type_name());
    auto it = j.find(key);
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
    if (!j.is_object()) throw MalformedResult("", std::string("must be a JSON object, not ") + j.type_name());
    if (!j.contains(key) || j.at(key).is_null()) return;
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

// The writing side: the same names; an absent optional part is left out.
template <class T>
void write(nlohmann::json& j, const char* key, const T& value) {
    j[key] = value;
}
template <class T>
void write(nlohmann::json& j, const char* key, const std::optional<T>& value) {
    if (value) j[key] = *value;
}

}  // namespace result_fields

// ---- to_json / from_json, part by part ----

// A plain part names its fields once, in `fields(part, visit)`; these two walk that list.
template <class Part>
void write_fields(nlohmann::json& j, const Part& part) {
    j = nlohmann::json::object();
    // The visit only reads: the list is written once for both directions, on a mutable part.
    fields(const_cast<Part&>(part), [&](const char* key, const auto& value) { result_fields::write(j, key, value); });
}
template <class Part>
void read_fields(const nlohmann::json& j, Part& part) {
    fields(part, [&](const char* key, auto& value) { result_fields::read(j, key, value); });
}

template <class Visit>
void fields(Device& p, Visit&& v) {
    v("name", p.name);
    v("sm_count", p.sm_count);
    v("l2_bytes", p.l2_bytes);
    v("compute_capability", p.compute_capability);
}
inline void to_json(nlohmann::json& j, const Device& p) { write_fields(j, p); }
inline void from_json(const nlohmann::json& j, Device& p) { read_fields(j, p); }

inline void to_json(nlohmann::json& j, const Mismatch& m) {
    nlohmann::json got = m.unwritten           ? nlohmann::json("unwritten")
                         : std::isnan(m.got) ? nlohmann::json("NaN")
                         : std::isinf(m.got) ? nlohmann::json(m.got > 0 ? "Inf" : "-Inf")
                                             : nlohmann::json(m.got);
    j = {{"index", m.index}, {"expected", m.expected}, {"got", got}};
}
inline void from_json(const nlohmann::json& j, Mismatch& m) {
    using namespace result_fields;
    read(j, "index", m.index);
    read(j, "expected", m.expected);
    nlohmann::json got;
    read(j, "got", got);
    m.unwritten = got == "unwritten";
    if (got.is_number()) m.got = got.get<double>();
    else if (got == "NaN" || m.unwritten) m.got = std::numeric_limits<double>::quiet_NaN();
    else if (got == "Inf") m.got = std::numeric_limits<double>::infinity();
    else if (got == "-Inf") m.got = -std::numeric_limits<double>::infinity();
    else throw MalformedResult("got", "must be a number, \"NaN\", \"Inf\", \"-Inf\" or \"unwritten\"");
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
inline void to_json(nlohmann::json& j, const VerifyReport& p) { write_fields(j, p); }
inline void from_json(const nlohmann::json& j, VerifyReport& p) { read_fields(j, p); }

template <class Visit>
void fields(InputChange& p, Visit&& v) {
    v("input", p.input); v("changed", p.changed); v("elements", p.elements);
}
inline void to_json(nlohmann::json& j, const InputChange& p) { write_fields(j, p); }
inline void from_json(const nlohmann::json& j, InputChange& p) { read_fields(j, p); }

inline void to_json(nlohmann::json& j, const WatchedLaunches& w) {
    if (!w.watched) {
        j = {{"watched", false}, {"error", w.error}};
        return;
    }
    j = {{"watched", true},
         {"kernels", w.kernels},
         {"other_stream_kernels", w.other_stream_kernels},
         {"copies", w.copies},
         {"memsets", w.memsets}};
}
inline void from_json(const nlohmann::json& j, WatchedLaunches& w) {
    using namespace result_fields;
    w = {};
    read(j, "watched", w.watched);
    if (!w.watched) {
        if (j.contains("error")) read(j, "error", w.error);
        return;
    }
    read(j, "kernels", w.kernels);
    read(j, "other_stream_kernels", w.other_stream_kernels);
    read(j, "copies", w.copies);
    read(j, "memsets", w.memsets);
}

inline void to_json(nlohmann::json& j, const Check& c) {
    j = {{"shape", c.shape},
         {"when", c.when},
         {"report", c.report},
         {"inputs_changed", c.inputs_changed},
         {"launched", c.launched ? nlohmann::json(*c.launched) : nlohmann::json(nullptr)}};
    if (c.seed) j["seed"] = *c.seed;
}
inline void from_json(const nlohmann::json& j, Check& c) {
    using namespace result_fields;
    read(j, "shape", c.shape);
    read(j, "seed", c.seed);
    read(j, "when", c.when);
    read(j, "report", c.report);
    read(j, "inputs_changed", c.inputs_changed);
    read(j, "launched", c.launched);
}

inline void to_json(nlohmann::json& j, const Replay& r) {
    j = {{"shape", r.shape},
         {"when", "replaying the timed launches"},
         {"launches", r.launches},
         {"median_s", r.median_s},
         {"launched", r.launched}};
}
inline void from_json(const nlohmann::json& j, Replay& r) {
    using namespace result_fields;
    read(j, "shape", r.shape);
    read(j, "launches", r.launches);
    read(j, "median_s", r.median_s);
    read(j, "launched", r.launched);
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
inline void to_json(nlohmann::json& j, const TimingStats& p) { write_fields(j, p); }
inline void from_json(const nlohmann::json& j, TimingStats& p) { read_fields(j, p); }

template <class Visit>
void fields(ClockCrossCheck& p, Visit&& v) {
    v("event_median_s", p.event_median_s); v("globaltimer_median_s", p.globaltimer_median_s);
}
inline void to_json(nlohmann::json& j, const ClockCrossCheck& p) { write_fields(j, p); }
inline void from_json(const nlohmann::json& j, ClockCrossCheck& p) { read_fields(j, p); }

template <class Visit>
void fields(SmClock& p, Visit&& v) {
    v("median", p.median); v("min", p.min); v("max", p.max);
}
inline void to_json(nlohmann::json& j, const SmClock& p) { write_fields(j, p); }
inline void from_json(const nlohmann::json& j, SmClock& p) { read_fields(j, p); }

template <class Visit>
void fields(AlsoMeasured& p, Visit&& v) {
    v("name", p.name); v("stats", p.stats);
}
inline void to_json(nlohmann::json& j, const AlsoMeasured& p) { write_fields(j, p); }
inline void from_json(const nlohmann::json& j, AlsoMeasured& p) { read_fields(j, p); }

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
}
inline void to_json(nlohmann::json& j, const Timing& p) { write_fields(j, p); }
inline void from_json(const nlohmann::json& j, Timing& p) { read_fields(j, p); }

inline void to_json(nlohmann::json& j, const TimelineKernel& k) {
    j = {{"name", k.name}, {"start_ns", k.start_ns}, {"end_ns", k.end_ns}, {"stream", k.stream}};
}
inline void from_json(const nlohmann::json& j, TimelineKernel& k) {
    using namespace result_fields;
    read(j, "name", k.name);
    read(j, "start_ns", k.start_ns);
    read(j, "end_ns", k.end_ns);
    if (j.contains("stream")) read(j, "stream", k.stream);
}

inline void to_json(nlohmann::json& j, const Timeline& t) {
    if (!t.watched) {
        j = {{"watched", false}, {"error", t.error}};
        return;
    }
    j = {{"watched", true}, {"began_ns", t.began_ns}, {"kernels", t.kernels}};
}
inline void from_json(const nlohmann::json& j, Timeline& t) {
    using namespace result_fields;
    t = {};
    read(j, "watched", t.watched);
    if (!t.watched) {
        if (j.contains("error")) read(j, "error", t.error);
        return;
    }
    read(j, "began_ns", t.began_ns);
    read(j, "kernels", t.kernels);
}

// The "checks" array as the wire and the grade JSON carry it: the checks, then the replay.
inline nlohmann::json checks_json(const Result& r) {
    nlohmann::json checks = r.checks;
    if (r.replay) checks.push_back(*r.replay);
    return checks;
}

inline void to_json(nlohmann::json& j, const Result& r) {
    j = {{"status", r.status}, {"variant", r.variant}, {"mode", r.mode}, {"checks", checks_json(r)}};
    if (!r.message.empty()) j["message"] = r.message;
    if (r.registration) {
        j["problem"] = r.registration->problem;
        j["dtype"] = r.registration->dtype;
        j["source_file"] = r.registration->source_file;
    }
    if (r.device) j["device"] = *r.device;
    if (r.peer_launched) j["peer_launched"] = *r.peer_launched;
    if (r.watch_seconds) j["watch_seconds"] = *r.watch_seconds;
    if (r.timing) j["timing"] = *r.timing;
    if (r.timeline) j["timeline"] = *r.timeline;
}

// status, variant and mode must be there; every other part may be absent, never wrong.
// Unknown keys are ignored. Throws MalformedResult.
inline void from_json(const nlohmann::json& j, Result& r) {
    using namespace result_fields;
    r = {};
    if (!j.is_object()) throw MalformedResult("", std::string("the answer must be a JSON object, not ") + j.type_name());
    // A word the grader does not know reads as an error (the enum's first entry), as do other values.
    read(j, "status", r.status);
    read(j, "variant", r.variant);
    read(j, "mode", r.mode);
    if (j.contains("message")) read(j, "message", r.message);
    if (j.contains("problem") || j.contains("dtype") || j.contains("source_file")) {
        Registration registration;
        read(j, "problem", registration.problem);
        read(j, "dtype", registration.dtype);
        read(j, "source_file", registration.source_file);
        r.registration = registration;
    }
    read(j, "device", r.device);
    if (j.contains("checks")) {
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
    read(j, "peer_launched", r.peer_launched);
    read(j, "watch_seconds", r.watch_seconds);
    read(j, "timing", r.timing);
    read(j, "timeline", r.timeline);
}

}  // namespace roofline::protocol
