// The layout family (lab 05's CPU part): a student's layout library, one part per
// op, checked exhaustively on the CPU by the checker program roofline-layout-check, which
// asks the student's runner for its answers (layout_check.hpp, lib/grading/cpu_grade.hpp).
// Nothing is timed, so no op has a shape, a dtype or any work.
#include "ops.hpp"
#include "problem_family.hpp"

namespace roofline::layout {

namespace {

ProblemOp part(const char* name) {
    auto none = [](const Shape&, Dtype) { return Workload{}; };
    return {.name = name, .shape_keys = {}, .dtypes = {}, .work = none, .peer_work = none};
}

}  // namespace

ProblemFamily family() {
    std::vector<ProblemOp> parts;
    for (const char* name : ops::parts) parts.push_back(part(name));
    return {.name = "layout", .ops = std::move(parts), .graded_on_cpu = true};
}

}  // namespace roofline::layout
