// The practice bank and `roofline calc` are one model (issue 33): every bank question the
// calculator can state is run through `roofline calc --json` and must count the same FLOPs
// and bytes, and where both describe one launch at the datasheet's roof, the same regime
// and time floor.
#include "test_support.hpp"

#include "classify.hpp"

#include <fmt/format.h>

#include <cmath>

using namespace roofline;
using namespace roofline::classify;
using namespace roofline_test;

namespace {

const fs::path kRoot = ROOFLINE_SOURCE_DIR;

const std::vector<HardwareProfile>& profiles() {
    static const auto loaded = load_profiles(kRoot / "hardware");
    return loaded;
}

Expected answer_for(const Question& q) { return expected_answer(q, find_profile(profiles(), q.gpu), 5e-6); }

bool near(double got, double want, double rel = 1e-3) { return std::fabs(got - want) <= rel * std::fabs(want); }

}  // namespace

// One model: every bank question that `roofline calc` can state (a GEMM, an elementwise op,
// attention fused or with the scores in memory, raw counts) counts the same FLOPs and bytes
// in both, and where the question is one launch on the datasheet's roofs, the same regime
// and time floor (both include the launch: roofline.hpp, time_floor_s).
TEST_CASE("every bank question with a calculator twin counts what roofline calc counts", "[classify][cli]") {
    auto bank = load_bank(kRoot / "lessons" / "practice" / "bank.yaml");
    int twins = 0, attention_twins = 0;
    for (const auto& q : bank) {
        if (q.type != QuestionType::regime) continue;
        const auto& op = q.op;
        std::string workload;
        switch (op.kind) {
            case OpKind::gemm: workload = fmt::format("--gemm {:.0f},{:.0f},{:.0f}", op.m, op.n, op.k); break;
            case OpKind::elementwise:
                workload = fmt::format("--elementwise {:.0f} --reads {:.0f} --writes {:.0f} --flops-per-element {:g}",
                                       op.count, op.reads, op.writes, op.flops_per_element);
                break;
            case OpKind::raw: workload = fmt::format("--flops {:.17g} --bytes {:.17g}", op.flops, op.bytes); break;
            case OpKind::attention:
                workload = fmt::format("--attention {:.0f},{:.0f},{:.0f},{:.0f}", op.batch, op.heads, op.seq, op.head_dim);
                break;
        }
        auto r = run_cli("--root " + shell_quote(kRoot.string()) + " calc " + workload + " --dtype " +
                         std::string(dtype_name(op.dtype)) + " --hardware " + q.gpu + " --json");
        INFO(q.id << ": roofline calc " << workload << " --dtype " << dtype_name(op.dtype) << " --hardware " << q.gpu
                  << "\n" << r.all());
        REQUIRE(r.exit_code == 0);
        auto calc = nlohmann::json::parse(r.out);
        auto e = answer_for(q);
        double calc_bytes = op.kind == OpKind::attention && op.materialized ? calc["scores_in_memory"]["bytes"].get<double>()
                                                                            : calc["workload"]["bytes"].get<double>();
        CHECK(near(calc_bytes, e.work.bytes, 1e-9));
        CHECK(near(calc["workload"]["flops"].get<double>(), e.work.flops, 1e-9));
        ++twins;
        attention_twins += op.kind == OpKind::attention;
        // The floor and regime of one launch at the dtype's own roof (an elementwise op is held to the
        // CUDA cores' fp32 rate by classify, to the dtype's rate by calc: compared by bytes only).
        bool fused_or_not_attention = !(op.kind == OpKind::attention && op.materialized);
        if (q.launches == 1 && op.kind != OpKind::elementwise && fused_or_not_attention) {
            const auto& point = calc["results"][0];
            CHECK(near(point["floor_s"].get<double>() * 1e6, e.time_us));
            CHECK(point["regime"] == std::string(regime_name(e.regime)));
        }
    }
    CHECK(twins >= 20);
    CHECK(attention_twins >= 3);  // fused and materialized, H100 and L4
}
