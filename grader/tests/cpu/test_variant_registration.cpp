// A lab program's registered variants against lab.yaml (lib/grading/variant_registration.cpp):
// what the lab-list CTest and `roofline grade` report when the two drift apart, each
// line naming lab.yaml's line. The listings here are written as a lab program's
// `--list` prints them.
#include "test_support.hpp"

#include "lab_spec.hpp"
#include "variant_registration.hpp"

using namespace roofline;
using namespace roofline_test;
using nlohmann::json;

namespace {

LabSpec memory_roof() { return load_lab(repo_root() / "labs" / "01-memory-roof" / "lab.yaml"); }

// What lab-01-memory-roof --list prints when its kernel files agree with lab.yaml.
json agreeing_listing(const LabSpec& lab) {
    json listing = json::array();
    for (const auto& v : lab.variants) {
        listing.push_back({{"name", v.name}, {"problem", v.op}, {"dtype", dtype_name(v.dtype)},
                           {"source_file", (repo_root() / "labs" / lab.id / v.file).string()}});
    }
    return listing;
}

json& entry_named(json& listing, const std::string& name) {
    for (auto& e : listing) {
        if (e["name"] == name) return e;
    }
    FAIL("no entry " << name);
    throw std::logic_error("unreachable");
}

std::string where(const LabSpec& lab, const std::string& variant) {
    return lab.file.string() + ":" + std::to_string(lab.variant(variant).line) + ":";
}

}  // namespace

TEST_CASE("a listing that agrees with lab.yaml has no mismatch", "[registration]") {
    auto lab = memory_roof();
    REQUIRE(lab.variants.size() >= 2);
    CHECK(listing_mismatches(lab, agreeing_listing(lab), "lab-01-memory-roof").empty());
}

TEST_CASE("an op, dtype or file that differs from lab.yaml is named with its line", "[registration]") {
    auto lab = memory_roof();
    auto listing = agreeing_listing(lab);
    entry_named(listing, "scale_fp32")["problem"] = "copy";
    entry_named(listing, "add_bf16")["dtype"] = "fp32";
    entry_named(listing, "copy_naive_fp32")["source_file"] = "/elsewhere/kernels/02_copy_vectorized.cu";
    auto problems = listing_mismatches(lab, listing, "lab-01-memory-roof");
    REQUIRE(problems.size() == 3);
    std::string all;
    for (const auto& p : problems) all += p + "\n";
    INFO(all);
    CHECK(contains(all, where(lab, "scale_fp32") + " variant scale_fp32: the kernel file registers it as op 'copy', "
                                                   "but lab.yaml line"));
    CHECK(contains(all, where(lab, "add_bf16") + " variant add_bf16: the kernel file registers it with dtype fp32"));
    CHECK(contains(all, where(lab, "copy_naive_fp32") + " variant copy_naive_fp32: it is registered in "
                                                        "02_copy_vectorized.cu, but lab.yaml line"));
    CHECK(contains(all, "make the two agree"));
}

TEST_CASE("a variant on one side only is named, with the fix", "[registration]") {
    auto lab = memory_roof();
    auto listing = agreeing_listing(lab);
    json extra = entry_named(listing, "add_fp32");
    extra["name"] = "add_fp64";
    listing.push_back(extra);
    listing.erase(listing.begin());  // the first variant in lab.yaml, unregistered
    auto problems = listing_mismatches(lab, listing, "lab-01-memory-roof");
    REQUIRE(problems.size() == 2);
    INFO(problems[0] << "\n" << problems[1]);
    const auto& first = lab.variants.front();
    CHECK(contains(problems[0], where(lab, first.name) + " lab-01-memory-roof does not register variant '" +
                                    first.name + "'"));
    CHECK(contains(problems[0], "register it in " + first.file.string()));
    CHECK(contains(problems[1], lab.file.string() + ": lab-01-memory-roof registers variant 'add_fp64' (op add, "
                                                    "dtype fp32, in 04_add.cu), which lab.yaml does not list"));
}

TEST_CASE("output that is not a list of variants is a mismatch, not a pass", "[registration]") {
    auto lab = memory_roof();
    auto problems = listing_mismatches(lab, json::parse("{\"status\": \"error\"}"), "lab-01-memory-roof");
    REQUIRE(problems.size() == 1);
    CHECK(contains(problems[0], "printed no JSON array"));
    // An empty program registers nothing: every lab.yaml variant is missing.
    CHECK(listing_mismatches(lab, json::array(), "lab-01-memory-roof").size() == lab.variants.size());
}
