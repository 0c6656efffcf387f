// The HTML pages without a browser: escaping, the calculator's data against
// hardware/*.yaml and the measured ceilings, the student's report from saved
// grades and a prediction log, the batch's report.html, and `roofline report`.
// What the pages do in a browser is test_html_browser.cpp.
#include "html_support.hpp"

#include "batch.hpp"
#include "class_report.hpp"
#include "gemm/model.hpp"
#include "html_calculator.hpp"
#include "html_report.hpp"
#include "html_text.hpp"

#include <fmt/format.h>

#include <regex>
#include <sstream>

using namespace roofline;
using namespace roofline_test;
using nlohmann::json;

namespace {

// Nothing in the page may load from outside it: no tag carries a URL, the
// styles import nothing, the scripts fetch nothing. (Text may cite a URL.)
void check_self_contained(const std::string& html) {
    static const std::regex tag("<[a-zA-Z][^>]*>");
    for (auto it = std::sregex_iterator(html.begin(), html.end(), tag); it != std::sregex_iterator(); ++it) {
        INFO("tag: " << it->str());
        CHECK_FALSE(contains(it->str(), "://"));
        CHECK_FALSE(std::regex_search(it->str(), std::regex("\\s(src|href|action|srcset|data)\\s*=\\s*['\"]?[a-z]+:", std::regex::icase)));
    }
    for (const char* forbidden : {"<link", "@import", "url(", "fetch(", "XMLHttpRequest", "import(", "<iframe", "<object", "<embed"}) {
        INFO("forbidden: " << forbidden);
        CHECK_FALSE(contains(html, forbidden));
    }
    CHECK(contains(html, "default-src 'none'"));
}

fs::path course_copy(const fs::path& dir) {
    fs::copy(repo_root() / "hardware", dir / "hardware", fs::copy_options::recursive);
    fs::create_directories(dir / "labs");
    fs::copy(repo_root() / "labs" / "01-memory-roof", dir / "labs" / "01-memory-roof", fs::copy_options::recursive);
    return dir;
}

}  // namespace

TEST_CASE("html_escape: markup becomes text, bad UTF-8 becomes U+FFFD", "[html]") {
    CHECK(html_escape(kHostileImg) == "&lt;img src=x onerror=document.body.setAttribute(&#39;data-pwned&#39;,&#39;img&#39;)&gt;");
    CHECK(html_escape("a & \"b\"") == "a &amp; &quot;b&quot;");
    CHECK(html_escape("caf\xC3\xA9 \xE2\x9C\x93") == "caf\xC3\xA9 \xE2\x9C\x93");   // valid UTF-8 kept
    CHECK(html_escape("x\xFFy\xC3") == "x\xEF\xBF\xBDy\xEF\xBF\xBD");              // stray and cut-off bytes
    CHECK(html_escape("a\x01\x7F" "b\n\tc") == "ab\n\tc");                           // control characters dropped
}

TEST_CASE("script_json: a string cannot close its script element, and reads back the same", "[html]") {
    json value = {{"name", kHostileScript}, {"bad", std::string("x\xFFy")}};
    auto text = script_json(value);
    CHECK_FALSE(contains(text, "<"));
    CHECK_FALSE(contains(text, ">"));
    auto back = json::parse(text);
    CHECK(back["name"] == kHostileScript);
    CHECK(back["bad"] == "x\xEF\xBF\xBDy");
    CHECK(exact_number(0.1) == "0.1");
    CHECK(std::stod(exact_number(1.0 / 3)) == 1.0 / 3);
}

TEST_CASE("calculator data: every profile with its datasheet ceilings, and measured ones where saved", "[html]") {
    TempDir dir;
    auto root = course_copy(dir.path());
    Workspace ws{root, root / "build"};
    save_h200_measured_ceilings(ws);

    auto data = calculator_data(ws);
    CHECK(data["launch_overhead_s"].get<double>() == kTypicalLaunchOverheadS);
    CHECK(data["default_profile"] == "h200-sxm");  // the course's reference GPU opens the calculator
    REQUIRE(data["dtypes"].size() == all_dtypes.size());
    for (const auto& d : data["dtypes"]) {
        CHECK(d["bytes"].get<double>() == dtype_bytes(*parse_dtype(d["name"].get<std::string>())));
    }
    auto profiles = load_profiles(root / "hardware");
    REQUIRE(data["profiles"].size() == profiles.size());
    for (std::size_t i = 0; i < profiles.size(); ++i) {
        const auto& p = profiles[i];
        const auto& entry = data["profiles"][i];
        INFO(p.id);
        CHECK(entry["id"] == p.id);
        const auto& sheet = entry["ceilings"]["datasheet"];
        CHECK(sheet["bandwidth_tbs"].get<double>() == p.memory.bandwidth_tbs);
        CHECK(sheet["launch_overhead_s"].get<double>() == kTypicalLaunchOverheadS);
        for (auto dtype : all_dtypes) {
            auto name = std::string(dtype_name(dtype));
            CHECK(sheet["peak_tflops"].contains(name) == p.supports(dtype));
            if (p.supports(dtype)) CHECK(sheet["peak_tflops"][name].get<double>() == p.datasheet_ceiling(dtype).peak_tflops);
        }
        CHECK(entry["ceilings"].contains("measured") == (p.id == "h200-sxm"));
    }
    const auto& h200 = *std::find_if(data["profiles"].begin(), data["profiles"].end(), [](const json& p) { return p["id"] == "h200-sxm"; });
    const auto& m = h200["ceilings"]["measured"];
    CHECK(m["bandwidth_tbs"].get<double>() == 4.24);
    CHECK(m["peak_tflops"]["bf16"].get<double>() == 690);
    CHECK(m["peak_tflops"]["fp32"].get<double>() == 60.1);
    CHECK(m["peak_tflops"]["fp16"].get<double>() == 989.4);  // not measured: the datasheet's
    CHECK(m["launch_overhead_s"].get<double>() == Approx(4.8e-6));
    CHECK(m["when"] == "2026-11-29T10:00:00Z");
}

TEST_CASE("the calculator shows the FP8 switch: fp8's roof and ridge beside bf16's, the same point under both", "[html]") {
    TempDir dir;
    auto root = course_copy(dir.path());
    Workspace ws{root, root / "build"};
    auto measured = save_h200_measured_ceilings(ws);
    measured.wgmma_fp8_tflops = 1650;  // the probe's FP8 wgmma rate, as `roofline ceilings` saves it
    save_measured(measured, ws.measured_ceilings("h200-sxm"));

    auto data = calculator_data(ws);
    auto entry = [&](const std::string& id) -> const json& {
        return *std::find_if(data["profiles"].begin(), data["profiles"].end(), [&](const json& p) { return p["id"] == id; });
    };
    // The roofs the switch draws, from the H200's profile: fp8's ridge twice bf16's over one memory roof.
    auto profile = load_profile(root / "hardware" / "h200-sxm.yaml");
    const auto& sheet = entry("h200-sxm")["ceilings"]["datasheet"];
    double bandwidth = sheet["bandwidth_tbs"].get<double>();
    double bf16_ridge = sheet["peak_tflops"]["bf16"].get<double>() / bandwidth;
    double fp8_ridge = sheet["peak_tflops"]["fp8"].get<double>() / bandwidth;
    CHECK(fp8_ridge == Approx(profile.peak.at(Dtype::fp8).dense_tflops / profile.memory.bandwidth_tbs));
    CHECK(fp8_ridge / bf16_ridge == Approx(2.0).epsilon(1e-3));
    // measured: the FP8 wgmma probe's rate is the fp8 roof, and the page says where it came from
    const auto& here = entry("h200-sxm")["ceilings"]["measured"];
    CHECK(here["peak_tflops"]["fp8"].get<double>() == 1650);
    CHECK(contains(here["peak_origin"]["fp8"].get<std::string>(), "fp8 wgmma probe"));
    // a part without an FP8 roof carries none: the page says "no fp8 unit on" it
    CHECK_FALSE(entry("a100-40gb")["ceilings"]["datasheet"]["peak_tflops"].contains("fp8"));

    auto html = calculator_section(data);
    check_mentions(html, {"id=\"calc-switch\"", "function switchPartner(dtype)", "\"class\": \"roof partner-roof\"",
                          "\"same-point\"", "\"partner-point\"", "dashed blue roof", "no \" + partner + \" unit on"});
    // The page's example sits between the two ridges: compute-bound in bf16, under fp8's ridge with the
    // same bytes (memory-bound there), past it again once its operands are fp8 too.
    CHECK(contains(html, "href=\"#hardware=h200-sxm&amp;dtype=bf16&amp;gemm=256,8192,8192\""));
    auto bf16_work = gemm::work_of(256, 8192, 8192, dtype_bytes(Dtype::bf16));
    auto fp8_work = gemm::work_of(256, 8192, 8192, dtype_bytes(Dtype::fp8));
    double intensity = bf16_work.flops / bf16_work.bytes;
    CHECK(intensity > bf16_ridge);
    CHECK(intensity < fp8_ridge);
    CHECK(fp8_work.flops / fp8_work.bytes > fp8_ridge);
}

TEST_CASE("calculator data: a broken measured-ceilings file is named, not skipped", "[html]") {
    TempDir dir;
    auto root = course_copy(dir.path());
    Workspace ws{root, root / "build"};
    write_file(ws.measured_ceilings("l4"), "profile: l4\nmemcpy_tbs: [oops\n");
    auto message = input_error_of([&] { calculator_data(ws); });
    CHECK(contains(message, "l4.yaml"));
}

TEST_CASE("the student's report: kernels on their GPU's roofline, predictions, calibration, labs", "[html]") {
    TempDir dir;
    auto root = dir.path();
    Workspace ws{root, root / "build"};
    auto log_file = write_graded_course(root);

    auto html = student_report_html(ws, log_file);
    check_self_contained(html);
    // the calculator, with its data and script
    check_mentions(html, {"id=\"calc-data\"", "function analyze(work, ceiling, launchOverheadS)"});
    // one chart per GPU the grades ran on; the mark's hover text and the table row
    check_mentions(html, {"graded on NVIDIA H200", "graded on NVIDIA B200",
                          "01-memory-roof copy_naive_fp32: 0 FLOP/byte, 3.9 TB/s, 92.0% of the memory roof"});
    CHECK(contains(html, "predicted 115.0%"));  // 3.9 / 4.24 x 1.25 = 1.1498: it ran 1.25x slower than predicted
    CHECK(contains(html, "<td>fma_compute_fp32</td><td class='num'>128</td><td class='num'>40 TFLOP/s</td>"));
    CHECK_FALSE(contains(html, "<td>add_fp32</td>"));  // incorrect: not on the roofline
    // the prediction log: every graded prediction, calibration, the student's why as text
    check_mentions(html, {"<td class='num'>1.25x</td>", "data-trend='closing'", html_escape(kHostileScript)});
    CHECK_FALSE(contains(html, kHostileScript));
    CHECK(contains(html, "Not graded yet: p3 01-memory-roof/add_fp32"));
    // the lab's state
    auto lab = load_lab(ws.lab_yaml("01-memory-roof"));
    CHECK(contains(html, fmt::format("<td class='num'>2 of {}</td><td class='num'>180.0 / {:g}</td>", lab.variants.size(),
                                     lab.variants.size() * lab.scoring.total())));
    check_mentions(html, {"add_fp32 (incorrect)", "scale_fp32 (not graded)"});
}

TEST_CASE("the student's report with nothing graded says what to run", "[html]") {
    TempDir dir;
    auto root = course_copy(dir.path());
    auto html = student_report_html({root, root / "build"}, dir / "none.yaml");
    check_self_contained(html);
    check_mentions(html, {"Nothing graded yet", "Nothing measured yet"});
}

TEST_CASE("the class report: outcomes, distribution, leaderboard, one roofline, failures, all escaped", "[html][batch]") {
    using batch::SubmissionOutcome;
    auto fast = submission_result("fast", SubmissionOutcome::graded, 0.9);
    auto hostile = submission_result(kHostileImg, SubmissionOutcome::graded, 0.5);
    auto broken = submission_result(kHostileScript, SubmissionOutcome::compile_error, 0,
                                    "kernels/01_copy_naive.cu(3): error: </pre><script>alert(1)</script>");
    json fast_grades = json::array({saved_grade("01-memory-roof/copy_naive_fp32", 0, 14, "TB/s", 3.9, 4.24, 1.1),
                                    saved_grade("01-memory-roof/add_fp32", 0.083, 14, "TB/s", 3.8, 4.24, 0)});
    json hostile_grades = json::array({saved_grade("01-memory-roof/copy_naive_fp32", 0, 14, "TB/s", 2.1, 4.24, 0)});
    auto points = batch::class_points("fast", fast_grades.dump());
    auto more = batch::class_points(kHostileImg, hostile_grades.dump());
    points.insert(points.end(), more.begin(), more.end());
    REQUIRE(points.size() == 3);
    CHECK(batch::class_points("x", "not json").empty());
    CHECK(batch::class_points("x", R"([{"correct": true, "intensity": "a string"}])").empty());

    auto html = batch::class_report_html({"01-memory-roof", 7, "", {}}, {hostile, broken, fast}, points);
    check_self_contained(html);
    CHECK_FALSE(contains(html, "<script"));
    CHECK_FALSE(contains(html, "<img"));
    check_mentions(html, {html_escape(kHostileImg), html_escape(kHostileScript),
                          "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;"});
    // leaderboard order: by mean fraction
    auto first = html.find("<td class='num'>1</td><td class='submission'>fast</td>");
    auto second = html.find("<td class='num'>2</td><td class='submission'>" + html_escape(kHostileImg) + "</td>");
    CHECK(first != std::string::npos);
    CHECK(second != std::string::npos);
    check_mentions(html, {"<tr><td>compile_error</td><td class='num'>1</td></tr>",
                          "<tr><td>80-89%</td><td class='num'>2</td></tr>",
                          "<tr><td>0-9%</td><td class='num'>1</td></tr>", "<td>fast</td><td>add_fp32</td>"});
}

namespace {

// The part of the page from `start` to the end of the table it opens.
std::string table_from(const std::string& html, const std::string& start) {
    auto at = html.find(start);
    if (at == std::string::npos) return "";
    auto end = html.find("</table>", at);
    return html.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// The submissions of a table's rows, in order, as the page writes them (escaped).
std::vector<std::string> ranked_submissions(const std::string& table) {
    std::vector<std::string> names;
    static const std::regex cell("<td class='submission'>([^<]*)</td>");
    for (auto it = std::sregex_iterator(table.begin(), table.end(), cell); it != std::sregex_iterator(); ++it) {
        names.push_back((*it)[1].str());
    }
    return names;
}

int count_of(const std::string& text, const std::string& what) {
    int n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("the class report ranks each rung, marks its target and flags the kernels beyond it", "[html][batch]") {
    using batch::SubmissionOutcome;
    // copy_naive_fp32 is scored against the roofline, target 80%: alice (92%) and the hostile name
    // (80.2%) reach it, bob (49.5%) does not. add_fp32 is scored against the peer, target 90%: bob
    // is nearer the roofline (85%) but reaches 85% of the peer only; alice is at 70% of the roofline
    // and 95% of the peer, so she ranks second and is the one flagged. The hostile name's add_fp32
    // is incorrect: not ranked.
    auto with_fractions = [](json grade, double of_roofline, double scored, const std::string& against) {
        grade["fraction_of_roofline"] = of_roofline;
        grade["fraction_scored"] = scored;
        grade["scored_against"] = against;
        return grade;
    };
    json alice = json::array({saved_grade("01-memory-roof/copy_naive_fp32", 0, 14, "TB/s", 3.9, 4.24, 0),
                              with_fractions(saved_grade("01-memory-roof/add_fp32", 0.083, 14, "TB/s", 2.97, 4.24, 0),
                                             0.70, 0.95, "cudaMemcpy (TB/s), same run")});
    json bob = json::array({saved_grade("01-memory-roof/copy_naive_fp32", 0, 14, "TB/s", 2.1, 4.24, 0),
                            with_fractions(saved_grade("01-memory-roof/add_fp32", 0.083, 14, "TB/s", 3.6, 4.24, 0),
                                           0.85, 0.85, "cudaMemcpy (TB/s), same run")});
    auto hostile_incorrect = saved_grade("01-memory-roof/add_fp32", 0.083, 14, "TB/s", 4.2, 4.24, 0);
    hostile_incorrect["correct"] = false;
    json hostile = json::array({saved_grade("01-memory-roof/copy_naive_fp32", 0, 14, "TB/s", 3.4, 4.24, 0), hostile_incorrect});

    std::vector<batch::RungEntry> rungs;
    std::vector<std::pair<std::string, json>> graded = {{"alice", alice}, {"bob", bob}, {kHostileImg, hostile}};
    for (const auto& [name, grades] : graded) {
        auto entries = batch::class_rung_entries(name, grades.dump());
        rungs.insert(rungs.end(), entries.begin(), entries.end());
    }
    REQUIRE(rungs.size() == 5);
    CHECK(batch::class_rung_entries("x", "not json").empty());
    CHECK(batch::class_rung_entries("x", R"([{"target": "l/v", "correct": true, "fraction_of_roofline": "a string"}])").empty());

    std::vector<batch::RungTarget> targets = {{"copy_naive_fp32", 0.8, "roofline"}, {"add_fp32", 0.9, "peer", true}};
    std::vector<batch::SubmissionResult> results = {submission_result("alice", SubmissionOutcome::graded, 0.81),
                    submission_result("bob", SubmissionOutcome::graded, 0.67),
                    submission_result(kHostileImg, SubmissionOutcome::graded, 0.4)};
    auto html = batch::class_report_html({"01-memory-roof", 7, "", {}}, results, {}, rungs, targets);
    check_self_contained(html);
    CHECK_FALSE(contains(html, "<img"));
    CHECK(contains(html, "<a href='#rungs-title'>per rung</a>"));
    CHECK(contains(html, "<h2 id='rungs-title'>"));
    // the mean leaderboard is still there
    CHECK(contains(html, "<table id='leaderboard'>"));

    auto copy = table_from(html, "<table id='rung-copy_naive_fp32'>");
    auto add = table_from(html, "<table id='rung-add_fp32'>");
    REQUIRE_FALSE(copy.empty());
    REQUIRE_FALSE(add.empty());
    CHECK(html.find("<table id='rung-copy_naive_fp32'>") < html.find("<table id='rung-add_fp32'>"));  // the lab's order
    // the open rung (lab.yaml `open: true`) is named as such; a guided rung is not
    CHECK(contains(html, "<span class='badge open' id='rung-add_fp32-open'>open rung"));
    CHECK_FALSE(contains(html, "rung-copy_naive_fp32-open"));

    CHECK(ranked_submissions(copy) == std::vector<std::string>{"alice", html_escape(kHostileImg), "bob"});
    CHECK(ranked_submissions(add) == std::vector<std::string>{"bob", "alice"});

    // the targets: their values and a mark on every bar, where the target falls in roofline terms
    check_mentions(html, {"target 80% of the roofline; 2 of 3 correct kernels at or beyond it",
                          "target 90% of the peer; 1 of 2 correct kernels at or beyond it"});
    CHECK(count_of(copy, "<div class='target-mark' title='target' style='left:80.0%'>") == 3);
    CHECK(contains(add, "style='left:66.3%'"));  // alice: 90% of the peer is 0.9 x 0.70 / 0.95 of the roof
    CHECK(contains(add, "style='left:90.0%'"));  // bob: his peer fraction equals his roofline fraction

    // the flag: on alice's and the hostile name's copy rows, on alice's add row, nowhere else
    auto flagged = [](const std::string& table) {  // one row a line
        std::vector<std::string> names;
        std::istringstream lines(table);
        for (std::string line; std::getline(lines, line);) {
            if (contains(line, "beyond the target")) names.push_back(ranked_submissions(line).at(0));
        }
        return names;
    };
    CHECK(flagged(copy) == std::vector<std::string>{"alice", html_escape(kHostileImg)});
    CHECK(flagged(add) == std::vector<std::string>{"alice"});
    CHECK(count_of(copy, "beyond the target") == 2);
    CHECK(count_of(add, "beyond the target") == 1);

    // without the lab's targets: the same ranking, no mark, no flag
    auto unknown = batch::class_report_html({"01-memory-roof", 7, "", {}}, results, {}, rungs, {});
    CHECK(ranked_submissions(table_from(unknown, "<table id='rung-add_fp32'>")) == std::vector<std::string>{"bob", "alice"});
    CHECK_FALSE(contains(unknown, "target-mark' title"));
    CHECK_FALSE(contains(unknown, "badge beyond"));
    CHECK(contains(unknown, "target unknown"));
}

TEST_CASE("roofline batch --merge writes report.html beside summary.md", "[html][batch]") {
    using batch::SubmissionOutcome;
    TempDir dir;
    auto out = dir / "grades";
    write_batch_folder(out,
                       {submission_result("alice", SubmissionOutcome::graded, 0.8), submission_result(kHostileImg, SubmissionOutcome::graded, 0.4)},
                       {json::array({saved_grade("01-memory-roof/copy_naive_fp32", 0, 14, "TB/s", 3.4, 4.24, 0)}),
                        json::array({saved_grade("01-memory-roof/copy_naive_fp32", 0, 14, "TB/s", 1.7, 4.24, 0)})});
    // the lab.yaml the batch graded against, where `roofline batch` puts it: the rungs' targets
    fs::create_directories(out / "lab");
    fs::copy(repo_root() / "labs" / "01-memory-roof", out / "lab" / "01-memory-roof", fs::copy_options::recursive);
    CHECK(batch::merge_batch(out) == 0);
    REQUIRE(fs::exists(out / "summary.md"));
    REQUIRE(fs::exists(out / "report.html"));
    auto html = read_file(out / "report.html");
    check_self_contained(html);
    check_mentions(html, {"alice copy_naive_fp32: 0 FLOP/byte, 3.4 TB/s, 80.2% of the memory roof",
                          html_escape(kHostileImg),
                          // lab 01's copy_naive_fp32: target 60% of the peer; alice's 80.2% reaches it, 40.1% does not
                          "target 60% of the peer; 1 of 2 correct kernels at or beyond it"});
    CHECK(count_of(table_from(html, "<table id='rung-copy_naive_fp32'>"), "beyond the target") == 1);
    CHECK_FALSE(contains(html, "<img"));
}

TEST_CASE("roofline report writes the page and prints its path", "[html][cli]") {
    TempDir dir;
    auto root = course_copy(dir.path());
    auto page = dir / "out" / "course.html";
    auto r = run_cli("--root " + shell_quote(root.string()) + " report --log " + shell_quote((dir / "p.yaml").string()) +
                     " --out " + shell_quote(page.string()));
    INFO(r.all());
    CHECK(r.exit_code == 0);
    CHECK(r.out == fs::absolute(page).string() + "\n");
    REQUIRE(fs::exists(page));
    check_self_contained(read_file(page));

    // the default place, under the course's .roofline/
    auto d = run_cli("--root " + shell_quote(root.string()) + " report --log " + shell_quote((dir / "p.yaml").string()));
    CHECK(d.exit_code == 0);
    CHECK(fs::exists(root / ".roofline" / "report.html"));

    // a malformed log: exit 2, the file and line named, the old page untouched
    write_file(dir / "bad.yaml", "- kind: prediction\n  lab: [oops\n");
    auto before = read_file(page);
    auto bad = run_cli("--root " + shell_quote(root.string()) + " report --log " + shell_quote((dir / "bad.yaml").string()) +
                       " --out " + shell_quote(page.string()));
    CHECK(bad.exit_code == 2);
    CHECK(contains(bad.err, "bad.yaml:"));
    CHECK(read_file(page) == before);
}

TEST_CASE("class report: the hours the logs show on the lab, median and range, or a line saying there are none",
          "[batch][html]") {
    std::vector<batch::SubmissionResult> results = {submission_result("alice", batch::SubmissionOutcome::graded, 0.81),
                                                    submission_result("bob", batch::SubmissionOutcome::graded, 0.67),
                                                    submission_result("cyd", batch::SubmissionOutcome::graded, 0.5),
                                                    submission_result("dee", batch::SubmissionOutcome::no_predictions, 0.5)};
    auto none = batch::class_report_html({"01-memory-roof", 7, "", {}}, results, {});
    CHECK(contains(none, "<a href='#hours-title'>hours</a>"));
    CHECK(contains(none, "No submission's log has two entries of this lab."));
    CHECK_FALSE(contains(none, "<table id='logged-hours'>"));

    results[0].logged_hours = 6.0;
    results[1].logged_hours = 2.0;
    results[2].logged_hours = 3.5;  // dee has no log: not counted
    auto html = batch::class_report_html({"01-memory-roof", 7, "", {}}, results, {});
    check_self_contained(html);
    auto table = table_from(html, "<table id='logged-hours'>");
    CHECK(contains(table, "<td>3</td><td class='num'>3.5 h</td><td class='num'>2.0 h</td><td class='num'>6.0 h</td>"));
    CHECK(contains(html, "never part of a grade"));
}
