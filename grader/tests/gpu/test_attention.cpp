// Lab 08 on a GPU: every reference solution, plain and causal, passes `roofline run` on
// the lab's verify shapes (seq 1, 17, 64, 1000 and 2113, head_dim 64 and 128) and on the
// timed shape; the check also holds cuDNN's answer against the fp32 reference once.
#include "catch.hpp"
#include "cli_run.hpp"
#include "lab_spec.hpp"
#include "run_checks.hpp"

#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <set>
#include <vector>
#include <string>

TEST_CASE("lab 08: every solution is correct on odd sequence lengths, plain and causal", "[gpu][attention]") {
    const std::filesystem::path source(ROOFLINE_SOURCE_DIR);
    if (!std::filesystem::is_directory(source / "solutions" / "08-attention")) {
        WARN("no solutions/08-attention (the student edition): skipped");
        return;
    }
    if (!std::filesystem::exists(std::filesystem::path(ROOFLINE_TEST_BUILD_DIR) / "labs" / "solution-08-attention")) {
        WARN("solution-08-attention is not built (cuDNN missing at configure time): skipped");
        return;
    }
    auto lab = roofline::load_lab(source / "labs" / "08-attention" / "lab.yaml");
    bool saw_causal = false;
    for (const auto& variant : lab.variants) {
        saw_causal = saw_causal || variant.op == "attention_causal";
        DYNAMIC_SECTION(variant.name) {
            auto run = run_solution("08-attention/" + variant.name);
            INFO(run.output);
            const auto& checks = run.checks;
            std::set<long long> lengths;
            for (const auto& check : checks) {
                CHECK(check["report"]["passed"].get<bool>());
                lengths.insert(check["shape"]["seq"].get<long long>());
            }
            for (long long odd : {1LL, 17LL, 1000LL, 2113LL}) CHECK(lengths.count(odd) == 1);
        }
    }
    CHECK(saw_causal);
}
