// Lab 04 as a ladder: lab.yaml lists the rungs in the order a student climbs them (the
// file numbers keep the order the files were written in, since a prediction is bound to
// its file), every rung's kernel file exists as a skeleton and as a solution, and lesson
// 04's table of the six mechanisms names every rung.
#include "test_support.hpp"

#include "lab_spec.hpp"

#include <algorithm>
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

}  // namespace

TEST_CASE("lab 04 lists its ladder in rung order", "[lab][ladder]") {
    auto lab = load_lab(repo_root() / "labs" / "04-async" / "lab.yaml");
    std::vector<std::string> names;
    for (const auto& v : lab.variants) names.push_back(v.name);
    auto position = [&](const std::string& name) {
        auto it = std::find(names.begin(), names.end(), name);
        INFO(name << " is not in labs/04-async/lab.yaml");
        REQUIRE(it != names.end());
        return it - names.begin();
    };
    const std::vector<std::string> ladder = {
        "row_sum_double_buffer",    "row_sum_tma_ring",         "row_sum_warp_specialized",
        "wgmma_one_warpgroup_4096", "wgmma_two_consumers_4096", "wgmma_gemm_4096",
        "wgmma_cluster_4096",       "wgmma_tma_store_4096"};
    for (std::size_t i = 1; i < ladder.size(); ++i) {
        INFO(ladder[i - 1] << " must come before " << ladder[i]);
        CHECK(position(ladder[i - 1]) < position(ladder[i]));
    }
    // Each 4096^3 rung is followed by the same kernel at 8192^3.
    for (const auto& rung : {"wgmma_one_warpgroup", "wgmma_two_consumers", "wgmma_gemm"}) {
        INFO(rung);
        CHECK(position(std::string(rung) + "_8192") == position(std::string(rung) + "_4096") + 1);
    }
}

TEST_CASE("every lab 04 rung has a skeleton and a solution, and lesson 04 maps it to its mechanisms",
          "[lab][ladder][lessons]") {
    auto lab = load_lab(repo_root() / "labs" / "04-async" / "lab.yaml");
    const auto lesson = read_file(repo_root() / "lessons" / "04-async.md");
    const auto table_start = lesson.find("| # | mechanism |");
    REQUIRE(table_start != std::string::npos);
    const auto table = lesson.substr(table_start, lesson.find("\n\n", table_start) - table_start);
    for (const auto& v : lab.variants) {
        INFO(v.name << " (" << v.file.string() << ")");
        CHECK(std::filesystem::is_regular_file(repo_root() / "labs" / "04-async" / v.file));
        CHECK(std::filesystem::is_regular_file(repo_root() / "solutions" / "04-async" / v.file));
        // The table names a sized rung as `name_*` (both sizes) and a row sum by its name.
        const auto rung = rung_of(v.name);
        CHECK((contains(table, "`" + rung + "`") || contains(table, "`" + rung + "_*`")));
    }
}
