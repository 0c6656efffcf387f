// Lab 10 and the decode_attention family: the rule that gives each sequence its length, the
// byte and FLOP model against the worked examples of lessons/10-production.md (and the lesson
// against the model), the peer moving the same bytes, the lab's variants and verify shapes
// (the odd batches and contexts issue 37 names), and a shape with the wrong keys or a
// shortest above its context reported with file:line.
#include "test_support.hpp"

#include "decode_attention/model.hpp"
#include "lab_spec.hpp"

#include <algorithm>
#include <set>
#include <vector>

using namespace roofline;
using namespace roofline_test;
using roofline::decode_attention::sequence_length;
using roofline::decode_attention::total_positions;

namespace {

LabSpec production_lab() { return load_lab(repo_root() / "labs" / "10-production" / "lab.yaml"); }

std::vector<long long> lengths_of(long long batch, long long context, long long shortest) {
    std::vector<long long> lengths;
    for (long long b = 0; b < batch; ++b) lengths.push_back(sequence_length(b, batch, context, shortest));
    return lengths;
}

}  // namespace

TEST_CASE("the lengths fall evenly from context to shortest, longest and shortest alternating", "[decode_attention]") {
    CHECK(lengths_of(3, 127, 1) == std::vector<long long>{127, 1, 64});
    CHECK(lengths_of(4, 100, 10) == std::vector<long long>{100, 10, 70, 40});
    CHECK(lengths_of(1, 4097, 1) == std::vector<long long>{4097});        // one sequence: the longest
    CHECK(lengths_of(5, 64, 64) == std::vector<long long>(5, 64));        // the timed shapes: all equal
    for (long long batch : {2, 3, 17, 64}) {
        INFO(batch);
        auto lengths = lengths_of(batch, 33000, 127);
        CHECK(lengths.front() == 33000);
        CHECK(*std::max_element(lengths.begin(), lengths.end()) == 33000);
        CHECK(*std::min_element(lengths.begin(), lengths.end()) == 127);
        CHECK(std::set<long long>(lengths.begin(), lengths.end()).size() == std::size_t(batch));  // a permutation of ranks
        if (batch >= 3) CHECK_FALSE(std::is_sorted(lengths.rbegin(), lengths.rend()));  // unsorted: read lengths[]
    }
    CHECK(total_positions(3, 127, 1) == 192);
}

TEST_CASE("decode attention reads K and V once per KV head: the lesson's worked examples", "[decode_attention][lessons]") {
    // batch 1 at 4,096 positions: 4,096 bytes and 16,384 FLOPs a position, q and out 16,384 bytes, a length 4.
    auto one = decode_attention::work_of(1, 4096, 4096);
    CHECK(one.bytes == 16793604);
    CHECK(one.flops == 67108864);
    CHECK(one.flops / one.bytes == Approx(4.0).epsilon(0.002));  // the group's 4 FLOPs per byte
    // The ragged verify shape: lengths 127, 1, 64.
    auto ragged = decode_attention::work_of(3, 127, 1);
    CHECK(ragged.bytes == 192 * 4096 + 3 * 16384 + 3 * 4);
    CHECK(ragged.bytes == 835596);
    CHECK(ragged.flops == 3145728);
    auto lesson = read_file(repo_root() / "lessons" / "10-production.md");
    check_mentions(lesson, {"**4,096 bytes per position**", "**16,384 FLOPs per position**", "**16,793,604 bytes**",
                            "**67,108,864 FLOPs**", "**835,596 bytes**", "**3,145,728 FLOPs**",
                            "the lengths are 127, 1 and 64", "## 2. The decode step and its floor"});
}

TEST_CASE("lab 10: five timed shapes from batch 1 to 64, scored against cudaMemcpy of the same bytes",
          "[decode_attention]") {
    auto lab = production_lab();
    REQUIRE(lab.problem == "decode_attention");
    REQUIRE(lab.variants.size() == 6);  // the five guided shapes and the open rung
    const std::vector<std::pair<std::string, Shape>> timed = {
        {"decode_attention_b1_4k", {{"batch", 1}, {"context", 4096}, {"shortest", 4096}}},
        {"decode_attention_b1_32k", {{"batch", 1}, {"context", 32768}, {"shortest", 32768}}},
        {"decode_attention_b16_4k", {{"batch", 16}, {"context", 4096}, {"shortest", 4096}}},
        {"decode_attention_b16_32k", {{"batch", 16}, {"context", 32768}, {"shortest", 32768}}},
        {"decode_attention_b64_32k", {{"batch", 64}, {"context", 32768}, {"shortest", 32768}}},
    };
    for (const auto& [name, shape] : timed) {
        INFO(name);
        const auto& v = lab.variant(name);
        CHECK(v.timed == shape);
        CHECK(v.against == "peer");
        CHECK(v.file == "kernels/01_decode_attention.cu");
        auto work = lab.work(v, v.timed), peer = lab.peer_work(v, v.timed);
        CHECK(peer.bytes == work.bytes);  // the copy moves what the kernel must
        CHECK(peer.flops == 0);
        CHECK_FALSE(lab.also_work(v, v.timed).has_value());  // no cuDNN line (family.cpp says why)
        CHECK(v.target_fraction > v.floor_fraction);
    }
    // 8.6 GB at batch 64 / 32k: 64 x 32,768 positions of 4,096 bytes.
    CHECK(lab.work(lab.variant("decode_attention_b64_32k"), timed[4].second).bytes ==
          Approx(64.0 * 32768 * 4096 + 64 * 16388));
    // The verify shapes cover batch 1, 3, 17 and contexts 1, 127, 4097, 33000, ragged ones among them.
    std::set<long long> batches, contexts;
    bool ragged = false;
    for (const auto& shape : lab.verify_shapes_for(lab.variant("decode_attention_b1_4k"))) {
        batches.insert(shape.at("batch"));
        contexts.insert(shape.at("context"));
        ragged = ragged || (shape.at("shortest") < shape.at("context") && shape.at("batch") > 1);
    }
    for (long long b : {1, 3, 17}) CHECK(batches.count(b));
    for (long long c : {1, 127, 4097, 33000}) CHECK(contexts.count(c));
    CHECK(ragged);
}

TEST_CASE("lab 10's open rung: a ragged batch no guided variant times, its own file, the contract only",
          "[decode_attention][open]") {
    auto lab = production_lab();
    const auto& open = lab.variant("open_decode_attention_b8_ragged");
    CHECK(open.open);
    CHECK(&open == &lab.variants.back());  // the top of the ladder
    CHECK(open.file == "kernels/02_open_decode_attention.cu");
    CHECK(open.timed == Shape{{"batch", 8}, {"context", 32768}, {"shortest", 4096}});
    for (const auto& v : lab.variants) {
        if (&v == &open) continue;
        INFO(v.name);
        CHECK_FALSE(v.open);
        CHECK(v.timed != open.timed);  // the open rung's shape is its own
        CHECK(v.file != open.file);
    }
    // Ragged: 32,768 down to 4,096 in steps of 4,096, longest and shortest alternating; 604 MB,
    // about 140 us at the copy rate (past the 25 us where our aim is 90% of the copy).
    CHECK(lengths_of(8, 32768, 4096) == std::vector<long long>{32768, 4096, 28672, 8192, 24576, 12288, 20480, 16384});
    auto work = lab.work(open, open.timed);
    CHECK(work.bytes == 147456.0 * 4096 + 8 * 16388);
    CHECK(work.bytes / 4.3e12 > 25e-6);
    CHECK(lab.peer_work(open, open.timed).bytes == work.bytes);
    CHECK(open.target_fraction > open.floor_fraction);
    // The skeleton hands out the contract and no kernel: no __global__ function, one launch stub.
    auto skeleton = read_file(repo_root() / "labs" / "10-production" / open.file);
    CHECK(skeleton.find("__global__") == std::string::npos);
    CHECK(skeleton.find("ROOFLINE_DECODE_ATTENTION_VARIANT(open_decode_attention_b8_ragged,") != std::string::npos);
}

TEST_CASE("a decode_attention shape with the wrong keys is reported with file:line", "[decode_attention]") {
    TempDir dir;
    auto lab_dir = dir.path() / "labs" / "10-x";
    write_file(lab_dir / "kernels" / "a.cu", "// empty\n");
    write_file(lab_dir / "lab.yaml", R"(title: t
lesson: lessons/10-production.md
problem: decode_attention
timeout_s: 10
shapes:
  timed: {batch: 1, context: 64, shortest: 64}
  verify:
    - {batch: 1, context: 64}
tolerance:
  bf16: {atol: 1.0e-3, rtol: 8.0e-3, max_rel_l2: 4.0e-3}
scoring: {correctness: 40, performance: 50, prediction: 10, against: peer, floor_fraction: 0.5, target_fraction: 0.9}
variants:
  - {name: a, op: decode_attention, dtype: bf16, file: kernels/a.cu, summary: s}
)");
    try {
        load_lab(lab_dir / "lab.yaml");
        FAIL("a shape without `shortest` was accepted");
    } catch (const std::exception& e) {
        check_mentions(e.what(), {"lab.yaml:8", "batch, context, shortest"});
    }
}
