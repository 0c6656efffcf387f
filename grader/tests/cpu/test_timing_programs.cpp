// Which variants `roofline grade` times in a fresh lab program of their own: those in the
// overhead regime on some GPU the course knows (grade.hpp, times_in_own_program).
#include "grade.hpp"
#include "hardware.hpp"
#include "test_support.hpp"

using namespace roofline;
using namespace roofline_test;

namespace {
std::vector<std::string> timed_alone(const std::string& lab_id, const std::vector<HardwareProfile>& profiles) {
    auto lab = load_lab(repo_root() / "labs" / lab_id / "lab.yaml");
    std::vector<std::string> names;
    for (const auto& v : lab.variants) {
        if (!v.cpu_graded && times_in_own_program(lab, v, profiles)) names.push_back(v.name);
    }
    return names;
}
}  // namespace

TEST_CASE("lab 00's three overhead rungs are timed alone, its memory and compute rungs share a program", "[grade]") {
    auto profiles = load_profiles(repo_root() / "hardware");
    REQUIRE(timed_alone("00-three-regimes", profiles) ==
            std::vector<std::string>{"overhead_launches", "overhead_graph", "overhead_fused"});
}

TEST_CASE("lab 01's 256 MiB copies all share one timing program", "[grade]") {
    REQUIRE(timed_alone("01-memory-roof", load_profiles(repo_root() / "hardware")).empty());
}

TEST_CASE("with no hardware profiles every variant is timed alone", "[grade]") {
    auto lab = load_lab(repo_root() / "labs" / "01-memory-roof" / "lab.yaml");
    REQUIRE(timed_alone("01-memory-roof", {}).size() == lab.variants.size());
}
