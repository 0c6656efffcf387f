// Issue 35: the numbers lessons 08 and 09 and lab 08's documents state where they meet the
// hardware, each recomputed here from what the repository holds (the hardware profiles, the
// lab's shapes and kernels, the FlashAttention-3 paper's ablation as the README quotes it),
// so that a wrong figure fails a test instead of a reader.
#include "dtype.hpp"
#include "hardware.hpp"
#include "test_support.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string>

using namespace roofline;
using namespace roofline_test;

namespace {

double ridge(const std::string& profile) {
    auto ceiling = load_profile(repo_root() / "hardware" / (profile + ".yaml")).datasheet_ceiling(Dtype::bf16);
    return ceiling.peak_tflops / ceiling.bandwidth_tbs;
}

// Lesson 09's crossover: the M at which 2 M N K / (2 N K + 2 M K + 2 M N) reaches the ridge.
double crossover(double ridge, double n, double k) { return ridge * n * k / (n * k - ridge * (n + k)); }

}  // namespace

TEST_CASE("lesson 09: the lowest data-center ridge, the crossover and the FMA count are the arithmetic's",
          "[lessons]") {
    auto lesson = read_file(repo_root() / "lessons" / "09-decode.md");
    std::map<std::string, double> data_center;
    for (const std::string id : {"a100-80gb-sxm", "h100-sxm", "h200-sxm", "b200"}) data_center[id] = ridge(id);
    auto lowest = std::min_element(data_center.begin(), data_center.end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; });
    CHECK(lowest->first == "a100-80gb-sxm");
    CHECK(contains(lesson, fmt::format("A100 has the lowest ridge ({:.0f})", lowest->second)));
    CHECK_FALSE(contains(lesson, "H200 has the lowest ridge"));
    // M = 16 against the H200's crossover at N = K = 8192.
    double h200 = crossover(ridge("h200-sxm"), 8192, 8192);
    CHECK(std::round(h200) == 217);
    CHECK(contains(lesson, fmt::format("about {} times below the\nroofline's crossover of ~{:.0f}",
                                       "fourteen", h200)));
    CHECK(std::round(h200 / 16) == 14);
    CHECK_FALSE(contains(lesson, "a hundred times below"));
    // M = 8 rows of x against W [N, K]: 8 N K multiply-adds, twice that in FLOPs.
    CHECK(contains(lesson, "8 · N · K FMAs (2 · 8 · N · K FLOPs)"));
    // The timeline figure no results file holds is gone.
    CHECK_FALSE(contains(lesson, "6.65 ms"));
    CHECK_FALSE(contains(lesson, "92.6%"));
}

TEST_CASE("lab 08: the naive kernels' FLOPs are the model's, the causal blocks are the lab's, the ablation is quoted right",
          "[lessons]") {
    auto root = repo_root();
    auto readme = read_file(root / "labs" / "08-attention" / "README.md");
    auto lesson = read_file(root / "lessons" / "08-attention.md");
    auto naive = read_file(root / "labs" / "08-attention" / "debrief" / "naive.md");
    // 4 n^2 d per head, batch 4 x 16 heads at n = 4096, d = 128: what the README calls 5.50e11.
    double flops = 4.0 * 4096 * 4096 * 128 * 4 * 16;
    CHECK(contains(readme, fmt::format("The timed shape\nis {:.2f}e11 FLOPs", flops / 1e11)));
    // The README's ~76 ms is those FLOPs at ~7 TFLOP/s, not twice them.
    CHECK(flops / 7.2e12 == Approx(76e-3).epsilon(0.01));
    CHECK_FALSE(contains(readme, "1.1e12 FLOPs counted as the CUDA cores do them"));
    CHECK_FALSE(contains(naive, "the kernel does twice as many"));
    CHECK(contains(naive, "the kernels do exactly\nthose"));
    // The fused kernel's block: 128 queries and 64-key tiles; the lesson's causal section uses the same.
    auto fused = read_file(root / "labs" / "08-attention" / "kernels" / "02_fused.cu");
    CHECK(contains(fused, "using Chosen = Tuning<4, 2, 64, true, true, 2>;  // 128 queries a block, 32 a warp, 64 keys a tile"));
    CHECK(contains(lesson, "q₀ … q₀+127"));
    CHECK(contains(lesson, "Query block b (of n/128) processes 2(b + 1) key tiles of 64"));
    CHECK(contains(lesson, "There are 8 query blocks of 128"));  // n = 1024
    CHECK_FALSE(contains(lesson, "q₀+63"));
    // FlashAttention-3's ablation (Shah et al. 2024): 661, 582 without the GEMM-softmax
    // pipelining, 570 without warp specialization; every mention of 570 says the latter.
    const std::string quoted = "570 without warp specialization";
    std::size_t mentions = 0, right = 0;
    for (std::size_t at = readme.find("570"); at != std::string::npos; at = readme.find("570", at + 1)) {
        ++mentions;
        right += readme.compare(at, quoted.size(), quoted) == 0;
    }
    CHECK(mentions >= 2);
    CHECK(right == mentions);
    CHECK(contains(readme, "582 without the GEMM-softmax pipelining"));
    // The lesson lists the paper's three ideas, FP8's among them, and no longer calls
    // mma.sync blocking.
    check_mentions(lesson, {"*Warp specialization with TMA*", "*Interleaving the block-wise matmuls with the softmax*",
                            "*FP8 with block quantization and incoherent processing*", "wgmma.commit_group",
                            "Rabe and Staats"});
    CHECK_FALSE(contains(lesson, "a warp cannot be in its softmax and in an\nMMA at once"));
}
