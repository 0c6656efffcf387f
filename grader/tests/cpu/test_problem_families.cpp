// The problem families (lib/core/problem_family.hpp, problems/*/family.cpp): the table
// is well formed; the scorer's work of every op, and `roofline calc`'s, at one
// shape each, against numbers worked by hand from the formulas in the models, so
// that a drift in either fails here; the lab.yaml loader applies each op's
// dtypes; grader/problems/README.md names every family and op.
#include "test_support.hpp"

#include "lab_spec.hpp"
#include "problem_family.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

using namespace roofline;
using namespace roofline_test;
using nlohmann::json;

namespace {

struct PinnedWork {
    std::string problem, op;
    Dtype dtype;
    Shape shape;
    Workload work, peer;
    std::optional<Workload> unfused;
};

// One shape per op. GEMMs at m = 64, n = 32, k = 16: 2mnk = 65,536 FLOP and
// mk + kn + mn = 1,024 + 512 + 2,048 = 3,584 elements.
const std::vector<PinnedWork>& pinned() {
    static const std::vector<PinnedWork> cases{
        // decode attention, batch 3 of lengths 127, 1, 64 (context 127, shortest 1): 192 positions of
        // 4,096 bytes (K and V of 8 heads of 128 bf16) and 16,384 FLOPs (32 heads x 128 x 4); q and out
        // 3 x 16,384 bytes, the lengths 12; the copy moves the same bytes (lessons/10-production.md)
        {"decode_attention", "decode_attention", Dtype::bf16, {{"batch", 3}, {"context", 127}, {"shortest", 1}},
         {3145728, 835596}, {0, 835596}, std::nullopt},
        // elementwise, n = 1000: a read and a write per element (add: two reads); the peer copies one array
        {"elementwise", "copy", Dtype::fp32, {{"n", 1000}}, {0, 8000}, {0, 8000}, std::nullopt},
        {"elementwise", "scale", Dtype::bf16, {{"n", 1000}}, {1000, 4000}, {0, 4000}, std::nullopt},
        {"elementwise", "add", Dtype::fp32, {{"n", 1000}}, {1000, 12000}, {0, 8000}, std::nullopt},
        // 512 FMAs of 2 FLOPs each per element
        {"elementwise", "fma_chain", Dtype::fp32, {{"n", 1000}}, {1024000, 8000}, {0, 8000}, std::nullopt},
        // 3,584 elements of 4 or 2 bytes; cuBLAS does the same work
        {"gemm", "gemm", Dtype::fp32, {{"m", 64}, {"n", 32}, {"k", 16}}, {65536, 14336}, {65536, 14336}, std::nullopt},
        {"gemm", "gemm_abt", Dtype::bf16, {{"m", 64}, {"n", 32}, {"k", 16}}, {65536, 7168}, {65536, 7168},
         std::nullopt},
        // FP8 at k = 128: 2mnk = 524,288 FLOP; A and Bt e4m3 (8,192 + 4,096 bytes), C bf16 (4,096), and
        // the fp32 scales: 2 (per tensor), or 64 rows x 1 K block of A + 1 block of Bt = 65 (block-scaled)
        {"gemm", "gemm_fp8", Dtype::fp8, {{"m", 64}, {"n", 32}, {"k", 128}}, {524288, 16392}, {524288, 16392},
         std::nullopt},
        {"gemm", "gemm_fp8_block_scaled", Dtype::fp8, {{"m", 64}, {"n", 32}, {"k", 128}}, {524288, 16644},
         {524288, 16644}, std::nullopt},
        // chain, n = 1000 bf16: 13 FLOP per element; x read, y written (4,000 bytes); unfused: three kernels
        {"fusion", "chain", Dtype::bf16, {{"n", 1000}}, {13000, 4000}, {0, 4000}, Workload{13000, 12000}},
        // rmsnorm, 8 x 100 bf16: 4 FLOP per element; x, y (800 each) and w (100): 1,700 elements, 3,400 bytes;
        // unfused reads x again and writes then reads an fp32 per row: 2 x 2,500 + 8 x 8 = 5,064
        {"fusion", "rmsnorm", Dtype::bf16, {{"rows", 8}, {"cols", 100}}, {3200, 3400}, {0, 3200},
         Workload{3200, 5064}},
        {"fusion", "gemm_bare", Dtype::bf16, {{"m", 64}, {"n", 32}, {"k", 16}}, {65536, 7168}, {65536, 7168},
         std::nullopt},
        // + 11 FLOP per output (2,048 outputs) and the bias (32 bf16); unfused: 4 more passes over Y (8 x 2,048)
        {"fusion", "gemm_bias_gelu", Dtype::bf16, {{"m", 64}, {"n", 32}, {"k", 16}}, {88064, 7232}, {88064, 7232},
         Workload{88064, 23616}},
        // row sums, 8 x 100 bf16: one add per element; x read (1,600 bytes), 8 fp32 sums written
        {"reduction", "row_sum", Dtype::bf16, {{"rows", 8}, {"cols", 100}}, {800, 1632}, {0, 1600}, std::nullopt},
        // gemv, N = 8, K = 100: 2 FLOP per weight (1,600); W read (800 weights of 2 bytes, or 1 byte plus
        // an fp32 scale per row), x (100) and y (8) bf16 once; the copy moves W's bytes only
        {"gemv", "gemv", Dtype::bf16, {{"n", 8}, {"k", 100}}, {1600, 1816}, {0, 1600}, std::nullopt},
        {"gemv", "gemv_int8", Dtype::bf16, {{"n", 8}, {"k", 100}}, {1600, 1048}, {0, 800}, std::nullopt},
        {"gemv", "gemv_fp8", Dtype::bf16, {{"n", 8}, {"k", 100}}, {1600, 1048}, {0, 800}, std::nullopt},
        // M = 4 rows of x: 6,400 FLOP; W once (1,600), x 4 x 100 and y 4 x 8 bf16 (864); cuBLAS the same
        {"gemv", "gemv_batched", Dtype::bf16, {{"m", 4}, {"n", 8}, {"k", 100}}, {6400, 2464}, {6400, 2464},
         std::nullopt},
        // one decoder layer, hidden 128 (1 head), ffn 8, 2 cached positions: the GEMVs 2 x (4 x 128^2 +
        // 3 x 8 x 128) = 137,216 FLOP and q.k, p.v over 3 positions 4 x 3 x 128 = 1,536; bytes: the weights
        // (65,536 + 3,072 + two norms of 128 = 68,864) and the cache (2 x 2 x 128 = 512) in bf16, x and y
        // (2 x 256); the copy moves the same bytes
        {"gemv", "decode_layer", Dtype::bf16, {{"hidden", 128}, {"heads", 1}, {"ffn", 8}, {"cache", 2}},
         {138752, 139264}, {0, 139264}, std::nullopt},
        // transpose, 8 x 100 fp32: nothing computed; x read and y written, 800 x 4 bytes each; the copy the same
        {"transpose", "transpose", Dtype::fp32, {{"rows", 8}, {"cols", 100}}, {0, 6400}, {0, 6400}, std::nullopt},
        // attention, 1 x 2 heads, seq 10, head_dim 4, bf16: 4 n^2 d = 1,600 FLOP per head; Q, K, V, O
        // (80 values each per head) once: 640 bytes; cuDNN the same; unfused adds four passes of the
        // 10 x 10 fp32 scores per head: 4 x 4 x 200 = 3,200 bytes. Causal: half the FLOPs, the same bytes.
        {"attention", "attention", Dtype::bf16, {{"batch", 1}, {"heads", 2}, {"seq", 10}, {"head_dim", 4}},
         {3200, 640}, {3200, 640}, Workload{3200, 3840}},
        {"attention", "attention_causal", Dtype::bf16, {{"batch", 1}, {"heads", 2}, {"seq", 10}, {"head_dim", 4}},
         {1600, 640}, {1600, 640}, Workload{1600, 3840}},
    };
    return cases;
}

VariantSpec variant_of(const PinnedWork& c) {
    VariantSpec v;
    v.name = c.op;
    v.problem = c.problem;
    v.op = c.op;
    v.dtype = c.dtype;
    return v;
}

json calc_workload(const std::string& args) {
    auto r = run_cli("--root " + shell_quote(repo_root().string()) + " calc " + args + " --hardware h200-sxm --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out)["workload"];
}

}  // namespace

TEST_CASE("every family's descriptor is complete", "[family]") {
    const auto& families = problem_families();
    REQUIRE(families.size() >= 4);
    std::set<std::string> names;
    for (const auto& family : families) {
        INFO(family.name);
        CHECK(names.insert(family.name).second);
        CHECK(find_family(family.name) == &family);
        REQUIRE_FALSE(family.ops.empty());
        std::set<std::string> ops;
        for (const auto& op : family.ops) {
            INFO(op.name);
            CHECK(ops.insert(op.name).second);
            // Sorted and without repeats: lab.yaml shapes are compared with them as sorted key lists.
            CHECK(std::is_sorted(op.shape_keys.begin(), op.shape_keys.end()));
            CHECK(std::adjacent_find(op.shape_keys.begin(), op.shape_keys.end()) == op.shape_keys.end());
            CHECK(op.shape_keys.empty() == family.graded_on_cpu);  // a CPU-graded part takes no shape or dtype
            CHECK(op.dtypes.empty() == family.graded_on_cpu);
            CHECK(static_cast<bool>(op.work));
            CHECK(static_cast<bool>(op.peer_work));
        }
    }
    CHECK(find_family("attention_that_is_not_there") == nullptr);
    auto message = [](auto action) {
        try {
            action();
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("nothing thrown");
    };
    CHECK(contains(message([] { family_op("gemm", "gemv"); }), "its ops: gemm, gemm_abt"));
    CHECK(contains(message([] { family_op("scan", "scan"); }), "the families: attention, decode_attention, elementwise, fusion, gemm, gemv, layout, reduction, transpose"));
}

// The table is generated from the folders (grader/CMakeLists.txt globs problems/*/family.cpp):
// a folder left out of it, or a family whose name is not its folder's, fails here.
TEST_CASE("the table of families is the folders of grader/problems", "[family]") {
    std::set<std::string> folders;
    for (const auto& entry : std::filesystem::directory_iterator(repo_root() / "grader" / "problems")) {
        if (entry.is_directory() && std::filesystem::exists(entry.path() / "family.cpp")) {
            folders.insert(entry.path().filename().string());
        }
    }
    REQUIRE(folders.size() >= 8);  // attention, elementwise, fusion, gemm, gemv, layout, reduction, transpose
    std::set<std::string> table;
    for (const auto& family : problem_families()) table.insert(family.name);
    for (const auto& folder : folders) {
        INFO("grader/problems/" << folder << "/family.cpp has no row in problem_families() (configure again?)");
        CHECK(table.count(folder) == 1);
    }
    for (const auto& name : table) {
        INFO("the family " << name << " in problem_families() has no folder grader/problems/" << name);
        CHECK(folders.count(name) == 1);
    }
}

TEST_CASE("the scorer's work of every op, worked by hand", "[family]") {
    const LabSpec lab;  // work() reads only the variant and the shape
    std::set<std::pair<std::string, std::string>> pinned_ops;
    for (const auto& c : pinned()) {
        INFO(c.problem << "/" << c.op << " at " << shape_text(c.shape));
        pinned_ops.insert({c.problem, c.op});
        auto v = variant_of(c);
        REQUIRE(family_op(c.problem, c.op).takes(c.dtype));
        auto work = lab.work(v, c.shape);
        CHECK(work.flops == c.work.flops);
        CHECK(work.bytes == c.work.bytes);
        auto peer = lab.peer_work(v, c.shape);
        CHECK(peer.flops == c.peer.flops);
        CHECK(peer.bytes == c.peer.bytes);
        auto unfused = lab.unfused_work(v, c.shape);
        REQUIRE(unfused.has_value() == c.unfused.has_value());
        if (unfused) {
            CHECK(unfused->flops == c.unfused->flops);
            CHECK(unfused->bytes == c.unfused->bytes);
        }
    }
    // A new op gets its pinned line above; one graded on the CPU is never timed and takes no shape.
    for (const auto& family : problem_families()) {
        if (family.graded_on_cpu) {
            for (const auto& op : family.ops) {
                INFO(family.name << "/" << op.name);
                CHECK(op.shape_keys.empty());
                CHECK(op.dtypes.empty());
            }
            continue;
        }
        for (const auto& op : family.ops) {
            INFO(family.name << "/" << op.name << " has no pinned work in this test");
            CHECK(pinned_ops.count({family.name, op.name}) == 1);
        }
    }
}

TEST_CASE("roofline calc counts with the families' models, worked by hand", "[family][cli]") {
    auto check_calc = [](const std::string& args, double flops, double bytes) {
        INFO("calc " << args);
        auto workload = calc_workload(args);
        CHECK(workload["flops"].get<double>() == flops);
        CHECK(workload["bytes"].get<double>() == bytes);
    };
    // GEMM 64 x 32 x 16 in bf16: the scorer's gemm and gemm_abt numbers above.
    check_calc("--gemm 64,32,16 --dtype bf16", 65536, 7168);
    // A square fp32 GEMM, 100^3: 2e6 FLOP; 3 x 10,000 elements of 4 bytes.
    check_calc("--gemm 100 --dtype fp32", 2e6, 120000);
    // Elementwise, 1000 elements reading 2 and writing 1 fp32, 1 FLOP each: the scorer's add.
    check_calc("--elementwise 1000 --reads 2 --writes 1 --flops-per-element 1 --dtype fp32", 1000, 12000);
    // fma_chain as a student asks for it: 1024 FLOP per element, one read and one write.
    check_calc("--elementwise 1000 --flops-per-element 1024 --dtype fp32", 1024000, 8000);
    // And calc agrees with the scorer at the shipped labs' shapes (2^28 fp32 adds, a bf16 GEMM 4096^3).
    const LabSpec lab;
    VariantSpec add;
    add.problem = "elementwise";
    add.op = "add";
    auto scored_add = lab.work(add, {{"n", 268435456}});
    check_calc("--elementwise 268435456 --reads 2 --writes 1 --flops-per-element 1 --dtype fp32", scored_add.flops,
               scored_add.bytes);
    VariantSpec gemm;
    gemm.problem = "gemm";
    gemm.op = "gemm";
    gemm.dtype = Dtype::bf16;
    auto scored_gemm = lab.work(gemm, {{"m", 4096}, {"n", 4096}, {"k", 4096}});
    check_calc("--gemm 4096 --dtype bf16", scored_gemm.flops, scored_gemm.bytes);
}

TEST_CASE("lab.yaml: a variant's dtype must be one its op comes in", "[family][lab]") {
    TempDir dir;
    write_file(dir / "04-x/kernels/x.cu", "");
    auto write_lab = [&](const std::string& dtype) {
        write_file(dir / "04-x/lab.yaml",
                   "title: t\nlesson: l\nproblem: gemm\ntimeout_s: 10\n"
                   "shapes:\n  timed: {m: 256, n: 256, k: 64}\n  verify: [{m: 128, n: 128, k: 32}]\n"
                   "tolerance:\n  bf16: {atol: 0.01, rtol: 0.02, max_rel_l2: 0.01}\n"
                   "  fp32: {atol: 0.0001, rtol: 0.0001, max_rel_l2: 0.00001}\n"
                   "scoring: {correctness: 40, performance: 50, prediction: 10, against: peer,"
                   " floor_fraction: 0.4, target_fraction: 0.85}\n"
                   "variants:\n"
                   "  - {name: g, op: gemm_abt, dtype: " +
                       dtype + ", file: kernels/x.cu, summary: s}\n");
    };
    write_lab("bf16");
    CHECK(load_lab(dir / "04-x/lab.yaml").variant("g").dtype == Dtype::bf16);
    write_lab("fp32");  // gemm_abt is registered in bf16 only
    auto message = input_error_of([&] { load_lab(dir / "04-x/lab.yaml"); });
    CHECK(contains(message, "04-x/lab.yaml:13"));  // the variant's dtype
    check_mentions(message, {"gemm_abt", "bf16 only"});
}

TEST_CASE("grader/problems/README.md names every family and op", "[family]") {
    auto readme = read_file(repo_root() / "grader" / "problems" / "README.md");
    for (const auto& family : problem_families()) {
        CHECK(contains(readme, "`" + family.name + "`"));
        for (const auto& op : family.ops) {
            INFO(family.name << "/" << op.name);
            CHECK(contains(readme, "`" + op.name + "`"));
        }
    }
}
