// OUT/report.html: the batch's summary as a page an instructor opens from disk.
// The outcomes, the score distribution, the leaderboard by fraction of the
// roofline, every submission's graded kernels on one roofline, and every
// failure with its reason. Everything a submission controls (its name, the
// compiler's messages, its kernels' verdicts) is escaped: a submission named
// `<script>...` renders as text.
#pragma once
#include "summary.hpp"
#include "html_roofline_chart.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace roofline::batch {

// The graded kernels of one submission from its grade.json (`roofline grade
// --all --json` as it came): one chart point per correct variant, grouped
// under the submission's name. Anything unreadable gives no points.
std::vector<ChartPoint> class_points(const std::string& submission, const std::string& grade_json_text);

std::string class_report_html(const BatchFacts& facts, std::vector<SubmissionResult> results,
                              const std::vector<ChartPoint>& points);

// Reads each submission's grade.json under `out` and writes out/report.html.
void write_class_report(const std::filesystem::path& out, const BatchFacts& facts,
                        const std::vector<SubmissionResult>& results);

}  // namespace roofline::batch
