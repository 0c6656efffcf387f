#include "summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

namespace roofline::batch {

namespace {

std::string first_lines(const std::string& text, int lines) {
    std::string out;
    int seen = 0;
    for (char c : text) {
        if (c == '\n' && ++seen == lines) break;
        out += c;
    }
    return out;
}

std::string table_cell(std::string text) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    std::string out;
    for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}

}  // namespace

std::vector<std::string> class_warnings(const std::vector<SubmissionResult>& results) {
    std::vector<std::string> lines, unsandboxed;
    for (const auto& r : results) {
        if (r.sandbox == "none") unsandboxed.push_back(r.submission);
    }
    if (!unsandboxed.empty()) {
        lines.push_back(fmt::format("graded without a sandbox (--no-sandbox-i-trust-these-submissions), {} of {}: their "
                                    "code ran with the grader's rights and could read the solutions and the other "
                                    "submissions: {}",
                                    unsandboxed.size(), results.size(), fmt::join(unsandboxed, ", ")));
    }
    for (const auto& r : results) {
        for (const auto& w : r.warnings) lines.push_back(r.submission + ": " + w);
    }
    return lines;
}

std::string summary_markdown(const BatchFacts& facts, std::vector<SubmissionResult> results) {
    std::sort(results.begin(), results.end(), [](const auto& a, const auto& b) { return a.submission < b.submission; });
    std::string md = fmt::format("# Batch grading: {}\n\n", facts.lab);
    md += fmt::format("{} submissions graded, seed {}{}.\n\n", results.size(), facts.seed,
                      facts.hidden.empty() ? ", public shapes (no hidden file)" : ", hidden file " + facts.hidden);
    if (!facts.not_graded.empty()) {
        md += fmt::format("**Not graded yet ({}):** {}. Run the batch (or the missing slices) again: it resumes.\n\n",
                          facts.not_graded.size(), fmt::join(facts.not_graded, ", "));
    }

    if (auto warnings = class_warnings(results); !warnings.empty()) {
        md += "## Look at these first\n\n";
        for (const auto& line : warnings) md += "- " + table_cell(line) + "\n";
        md += "\n";
    }

    md += "## Outcomes\n\n| outcome | submissions |\n|---|---|\n";
    std::map<int, int> counts;
    for (const auto& r : results) counts[static_cast<int>(r.outcome)]++;
    for (const auto& [outcome, count] : counts) {
        md += fmt::format("| {} | {} |\n", outcome_name(static_cast<SubmissionOutcome>(outcome)), count);
    }

    md += "\n## Score distribution\n\nPercent of the maximum score, in buckets of ten.\n\n"
          "| score | submissions | |\n|---|---|---|\n";
    std::array<int, 10> buckets{};
    for (const auto& r : results) {
        double percent = r.max_score > 0 ? 100 * r.score / r.max_score : 0;
        buckets[std::clamp(int(percent / 10), 0, 9)]++;
    }
    for (int b = 9; b >= 0; --b) {
        md += fmt::format("| {}-{}% | {} | {} |\n", 10 * b, b == 9 ? 100 : 10 * b + 9, buckets[b],
                          std::string(buckets[b], '#'));
    }

    md += "\n## Leaderboard by fraction of the roofline\n\n"
          "Mean over the lab's variants of achieved / attainable (0 for a variant not timed); "
          "ties broken by score.\n\n| rank | submission | mean fraction | best fraction | score | outcome |\n"
          "|---|---|---|---|---|---|\n";
    auto ranked = results;
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        if (a.mean_fraction_of_roofline != b.mean_fraction_of_roofline) {
            return a.mean_fraction_of_roofline > b.mean_fraction_of_roofline;
        }
        return a.score > b.score;
    });
    int rank = 0;
    for (const auto& r : ranked) {
        md += fmt::format("| {} | {} | {:.1f}% | {:.1f}% | {:.1f}/{:.0f} | {} |\n", ++rank, table_cell(r.submission),
                          100 * r.mean_fraction_of_roofline, 100 * r.best_fraction_of_roofline, r.score, r.max_score,
                          outcome_name(r.outcome));
    }

    bool shared = std::any_of(results.begin(), results.end(), [](const auto& r) { return !r.shared_gpu.empty(); });
    if (shared) {
        md += fmt::format("\n## Timed on a shared GPU\n\n{}\n\n", kSharedGpuAbout);
        for (const auto& r : results) {
            for (const auto& n : r.shared_gpu) {
                md += fmt::format("- **{}** {}: {}\n", table_cell(r.submission), table_cell(n.variant), table_cell(n.note));
            }
        }
    }

    md += "\n## Failures\n\n";
    int failures = 0;
    for (const auto& r : results) {
        if (r.outcome == SubmissionOutcome::graded) continue;
        ++failures;
        md += fmt::format("- **{}**: {} ({:.1f}/{:.0f})\n", r.submission, outcome_name(r.outcome), r.score, r.max_score);
        if (r.reason.empty()) continue;
        std::string block = first_lines(r.reason, 8);
        for (std::size_t at = block.find('\n'); at != std::string::npos; at = block.find('\n', at + 3)) {
            block.replace(at, 1, "\n  ");
        }
        md += "  ```\n  " + block + "\n  ```\n";
    }
    if (failures == 0) md += "None.\n";
    return md;
}

}  // namespace roofline::batch
