// Lab 08's peer: the order in which it offers cuDNN the forms of the fused-attention graph
// (grader/problems/attention/sdpa_forms.hpp). The first form is the one cuDNN's own frontend
// builds for inference; P is in bf16 in every form the peer times; the unified operation
// appears only where the installed cuDNN has it and never for causal attention (its mask
// needs a score subgraph, cuDNN 9.21).
#include "test_support.hpp"

#include "attention/sdpa_forms.hpp"

#include <set>

using roofline::attention::kUnifiedSdpaVersion;
using roofline::attention::SdpaForm;
using roofline::attention::sdpa_forms;

TEST_CASE("attention peer: the frontend's inference form first, P in bf16, stats virtual", "[attention][peer]") {
    for (bool causal : {false, true}) {
        for (int version : {90100, 91400, 91900}) {
            INFO("causal " << causal << ", cuDNN " << version);
            auto forms = sdpa_forms(causal, version);
            REQUIRE(!forms.empty());
            const auto& first = forms.front();
            CHECK_FALSE(first.unified);
            CHECK_FALSE(first.stats_in_memory);
            CHECK(first.int32_mask_index);
            CHECK(first.probs_in_io_type);
            std::set<std::string> names;
            for (const auto& form : forms) {
                CHECK(form.probs_in_io_type);  // the fp32-P form cuDNN refused is never timed
                names.insert(form.name(causal));
            }
            CHECK(names.size() == forms.size());  // each form says which it is
        }
    }
}

TEST_CASE("attention peer: the unified SDPA operation only for plain attention on cuDNN >= 9.13.1", "[attention][peer]") {
    auto has_unified = [](const std::vector<SdpaForm>& forms) {
        for (const auto& form : forms)
            if (form.unified) return true;
        return false;
    };
    CHECK_FALSE(has_unified(sdpa_forms(false, kUnifiedSdpaVersion - 1)));
    CHECK(has_unified(sdpa_forms(false, kUnifiedSdpaVersion)));
    CHECK(has_unified(sdpa_forms(false, 91400)));
    CHECK_FALSE(has_unified(sdpa_forms(true, 91900)));
    // Plain attention has no mask: no form differs only in the mask's index type.
    for (const auto& form : sdpa_forms(false, 91400)) CHECK(form.int32_mask_index);
    // Causal: both index types, int32 (the frontend's) before fp32.
    auto causal = sdpa_forms(true, 91400);
    REQUIRE(causal.size() == 4);
    CHECK(causal[0].int32_mask_index);
    CHECK_FALSE(causal[2].int32_mask_index);
    CHECK(causal[1].stats_in_memory);
}

TEST_CASE("attention peer: the diagnosis adds the fp32-P forms, last", "[attention][peer]") {
    auto plain = sdpa_forms(false, 91400);
    auto diagnose = sdpa_forms(false, 91400, true);
    REQUIRE(diagnose.size() == plain.size() + 2);
    for (std::size_t i = 0; i < plain.size(); ++i) CHECK(diagnose[i].name() == plain[i].name());
    CHECK_FALSE(diagnose.back().probs_in_io_type);
    CHECK(roofline_test::contains(diagnose.back().name(), "P in fp32"));
    CHECK(roofline_test::contains(SdpaForm{}.name(true), "mask indices in int32"));
    CHECK_FALSE(roofline_test::contains(SdpaForm{}.name(false), "mask"));
}
