// Lab 09's CPU-graded layout library: the reference solution against hand-worked layouts
// (independent of the checker), the checker against the solution and against planted
// wrong answers (each must fail, naming the first wrong index), how a crash, a hang or a
// missing result of the CPU program is reported, and `roofline grade` end to end on the
// skeleton and the solution. The solution's files are linked in where solutions/ exists
// (not in the student edition: tests/CMakeLists.txt).
#include "test_support.hpp"

#include "cpu_grade.hpp"
#include "exit_code.hpp"
#include "lab_spec.hpp"

#include <csignal>

#ifdef ROOFLINE_LAYOUT_SOLUTION
#include "layout/layout_check.hpp"
#endif

using namespace roofline_test;

namespace {

#ifdef ROOFLINE_LAYOUT_SOLUTION
std::vector<long long> table(const layouts::Layout& layout) {
    std::vector<long long> out;
    for (long long i = 0; i < layouts::size(layout); ++i) out.push_back(layouts::evaluate(layout, i));
    return out;
}
#endif

}  // namespace

#ifdef ROOFLINE_LAYOUT_SOLUTION

TEST_CASE("layouts solution: hand-worked layouts", "[layouts]") {
    using layouts::Layout;
    // (4,2):(2,1): index 5 is the coordinate (1,1), offset 3.
    CHECK(table({{4, 2}, {2, 1}}) == std::vector<long long>{0, 2, 4, 6, 1, 3, 5, 7});
    // coalesce: (2,4):(1,2) is 8:1; (2,1,3):(1,7,2) is (2,3):(1,2); shape-1 modes go.
    CHECK(layouts::to_string(layouts::coalesce({{2, 1}, {4, 2}})) == "(8):(1)");
    CHECK(layouts::to_string(layouts::coalesce({{2, 1}, {1, 7}, {3, 2}})) == "(6):(1)");
    CHECK(layouts::to_string(layouts::coalesce({{2, 4}, {1, 7}, {3, 1}})) == "(2,3):(4,1)");
    // CuTe's documented composition: (6,2):(8,2) o (4,3):(3,1) = ((2,2),3):((24,2),8).
    CHECK(table(layouts::compose({{6, 8}, {2, 2}}, {{4, 3}, {3, 1}})) == table({{2, 24}, {2, 2}, {3, 8}}));
    // CuTe's documented complements in 24.
    CHECK(table(layouts::complement({{4, 1}}, 24)) == table({{6, 4}}));
    CHECK(table(layouts::complement({{6, 4}}, 24)) == table({{4, 1}}));
    CHECK(table(layouts::complement({{4, 2}}, 24)) == table({{2, 1}, {3, 8}}));
    CHECK(table(layouts::complement({{2, 1}, {2, 6}}, 24)) == table({{3, 2}, {2, 12}}));
    CHECK(layouts::size(layouts::complement({{4, 1}, {6, 4}}, 24)) == 1);
    // CuTe's documented divide: (4,2,3):(2,1,8) / 4:2 = ((2,2),(2,3)):((4,1),(2,8)).
    CHECK(table(layouts::logical_divide({{4, 2}, {2, 1}, {3, 8}}, {{4, 2}})) ==
          table({{2, 4}, {2, 1}, {2, 2}, {3, 8}}));
    // The 128-byte swizzle of a 64 x 64 bf16 tile: (1, 0) at byte 128 -> chunk 1: 144;
    // (3, 10) at byte 404 -> chunk 1 ^ 3 = 2 of row 3: 384 + 32 + 4 = 420.
    CHECK(layouts::swizzle({3, 4, 3}, 128) == 144);
    CHECK(layouts::swizzle({3, 4, 3}, 404) == 420);
    CHECK(layouts::swizzle({3, 4, 3}, 1023) == 1023 - 112 + 0);  // row 7, chunk 7 ^ 7 = 0
    // A column of a 32 x 32 fp32 tile: 32 words in one bank; padded to 33 words a row: 1.
    std::vector<long long> column, padded, broadcast(32, 64);
    for (long long t = 0; t < 32; ++t) {
        column.push_back(128 * t);
        padded.push_back(132 * t);
    }
    CHECK(layouts::wavefronts(column, 4) == 32);
    CHECK(layouts::wavefronts(padded, 4) == 1);
    CHECK(layouts::wavefronts(broadcast, 4) == 1);
    std::vector<long long> chunks;  // 32 threads x 16 contiguous bytes: 512 bytes, 4 per bank
    for (long long t = 0; t < 32; ++t) chunks.push_back(16 * t);
    CHECK(layouts::wavefronts(chunks, 16) == 4);
}

TEST_CASE("layouts checker: the reference solution passes every part", "[layouts]") {
    for (const auto& part : layouts::part_names()) {
        auto report = layouts::check_part(part, layouts::student_library());
        INFO(part << ": " << report.message);
        CHECK(report.status == "correct");
        CHECK(report.cases >= 60);
        CHECK(report.indices >= 2000);
    }
}

TEST_CASE("layouts checker: a planted wrong answer fails at its first wrong index", "[layouts]") {
    auto library = layouts::student_library();

    SECTION("evaluate with the last mode fastest (row-major) instead of the first") {
        library.evaluate = [](const layouts::Layout& layout, long long index) {
            long long offset = 0;
            for (auto mode = layout.rbegin(); mode != layout.rend(); ++mode) {
                offset += (index % mode->shape) * mode->stride;
                index /= mode->shape;
            }
            return offset;
        };
        auto report = layouts::check_part("evaluate", library);
        CHECK(report.status == "incorrect");
        CHECK(report.first_wrong.index >= 1);
        CHECK(!report.first_wrong.coordinate.empty());
        CHECK(contains(report.message, "index " + std::to_string(report.first_wrong.index)));
        CHECK(report.first_wrong.expected != report.first_wrong.got);
    }
    SECTION("compose whose last mode's stride is off by one") {
        library.compose = [](const layouts::Layout& a, const layouts::Layout& b) {
            auto r = layouts::compose(a, b);
            r.back().stride += 1;
            return r;
        };
        auto report = layouts::check_part("compose", library);
        REQUIRE(report.status == "incorrect");
        // The first case is CuTe's example: the stride of its last mode (3):(8) is hit first at index 4.
        CHECK(report.first_wrong.case_text == "a = (6,2):(8,2), b = (4,3):(3,1)");
        CHECK(report.first_wrong.index == 4);
        CHECK(report.first_wrong.coordinate == "(0,1)");
        CHECK(report.first_wrong.expected == "8");
        CHECK(report.first_wrong.got == "9");
    }
    SECTION("coalesce that merges nothing: the same function, too many modes") {
        library.coalesce = [](const layouts::Layout& layout) { return layout; };
        auto report = layouts::check_part("coalesce", library);
        REQUIRE(report.status == "incorrect");
        CHECK(report.first_wrong.index == -1);
        CHECK((contains(report.message, "has shape 1") || contains(report.message, "could be one")));
    }
    SECTION("swizzle with the row bits taken one bit too high") {
        library.swizzle = [](const layouts::Swizzle& s, long long offset) {
            return layouts::swizzle({s.bits, s.base, s.shift + 1}, offset);
        };
        auto report = layouts::check_part("swizzle", library);
        REQUIRE(report.status == "incorrect");
        CHECK(report.first_wrong.coordinate == "(1,0)");  // row 1, column 0 of the 64 x 64 bf16 tile
        CHECK(report.first_wrong.expected == "144");
        CHECK(report.first_wrong.got == "128");
    }
    SECTION("wavefronts that counts threads per bank, not words (no broadcast)") {
        library.wavefronts = [](const std::vector<long long>& addresses, int) {
            int per_bank[32] = {}, most = 0;
            for (long long a : addresses) most = std::max(most, ++per_bank[(a / 4) % 32]);
            return most;
        };
        auto report = layouts::check_part("wavefronts", library);
        REQUIRE(report.status == "incorrect");
        CHECK(contains(report.first_wrong.case_text, "thread t at byte 0 t"));  // all on one word: 1, not 32
        CHECK(report.first_wrong.expected == "1");
        CHECK(report.first_wrong.got == "32");
    }
    SECTION("a complement with an extra mode of shape 1 is the same function: still correct") {
        library.complement = [](const layouts::Layout& layout, long long cotarget) {
            auto r = layouts::complement(layout, cotarget);
            r.push_back({1, 5});
            return r;
        };
        CHECK(layouts::check_part("complement", library).status == "correct");
    }
    SECTION("logical_divide of the wrong size is wrong as a whole") {
        library.logical_divide = [](const layouts::Layout&, const layouts::Layout& tile) { return tile; };
        auto report = layouts::check_part("logical_divide", library);
        REQUIRE(report.status == "incorrect");
        CHECK(contains(report.message, "must have size"));
    }
    SECTION("a part that throws names the case and the exception") {
        library.complement = [](const layouts::Layout&, long long) -> layouts::Layout {
            throw std::logic_error("TODO: 04_complement is not written yet");
        };
        auto report = layouts::check_part("complement", library);
        CHECK(report.status == "threw");
        check_mentions(report.message, {"complement threw on layout = (4):(1), cotarget = 24", "the skeleton"});
    }
    SECTION("an unknown part lists the parts") {
        std::string message;
        try {
            layouts::check_part("transpose", library);
        } catch (const std::invalid_argument& e) {
            message = e.what();
        }
        check_mentions(message, {"no part 'transpose'", "compose"});
    }
}

#endif  // ROOFLINE_LAYOUT_SOLUTION

TEST_CASE("cpu grade: how the CPU program ended becomes the verdict", "[layouts]") {
    using roofline::interpret_cpu_check;
    roofline::ProcessResult ended;
    ended.exit_code = 0;

    SECTION("a result that says correct") {
        auto v = interpret_cpu_check(ended, nlohmann::json{{"status", "correct"}, {"message", "compose: 4000 cases"}}, "", 60);
        CHECK(v.exit_code == roofline::kGradedCorrect);
        CHECK(v.outcome == "correct");
    }
    SECTION("a wrong index is shown with its case, coordinate, expected and got") {
        ended.exit_code = 1;
        nlohmann::json result{{"status", "incorrect"},
                              {"message", "compose(...) maps index 4 to 9"},
                              {"first_wrong",
                               {{"case", "a = (6,2):(8,2), b = (4,3):(3,1)"},
                                {"index", 4},
                                {"coordinate", "(0,1)"},
                                {"expected", "8"},
                                {"got", "9"}}}};
        auto v = interpret_cpu_check(ended, result, "", 60);
        CHECK(v.exit_code == roofline::kGradedIncorrect);
        check_mentions(v.message, {"index     4 = coordinate (0,1)", "expected  8", "got       9"});
    }
    SECTION("a crash names the signal and the case it crashed on") {
        ended.exit_code = -1;
        ended.signal = SIGSEGV;
        auto v = interpret_cpu_check(ended, std::nullopt,
                                     "roofline-stage: checking compose\n\nroofline-stage: crashed on compose: a = (8):(1), "
                                     "b = (2,4):(4,1)\n", 60);
        CHECK(v.exit_code == roofline::kCrashedOrTimedOut);
        CHECK(v.outcome == "crashed");
        check_mentions(v.message, {"signal 11", "crashed on compose: a = (8):(1), b = (2,4):(4,1)"});
    }
    SECTION("a hang says the timeout and where it was") {
        ended.timed_out = true;
        auto v = interpret_cpu_check(ended, std::nullopt, "roofline-stage: checking complement\n", 60);
        CHECK(v.outcome == "hang");
        check_mentions(v.message, {"60 s", "checking complement"});
    }
    SECTION("an exit without a result is a crash, not a pass") {
        ended.exit_code = 0;
        auto v = interpret_cpu_check(ended, std::nullopt, "", 60);
        CHECK(v.exit_code == roofline::kCrashedOrTimedOut);
        CHECK(contains(v.message, "without a result"));
    }
}

TEST_CASE("lab 09: CPU-graded variants in lab.yaml", "[layouts]") {
    auto lab = roofline::load_lab(repo_root() / "labs/09-layouts/lab.yaml");
    const auto& compose = lab.variant("compose");
    CHECK(compose.cpu_graded);
    CHECK(compose.problem == "layout");
    CHECK(lab.verify_shapes_for(compose).empty());
    CHECK_FALSE(lab.variant("transpose_tma_fp32").cpu_graded);
    CHECK(lab.work(lab.variant("transpose_naive_bf16"), {{"rows", 1024}, {"cols", 512}}).bytes == 2.0 * 1024 * 512 * 2);

    TempDir dir;
    auto yaml = read_file(repo_root() / "labs/09-layouts/lab.yaml");
    auto at = yaml.find("{name: compose, problem: layout,");
    REQUIRE(at != std::string::npos);
    yaml.insert(at + std::string("{name: compose, problem: layout,").size(), " dtype: fp32,");
    fs::create_directories(dir / "09-layouts");
    fs::copy(repo_root() / "labs/09-layouts/cpu", dir / "09-layouts/cpu");
    fs::copy(repo_root() / "labs/09-layouts/kernels", dir / "09-layouts/kernels");
    write_file(dir / "09-layouts/lab.yaml", yaml);
    auto message = input_error_of([&] { roofline::load_lab(dir / "09-layouts/lab.yaml"); });
    check_mentions(message, {"lab.yaml:", "dtype"});
}

TEST_CASE("roofline grade of a CPU-graded variant: no GPU, no prediction", "[layouts][cli]") {
    TempDir dir;
    auto log = " --log " + shell_quote((dir / "predictions.yaml").string());

    auto skeleton = run_cli(course_flags() + " grade 09-layouts/compose --no-build" + log);
    INFO(skeleton.all());
    CHECK(skeleton.exit_code == roofline::kGradedIncorrect);
    check_mentions(skeleton.out, {"09-layouts/compose  INCORRECT (threw)", "not written yet",
                                  "case      a = (6,2):(8,2), b = (4,3):(3,1)", "points    0 / 40"});

    auto predict = run_cli(course_flags() + " predict 09-layouts/compose --time-us 5 --regime memory --why x" + log);
    CHECK(predict.exit_code == roofline::kBadInput);
    CHECK(contains(predict.err, "graded on the CPU"));

    if (fs::exists(repo_root() / "solutions/09-layouts/cpu")) {
        auto solved = run_cli(course_flags() + " grade 09-layouts/swizzle --solutions --no-build --json" + log);
        INFO(solved.all());
        CHECK(solved.exit_code == roofline::kGradedCorrect);
        auto json = nlohmann::json::parse(solved.out);
        CHECK(json["outcome"] == "correct");
        CHECK(json["graded_on"] == "cpu");
        CHECK(json["points"]["total"] == 40);
    }
}

// A CPU grade is a measurement in the log (graded_on: cpu), so the student loop works for
// lab 09's parts: the grade is recorded, `log` lists it, `explain` and `debrief` accept it.
TEST_CASE("a CPU grade is recorded in the log; explain, debrief and log work for it", "[layouts][cli][log]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    auto log = " --log " + shell_quote(file.string());

    auto skeleton = run_cli(course_flags() + " grade 09-layouts/compose --no-build" + log);
    INFO(skeleton.all());
    CHECK(skeleton.exit_code == roofline::kGradedIncorrect);
    auto after_grade = roofline::load_log(file);
    REQUIRE(after_grade.measurements.size() == 1);
    const auto& recorded = after_grade.measurements[0];
    CHECK(recorded.graded_on_cpu);
    CHECK(recorded.lab == "09-layouts");
    CHECK(recorded.variant == "compose");
    CHECK_FALSE(recorded.correct);
    CHECK(recorded.points == 0);
    CHECK(recorded.max_points == 40);
    CHECK(recorded.prediction_id.empty());
    // an incorrect grade opens nothing
    CHECK(run_cli(course_flags() + " explain 09-layouts/compose --why w" + log).exit_code == roofline::kNotGradedYet);

    // A correct grade of the part (as `grade` records it when the student's code passes).
    auto correct = roofline::record_cpu_grade(file, "09-layouts", "compose", true, 40, 40);
    CHECK(correct.id == "m2");
    auto explain = run_cli(course_flags() + " explain 09-layouts/compose --why 'the last mode was left unbounded'" + log);
    INFO(explain.all());
    CHECK(explain.exit_code == 0);
    CHECK(contains(explain.out, "m2"));
    CHECK(contains(explain.out, "graded on the CPU"));
    auto debrief = run_cli(course_flags() + " debrief 09-layouts/compose" + log);
    INFO(debrief.all());
    CHECK(debrief.exit_code == 0);
    auto shown = run_cli(course_flags() + " log --json" + log);
    INFO(shown.all());
    REQUIRE(shown.exit_code == 0);
    auto json = nlohmann::json::parse(shown.out);
    REQUIRE(json["graded_on_cpu"].size() == 2);
    CHECK(json["graded_on_cpu"][1]["correct"] == true);
    CHECK(json["graded_on_cpu"][1]["gap_notes"].size() == 1);
    CHECK(json["calibration"]["all"]["count"] == 0);  // no time, no prediction: outside the calibration
    auto text = run_cli(course_flags() + " log" + log);
    CHECK(contains(text.out, "graded on the CPU"));
    CHECK(contains(text.out, "09-layouts/compose"));
}

TEST_CASE("roofline batch grades a lab with CPU-graded parts instead of refusing it", "[layouts][cli]") {
    // It used to refuse (exit 2, naming the line); test_batch_run.cpp checks what it grades.
    TempDir dir;
    fs::create_directories(dir / "subs/alice/kernels");
    auto r = run_cli(course_flags() + " batch 09-layouts --submissions " + shell_quote((dir / "subs").string()) +
                     " --out " + shell_quote((dir / "grades").string()) + " --gpus none --jobs 2");
    INFO(r.all());
    CHECK(r.exit_code == 0);
    CHECK_FALSE(contains(r.err, "is graded on the CPU"));
    CHECK(contains(r.err, "[1/1] alice:"));
    CHECK(contains(read_file(dir / "grades" / "gradebook.csv"), "alice,"));
}
