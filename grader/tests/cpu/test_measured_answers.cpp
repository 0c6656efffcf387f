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

#include "lab_spec.hpp"

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
            times[h[1]][h[2]].insert(to_seconds(std::stod(t[1]), t[2]));
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
                  "02-gemm/r1_naive  CORRECT  on NVIDIA H200\n"
                  "  time      1.372 ms median (IQR ...)\n",
                  times);
    REQUIRE(times["01-memory-roof"]["copy_naive_fp32"].size() == 1);
    CHECK(*times["01-memory-roof"]["copy_naive_fp32"].begin() == Approx(787.7e-6));
    CHECK(*times["02-gemm"]["r1_naive"].begin() == Approx(1.372e-3));

    auto real = recorded_times(roofline_test::repo_root() / "results");
    CHECK(real.size() >= 5);  // labs 00-04 were graded on the H200
    CHECK(real["01-memory-roof"].count("copy_naive_fp32"));
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
    auto times = recorded_times(root / "results");
    std::set<std::string> profiles;  // the first column of `roofline calc`'s table
    for (const auto& entry : fs::directory_iterator(root / "hardware"))
        if (entry.path().extension() == ".yaml") profiles.insert(entry.path().stem().string());
    std::vector<std::string> problems;
    for (const auto& lab : roofline::load_labs(root / "labs")) {
        auto it = times.find(lab.id);
        if (it == times.end()) continue;  // not graded on a GPU yet (lab 05)
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
