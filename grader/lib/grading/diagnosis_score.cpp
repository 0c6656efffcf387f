#include "diagnosis_score.hpp"

#include "diagnosis.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace roofline {

namespace {

// The newest profile of this variant made of the source with `hash` that kept its causes.
const ProfileEntry* newest_profile_of(const PredictionLog& log, const std::string& lab, const std::string& variant,
                                      const std::string& hash) {
    const ProfileEntry* found = nullptr;
    for (const auto& p : log.profiles) {
        if (p.lab == lab && p.variant == variant && p.source_hash == hash && !p.causes.empty()) found = &p;
    }
    return found;
}

bool shows(const ProfileEntry& p, const std::string& cause) {
    return std::find(p.causes.begin(), p.causes.end(), cause) != p.causes.end();
}

// Whether the figure moved by the cause's factor from `before` to `after`, and the words for it.
std::pair<bool, std::string> figure_moved(const DiagnosisCause& cause, const ProfileEntry* before,
                                          const ProfileEntry& after) {
    auto a = after.figures.find(cause.figure);
    if (a == after.figures.end()) return {false, fmt::format("the fix's profile has no {}", cause.figure)};
    if (!before) return {false, "the diagnosed kernel's profile is missing"};
    auto b = before->figures.find(cause.figure);
    if (b == before->figures.end()) return {false, fmt::format("the diagnosed kernel's profile has no {}", cause.figure)};
    bool moved = cause.lower_is_better ? a->second * cause.factor <= b->second : a->second >= cause.factor * b->second;
    return {moved, fmt::format("{} {:.4g} -> {:.4g} (needs {} {:g}x)", cause.figure, b->second, a->second,
                               cause.lower_is_better ? "down" : "up", cause.factor)};
}

}  // namespace

DiagnosisScore score_diagnosis(const PredictionLog& log, const std::string& lab, const std::string& variant,
                               const std::string& graded_source_hash, double max_points) {
    DiagnosisScore s;
    std::string target = lab + "/" + variant;
    const Diagnosis* diagnosis = nullptr;
    for (const auto& d : log.diagnoses) {
        if (d.lab == lab && d.variant == variant && d.source_hash != graded_source_hash) diagnosis = &d;
    }
    if (!diagnosis) {
        s.verdict = fmt::format("no diagnosis of the kernel before this source: profile the slow kernel, name its "
                                "cause (roofline diagnose {} --cause ... --why \"...\"), then fix it",
                                target);
        return s;
    }
    s.cause = diagnosis->cause;
    const auto* cause = find_cause(diagnosis->cause);
    if (!cause) {
        s.verdict = fmt::format("'{}' (log line {}) is not one of lesson 02's causes (roofline diagnose --help)",
                                diagnosis->cause, diagnosis->line);
        return s;
    }
    const auto* before = newest_profile_of(log, lab, variant, diagnosis->source_hash);
    const auto* after = newest_profile_of(log, lab, variant, graded_source_hash);
    std::vector<std::string> words;
    if (!before) {
        words.push_back("the kernel you diagnosed was never profiled (roofline profile it before changing it)");
    } else {
        s.shown_before = shows(*before, cause->id);
        words.push_back(s.shown_before ? fmt::format("its counters showed {}", cause->id)
                                       : fmt::format("its counters showed {}, not {}", fmt::join(before->causes, ", "),
                                                     cause->id));
    }
    if (!after) {
        words.push_back(fmt::format("this source is not profiled yet: roofline profile {}, then grade again", target));
    } else if (cause->id == "at_roof") {
        s.fixed_after = shows(*after, "at_roof");
        words.push_back(s.fixed_after ? "this source still runs at a roof" : "this source no longer runs at a roof");
    } else {
        auto [moved, how] = figure_moved(*cause, before, *after);
        bool gone = !shows(*after, cause->id);
        s.fixed_after = gone && moved;
        words.push_back(fmt::format("this source's counters {}; {}", gone ? "no longer show it" : "still show it", how));
    }
    s.points = max_points * (0.5 * s.shown_before + 0.5 * s.fixed_after);
    s.verdict = fmt::format("you named {}: {}", cause->id, fmt::join(words, "; "));
    return s;
}

}  // namespace roofline
