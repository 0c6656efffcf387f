// The open rungs (issue 34): every lab's top rung, `open: true` in its lab.yaml, hands out the
// contract only. Table-driven from the labs themselves: for each open rung that this GPU runs, the
// skeleton as handed out is graded INCORRECT (it writes nothing) and our reference solution is
// CORRECT on every verify shape. A rung whose code is for another GPU (lab 07 on an H200) is
// refused by both, before anything runs.
#include "catch.hpp"
#include "cli_run.hpp"
#include "device_query.hpp"
#include "lab_spec.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("open rungs: the skeleton is INCORRECT, the reference solution CORRECT", "[gpu][open]") {
    const std::filesystem::path source(ROOFLINE_SOURCE_DIR);
    if (!std::filesystem::is_directory(source / "solutions")) {
        WARN("no solutions/ (the student edition): only the skeletons could be checked; skipped");
        return;
    }
    auto device = roofline::first_device(nullptr);
    REQUIRE(device.has_value());
    const roofline::ComputeCapability here{device->cc_major, device->cc_minor};
    int open_rungs = 0;
    for (const auto& lab : roofline::load_labs(source / "labs")) {
        for (const auto& variant : lab.variants) {
            if (!variant.open) continue;
            ++open_rungs;
            DYNAMIC_SECTION(lab.id << "/" << variant.name) {
                REQUIRE(std::filesystem::is_regular_file(source / "solutions" / lab.id / variant.file));
                const std::string run = std::string("--build-dir ") + ROOFLINE_TEST_BUILD_DIR + " run " + lab.id + "/" +
                                        variant.name + " --no-build";
                auto skeleton = run_cli(run);
                auto reference = run_cli(run + " --solutions");
                INFO("skeleton:\n" << skeleton.output << "\nreference:\n" << reference.output);
                if (variant.requires_cc && !(*variant.requires_cc == here)) {
                    CHECK(skeleton.exit_code == 7);
                    CHECK(reference.exit_code == 7);
                    continue;
                }
                CHECK(skeleton.exit_code == 1);
                CHECK(contains(skeleton.output, "INCORRECT"));
                CHECK(reference.exit_code == 0);
                CHECK(contains(reference.output, "CORRECT"));
                CHECK_FALSE(contains(reference.output, "INCORRECT"));
            }
        }
    }
    CHECK(open_rungs >= 11);  // one per lab, 00 to 10
}
