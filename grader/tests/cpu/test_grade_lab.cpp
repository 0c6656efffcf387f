// grade_lab (lib/grading/grade.hpp): a lab's variants graded in the library, both passes and the
// policy between them, with no GPU: where the rest would fail alike (here a build folder that is
// not a CMake build) the grading stops after the first variant, says so once through the
// callback, and the lab's exit code is that variant's.
#include "test_support.hpp"

#include "exit_code.hpp"
#include "grade.hpp"

using namespace roofline;
using namespace roofline_test;

TEST_CASE("grade_lab stops the lab after a failed build and reports the one variant graded", "[grade]") {
    TempDir dir;
    Workspace ws{repo_root(), dir / "not-a-build"};
    LabGradeRequest request;
    request.lab = "01-memory-roof";  // every variant of it
    request.shared.require_prediction = false;  // as `roofline batch` grades: no prediction needed
    request.shared.log = dir / "predictions.yaml";
    const auto lab = load_lab(ws.lab_yaml(request.lab));
    REQUIRE(lab.variants.size() >= 2);  // else stopping early could not show

    std::vector<std::string> reported;
    auto graded = grade_lab(ws, request, [&](const GradedVariant& g) { reported.push_back(g.lab + "/" + g.variant); });
    REQUIRE(graded.graded.size() == 1);
    CHECK(graded.graded[0].variant == lab.variants.front().name);
    CHECK(graded.graded[0].outcome.exit_code == kBuildFailed);
    CHECK(graded.exit_code == kBuildFailed);
    check_mentions(graded.graded[0].outcome.text, {"build failed", "not-a-build"});
    CHECK(reported == std::vector<std::string>{"01-memory-roof/" + lab.variants.front().name});
}

TEST_CASE("grade_lab grades only the variants asked for", "[grade]") {
    TempDir dir;
    Workspace ws{repo_root(), dir / "not-a-build"};
    const auto lab = load_lab(ws.lab_yaml("01-memory-roof"));
    REQUIRE(lab.variants.size() >= 2);
    LabGradeRequest request;
    request.lab = "01-memory-roof";
    request.variants = {lab.variants.back().name};
    request.shared.require_prediction = false;
    request.shared.verify_only = true;  // `roofline run`: the second pass only
    request.shared.log = dir / "predictions.yaml";
    auto graded = grade_lab(ws, request);
    REQUIRE(graded.graded.size() == 1);
    CHECK(graded.graded[0].variant == lab.variants.back().name);
    CHECK(graded.exit_code == kBuildFailed);
}
