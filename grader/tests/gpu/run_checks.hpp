// The verifications in `roofline run --json`'s output, for the GPU tests that check a
// lab's reference solutions shape by shape.
#pragma once
#include "catch.hpp"
#include "cli_run.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

// Every verification in the report, wherever the report nests them.
inline void collect_checks(const nlohmann::json& j, std::vector<nlohmann::json>& out) {
    if (j.is_object()) {
        for (const auto& [key, value] : j.items()) {
            if (key == "checks" && value.is_array()) {
                for (const auto& check : value) out.push_back(check);
            } else {
                collect_checks(value, out);
            }
        }
    } else if (j.is_array()) {
        for (const auto& item : j) collect_checks(item, out);
    }
}

// A reference solution's `roofline run --json` in the test build, and its verifications.
struct SolutionRun {
    std::string output;
    std::vector<nlohmann::json> checks;
};

// `roofline run TARGET --solutions --no-build --json` (TARGET is LAB/VARIANT): it must exit 0
// and print JSON. The caller INFOs `output` for the checks it makes on `checks`.
inline SolutionRun run_solution(const std::string& target) {
    auto r = run_cli(std::string("--build-dir ") + ROOFLINE_TEST_BUILD_DIR + " run " + target +
                     " --solutions --no-build --json");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    auto j = nlohmann::json::parse(r.output, nullptr, /*allow_exceptions=*/false);
    REQUIRE_FALSE(j.is_discarded());
    SolutionRun run{r.output, {}};
    collect_checks(j, run.checks);
    return run;
}
