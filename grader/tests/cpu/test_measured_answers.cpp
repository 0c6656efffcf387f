// The answers stay out of the way of the prediction: no lesson and no lab README
// states a measured time of one of its own lab's variants. Those times live in
// the variant's debrief (labs/NN-name/debrief/VARIANT.md), which opens after the
// student's own graded measurement. The recorded times are read from the gradings
// kept in results/*.txt (a report line "LAB/VARIANT  CORRECT ..." followed by
// "  time      787.7 us median ..."); a time in a document within 1% of one of them
// (787.7 us, ~788 us, 0.79 ms, either end of a range) is taken as that answer.
// Floors and predictions of method (bytes over bandwidth) differ by more than
// that from what the kernels measured; a coincidence is reworded, not allowed.
// One exception: a row of `roofline calc`'s table (a line that starts with a
// hardware profile's id) holds datasheet floors the tool computes, not
// measurements, and the lesson cannot reword a tool's output.
#include "test_support.hpp"

#include "lab_aliases.hpp"
#include "lab_spec.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using roofline_test::contains;
using roofline_test::read_file;

// lab -> variant -> every time recorded for it, in seconds.
using RecordedTimes = std::map<std::string, std::map<std::string, std::set<double>>>;

double to_seconds(double value, const std::string& unit) {
    if (unit == "ms") return value * 1e-3;
    if (unit == "s") return value;
    return value * 1e-6;  // us, µs
}

void read_gradings(const std::string& text, RecordedTimes& times) {
    static const std::regex header(R"(^(\d\d-[a-z0-9-]+)/([a-z0-9_]+)\s+(?:CORRECT|INCORRECT)\b)");
    static const std::regex time(R"(^\s+time\s+([0-9.]+) (us|ms|s) median)");
    std::istringstream in(text);
    std::string line, previous;
    std::smatch h, t;
    while (std::getline(in, line)) {
        if (std::regex_search(line, t, time) && std::regex_search(previous, h, header)) {
            // results/ keeps the names its runs were made with: an old one is the lab's old name.
            times[roofline::current_lab_name(h[1].str())][h[2]].insert(to_seconds(std::stod(t[1]), t[2]));
        }
        previous = line;
    }
}

RecordedTimes recorded_times(const fs::path& results_dir) {
    RecordedTimes times;
    for (const auto& entry : fs::directory_iterator(results_dir)) {
        if (entry.path().extension() == ".txt") read_gradings(read_file(entry.path()), times);
    }
    return times;
}

// "file:line: 787.7 us is copy_naive_fp32's measured time" for each time in `text`
// within 1% of one of `variants`' recorded times.
std::vector<std::string> stated_answers(const std::string& text, const std::string& file,
                                        const std::map<std::string, std::set<double>>& variants,
                                        const std::set<std::string>& calc_rows = {}) {
    static const std::regex quantity(R"((\d+(?:\.\d+)?)(?:\s*[-–]\s*(\d+(?:\.\d+)?))?\s*(us|µs|ms)\b)");
    std::vector<std::string> found;
    std::istringstream in(text);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (calc_rows.count(line.substr(0, line.find(' ')))) continue;
        for (std::sregex_iterator it(line.begin(), line.end(), quantity), end; it != end; ++it) {
            const auto& m = *it;
            for (int group : {1, 2}) {
                if (!m[group].matched) continue;
                double stated = to_seconds(std::stod(m[group]), m[3]);
                for (const auto& [variant, times] : variants) {
                    bool near = false;
                    for (double t : times) near = near || std::abs(stated - t) <= 0.01 * t;
                    if (!near) continue;
                    found.push_back(file + ":" + std::to_string(number) + ": " + m.str() + " is " + variant +
                                    "'s measured time; move it to its debrief/" + variant + ".md");
                    break;
                }
            }
        }
    }
    return found;
}

}  // namespace

TEST_CASE("the recorded gradings are read: times per lab and variant", "[lessons][debrief]") {
    RecordedTimes times;
    read_gradings("01-memory-roof/copy_naive_fp32  CORRECT  on NVIDIA H200\n"
                  "  time      787.7 us median (IQR 787.2 us - 787.9 us)\n"
                  "02-gemm/r1_naive  CORRECT  on NVIDIA H200\n"  // recorded before the renumbering
                  "  time      1.372 ms median (IQR ...)\n",
                  times);
    REQUIRE(times["01-memory-roof"]["copy_naive_fp32"].size() == 1);
    CHECK(*times["01-memory-roof"]["copy_naive_fp32"].begin() == Approx(787.7e-6));
    CHECK(*times["03-gemm"]["r1_naive"].begin() == Approx(1.372e-3));
    CHECK_FALSE(times.count("02-gemm"));

    if (!fs::exists(roofline_test::repo_root() / "results")) return;  // the student edition
    auto real = recorded_times(roofline_test::repo_root() / "results");
    CHECK(real.size() >= 5);  // labs 00, 01, 03, 04 and 06 were graded on the H200
    CHECK(real["01-memory-roof"].count("copy_naive_fp32"));
    CHECK(real["06-async"].count("wgmma_gemm_4096"));  // recorded as 04-async
}

TEST_CASE("a measured time in the prose is found, rounded or as a range end; others are not", "[lessons][debrief]") {
    std::map<std::string, std::set<double>> variants = {{"copy_naive_fp32", {787.7e-6}}, {"r1_naive", {1.372e-3}}};
    auto found = stated_answers("The floor is 511 us.\nIt ran in ~788 us.\nr1 took 1.37 ms; copies 700-787 us\n",
                                "lesson.md", variants);
    REQUIRE(found.size() == 3);
    CHECK(contains(found[0], "lesson.md:2: "));
    CHECK(contains(found[0], "copy_naive_fp32"));
    CHECK(contains(found[1], "lesson.md:3: "));
    CHECK(contains(found[1], "r1_naive"));
    CHECK(contains(found[2], "700-787 us"));
    CHECK(stated_answers("447 us at the datasheet's 4.8 TB/s", "x.md", variants).empty());
    auto calc_row = "a100-40gb             19.5    1.55     12.5        0 ns    787.9 us          0  memory\n";
    CHECK(stated_answers(calc_row, "x.md", variants, {"a100-40gb"}).empty());
    CHECK(stated_answers(calc_row, "x.md", variants, {"h200-sxm"}).size() == 1);
}

TEST_CASE("no lesson or lab README states a measured time of its own lab's variants", "[lessons][debrief]") {
    auto root = roofline_test::repo_root();
    if (!fs::exists(root / "results")) {
        WARN("the student edition has no results/: nothing to check against");
        return;
    }
    auto times = recorded_times(root / "results");
    std::set<std::string> profiles;  // the first column of `roofline calc`'s table
    for (const auto& entry : fs::directory_iterator(root / "hardware"))
        if (entry.path().extension() == ".yaml") profiles.insert(entry.path().stem().string());
    std::vector<std::string> problems;
    for (const auto& lab : roofline::load_labs(root / "labs")) {
        auto it = times.find(lab.id);
        if (it == times.end()) continue;  // not graded on a GPU yet (lab 07)
        std::vector<fs::path> documents = {root / "labs" / lab.id / "README.md"};
        if (!lab.lesson.empty()) documents.push_back(root / lab.lesson);
        for (const auto& document : documents) {
            auto found =
                stated_answers(read_file(document), fs::relative(document, root).string(), it->second, profiles);
            problems.insert(problems.end(), found.begin(), found.end());
        }
    }
    std::string all;
    for (const auto& p : problems) all += p + "\n";
    INFO(all);
    CHECK(problems.empty());
}

// Issue 35: a debrief's "What we measured" is checkable against results/. Two rules:
//  1. every time (us, ms) and percentage a debrief's measured section sets in bold is in one
//     of the results files that section cites;
//  2. a debrief that says its variant never ran fails while results/ holds a line that names
//     the variant beside a measured time.
namespace {

// The "## What we measured" section of a debrief, or nothing.
std::string measured_section(const std::string& debrief) {
    auto at = debrief.find("## What we measured");
    if (at == std::string::npos) return {};
    auto end = debrief.find("\n## ", at + 1);
    return debrief.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

std::set<std::string> cited_results(const std::string& section) {
    static const std::regex link(R"(results/([A-Za-z0-9._-]+\.(?:md|txt|json|csv)))");
    std::set<std::string> files;
    for (std::sregex_iterator it(section.begin(), section.end(), link), end; it != end; ++it) files.insert((*it)[1]);
    return files;
}

std::string without_commas(std::string text) {
    text.erase(std::remove(text.begin(), text.end(), ','), text.end());
    return text;
}

// "437.7 us" for each bold time or percentage of `section` that none of `sources` holds.
std::vector<std::string> figures_not_in(const std::string& section, const std::string& sources) {
    static const std::regex bold(R"(\*\*([^*]+)\*\*)");
    static const std::regex figure(R"((\d[\d,]*\.\d+)\s*(us|ms|%))");
    std::vector<std::string> missing;
    auto text = without_commas(sources);
    for (std::sregex_iterator b(section.begin(), section.end(), bold), end; b != end; ++b) {
        std::string inside = (*b)[1];
        for (std::sregex_iterator f(inside.begin(), inside.end(), figure); f != end; ++f) {
            if (text.find(without_commas((*f)[1])) == std::string::npos) missing.push_back((*f).str());
        }
    }
    return missing;
}

bool says_never_ran(const std::string& section) {
    static const std::regex phrase(R"(not yet measured|has not run on a GPU|never ran|this rung has not run)",
                                   std::regex::icase);
    return std::regex_search(section, phrase);
}

// A line of `results` that names `variant` (as a word) beside a time: a run that measured it.
std::string measuring_line(const std::string& results, const std::string& variant) {
    const std::regex line_with_time("(^|[^a-z0-9_])" + variant + R"(([^a-z0-9_].*)?\b\d+(\.\d+)? (us|ms)\b)");
    std::istringstream in(results);
    std::string line;
    while (std::getline(in, line)) {
        if (std::regex_search(line, line_with_time)) return line;
    }
    return {};
}

// Debriefs whose cited file does not hold their bold figures today: run 37b's gradings (lab 02,
// lab 09's GEMVs and skinny GEMMs, lab 05's transposes) were copied into the debriefs from the
// run's console and not kept in results/; the others quote a figure that is in another results
// file than the one they cite. The test fails when one of these starts to pass too, so the list
// only shrinks.
const std::set<std::string> kFiguresNotInCitedFile = {
    "03-gemm/debrief/r9_pipelined.md",
    "04-fusion/debrief/gemm_bare.md",
    "04-fusion/debrief/gemm_bias_gelu_fused.md",
    "04-fusion/debrief/gemm_bias_gelu_unfused.md",
    "06-async/debrief/row_sum_double_buffer.md",
    "06-async/debrief/wgmma_cluster_4096.md",
    "06-async/debrief/wgmma_cluster_8192.md",
    "06-async/debrief/wgmma_one_warpgroup_4096.md",
    "06-async/debrief/wgmma_one_warpgroup_8192.md",
    "06-async/debrief/wgmma_tma_store_4096.md",
    "06-async/debrief/wgmma_tma_store_8192.md",
    "06-async/debrief/wgmma_two_consumers_4096.md",
    "06-async/debrief/wgmma_two_consumers_8192.md",
    "02-profile/debrief/copy_scattered_fp32.md",
    "02-profile/debrief/copy_staged_fp32.md",
    "02-profile/debrief/copy_transposed_fp32.md",
    "02-profile/debrief/fma_few_warps_fp32.md",
    "02-profile/debrief/row_sum_bank_conflict_bf16.md",
    "09-decode/debrief/gemv_bf16_14336x4096.md",
    "09-decode/debrief/gemv_bf16_4096x14336.md",
    "09-decode/debrief/gemv_bf16_8192.md",
    "09-decode/debrief/gemv_fp8_4096x14336.md",
    "09-decode/debrief/gemv_fp8_8192.md",
    "09-decode/debrief/gemv_int8_4096x14336.md",
    "09-decode/debrief/gemv_int8_8192.md",
    "09-decode/debrief/skinny_m1.md",
    "09-decode/debrief/skinny_m16.md",
    "09-decode/debrief/skinny_m2.md",
    "09-decode/debrief/skinny_m4.md",
    "09-decode/debrief/skinny_m8.md",
    "05-layouts/debrief/transpose_naive_bf16.md",
    "05-layouts/debrief/transpose_naive_fp32.md",
    "05-layouts/debrief/transpose_padded_bf16.md",
    "05-layouts/debrief/transpose_padded_fp32.md",
    "05-layouts/debrief/transpose_swizzled_bf16.md",
    "05-layouts/debrief/transpose_swizzled_fp32.md",
    "05-layouts/debrief/transpose_tma_bf16.md",
    "05-layouts/debrief/transpose_tma_fp32.md",
};

}  // namespace

TEST_CASE("the debrief checks find a figure missing from its source and a run a debrief denies", "[lessons][debrief]") {
    auto section = measured_section("# D\n\n## What we measured\n\nGiven **437.7 us, 48.1%**; fix **231.0 us**.\n"
                                    "[`results/r.md`](../../../results/r.md)\n\n## What to compare\n**9.9 us**\n");
    CHECK(cited_results(section) == std::set<std::string>{"r.md"});
    CHECK(figures_not_in(section, "437.7 us and 48.1% and 231.0 us").empty());
    CHECK(figures_not_in(section, "437.7 us, 231.0").size() == 1);  // 48.1% missing; 9.9 us is not in the section
    CHECK(figures_not_in("**1,234.5 us**", "1234.5 us").empty());
    CHECK(says_never_ran("Not yet measured: this rung has not run on a GPU."));
    CHECK_FALSE(says_never_ran("On one H200 (run 52) the given kernel took 437.7 us."));
    CHECK_FALSE(measuring_line("Given `fma_tail_fp32` (133 tiles): 437.7 us, 48.1%", "fma_tail_fp32").empty());
    CHECK(measuring_line("tcgen05_gemm   -   -   exit 7\n07-blackwell/tcgen05_gemm needs a Blackwell GPU", "tcgen05_gemm")
              .empty());
    CHECK(measuring_line("fma_tail_fp32x: 437.7 us", "fma_tail_fp32").empty());
}

TEST_CASE("each debrief's bold measured figures are in the results file it cites", "[lessons][debrief]") {
    auto root = roofline_test::repo_root();
    if (!fs::exists(root / "results")) {
        WARN("the student edition has no results/: nothing to check against");
        return;
    }
    std::vector<std::string> problems;
    for (const auto& lab : fs::directory_iterator(root / "labs")) {
        if (!fs::is_directory(lab.path() / "debrief")) continue;
        for (const auto& entry : fs::directory_iterator(lab.path() / "debrief")) {
            auto name = fs::relative(entry.path(), root / "labs").generic_string();
            auto section = measured_section(read_file(entry.path()));
            if (section.empty()) continue;
            std::string sources;
            for (const auto& cited : cited_results(section)) {
                auto file = root / "results" / cited;
                if (!fs::exists(file)) {
                    problems.push_back(name + " cites results/" + cited + ", which does not exist");
                    continue;
                }
                sources += read_file(file) + "\n";
            }
            auto missing = figures_not_in(section, sources);
            bool known = kFiguresNotInCitedFile.count(name) > 0;
            if (!missing.empty() && !known) {
                problems.push_back(name + ": " + missing.front() + " is in none of the results files it cites");
            }
            if (missing.empty() && known) {
                problems.push_back(name + " now holds its figures: take it off kFiguresNotInCitedFile");
            }
        }
    }
    std::string all;
    for (const auto& p : problems) all += p + "\n";
    INFO(all);
    CHECK(problems.empty());
    // The tail rung's figures (issue 35, item 5) are among those checked, not excused.
    CHECK(kFiguresNotInCitedFile.count("02-profile/debrief/fma_tail_fp32.md") == 0);
    auto tail = measured_section(read_file(root / "labs" / "02-profile" / "debrief" / "fma_tail_fp32.md"));
    roofline_test::check_mentions(tail, {"**437.7 us**", "**48.1%**", "**231.0-232.7 us**", "**90.8%**", "12.09", "0.51", "0.96"});
}

TEST_CASE("no debrief says its variant never ran while results/ holds its run", "[lessons][debrief]") {
    auto root = roofline_test::repo_root();
    if (!fs::exists(root / "results")) {
        WARN("the student edition has no results/: nothing to check against");
        return;
    }
    std::string results;
    for (const auto& entry : fs::directory_iterator(root / "results")) {
        auto ext = entry.path().extension();
        if (ext == ".md" || ext == ".txt") results += read_file(entry.path()) + "\n";
    }
    std::vector<std::string> problems;
    for (const auto& lab : fs::directory_iterator(root / "labs")) {
        if (!fs::is_directory(lab.path() / "debrief")) continue;
        for (const auto& entry : fs::directory_iterator(lab.path() / "debrief")) {
            auto section = measured_section(read_file(entry.path()));
            if (section.empty() || !says_never_ran(section)) continue;
            auto line = measuring_line(results, entry.path().stem().string());
            if (!line.empty())
                problems.push_back(fs::relative(entry.path(), root).generic_string() +
                                   " says it never ran; results/ has: " + line);
        }
    }
    std::string all;
    for (const auto& p : problems) all += p + "\n";
    INFO(all);
    CHECK(problems.empty());
    // The tail debrief as it stood before issue 35 fails the check.
    auto old_tail = "## What we measured\n\nNot yet measured: this rung has not run on a GPU.\n";
    CHECK(says_never_ran(measured_section(old_tail)));
    CHECK_FALSE(measuring_line(results, "fma_tail_fp32").empty());
}
