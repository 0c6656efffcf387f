// Lab 08's attention family: the FLOP and byte model worked by hand, lab.yaml's rules for
// attention shapes and ops, the score-matrix bytes the report shows, and
// `roofline calc --attention` against the same hand-computed case.
#include "test_support.hpp"

#include "attention/model.hpp"
#include "hidden.hpp"
#include "hardware_requirement.hpp"
#include "lab_spec.hpp"

#include <nlohmann/json.hpp>

#include <set>
#include <utility>

using namespace roofline;
using namespace roofline_test;

namespace {

std::filesystem::path attention_lab_yaml() { return repo_root() / "labs" / "08-attention" / "lab.yaml"; }

// A copy of lab 08 in `dir` with `from` replaced by `to` in its lab.yaml.
std::filesystem::path edited_lab(const std::filesystem::path& dir, const std::string& from, const std::string& to) {
    std::filesystem::copy(attention_lab_yaml().parent_path(), dir / "08-attention",
                          std::filesystem::copy_options::recursive);
    auto lab_yaml = dir / "08-attention" / "lab.yaml";
    write_file(lab_yaml, replaced(read_file(lab_yaml), from, to));
    return lab_yaml;
}

// Lab 08 with `from` edited to `to` does not load: the error names a line of lab.yaml and `mention`.
void check_edit_refused(const std::string& from, const std::string& to, const std::string& mention) {
    TempDir dir;
    auto lab_yaml = edited_lab(dir.path(), from, to);
    check_mentions(input_error_of([&] { load_lab(lab_yaml); }), {"lab.yaml:", mention});
}

}  // namespace

// The worked case: batch 2, heads 3, seq 1000, head_dim 64, bf16.
//   FLOPs: Q K^T and P V, 2 * 1000^2 * 64 each, per head: 4 * 10^6 * 64 = 2.56e8; 6 heads: 1.536e9.
//          Causal: half, 7.68e8.
//   bytes: Q, K, V, O, 1000 x 64 bf16 each per head: 4 * 64000 * 2 = 512000; 6 heads: 3,072,000.
//   scores through memory: 4 passes of 1000^2 fp32 per head: 16e6 bytes; 6 heads: 96,000,000.
TEST_CASE("attention model: FLOPs, fewest bytes and score-matrix bytes by hand", "[attention]") {
    auto w = attention::work_of(2, 3, 1000, 64, false, 2);
    CHECK(w.flops == 1.536e9);
    CHECK(w.bytes == 3072000.0);
    auto causal = attention::work_of(2, 3, 1000, 64, true, 2);
    CHECK(causal.flops == 7.68e8);
    CHECK(causal.bytes == 3072000.0);  // causal reads and writes the same arrays
    CHECK(attention::score_matrix_bytes(2, 3, 1000) == 96000000.0);
    auto unfused = attention::unfused_work_of(2, 3, 1000, 64, false, 2);
    CHECK(unfused.flops == w.flops);
    CHECK(unfused.bytes == 99072000.0);
    // The intensities the lesson quotes: seq/2 fused, about head_dim/4 with the scores in memory.
    auto big = attention::work_of(1, 1, 4096, 128, false, 2);
    auto big_unfused = attention::unfused_work_of(1, 1, 4096, 128, false, 2);
    CHECK(big.flops / big.bytes == Approx(2048));
    CHECK(big_unfused.flops / big_unfused.bytes == Approx(4.0 * 4096 * 128 / (8.0 * 128 + 16.0 * 4096)));
    CHECK(big_unfused.flops / big_unfused.bytes < 32);
}

TEST_CASE("lab 08 loads: attention shapes for every variant, work from the model", "[attention][lab]") {
    auto lab = load_lab(attention_lab_yaml());
    CHECK(lab.problem == "attention");
    REQUIRE(lab.variants.size() >= 6);
    for (const auto& v : lab.variants) {
        INFO(v.name);
        CHECK((v.op == "attention" || v.op == "attention_causal"));
        auto shapes = lab.verify_shapes_for(v);
        CHECK(shapes.size() == lab.verify.size());  // every attention shape suits every variant
        for (const auto& shape : shapes) CHECK(shape.size() == 4);
        // The peer (cuDNN) does the same job: the same FLOPs and bytes.
        auto work = lab.work(v, v.timed);
        auto peer = lab.peer_work(v, v.timed);
        CHECK(peer.flops == work.flops);
        CHECK(peer.bytes == work.bytes);
        auto unfused = lab.unfused_work(v, v.timed);
        REQUIRE(unfused.has_value());
        CHECK(unfused->bytes - work.bytes ==
              attention::score_matrix_bytes(v.timed.at("batch"), v.timed.at("heads"), v.timed.at("seq")));
    }
    // The timed shape: 4 x 16 heads of 4096 x 128: 4 * 4096^2 * 128 * 64 = 2^39 FLOPs; causal half.
    CHECK(lab.work(lab.variant("fused"), lab.timed).flops == 549755813888.0);
    CHECK(lab.work(lab.variant("fused_causal"), lab.timed).flops == 274877906944.0);
    CHECK(lab.work(lab.variant("fused"), lab.timed).bytes == 4.0 * 64 * 4096 * 128 * 2);
}

TEST_CASE("lab 08's hidden shapes load against its lab.yaml: odd lengths, the 16k variants their own", "[attention][batch]") {
    auto lab = load_lab(attention_lab_yaml());
    auto hidden = batch::load_hidden(repo_root() / "instructor" / "hidden" / "08-attention.yaml", lab);
    REQUIRE(hidden.timed.has_value());
    CHECK(hidden.timed->at("seq") % 64 != 0);  // not a tile multiple: the padding mask is exercised
    CHECK(hidden.verify.size() >= 3);
    for (const auto& shape : hidden.verify) CHECK(shape.size() == 4);
    CHECK(hidden.variant_timed.at("pipelined_16k").at("seq") == 16001);
    CHECK(hidden.variant_timed.count("pipelined_causal_16k") == 1);
}

TEST_CASE("lab 08's lab.yaml: an attention shape without head_dim is refused at its line", "[attention][lab]") {
    check_edit_refused("{batch: 1, heads: 1, seq: 1, head_dim: 64}", "{batch: 1, heads: 1, seq: 1}",
                       "{batch, head_dim, heads, seq}");
}

TEST_CASE("lab 08's lab.yaml: an unknown attention op names the two there are", "[attention][lab]") {
    check_edit_refused("{name: fused_causal,     op: attention_causal,", "{name: fused_causal,     op: attention_masked,",
                       "attention, attention_causal");
}

TEST_CASE("cli calc --attention: the worked case, causal, as JSON", "[attention][cli]") {
    auto r = run_cli(repo_flag() + " calc --attention 2,3,1000,64 --causal --hardware h200-sxm --json");
    INFO(r.all());
    REQUIRE(r.exit_code == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["workload"]["flops"].get<double>() == 7.68e8);
    CHECK(j["workload"]["bytes"].get<double>() == 3072000.0);
    CHECK(j["workload"]["dtype"] == "bf16");
    CHECK(j["scores_in_memory"]["bytes"].get<double>() == 99072000.0);
    CHECK(j["scores_in_memory"]["intensity_flop_per_byte"].get<double>() == Approx(7.68e8 / 99072000.0));
}

TEST_CASE("cli calc --attention: text names the score-matrix bytes; bad input is one line", "[attention][cli]") {
    auto r = run_cli(repo_flag() + " calc --attention 4,16,4096,128 --hardware h200-sxm");
    INFO(r.all());
    REQUIRE(r.exit_code == 0);
    CHECK(contains(r.out, "attention, batch 4 x heads 16, seq 4096, head_dim 128"));
    CHECK(contains(r.out, "2048.0 FLOP/byte"));  // seq / 2
    check_mentions(r.out, {"scores in memory", "compute-bound"});

    for (const std::string& bad : {std::string(" calc --attention 4,16,4096 --hardware h200-sxm"),
                                   std::string(" calc --attention 4,16,0,128 --hardware h200-sxm"),
                                   std::string(" calc --gemm 4096 --causal --hardware h200-sxm")}) {
        auto e = run_cli(repo_flag() + bad);
        INFO(bad << "\n" << e.all());
        CHECK(e.exit_code == 2);
        CHECK(e.out.empty());
        CHECK(count_lines(e.err) == 1);
    }
}

TEST_CASE("lab 08 is built for sm_90a: every variant requires 9.0, rung 4 refused on a B200", "[attention][lab][requires]") {
    // Rung 4's wgmma exists on sm_90a only, and one lab program holds one architecture's code.
    auto lab = load_lab(attention_lab_yaml());
    for (const auto& v : lab.variants) {
        INFO(v.name);
        REQUIRE(v.requires_cc.has_value());
        CHECK(*v.requires_cc == ComputeCapability{9, 0});
    }
    // Rung 4 plain and causal at both timed lengths, all from the one kernel file.
    std::set<std::pair<std::string, long long>> rung4;
    for (const auto& v : lab.variants) {
        if (v.file != "kernels/04_warp_specialized.cu") continue;
        rung4.insert({v.op, v.timed.at("seq")});
        CHECK(v.target_fraction > 0.0);
        CHECK(v.target_fraction < 1.0);
    }
    CHECK(rung4 == std::set<std::pair<std::string, long long>>{
                       {"attention", 4096}, {"attention", 16384}, {"attention_causal", 4096}, {"attention_causal", 16384}});
    const auto& ws = lab.variant("warp_specialized");
    CHECK(hardware_refusal("08-attention/warp_specialized", *ws.requires_cc, "NVIDIA B200", {10, 0}).has_value());
    CHECK_FALSE(hardware_refusal("08-attention/warp_specialized", *ws.requires_cc, "NVIDIA H200", {9, 0}).has_value());
}
