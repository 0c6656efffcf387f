// OUT/report.html: the batch's summary as a page an instructor opens from disk.
// The outcomes, the score distribution, the leaderboard by fraction of the
// roofline, a leaderboard per rung (variant) with the rung's target marked and
// every kernel at or beyond it flagged, every submission's graded kernels on one
// roofline, and every
// failure with its reason. Everything a submission controls (its name, the
// compiler's messages, its kernels' verdicts) is escaped: a submission named
// `<script>...` renders as text.
#pragma once
#include "summary.hpp"
#include "html_roofline_chart.hpp"
#include "lab_spec.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace roofline::batch {

// The graded kernels of one submission from its grade.json (`roofline grade
// --all --json` as it came): one chart point per correct variant, grouped
// under the submission's name. Anything unreadable gives no points.
std::vector<ChartPoint> class_points(const std::string& submission, const std::string& grade_json_text);

// One correct kernel of one submission on one rung, from its grade.json.
struct RungEntry {
    std::string variant, submission;
    double fraction_of_roofline = 0;
    double fraction_scored = 0;   // of the roofline or of the peer, as lab.yaml scores the rung
    std::string scored_against;   // the grade JSON's words: "roofline: ..." or "cuBLAS (TFLOP/s), same run"
};

// What full performance marks need on a rung: lab.yaml's target_fraction, against "peer" or "roofline".
struct RungTarget {
    std::string variant;
    double fraction = 1;
    std::string against = "peer";
    bool open = false;  // the lab's open rung (lab.yaml `open: true`): its heading says so
};

// The correct kernels of one submission from its grade.json, one entry per variant.
// Anything unreadable gives no entries.
std::vector<RungEntry> class_rung_entries(const std::string& submission, const std::string& grade_json_text);

// The targets of the lab's variants, in the lab's order.
std::vector<RungTarget> rung_targets(const LabSpec& lab);

// `targets` in the lab's order; a rung with no target is drawn without a marker.
std::string class_report_html(const BatchFacts& facts, std::vector<SubmissionResult> results,
                              const std::vector<ChartPoint>& points, const std::vector<RungEntry>& rungs = {},
                              const std::vector<RungTarget>& targets = {});

// Reads each submission's grade.json under `out`, and the targets from the lab.yaml the batch
// graded against (OUT/lab/LAB/lab.yaml; without it the rungs show no target), and writes
// out/report.html.
void write_class_report(const std::filesystem::path& out, const BatchFacts& facts,
                        const std::vector<SubmissionResult>& results);

}  // namespace roofline::batch
