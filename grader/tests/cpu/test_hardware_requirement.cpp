// lab.yaml `requires` (lib/core/hardware_requirement.cpp, lib/course/lab_spec.cpp): compute
// capabilities parse or are refused with file:line; a variant built for one GPU is
// refused on any other, with a message that says what to do instead; lab 06 asks
// for compute capability 9.0 and lab 07 for 10.0.
#include "test_support.hpp"

#include "hardware_requirement.hpp"
#include "lab_spec.hpp"

using namespace roofline;
using namespace roofline_test;

namespace {

std::filesystem::path fixture_lab(const std::string& name) { return test_data() / "labs" / name / "lab.yaml"; }

// The shipped lab `id`, after checking that it has variants and each requires compute capability `cc`.
LabSpec lab_requiring(const std::string& id, ComputeCapability cc) {
    auto lab = load_lab(repo_root() / "labs" / id / "lab.yaml");
    REQUIRE_FALSE(lab.variants.empty());
    for (const auto& v : lab.variants) {
        INFO(v.name);
        REQUIRE(v.requires_cc.has_value());
        CHECK(*v.requires_cc == cc);
    }
    return lab;
}

}  // namespace

TEST_CASE("compute capabilities are MAJOR.MINOR", "[requires]") {
    CHECK(parse_compute_capability("10.0") == ComputeCapability{10, 0});
    CHECK(parse_compute_capability("9.0") == ComputeCapability{9, 0});
    CHECK(parse_compute_capability("10.3") == ComputeCapability{10, 3});
    for (const char* bad : {"10", "10.x", "sm_100a", "", " 10.0", "10.0.1", "100"}) {
        INFO(bad);
        CHECK_FALSE(parse_compute_capability(bad).has_value());
    }
    CHECK(compute_capability_text({10, 0}) == "10.0");
    CHECK(architecture_name({10, 0}) == "Blackwell");
    CHECK(architecture_name({9, 0}) == "Hopper");
}

TEST_CASE("a Blackwell-only variant is refused on an H200 and graded on a B200", "[requires]") {
    const ComputeCapability blackwell{10, 0};
    auto on_h200 = hardware_refusal("07-blackwell/tcgen05_gemm", blackwell, "NVIDIA H200", {9, 0});
    REQUIRE(on_h200.has_value());
    INFO(*on_h200);
    CHECK(contains(*on_h200, "07-blackwell/tcgen05_gemm needs a Blackwell GPU of compute capability 10.0"));
    CHECK(contains(*on_h200, "this GPU is NVIDIA H200 (9.0)"));
    CHECK(contains(*on_h200, "Nothing was built, run or scored"));
    CHECK(contains(*on_h200, "roofline calc --hardware b200"));

    CHECK_FALSE(hardware_refusal("07-blackwell/tcgen05_gemm", blackwell, "NVIDIA B200", {10, 0}).has_value());
    // sm_100a code runs on 10.0 only: a 10.3 Blackwell (B300) is refused too.
    CHECK(hardware_refusal("07-blackwell/tcgen05_gemm", blackwell, "NVIDIA B300", {10, 3}).has_value());
    // And a Hopper-only variant on a B200.
    auto on_b200 = hardware_refusal("06-async/x", {9, 0}, "NVIDIA B200", {10, 0});
    REQUIRE(on_b200.has_value());
    CHECK(contains(*on_b200, "needs a Hopper GPU of compute capability 9.0"));
}

TEST_CASE("requires: the lab's applies to every variant unless one sets its own", "[requires][lab]") {
    auto lab = load_lab(fixture_lab("requires_cc"));
    REQUIRE(lab.variant("blackwell_only").requires_cc.has_value());
    CHECK(*lab.variant("blackwell_only").requires_cc == ComputeCapability{10, 0});
    REQUIRE(lab.variant("hopper_only").requires_cc.has_value());
    CHECK(*lab.variant("hopper_only").requires_cc == ComputeCapability{9, 0});  // an unquoted 9.0 reads too

    auto plain = load_lab(test_data() / "labs" / "gemm_rules" / "lab.yaml");
    for (const auto& v : plain.variants) CHECK_FALSE(v.requires_cc.has_value());
}

TEST_CASE("lab 07 runs on compute capability 10.0 only", "[requires][lab]") {
    auto lab = lab_requiring("07-blackwell", {10, 0});
    for (const auto& v : lab.variants) CHECK(v.op == "gemm_abt");
}

TEST_CASE("lab 06 runs on compute capability 9.0 only", "[requires][lab]") {
    // Its programs hold sm_90a code alone (CMake reads this `requires` to choose the -gencode).
    auto lab = lab_requiring("06-async", {9, 0});
    auto on_b200 = hardware_refusal("06-async/wgmma_gemm_4096", *lab.variants.front().requires_cc, "NVIDIA B200",
                                    {10, 0});
    CHECK(on_b200.has_value());
    CHECK_FALSE(hardware_refusal("06-async/wgmma_gemm_4096", *lab.variants.front().requires_cc, "NVIDIA H200",
                                 {9, 0}).has_value());
}

TEST_CASE("a malformed requires is reported with file:line and the field", "[requires][lab]") {
    auto malformed = input_error_of([] { load_lab(fixture_lab("requires_cc_malformed")); });
    INFO(malformed);
    check_mentions(malformed, {"requires_cc_malformed/lab.yaml:14:", "compute_capability", "MAJOR.MINOR", "sm_100a"});

    auto unknown = input_error_of([] { load_lab(fixture_lab("requires_cc_unknown_key")); });
    INFO(unknown);
    check_mentions(unknown, {"requires_cc_unknown_key/lab.yaml:6:", "gpu"});
}
