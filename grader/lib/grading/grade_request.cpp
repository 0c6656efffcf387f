#include "grade_request.hpp"

#include "exit_code.hpp"

#include <fmt/format.h>

namespace roofline {

GradeOutcome build_failure(const std::string& target, const BuildResult& build) {
    GradeOutcome out;
    out.exit_code = kBuildFailed;
    out.text = build.compiler_ran ? fmt::format("{}: the build failed; the compiler said:\n{}\n", target, build.output)
                                  : fmt::format("{}: the build failed before compiling: {}\n", target, build.output);
    out.json = {{"target", target}, {"outcome", outcome_name(Outcome::build_failed)}, {"compiler_output", build.output}};
    return out;
}

}  // namespace roofline
