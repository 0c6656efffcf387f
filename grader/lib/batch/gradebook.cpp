#include "gradebook.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace roofline::batch {

namespace {
// A reason holds a compiler's message; the gradebook keeps its first few hundred characters on one line.
std::string one_line(const std::string& text, std::size_t limit = 400) {
    std::string out;
    for (char c : text) {
        if (c == '\n' || c == '\r') {
            if (!out.empty() && out.back() != ' ') out += " | ";
        } else {
            out += c;
        }
    }
    while (!out.empty() && (out.back() == ' ' || out.back() == '|')) out.pop_back();
    if (out.size() > limit) out = out.substr(0, limit) + "...";
    return out;
}
// The instructor's warnings (result.hpp), then the reason: warnings first, so that the cut at
// 400 characters never takes them.
std::string reason_with_warnings(const SubmissionResult& r) {
    std::string text;
    for (const auto& w : r.warnings) text += "warning: " + w + "\n";
    return text + r.reason;
}
}  // namespace

std::string csv_field(const std::string& text_in) {
    // A spreadsheet runs a cell that starts with = + - @ (or a tab or CR before one) as a formula:
    // a submission named `=HYPERLINK(...)` must stay text. A leading ' makes it text and shows as
    // nothing in a spreadsheet. A lone "-" (the GPU column of an ungraded submission) is no formula.
    std::string text = text_in;
    bool formula = !text.empty() && text != "-" && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos;
    if (formula) text = "'" + text;  // and quoted, below
    if (!formula && text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += "\"\"";
        else out += c;
    }
    return out + "\"";
}

std::string shared_gpu_cell(const SubmissionResult& r) {
    std::string text;
    for (const auto& n : r.shared_gpu) text += n.variant + ": " + n.note + "\n";
    return one_line(text, 2000);  // each note names at most four processes (gpu_processes_text)
}

std::string gradebook_row(const SubmissionResult& r) {
    return fmt::format("{},{},{:.2f},{:.2f},{:.2f},{:.2f},{:.2f},{:.4f},{:.4f},{},{:.1f},{},{},{},{},{}", csv_field(r.submission),
                       outcome_name(r.outcome), r.score, r.max_score, r.correctness, r.performance, r.prediction,
                       r.mean_fraction_of_roofline, r.best_fraction_of_roofline, csv_field(r.gpu), r.seconds,
                       csv_field(one_line(reason_with_warnings(r))), r.gap_notes, csv_field(r.sandbox),
                       r.logged_hours ? fmt::format("{:.2f}", *r.logged_hours) : std::string(),
                       csv_field(shared_gpu_cell(r)));
}

std::string gradebook_csv(std::vector<SubmissionResult> results) {
    std::sort(results.begin(), results.end(),
              [](const auto& a, const auto& b) { return a.submission < b.submission; });
    std::string out = std::string(kGradebookHeader) + "\n";
    for (const auto& r : results) out += gradebook_row(r) + "\n";
    return out;
}

}  // namespace roofline::batch
