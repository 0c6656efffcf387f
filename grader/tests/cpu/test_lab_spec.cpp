// lab.yaml (lib/course/lab_spec.cpp): the shipped labs load; each kind of mistake in a
// lab.yaml is reported with file:line and the field; divisibility refusals; the
// work model of each problem; LAB/VARIANT parsing.
#include "test_support.hpp"

#include "lab_spec.hpp"

using namespace roofline;
using namespace roofline_test;

namespace {

std::filesystem::path fixture_lab(const std::string& name) { return test_data() / "labs" / name / "lab.yaml"; }

std::string lab_error(const std::string& name) {
    auto file = fixture_lab(name);
    REQUIRE(std::filesystem::exists(file));
    return input_error_of([&] { load_lab(file); });
}

// A copy of the scoring fixture lab in `dir`, and the text of its lab.yaml with `line` put in
// before the first `anchor` (the copy holds the original until a test writes the text).
struct ScoringLabCopy {
    fs::path lab_yaml;
    std::string text;
    std::string with(const std::string& line, const std::string& anchor) const {
        return replaced(text, anchor, line + anchor);
    }
};
ScoringLabCopy scoring_lab_copy(const fs::path& dir) {
    fs::copy(fixture_lab("scoring").parent_path(), dir / "scoring", fs::copy_options::recursive);
    return {dir / "scoring" / "lab.yaml", read_file(fixture_lab("scoring"))};
}

}  // namespace

TEST_CASE("the shipped labs load", "[lab]") {
    auto labs = load_labs(repo_root() / "labs");
    REQUIRE(labs.size() >= 2);
    for (std::size_t i = 0; i + 1 < labs.size(); ++i) CHECK(labs[i].id < labs[i + 1].id);
    for (const auto& lab : labs) {
        INFO(lab.file.string());
        CHECK(!lab.variants.empty());
        CHECK(lab.scoring.total() > 0);
        for (const auto& v : lab.variants) {
            INFO(v.name);
            CHECK(std::filesystem::exists(lab.file.parent_path() / v.file));
            CHECK(v.line > 0);
            CHECK(v.target_fraction > v.floor_fraction);
            CHECK_NOTHROW(lab.tolerance_for(v));
            CHECK_FALSE(lab.shape_refusal(v, v.timed).has_value());
        }
    }
}

TEST_CASE("variant overrides and lab defaults (fixture lab)", "[lab]") {
    auto lab = load_lab(fixture_lab("scoring"));
    CHECK(lab.id == "scoring");
    CHECK(lab.problem == "elementwise");
    CHECK(lab.timed == Shape{{"n", 268435456}});
    CHECK(lab.scoring.total() == 100);  // 40 + 50 + 10
    const auto& copy = lab.variant("copy_fp32");
    CHECK(copy.timed == Shape{{"n", 268435456}});  // the lab's timed shape
    CHECK(copy.floor_fraction == 0.5);             // the lab's scoring defaults
    CHECK(copy.target_fraction == 0.9);
    const auto& bf16 = lab.variant("copy_bf16");
    CHECK(bf16.dtype == Dtype::bf16);
    CHECK(bf16.timed == Shape{{"n", 536870912}});  // its own timed shape
    CHECK(bf16.floor_fraction == 0.15);            // and its own thresholds
    CHECK(bf16.target_fraction == 0.35);
    CHECK(lab.tolerance_for(bf16).rtol == 8.0e-3);
    CHECK(lab.tolerance_for(copy).max_rel_l2 == 1.0e-6);
    auto message = input_error_of([&] { lab.variant("copy_turbo"); });
    CHECK(contains(message, "copy_turbo"));
    CHECK(contains(message, "copy_fp32, copy_bf16, scale_fp32, add_fp32, add_bf16"));  // lists the variants

    auto gemm = load_lab(fixture_lab("gemm_rules"));
    CHECK(gemm.timed == Shape{{"k", 4096}, {"m", 4096}, {"n", 4096}});
    CHECK(gemm.verify.size() == 6);
    CHECK(gemm.variant("naive").target_fraction == 0.05);
    CHECK(gemm.variant("tiled").target_fraction == 0.8);
    CHECK(gemm.variant("tiled").divisible_by == std::map<std::string, long long>{{"k", 8}, {"m", 128}, {"n", 128}});
    CHECK(gemm.variant("naive").divisible_by.empty());
}

TEST_CASE("shape_text is key=value in key order", "[lab]") {
    CHECK(shape_text({{"m", 4096}, {"n", 2048}, {"k", 1024}}) == "k=1024,m=4096,n=2048");
    CHECK(shape_text({{"n", 17}}) == "n=17");
}

TEST_CASE("shape_refusal applies divisible_by", "[lab]") {
    auto lab = load_lab(fixture_lab("gemm_rules"));
    const auto& tiled = lab.variant("tiled");  // divisible_by {m: 128, n: 128, k: 8}
    const auto& naive = lab.variant("naive");  // no rule
    CHECK_FALSE(lab.shape_refusal(tiled, {{"m", 128}, {"n", 256}, {"k", 64}}).has_value());
    CHECK_FALSE(lab.shape_refusal(tiled, {{"m", 4096}, {"n", 4096}, {"k", 4096}}).has_value());
    // 17 is no multiple of 128 (m) nor 65 of 8 (k)
    auto refusal = lab.shape_refusal(tiled, {{"m", 17}, {"n", 33}, {"k", 65}});
    REQUIRE(refusal.has_value());
    CHECK(contains(*refusal, "tiled"));
    CHECK(contains(*refusal, "divisible_by"));
    CHECK(contains(*refusal, "k=65,m=17,n=33"));
    // only n is wrong: 128 x 200 x 64
    auto only_n = lab.shape_refusal(tiled, {{"m", 128}, {"n", 200}, {"k", 64}});
    REQUIRE(only_n.has_value());
    CHECK(contains(*only_n, "n to be a multiple of 128"));
    // 4000 x 4100 x 3900: 3900 / 8 = 487.5
    CHECK(lab.shape_refusal(tiled, {{"m", 4000}, {"n", 4100}, {"k", 3900}}).has_value());
    CHECK_FALSE(lab.shape_refusal(naive, {{"m", 17}, {"n", 33}, {"k", 65}}).has_value());
    // of the six verify shapes, tiled (k % 8) accepts 128x256x64, 128x128x32 and 256x384x1056;
    // tensor (k % 32) accepts the same three: 64, 32 and 1056 = 33 * 32 are all multiples of 32
    int tiled_ok = 0, tensor_ok = 0;
    for (const auto& shape : lab.verify) {
        tiled_ok += !lab.shape_refusal(tiled, shape);
        tensor_ok += !lab.shape_refusal(lab.variant("tensor"), shape);
        if (!lab.shape_refusal(tiled, shape)) {
            CHECK(shape.at("m") % 128 == 0);
            CHECK(shape.at("n") % 128 == 0);
            CHECK(shape.at("k") % 8 == 0);
        }
    }
    CHECK(tiled_ok == 3);
    CHECK(tensor_ok == 3);
    // k = 40 passes tiled's 8 but not tensor's 32
    CHECK_FALSE(lab.shape_refusal(tiled, {{"m", 128}, {"n", 128}, {"k", 40}}).has_value());
    CHECK(lab.shape_refusal(lab.variant("tensor"), {{"m", 128}, {"n", 128}, {"k", 40}}).has_value());
}

TEST_CASE("work() and peer_work() for copy, add and gemm", "[lab]") {
    auto memory = load_lab(fixture_lab("scoring"));
    SECTION("copy fp32, n = 2^28") {
        const auto& v = memory.variant("copy_fp32");
        auto w = memory.work(v, v.timed);
        CHECK(w.flops == 0);
        CHECK(w.bytes == 2147483648.0);  // read + write of 2^28 * 4 bytes = 2 * 1 GiB
        auto peer = memory.peer_work(v, v.timed);
        CHECK(peer.flops == 0);
        CHECK(peer.bytes == 2147483648.0);  // cudaMemcpy moves the same two arrays
    }
    SECTION("copy bf16, n = 2^29") {
        const auto& v = memory.variant("copy_bf16");
        CHECK(memory.work(v, v.timed).bytes == 2147483648.0);  // 2 * 2^29 * 2 bytes
        CHECK(memory.peer_work(v, v.timed).bytes == 2147483648.0);
    }
    SECTION("add fp32, n = 2^28") {
        const auto& v = memory.variant("add_fp32");
        auto w = memory.work(v, v.timed);
        CHECK(w.flops == 268435456.0);   // one add per element
        CHECK(w.bytes == 3221225472.0);  // two reads and a write: 3 * 2^28 * 4
        auto peer = memory.peer_work(v, v.timed);
        CHECK(peer.flops == 0);
        CHECK(peer.bytes == 2147483648.0);  // the peer copies one array: 2 * 2^28 * 4
    }
    SECTION("add bf16, n = 2^29") {
        const auto& v = memory.variant("add_bf16");
        auto w = memory.work(v, v.timed);
        CHECK(w.flops == 536870912.0);
        CHECK(w.bytes == 3221225472.0);  // 3 * 2^29 * 2
        CHECK(memory.peer_work(v, v.timed).bytes == 2147483648.0);
    }
    SECTION("scale fp32 at a custom shape") {
        const auto& v = memory.variant("scale_fp32");
        auto w = memory.work(v, {{"n", 1000}});
        CHECK(w.flops == 1000);
        CHECK(w.bytes == 8000);  // 1000 * (4 read + 4 written)
    }
    SECTION("gemm fp32 4096^3 and bf16") {
        auto gemm = load_lab(fixture_lab("gemm_rules"));
        const auto& naive = gemm.variant("naive");
        auto w = gemm.work(naive, naive.timed);
        CHECK(w.flops == 137438953472.0);  // 2 * 4096^3
        CHECK(w.bytes == 201326592.0);     // 3 * 4096^2 * 4
        auto peer = gemm.peer_work(naive, naive.timed);
        CHECK(peer.flops == w.flops);  // cuBLAS does the same job
        CHECK(peer.bytes == w.bytes);
        // 128 x 256 x 64 bf16: 2*128*256*64 = 4,194,304 FLOP; (128*64 + 64*256 + 128*256) * 2 = 114,688 bytes
        auto small = gemm.work(gemm.variant("tensor"), {{"m", 128}, {"n", 256}, {"k", 64}});
        CHECK(small.flops == 4194304.0);
        CHECK(small.bytes == 114688.0);
    }
}

TEST_CASE("the valid fixture lab loads", "[lab]") {
    auto lab = load_lab(fixture_lab("good_elementwise"));
    CHECK(lab.id == "good_elementwise");
    REQUIRE(lab.variants.size() == 1);
    CHECK(lab.variants[0].line == 20);
    CHECK(lab.variants[0].timed == Shape{{"n", 1024}});
}

TEST_CASE("an open rung is marked by `open: true`; the others are not open", "[lab]") {
    auto lab = load_lab(fixture_lab("open_rung"));
    REQUIRE(lab.variants.size() == 2);
    CHECK_FALSE(lab.variants[0].open);
    CHECK(lab.variants[1].open);
    CHECK(lab.variants[1].name == "open_copy_fp32");
    CHECK_FALSE(load_lab(fixture_lab("good_elementwise")).variants[0].open);  // absent: not open
}

// Every lab that runs on a GPU has one open rung, at the top of its ladder (issue 34).
TEST_CASE("each GPU lab of the course has exactly one open rung, its last GPU variant", "[lab]") {
    for (const auto& entry : std::filesystem::directory_iterator(repo_root() / "labs")) {
        if (!std::filesystem::exists(entry.path() / "lab.yaml")) continue;
        auto lab = load_lab(entry.path() / "lab.yaml");
        INFO(lab.id);
        int open = 0;
        const VariantSpec* last_gpu = nullptr;
        for (const auto& v : lab.variants) {
            open += v.open;
            if (!v.cpu_graded) last_gpu = &v;
        }
        CHECK(open == 1);
        REQUIRE(last_gpu != nullptr);
        CHECK(last_gpu->open);
    }
}

TEST_CASE("lab.yaml errors name file:line and the field", "[lab]") {
    // A bad fixture lab under tests/data/labs/, and what its error must say.
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"unknown_problem", {"unknown_problem/lab.yaml:4:", "'problem'", "stencil", "elementwise" /* a choice */}},
        {"missing_tolerance", {"missing_tolerance/lab.yaml:20:", "variants[0].dtype", "bf16", "tolerance"}},
        {"duplicate_variant", {"duplicate_variant/lab.yaml:21:", "variants[1].name", "copy_fp32"}},
        {"wrong_shape_keys", {"wrong_shape_keys/lab.yaml:7:", "shapes.timed"}},
        {"target_below_floor", {"target_below_floor/lab.yaml:18:", "target_fraction", "floor_fraction"}},
        // a variant's own target_fraction below the lab's floor
        {"variant_target_below_floor", {"variant_target_below_floor/lab.yaml:20:", "target_fraction"}},
        {"missing_file", {"missing_file/lab.yaml:20:", "variants[0].file", "kernels/missing.cu"}},
        // divisible_by refuses the timed shape
        {"refused_timed_shape",
         {"refused_timed_shape/lab.yaml:21:", "variants[1]", "divisible_by", "m to be a multiple of 128"}},
        {"unknown_variant_dtype", {"unknown_variant_dtype/lab.yaml:20:", "dtype", "fp17"}},
        // `open` takes true or false; the message says what the key is for
        {"open_not_bool", {"open_not_bool/lab.yaml:21:", "variants[1].open", "'yes'", "open: true"}},
    };
    for (const auto& [fixture, mentions] : cases) {
        DYNAMIC_SECTION(fixture) { check_mentions(lab_error(fixture), mentions); }
    }
    SECTION("lab.yaml that does not exist") {
        auto m = input_error_of([] { load_lab(test_data() / "labs" / "no_such_lab" / "lab.yaml"); });
        CHECK(contains(m, "no_such_lab/lab.yaml"));
    }
}

// BUG (lib/course/lab_spec.cpp, load_lab, the `tolerance` loop): an unknown dtype key under
// `tolerance:` is reported through require_dtype(key, "<file>: tolerance"), so the message
// is "<file>: tolerance: unknown dtype 'fp17' ..." with no line number. It should name
// <file>:11 and the field 'tolerance.fp17' like every other lab.yaml error.
TEST_CASE("unknown dtype under tolerance names file:line and the field", "[lab]") {
    auto m = lab_error("unknown_tolerance_dtype");
    INFO(m);
    check_mentions(m, {"fp17", "unknown_tolerance_dtype/lab.yaml:11:", "tolerance.fp17"});
}

TEST_CASE("split_target parses LAB/VARIANT and refuses anything else", "[lab]") {
    CHECK(split_target("01-memory-roof/copy_naive_fp32") ==
          std::pair<std::string, std::string>{"01-memory-roof", "copy_naive_fp32"});
    for (std::string bad : {"foo", "/copy", "01-memory-roof/", "a/b/c", ""}) {
        INFO("'" << bad << "'");
        auto m = input_error_of([&] { split_target(bad); });
        check_mentions(m, {"LAB/VARIANT", "'" + bad + "'"});
    }
}

// BUG (lib/course/lab_spec.cpp, load_lab, the `divisible_by` loop): the keys of divisible_by are
// not checked against the problem's sizes, so a typo such as `divisible_by: {mm: 128}`
// loads, and shape_refusal (which skips keys the shape lacks) never refuses anything for
// it: the rung is handed shapes it cannot handle. It should fail like only_keys does:
// "<file>:28: field 'variants[1].divisible_by.mm' ...; allowed: k, m, n".
TEST_CASE("divisible_by with a key that is no size of the problem is refused", "[lab]") {
    auto file = fixture_lab("divisible_by_unknown_key");
    REQUIRE(std::filesystem::exists(file));
    std::string message;
    try {
        auto lab = load_lab(file);
        // what the typo costs: m = 17 is no multiple of 128, yet nothing is refused
        CHECK(lab.shape_refusal(lab.variant("tiled"), {{"m", 17}, {"n", 128}, {"k", 8}}).has_value());
    } catch (const InputError& e) {
        message = e.what();
    }
    INFO(message);
    check_mentions(message, {"divisible_by_unknown_key/lab.yaml:28:", "mm"});
}

TEST_CASE("a variant may name its own problem and tolerance (lab 06 mixes row sums and a GEMM)", "[lab]") {
    auto lab = load_lab(fixture_lab("mixed_problems"));
    const auto& sums = lab.variant("sums");
    const auto& matmul = lab.variant("matmul");
    CHECK(sums.problem == "reduction");
    CHECK(matmul.problem == "gemm");
    // Each variant is handed only the verify shapes of its own operation.
    CHECK(lab.verify_shapes_for(sums) == std::vector<Shape>{{{"rows", 32}, {"cols", 256}}});
    CHECK(lab.verify_shapes_for(matmul) == std::vector<Shape>{{{"m", 128}, {"n", 256}, {"k", 64}}});
    // Row sums: 2 bytes read per element, 4 written per row; the peer moves 2 bytes per element.
    CHECK(lab.work(sums, {{"rows", 64}, {"cols", 512}}).bytes == 2.0 * 64 * 512 + 4.0 * 64);
    CHECK(lab.peer_work(sums, {{"rows", 64}, {"cols", 512}}).bytes == 2.0 * 64 * 512);
    CHECK(lab.work(matmul, matmul.timed).flops == 2.0 * 256 * 256 * 128);
    // Its own tolerance for the row sums, the lab's bf16 entry for the GEMM.
    CHECK(lab.tolerance_for(sums).rtol == 1.0e-5);
    CHECK(lab.tolerance_for(matmul).rtol == 8.0e-3);
}

TEST_CASE("a variant naming an unknown problem is refused at its line", "[lab]") {
    auto message = lab_error("variant_unknown_problem");
    check_mentions(message, {"lab.yaml:21", "stencil", "reduction"});
}

TEST_CASE("scoring.gap_note: hand-graded points per variant, outside the grader's total", "[lab][gap_note]") {
    TempDir dir;
    auto copy = scoring_lab_copy(dir.path());
    const auto& lab_yaml = copy.lab_yaml;
    write_file(lab_yaml, copy.with("  gap_note: 5\n", "  prediction:"));
    auto lab = load_lab(lab_yaml);
    CHECK(lab.scoring.gap_note == 5);
    CHECK(lab.scoring.total() == 100);  // the grader does not award it
    CHECK(load_lab(fixture_lab("scoring")).scoring.gap_note == 0);  // absent: not graded

    write_file(lab_yaml, copy.with("  gap_note: -1\n", "  prediction:"));
    auto message = input_error_of([&] { load_lab(lab_yaml); });
    INFO(message);
    check_mentions(message, {"lab.yaml:", "gap_note"});
}

TEST_CASE("given_kernels: which kernel files pass as handed out (the GPU test's expectation)", "[lab][given]") {
    auto lab_of = [](const std::string& id) { return load_lab(repo_root() / "labs" / id / "lab.yaml"); };
    auto solutions = [](const LabSpec& lab) { return repo_root() / "solutions" / lab.id; };
    auto check_every_variant = [&](const LabSpec& lab, bool passes_as_given) {
        for (const auto& v : lab.variants) {
            INFO(v.name);
            // An open rung is a skeleton in every lab, lab 02 included: only its contract is given.
            CHECK(given_kernel_passes(lab, v, solutions(lab)) == (passes_as_given && !v.open));
        }
    };
    if (!std::filesystem::is_directory(repo_root() / "solutions")) {
        WARN("the student edition has no solutions/: only the lab.yaml part is checked");
    }

    SECTION("lab 02 says its kernels are correct and slow by design: every variant passes as given") {
        auto lab = lab_of("02-profile");
        CHECK(lab.given_kernels_correct);
        check_every_variant(lab, true);
    }
    SECTION("the default is skeletons: lab 01's files have solutions, so none passes as given") {
        auto lab = lab_of("01-memory-roof");
        CHECK_FALSE(lab.given_kernels_correct);
        if (std::filesystem::is_directory(solutions(lab))) check_every_variant(lab, false);
    }
    SECTION("in a skeleton lab, a file with no solution is given code: lab 04's unfused chain passes, its fix not") {
        auto lab = lab_of("04-fusion");
        CHECK_FALSE(lab.given_kernels_correct);
        if (std::filesystem::is_directory(solutions(lab))) {
            int given = 0, skeletons = 0;
            for (const auto& v : lab.variants) {
                bool passes = given_kernel_passes(lab, v, solutions(lab));
                CHECK(passes == (v.file.filename() == "01_chain_unfused.cu" || v.file.filename() == "03_rmsnorm_naive.cu" ||
                                 v.file.filename() == "05_gemm_bare.cu" ||
                                 v.file.filename() == "06_gemm_bias_gelu_unfused.cu"));
                (passes ? given : skeletons) += 1;
            }
            CHECK(given > 0);
            CHECK(skeletons > 0);
        }
    }
    SECTION("the field is read from lab.yaml, and a wrong value names the file, the line and the choices") {
        TempDir dir;
        auto copy = scoring_lab_copy(dir.path());
        const auto& lab_yaml = copy.lab_yaml;
        CHECK_FALSE(load_lab(lab_yaml).given_kernels_correct);  // absent: skeletons

        write_file(lab_yaml, copy.with("given_kernels: correct\n", "shapes:"));
        auto correct = load_lab(lab_yaml);
        CHECK(correct.given_kernels_correct);
        // Every variant passes, whatever solutions/ holds (here nothing at all).
        CHECK(given_kernel_passes(correct, correct.variants.front(), dir / "no-solutions"));
        // ... but an open rung: its file is the contract only, never given code.
        auto open_rung = correct.variants.front();
        open_rung.open = true;
        CHECK_FALSE(given_kernel_passes(correct, open_rung, dir / "no-solutions"));

        write_file(lab_yaml, copy.with("given_kernels: skeletons\n", "shapes:"));
        auto skeletons = load_lab(lab_yaml);
        CHECK_FALSE(skeletons.given_kernels_correct);
        std::filesystem::create_directories(dir / "solutions" / "kernels");
        write_file(dir / "solutions" / "kernels" / "k.cu", "// the answer\n");
        CHECK_FALSE(given_kernel_passes(skeletons, skeletons.variants.front(), dir / "solutions"));
        CHECK(given_kernel_passes(skeletons, skeletons.variants.front(), dir / "no-solutions"));

        write_file(lab_yaml, copy.with("given_kernels: slow\n", "shapes:"));
        auto message = input_error_of([&] { load_lab(lab_yaml); });
        INFO(message);
        check_mentions(message, {"lab.yaml:7:", "given_kernels", "'slow'", "skeletons", "correct"});
    }
}

TEST_CASE("scoring.byte_prediction: points in the grader's total, 0 when absent", "[lab][bytes]") {
    TempDir dir;
    auto copy = scoring_lab_copy(dir.path());
    const auto& lab_yaml = copy.lab_yaml;
    CHECK(load_lab(lab_yaml).scoring.byte_prediction == 0);
    CHECK(load_lab(lab_yaml).scoring.total() == 100);

    write_file(lab_yaml, copy.with("  byte_prediction: 5\n", "  against:"));
    auto lab = load_lab(lab_yaml);
    CHECK(lab.scoring.byte_prediction == 5);
    CHECK(lab.scoring.total() == 105);
    CHECK(load_lab(repo_root() / "labs" / "02-profile" / "lab.yaml").scoring.total() == 100);

    write_file(lab_yaml, copy.with("  byte_prediction: -5\n", "  against:"));
    auto message = input_error_of([&] { load_lab(lab_yaml); });
    INFO(message);
    check_mentions(message, {"lab.yaml:", "byte_prediction"});
}
