// Shared by the HTML report tests (test_html_report.cpp, test_html_browser.cpp):
// a saved grade as `roofline grade --json` writes it, a batch output folder as
// `roofline batch` leaves it, and the hostile names a class may hold.
#pragma once
#include "test_support.hpp"

#include "result.hpp"
#include "hardware.hpp"
#include "workspace.hpp"

#include <string>
#include <vector>

namespace roofline_test {

// Names no submission should be able to turn into markup: each would run a
// script or make an element if it reached the page unescaped.
inline const std::string kHostileImg = "<img src=x onerror=document.body.setAttribute('data-pwned','img')>";
inline const std::string kHostileScript = "<script>document.body.setAttribute('data-pwned','script')</script>";

// The fields of a correct grade that the pictures read (report.cpp's score_json).
// Measured ceilings for the H200 profile, saved where `roofline ceilings` would put them.
inline roofline::MeasuredCeilings save_h200_measured_ceilings(const roofline::Workspace& ws) {
    auto measured = h200_measured_ceilings();
    measured.fp32_fma_tflops = 60.1;
    measured.gemm_tflops[roofline::Dtype::bf16] = 690;
    measured.launch_us = 4.8;
    roofline::save_measured(measured, ws.measured_ceilings("h200-sxm"));
    return measured;
}

inline nlohmann::json saved_grade(const std::string& target, double intensity, double ridge, const std::string& unit,
                                  double achieved, double attainable, double prediction_ratio,
                                  const std::string& gpu = "NVIDIA H200") {
    nlohmann::json j = {{"target", target}, {"gpu", gpu}, {"correct", true}, {"intensity", intensity},
                        {"ridge", ridge}, {"unit", unit}, {"achieved", achieved}, {"attainable", attainable},
                        {"ceiling_origin", "datasheet (h200-sxm)"}, {"fraction_scored", achieved / attainable},
                        {"scored_against", "roofline"},
                        {"points", {{"correctness", 50}, {"performance", 30}, {"prediction", 10}, {"total", 90}, {"max", 100}}}};
    if (prediction_ratio > 0) j["prediction"] = {{"ratio", prediction_ratio}, {"regime_right", true}, {"verdict", "ok"}};
    return j;
}

inline roofline::batch::SubmissionResult submission_result(const std::string& name, roofline::batch::SubmissionOutcome outcome,
                                                          double fraction, const std::string& reason = "") {
    roofline::batch::SubmissionResult r;
    r.submission = name;
    r.outcome = outcome;
    r.reason = reason;
    for (const char* v : {"copy_naive_fp32", "add_fp32"}) {
        bool graded = outcome == roofline::batch::SubmissionOutcome::graded;
        r.variants.push_back({v, outcome, graded ? 80.0 : 0.0, 100, graded ? fraction : 0.0, reason});
    }
    roofline::batch::add_up(r);
    return r;
}

// A course in `dir` (hardware/ and lab 01 copied) whose student graded three
// variants of lab 01 (one incorrect) on two GPUs, and a prediction log beside it
// with two graded predictions, one of them with a hostile why, and one not yet
// graded. Returns the log's path.
inline fs::path write_graded_course(const fs::path& dir) {
    fs::create_directories(dir / "labs");
    fs::copy(repo_root() / "hardware", dir / "hardware", fs::copy_options::recursive);
    fs::copy(repo_root() / "labs" / "01-memory-roof", dir / "labs" / "01-memory-roof", fs::copy_options::recursive);
    roofline::Workspace ws{dir, dir / "build"};
    auto results = ws.results_dir("01-memory-roof", false);
    write_file(results / "copy_naive_fp32.json",
               saved_grade("01-memory-roof/copy_naive_fp32", 0, 14, "TB/s", 3.9, 4.24, 1.25).dump());
    write_file(results / "fma_compute_fp32.json",
               saved_grade("01-memory-roof/fma_compute_fp32", 128, 14, "TFLOP/s", 40, 50, 0, "NVIDIA B200").dump());
    auto incorrect = saved_grade("01-memory-roof/add_fp32", 0.083, 14, "TB/s", 3, 4.24, 0);
    incorrect["correct"] = false;
    write_file(results / "add_fp32.json", incorrect.dump());

    auto log_file = dir / "predictions.yaml";
    auto p1 = roofline::append_prediction(log_file, make_prediction("copy_naive_fp32", "n=268435456", "h1", 500, kHostileScript));
    roofline::append_measurement(log_file, make_measurement(p1, 625));
    auto p2 = roofline::append_prediction(log_file, make_prediction("scale_fp32", "n=268435456", "h2", 500));
    roofline::append_measurement(log_file, make_measurement(p2, 510));
    roofline::append_prediction(log_file, make_prediction("add_fp32", "n=268435456", "h3", 700));
    return log_file;
}

// OUT as `roofline batch` leaves it: batch.json, and per submission result.json,
// grade.json and done. `grades[i]` is submission i's grade.json (an array).
inline void write_batch_folder(const fs::path& out, const std::vector<roofline::batch::SubmissionResult>& results,
                               const std::vector<nlohmann::json>& grades) {
    nlohmann::json names = nlohmann::json::array();
    for (std::size_t i = 0; i < results.size(); ++i) {
        const auto& r = results[i];
        names.push_back(r.submission);
        auto dir = out / "submissions" / r.submission;
        write_file(dir / "result.json", roofline::batch::to_json(r).dump(2));
        write_file(dir / "grade.json", grades[i].dump(2));
        write_file(dir / "done", "");
    }
    write_file(out / "batch.json",
               nlohmann::json{{"lab", "01-memory-roof"}, {"seed", 7}, {"hidden", ""}, {"submissions", names}}.dump(2));
}

}  // namespace roofline_test
