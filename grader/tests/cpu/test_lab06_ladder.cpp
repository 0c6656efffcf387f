// Lab 06 as a ladder: lab.yaml lists the rungs in the order a student climbs them (the
// file numbers keep the order the files were written in, since a prediction is bound to
// its file), every rung's kernel file exists as a skeleton and as a solution, lesson
// 06's table of the six mechanisms names every rung, and lesson 06 gives each mechanism a
// section of its own (the stall it removes, the rung file, how to predict the step) that
// points to the debrief holding the measured step, which the lesson itself leaves out.
#include "test_support.hpp"

#include "lab_spec.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace roofline;
using namespace roofline_test;

namespace {

// A variant's rung name: its name without the size suffix (wgmma_gemm_4096 -> wgmma_gemm).
std::string rung_of(const std::string& variant) {
    for (const char* suffix : {"_4096", "_8192"}) {
        const std::string s(suffix);
        if (variant.size() > s.size() && variant.compare(variant.size() - s.size(), s.size(), s) == 0) {
            return variant.substr(0, variant.size() - s.size());
        }
    }
    return variant;
}

// Runs of spaces and line breaks as one space, so that a phrase wrapped in the Markdown
// (`roofline debrief\n06-async/...`) is found whole.
std::string one_line(const std::string& text) {
    return std::regex_replace(text, std::regex(R"(\s+)"), " ");
}

// A Markdown section: from the first line that starts with `heading` (and holds `also`)
// to the next heading at its level or above (`level` is the number of '#'); line 0 and no
// text when there is none.
struct Section {
    int line = 0;  // 1-based line of the heading; 0 when missing
    std::string text;
};
Section section_of(const std::string& markdown, const std::string& heading, int level,
                   const std::string& also = "") {
    std::istringstream in(markdown);
    Section found;
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        if (found.line == 0) {
            if (line.rfind(heading, 0) == 0 && roofline_test::contains(line, also)) found = {number, line + "\n"};
            continue;
        }
        const auto hashes = line.find_first_not_of('#');
        if (hashes != std::string::npos && hashes > 0 && int(hashes) <= level && line[hashes] == ' ') break;
        found.text += line + "\n";
    }
    return found;
}

// One mechanism of lab 06 and the rungs that build it, as lesson 06's section 10 walks them.
struct Mechanism {
    std::string heading;                // the start of its "### " heading in the lesson
    std::vector<std::string> variants;  // the graded variants whose file and debrief it names
};

const std::vector<Mechanism>& lab06_mechanisms() {
    static const std::vector<Mechanism> mechanisms = {
        {"### 10.1 Double buffering", {"row_sum_double_buffer"}},
        {"### 10.2 The TMA and mbarrier ring", {"row_sum_tma_ring"}},
        {"### 10.3 Warp specialization", {"row_sum_warp_specialized"}},
        {"### 10.3b The copy engine alone", {"mma_sync_tma_4096"}},
        {"### 10.4 wgmma from shared memory", {"wgmma_one_warpgroup_4096", "wgmma_two_consumers_4096"}},
        {"### 10.5 The persistent grid and the grouped tile order", {"wgmma_gemm_4096"}},
        {"### 10.6 Clusters", {"wgmma_cluster_4096", "row_sum_cluster_dsmem"}},
        {"### 10.7 The TMA store epilogue", {"wgmma_tma_store_4096"}},
    };
    return mechanisms;
}

// What is wrong with lesson 06's per-mechanism sections, each as "file:line: what; the fix".
// `file_of` gives a variant's kernel file name, `debrief_of` its debrief's text ("" if none).
// A section says what the mechanism removes, which file builds it, how to predict its step,
// and where the measured step is (`roofline debrief 06-async/VARIANT`); that debrief has a
// "## What ... bought" section with the step in points of its peer, and the lesson repeats
// none of that section's measured percentages (the answer stays behind the student's grade).
std::vector<std::string> mechanism_section_problems(
    const std::string& lesson, const std::function<std::string(const std::string&)>& file_of,
    const std::function<std::string(const std::string&)>& debrief_of) {
    const std::string shown = "lessons/06-async.md";
    std::vector<std::string> problems;
    for (const auto& mechanism : lab06_mechanisms()) {
        const auto section = section_of(lesson, mechanism.heading, 3);
        if (section.line == 0) {
            problems.push_back(shown + ": no section '" + mechanism.heading +
                               " ...'; add one: what it removes, the rung file, the predicted step, the debrief");
            continue;
        }
        const std::string at = shown + ":" + std::to_string(section.line) + ": '" + mechanism.heading + "' ";
        const std::string text = one_line(section.text);
        for (const char* part : {"**Removes.**", "**Built in**", "**Predict the step.**", "**Measured:**"}) {
            if (!roofline_test::contains(text, part))
                problems.push_back(at + "has no " + part + " paragraph; write it (every mechanism's section has all four)");
        }
        for (const auto& variant : mechanism.variants) {
            const auto file = file_of(variant);
            if (!roofline_test::contains(text, "`" + file + "`") &&
                !roofline_test::contains(text, "`labs/06-async/kernels/" + file + "`"))
                problems.push_back(at + "does not name " + file + ", the file that builds " + variant + "; name it");
            if (!roofline_test::contains(text, "roofline debrief 06-async/" + variant))
                problems.push_back(at + "does not point to `roofline debrief 06-async/" + variant +
                                   "`, where the measured step is; add the command");
            const auto debrief = debrief_of(variant);
            const auto bought = section_of(debrief, "## What", 2, "bought");
            const std::string in_debrief = "labs/06-async/debrief/" + variant + ".md";
            if (bought.line == 0) {
                problems.push_back(in_debrief + ": no '## What ... bought' section; add the measured step from the rung "
                                   "before, with its peer and the results/ file it comes from");
                continue;
            }
            const std::string step = one_line(bought.text);
            if (!roofline_test::contains(step, "points") ||
                !(roofline_test::contains(step, "cuBLAS") || roofline_test::contains(step, "cudaMemcpy")))
                problems.push_back(in_debrief + ":" + std::to_string(bought.line) +
                                   ": the bought section gives no step in points of cuBLAS or cudaMemcpy; give one");
            // (the student edition leaves results/ out and names the file instead of linking it)
            if (!roofline_test::contains(debrief, "](../../../results/") &&
                std::filesystem::exists(roofline_test::repo_root() / "results"))
                problems.push_back(in_debrief + ": cites no results/ file; link the one the step comes from");
            static const std::regex measured(R"(\d+\.\d%)");
            for (std::sregex_iterator m(step.begin(), step.end(), measured), end; m != end; ++m) {
                if (roofline_test::contains(text, m->str()))
                    problems.push_back(at + "states " + m->str() + ", " + variant +
                                       "'s measured fraction; leave it to the debrief and give the prediction's method");
            }
        }
    }
    return problems;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    return text;
}

}  // namespace

TEST_CASE("lab 06 lists its ladder in rung order", "[lab][ladder]") {
    auto lab = load_lab(repo_root() / "labs" / "06-async" / "lab.yaml");
    std::vector<std::string> names;
    for (const auto& v : lab.variants) names.push_back(v.name);
    auto position = [&](const std::string& name) {
        auto it = std::find(names.begin(), names.end(), name);
        INFO(name << " is not in labs/06-async/lab.yaml");
        REQUIRE(it != names.end());
        return it - names.begin();
    };
    const std::vector<std::string> ladder = {
        "row_sum_double_buffer",    "row_sum_tma_ring",         "row_sum_warp_specialized",
        "mma_sync_tma_4096",        "wgmma_one_warpgroup_4096", "wgmma_two_consumers_4096", "wgmma_gemm_4096",
        "wgmma_cluster_4096",       "wgmma_tma_store_4096"};
    for (std::size_t i = 1; i < ladder.size(); ++i) {
        INFO(ladder[i - 1] << " must come before " << ladder[i]);
        CHECK(position(ladder[i - 1]) < position(ladder[i]));
    }
    // Each 4096^3 rung is followed by the same kernel at 8192^3.
    for (const auto& rung : {"mma_sync_tma", "wgmma_one_warpgroup", "wgmma_two_consumers", "wgmma_gemm"}) {
        INFO(rung);
        CHECK(position(std::string(rung) + "_8192") == position(std::string(rung) + "_4096") + 1);
    }
}

TEST_CASE("every lab 06 rung has a skeleton and a solution, and lesson 06 maps it to its mechanisms",
          "[lab][ladder][lessons]") {
    auto lab = load_lab(repo_root() / "labs" / "06-async" / "lab.yaml");
    const auto lesson = read_file(repo_root() / "lessons" / "06-async.md");
    const auto table_start = lesson.find("| # | mechanism |");
    REQUIRE(table_start != std::string::npos);
    const auto table = lesson.substr(table_start, lesson.find("\n\n", table_start) - table_start);
    for (const auto& v : lab.variants) {
        INFO(v.name << " (" << v.file.string() << ")");
        CHECK(std::filesystem::is_regular_file(repo_root() / "labs" / "06-async" / v.file));
        CHECK(std::filesystem::is_regular_file(repo_root() / "solutions" / "06-async" / v.file));
        // The table names a sized rung as `name_*` (both sizes) and a row sum by its name.
        const auto rung = rung_of(v.name);
        CHECK((contains(table, "`" + rung + "`") || contains(table, "`" + rung + "_*`")));
    }
}

TEST_CASE("lesson 06 gives each mechanism a section, and each rung's debrief the measured step",
          "[lab][ladder][lessons][debrief]") {
    auto lab = load_lab(repo_root() / "labs" / "06-async" / "lab.yaml");
    std::map<std::string, std::string> files;
    for (const auto& v : lab.variants) files[v.name] = v.file.filename().string();
    const auto lesson = read_file(repo_root() / "lessons" / "06-async.md");
    auto file_of = [&](const std::string& variant) {
        INFO(variant << " is not in labs/06-async/lab.yaml");
        REQUIRE(files.count(variant));
        return files.at(variant);
    };
    auto debrief_of = [](const std::string& variant) {
        return read_file(repo_root() / "labs" / "06-async" / "debrief" / (variant + ".md"));
    };
    auto problems = mechanism_section_problems(lesson, file_of, debrief_of);
    INFO(joined(problems));
    CHECK(problems.empty());

    // Section 6 shows why Hopper needed wgmma with the measured mma.sync roof, cited.
    const auto wgmma = one_line(section_of(lesson, "## 6. wgmma", 2).text);
    CHECK(contains(wgmma, "`mma.sync` roof"));
    CHECK(std::regex_search(wgmma, std::regex(R"(\d+\.\d TFLOP/s)")));
    CHECK(contains(wgmma, "`results/2026-"));
}

TEST_CASE("the mechanism-section check names what a section or a debrief lacks", "[lab][ladder][lessons]") {
    auto file_of = [](const std::string& variant) { return variant + ".cu"; };
    const std::string bought = "## What it bought\n\n+11.2 points of cudaMemcpy: 83.9% -> 95.1%.\n\n"
                               "Sources: [x](../../../results/2026-12-01-h200-runs51-54.md)\n";
    auto debrief_of = [&](const std::string& variant) {
        return variant == "row_sum_tma_ring" ? std::string("# Debrief\n\n## What we measured\n\nno step\n")
                                             : "# Debrief\n\n" + bought;
    };
    auto section = [](const std::string& heading, const std::vector<std::string>& variants) {
        std::string text = heading + " (rung)\n\n**Removes.** a stall.\n\n**Built in** ";
        for (const auto& v : variants) text += "`" + v + ".cu` ";
        text += "\n\n**Predict the step.** the roofline.\n\n**Measured:**";
        for (const auto& v : variants) text += " `roofline debrief\n06-async/" + v + "`";
        return text + "\n\n";
    };
    std::string lesson = "# 04\n\n## 10. Steps\n\n";
    for (const auto& m : lab06_mechanisms()) lesson += section(m.heading, m.variants);
    lesson += "## Checkpoint questions\n";
    auto problems = mechanism_section_problems(lesson, file_of, debrief_of);
    INFO(joined(problems));
    REQUIRE(problems.size() == 1);  // the ring's debrief has no bought section; the rest is whole
    CHECK(contains(problems[0], "labs/06-async/debrief/row_sum_tma_ring.md: no '## What ... bought'"));

    // A section without its prediction, one that repeats a measured fraction, one missing.
    auto broken = lesson;
    broken.replace(broken.find("**Predict the step.** the roofline."), 35, "the roofline.");
    broken.replace(broken.find("**Removes.** a stall."), 21, "**Removes.** a stall: it reached 83.9%.");
    broken.erase(broken.find("### 10.7"));
    problems = mechanism_section_problems(broken, file_of, debrief_of);
    INFO(joined(problems));
    REQUIRE(problems.size() == 4);
    CHECK(contains(problems[0], "lessons/06-async.md:5: '### 10.1 Double buffering' has no **Predict the step.**"));
    CHECK(contains(problems[1], "states 83.9%, row_sum_double_buffer's measured fraction"));
    CHECK(contains(problems[2], "row_sum_tma_ring.md: no '## What ... bought'"));
    CHECK(contains(problems[3], "no section '### 10.7 The TMA store epilogue ...'"));
}
