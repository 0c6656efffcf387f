// roofline batch, the parts that need no GPU and no compiler: outcome names and
// classification of a grading run, the gradebook CSV, the summary, the hidden
// file, slices, the build kit and result files.
#include "test_support.hpp"

#include "build_kit.hpp"
#include "class_report.hpp"
#include "gpus.hpp"
#include "gradebook.hpp"
#include "grading.hpp"
#include "hidden.hpp"
#include "html_text.hpp"
#include "outcome.hpp"
#include "result.hpp"
#include "staging.hpp"
#include "summary.hpp"
#include "lab_spec.hpp"

using namespace roofline;
using namespace roofline::batch;
using namespace roofline_test;
using nlohmann::json;

namespace {

LabSpec memory_lab() { return load_lab(repo_root() / "labs" / "01-memory-roof" / "lab.yaml"); }

json scored(const std::string& variant, bool correct, double total, double fraction) {
    return {{"target", "01-memory-roof/" + variant},
            {"correct", correct},
            {"outcome", correct ? "correct" : "incorrect"},
            {"verdict", correct ? "correct" : "wrong"},
            {"fraction_of_roofline", fraction},
            {"points", {{"correctness", correct ? 40.0 : 0.0}, {"performance", total - (correct ? 40.0 : 0.0)},
                        {"prediction", 0.0}, {"total", total}, {"max", 100.0}}}};
}

json failed(const std::string& variant, const std::string& outcome, const std::string& verdict) {
    return {{"target", "01-memory-roof/" + variant}, {"correct", false}, {"outcome", outcome}, {"verdict", verdict},
            {"points", {{"total", 0}, {"max", 100.0}}}};
}

// A grading run whose every variant scored `total`, with `replace` swapped in for one variant.
GradingRun run_with(const LabSpec& lab, const std::string& replace_variant = "", const json& replacement = {}) {
    json all = json::array();
    for (const auto& v : lab.variants) {
        all.push_back(v.name == replace_variant ? replacement : scored(v.name, true, 90, 0.8));
    }
    GradingRun run;
    run.process.exit_code = 0;
    run.stdout_text = all.dump();
    run.timeout_s = 100;
    return run;
}

std::string write_hidden(const TempDir& dir, const std::string& text) {
    auto file = dir / "hidden.yaml";
    write_file(file, text);
    return file.string();
}

}  // namespace

TEST_CASE("batch outcomes have stable names and an order of seriousness", "[batch]") {
    for (auto name : {"graded", "no_predictions", "malformed_predictions", "wrong_answer", "crash", "hang", "no_gpu",
                      "error", "compile_error", "timing_refused", "forbidden_call", "forbidden_symbol", "unsafe_entry"}) {
        auto outcome = parse_submission_outcome(name);
        REQUIRE(outcome);
        CHECK(outcome_name(*outcome) == name);
    }
    CHECK_FALSE(parse_submission_outcome("passed"));
    CHECK(worse(SubmissionOutcome::wrong_answer, SubmissionOutcome::crash) == SubmissionOutcome::crash);
    CHECK(worse(SubmissionOutcome::hang, SubmissionOutcome::crash) == SubmissionOutcome::hang);
    CHECK(worse(SubmissionOutcome::graded, SubmissionOutcome::no_predictions) == SubmissionOutcome::no_predictions);
    CHECK(worse(SubmissionOutcome::compile_error, SubmissionOutcome::hang) == SubmissionOutcome::compile_error);
    // A missing GPU hides no failure of a variant's own (lab 05's CPU parts, graded without one).
    CHECK(worse(SubmissionOutcome::no_gpu, SubmissionOutcome::wrong_answer) == SubmissionOutcome::wrong_answer);
    CHECK(worse(SubmissionOutcome::no_gpu, SubmissionOutcome::crash) == SubmissionOutcome::crash);
    CHECK(worse(SubmissionOutcome::graded, SubmissionOutcome::no_gpu) == SubmissionOutcome::no_gpu);
    CHECK(worse(SubmissionOutcome::no_predictions, SubmissionOutcome::no_gpu) == SubmissionOutcome::no_gpu);
}

TEST_CASE("a variant's grade JSON names its outcome", "[batch]") {
    CHECK(variant_outcome(scored("add_fp32", true, 90, 0.8)) == SubmissionOutcome::graded);
    CHECK(variant_outcome(scored("add_fp32", false, 0, 0)) == SubmissionOutcome::wrong_answer);
    CHECK(variant_outcome(failed("add_fp32", "incorrect", "")) == SubmissionOutcome::wrong_answer);
    CHECK(variant_outcome(failed("add_fp32", "crashed", "")) == SubmissionOutcome::crash);
    CHECK(variant_outcome(failed("add_fp32", "cuda_error", "")) == SubmissionOutcome::crash);
    CHECK(variant_outcome(failed("add_fp32", "timed_out", "")) == SubmissionOutcome::hang);
    CHECK(variant_outcome({{"target", "x/y"}, {"outcome", "no_device"}}) == SubmissionOutcome::no_gpu);
    CHECK(variant_outcome({{"target", "x/y"}, {"outcome", "harness_error"}}) == SubmissionOutcome::error);
    CHECK(variant_outcome(json("not an object")) == SubmissionOutcome::error);
}

TEST_CASE("classifying a grading run: the worst variant names the submission", "[batch]") {
    auto lab = memory_lab();
    double max = lab.scoring.total() * lab.variants.size();

    SECTION("every variant graded") {
        auto r = classify_grading("alice", lab, {}, run_with(lab));
        CHECK(r.outcome == SubmissionOutcome::graded);
        CHECK(r.score == Approx(90.0 * lab.variants.size()));
        CHECK(r.max_score == Approx(max));
        CHECK(r.mean_fraction_of_roofline == Approx(0.8));
        CHECK(r.reason.empty());
    }
    SECTION("one hang among correct variants") {
        auto r = classify_grading("bob", lab, {}, run_with(lab, "add_fp32", failed("add_fp32", "timed_out", "timed out after 8 s")));
        CHECK(r.outcome == SubmissionOutcome::hang);
        CHECK(contains(r.reason, "add_fp32: hang: timed out after 8 s"));
        CHECK(r.score == Approx(90.0 * (lab.variants.size() - 1)));
    }
    SECTION("a crash outranks a wrong answer") {
        auto run = run_with(lab, "scale_fp32", failed("scale_fp32", "crashed", "signal 11"));
        auto all = json::parse(run.stdout_text);
        all[0] = failed(lab.variants[0].name, "incorrect", "3 of 17 wrong");
        run.stdout_text = all.dump();
        CHECK(classify_grading("carol", lab, {}, run).outcome == SubmissionOutcome::crash);
    }
    SECTION("graded, but the prediction log is missing or malformed") {
        auto r = classify_grading("dan", lab, {LogState::missing, "no predictions.yaml", {}}, run_with(lab));
        CHECK(r.outcome == SubmissionOutcome::no_predictions);
        CHECK(r.score > 0);  // partial credit: correctness and performance still count
        CHECK(contains(r.reason, "no predictions.yaml"));
        auto m = classify_grading("erin", lab, {LogState::malformed, "predictions.yaml:3: bad", {}}, run_with(lab));
        CHECK(m.outcome == SubmissionOutcome::malformed_predictions);
        CHECK(contains(m.reason, "predictions.yaml:3"));
    }
    SECTION("a kernel failure is named before a prediction problem") {
        auto run = run_with(lab, "add_bf16", failed("add_bf16", "incorrect", "wrong"));
        CHECK(classify_grading("fay", lab, {LogState::missing, "no predictions.yaml", {}}, run).outcome ==
              SubmissionOutcome::wrong_answer);
    }
    SECTION("the grading process itself hung, died, or printed no JSON") {
        GradingRun hung;
        hung.process.timed_out = true;
        hung.timeout_s = 42;
        auto h = classify_grading("gus", lab, {}, hung);
        CHECK(h.outcome == SubmissionOutcome::hang);
        CHECK(contains(h.reason, "hang (timeout)"));
        CHECK(h.score == 0);
        CHECK(h.max_score == Approx(max));

        GradingRun killed;
        killed.process.signal = 9;
        CHECK(classify_grading("hal", lab, {}, killed).outcome == SubmissionOutcome::crash);

        GradingRun garbage;
        garbage.process.exit_code = 2;
        garbage.stderr_text = "error: labs/01-memory-roof/lab.yaml:3: something";
        auto g = classify_grading("ivy", lab, {}, garbage);
        CHECK(g.outcome == SubmissionOutcome::error);
        CHECK(contains(g.reason, "lab.yaml:3"));
    }
    SECTION("no device: grade stops after the first variant, the rest are named alike") {
        GradingRun run;
        run.process.exit_code = 4;
        run.stdout_text = json::array({{{"target", "01-memory-roof/copy_naive_fp32"}, {"outcome", "no_device"},
                                        {"message", "no CUDA device"}}}).dump();
        auto r = classify_grading("jo", lab, {}, run);
        CHECK(r.outcome == SubmissionOutcome::no_gpu);
        REQUIRE(r.variants.size() == lab.variants.size());
        for (const auto& v : r.variants) CHECK(v.outcome == SubmissionOutcome::no_gpu);
    }
}

TEST_CASE("no GPU: the CPU parts' own failures stay in the outcome column", "[batch][layouts]") {
    auto lab = load_lab(repo_root() / "labs" / "05-layouts" / "lab.yaml");
    const VariantSpec* cpu_part = nullptr;
    for (const auto& v : lab.variants) {
        if (v.cpu_graded && !cpu_part) cpu_part = &v;
    }
    REQUIRE(cpu_part);
    json all = json::array();
    for (const auto& v : lab.variants) {
        if (&v == cpu_part) {
            all.push_back({{"target", "05-layouts/" + v.name}, {"outcome", "incorrect"}, {"graded_on", "cpu"},
                           {"message", "index 3 wrong"}, {"points", {{"total", 0}, {"max", 20}}}});
        } else if (v.cpu_graded) {
            all.push_back({{"target", "05-layouts/" + v.name}, {"outcome", "correct"}, {"graded_on", "cpu"},
                           {"points", {{"total", 20}, {"max", 20}}}});
        } else {
            all.push_back({{"target", "05-layouts/" + v.name}, {"outcome", "no_device"}, {"message", "no CUDA device"}});
        }
    }
    GradingRun run;
    run.process.exit_code = 4;
    run.stdout_text = all.dump();
    auto r = classify_grading("lee", lab, {}, run);
    CHECK(r.outcome == SubmissionOutcome::wrong_answer);
    check_mentions(r.reason, {cpu_part->name + ": wrong_answer: index 3 wrong", ": no_gpu: "});
}

TEST_CASE("the gradebook CSV: a stable header, one quoted row per submission", "[batch]") {
    SubmissionResult a;
    a.submission = "zed";
    a.outcome = SubmissionOutcome::compile_error;
    a.max_score = 900;
    a.reason = "01_copy_naive.cu(12): error: expected a \";\"\nmore, lines";
    SubmissionResult b;
    b.submission = "amy";
    b.outcome = SubmissionOutcome::graded;
    b.score = 812.5;
    b.max_score = 900;
    b.gpu = "1";
    auto csv = gradebook_csv({a, b});
    auto first_newline = csv.find('\n');
    CHECK(csv.substr(0, first_newline) ==
          "submission,outcome,score,max_score,correctness,performance,prediction,"
          "mean_fraction_of_roofline,best_fraction_of_roofline,gpu,seconds,reason,gap_notes,sandbox,logged_hours,"
          "shared_gpu");
    CHECK(count_lines(csv) == 3);  // the header and two rows: the reason's line break is flattened
    CHECK(csv.find("amy,graded,812.50,900.00") < csv.find("zed,compile_error"));  // sorted by name
    CHECK(contains(csv, "\"01_copy_naive.cu(12): error: expected a \"\";\"\" | more, lines\""));
    CHECK(csv_field("plain") == "plain");
    CHECK(csv_field("a,b") == "\"a,b\"");
}

TEST_CASE("a result file round-trips", "[batch]") {
    auto lab = memory_lab();
    auto r = classify_grading("kim", lab, {LogState::missing, "no predictions.yaml", {"a note"}, {"copy_naive_fp32"}},
                              run_with(lab));
    CHECK(r.gap_notes == 1);
    r.gpu = "0";
    r.seconds = 12.5;
    auto back = result_from_json(json::parse(to_json(r).dump()));
    CHECK(back.submission == "kim");
    CHECK(back.outcome == SubmissionOutcome::no_predictions);
    CHECK(back.score == Approx(r.score));
    CHECK(back.variants.size() == r.variants.size());
    CHECK(back.gap_notes == 1);
    CHECK(gradebook_row(back) == gradebook_row(r));
    // gap_notes, sandbox, then logged_hours and shared_gpu: none here
    CHECK(gradebook_row(back).ends_with(",1,unrecorded,,"));
    CHECK_FALSE(back.logged_hours);
    r.logged_hours = 2.25;
    back = result_from_json(json::parse(to_json(r).dump()));
    REQUIRE(back.logged_hours);
    CHECK(*back.logged_hours == Approx(2.25));
    CHECK(gradebook_row(back).ends_with(",1,unrecorded,2.25,"));
    r.logged_hours.reset();
    auto old = to_json(r);
    old.erase("gap_notes");  // a result.json written before gap notes
    CHECK(result_from_json(old).gap_notes == 0);
    r.sandbox = "bwrap";
    r.warnings = {"holds the same files, byte for byte, as lee"};
    back = result_from_json(json::parse(to_json(r).dump()));
    CHECK(back.sandbox == "bwrap");
    CHECK(back.warnings == r.warnings);
    // The warning leads the gradebook's reason (the cut at 400 characters never takes it).
    CHECK(contains(gradebook_row(back), ",\"warning: holds the same files, byte for byte, as lee | no predictions.yaml"));
}

TEST_CASE("a variant timed on a shared GPU: the gradebook, the summary and report.html name the processes; "
          "Gradescope names the variant only", "[batch][shared_gpu]") {
    auto lab = memory_lab();
    TempDir no_variant_files;  // submission_gradescope's per-variant folder: empty, each variant a fallback test
    const auto variant = lab.variants.back().name;
    const std::string note = "another process used the GPU while this was timed: 4242 /tmp/roofline-batch/alice/lab_01 "
                             "(2048 MiB); the time may be slower than the GPU's own";
    auto timed = scored(variant, true, 90, 0.8);
    timed["shared_gpu"] = {{"note", note},
                           {"processes", json::array({{{"pid", 4242}, {"name", "/tmp/roofline-batch/alice/lab_01"},
                                                       {"used_mib", 2048}}})}};
    auto shared = classify_grading("bob", lab, {}, run_with(lab, variant, timed));
    auto alone = classify_grading("amy", lab, {}, run_with(lab));

    SECTION("without shared_gpu in the grading JSON nothing is added") {
        CHECK(alone.shared_gpu.empty());
        CHECK(gradebook_row(alone).ends_with(",unrecorded,,"));  // sandbox, logged_hours, then an empty shared_gpu
        CHECK_FALSE(contains(summary_markdown({"01-memory-roof", 7, "", {}}, {alone}), "shared GPU"));
        CHECK_FALSE(contains(class_report_html({"01-memory-roof", 7, "", {}}, {alone}, {}), "shared-gpu"));
        CHECK_FALSE(contains(submission_gradescope(lab, alone, no_variant_files.path()).dump(), "shared GPU"));
    }
    SECTION("with it: the note, for the instructor, in a column of its own, the score unchanged") {
        REQUIRE(shared.shared_gpu.size() == 1);
        CHECK(shared.shared_gpu[0] == SharedGpuNote{variant, note});
        CHECK(shared.score == Approx(alone.score));
        CHECK(shared.outcome == alone.outcome);
        CHECK_FALSE(contains(shared.reason, "4242"));  // the reason reaches the student (Gradescope)

        auto csv = gradebook_csv({shared});
        CHECK(csv.substr(0, csv.find('\n')).ends_with(",logged_hours,shared_gpu"));  // appended, the rest in place
        CHECK(gradebook_row(shared).ends_with("," + csv_field(variant + ": " + note)));

        auto md = summary_markdown({"01-memory-roof", 7, "", {}}, {alone, shared});
        check_mentions(md, {"## Timed on a shared GPU", "- **bob** " + variant + ": " + note});
        CHECK_FALSE(contains(md, "**amy** "));
        auto html = class_report_html({"01-memory-roof", 7, "", {}}, {alone, shared}, {});
        check_mentions(html, {"<a href='#shared-gpu-title'>", "Timed on a shared GPU", html_escape(note)});

        // The student's results.json: which variant, not whose process.
        auto g = submission_gradescope(lab, shared, no_variant_files.path());
        check_mentions(g["output"].get<std::string>(),
                       {"shared GPU: other processes used the GPU while " + variant + " was timed"});
        CHECK_FALSE(contains(g.dump(), "alice"));
        CHECK_FALSE(contains(g.dump(), "4242"));
        CHECK(g["score"].get<double>() == Approx(shared.score));
    }
    SECTION("result.json keeps the note; one from before the field reads as none") {
        auto back = result_from_json(json::parse(to_json(shared).dump()));
        CHECK(back.shared_gpu == shared.shared_gpu);
        CHECK(gradebook_row(back) == gradebook_row(shared));
        auto old = to_json(shared);
        old.erase("shared_gpu");
        auto old_back = result_from_json(old);
        CHECK(old_back.shared_gpu.empty());
        CHECK(gradebook_row(old_back).ends_with(",unrecorded,,"));
    }
}

TEST_CASE("the summary: outcomes, distribution, leaderboard and failures", "[batch]") {
    auto lab = memory_lab();
    auto good = classify_grading("fast", lab, {}, run_with(lab));
    auto slow = classify_grading("slow", lab, {}, run_with(lab));
    for (auto& v : slow.variants) v.fraction_of_roofline = 0.2;
    add_up(slow);
    auto broken = ungraded_result("broken", lab, SubmissionOutcome::compile_error, "kernels/01_copy_naive.cu(3): error: oops");
    auto md = summary_markdown({"01-memory-roof", 7, "", {"late"}}, {slow, broken, good});
    check_mentions(md, {"## Score distribution", "| compile_error | 1 |", "| graded | 2 |"});
    CHECK(md.find("| 1 | fast |") != std::string::npos);
    CHECK(md.find("| 2 | slow |") != std::string::npos);
    check_mentions(md, {"**broken**: compile_error", "error: oops", "Not graded yet (1):** late", "| 0-9% | 1 |"});
    CHECK_FALSE(contains(md, "Look at these first"));  // nothing to look at

    slow.sandbox = "none";
    broken.warnings = {"the submission folder is a symbolic link to /class/fast"};
    md = summary_markdown({"01-memory-roof", 7, "", {}}, {slow, broken, good});
    check_mentions(md, {"## Look at these first", "graded without a sandbox (--no-sandbox-i-trust-these-submissions), 1 of 3",
                        ": slow", "- broken: the submission folder is a symbolic link to /class/fast"});
}

TEST_CASE("the hidden file replaces shapes, seed and timeouts", "[batch]") {
    TempDir dir;
    auto lab = memory_lab();
    auto file = write_hidden(dir, "lab: 01-memory-roof\nseed: 4242\ntimeout_s: 9\nlaunch_timeout_s: 0.5\n"
                                  "shapes:\n  timed: {n: 33554467}\n  verify: [{n: 5}, {n: 70001}]\n"
                                  "variants:\n  add_bf16: {timed: {n: 67108879}}\n");
    auto hidden = load_hidden(file, lab);
    CHECK(hidden.seed == 4242u);
    auto staged_yaml = dir / "lab" / "01-memory-roof" / "lab.yaml";
    write_hidden_lab_yaml(lab.file, hidden, staged_yaml);
    // load_lab checks that every variant's kernel file exists beside lab.yaml.
    std::filesystem::create_directory_symlink(lab.file.parent_path() / "kernels", staged_yaml.parent_path() / "kernels");
    auto staged = load_lab(staged_yaml);
    CHECK(staged.timeout_s == 9);
    CHECK(staged.launch_timeout_s == 0.5);
    CHECK(lab.launch_timeout_s == 10);  // lab.yaml says nothing: the default
    CHECK(shape_text(staged.timed) == "n=33554467");
    CHECK(staged.verify.size() == 2);
    CHECK(shape_text(staged.variant("add_fp32").timed) == "n=33554467");
    CHECK(shape_text(staged.variant("add_bf16").timed) == "n=67108879");
    CHECK(shape_text(staged.variant("copy_naive_bf16").timed) == shape_text(lab.variant("copy_naive_bf16").timed));
    CHECK(staged.variants.size() == lab.variants.size());
}

TEST_CASE("a bad hidden file names the file, the line and the fix", "[batch]") {
    TempDir dir;
    auto lab = memory_lab();
    auto error_for = [&](const std::string& text) {
        auto file = write_hidden(dir, text);
        return input_error_of([&] { load_hidden(file, lab); });
    };
    auto e = error_for("lab: 01-memory-roof\nshapes:\n  timed: {m: 4096}\n");
    check_mentions(e, {"hidden.yaml:3", "{n}"});
    e = error_for("lab: 01-memory-roof\nsede: 3\n");
    check_mentions(e, {"hidden.yaml:2", "sede"});
    e = error_for("lab: 03-gemm\n");
    check_mentions(e, {"hidden.yaml:1", "01-memory-roof"});
    e = error_for("lab: 01-memory-roof\nvariants:\n  copy_fast: {timed: {n: 5}}\n");
    CHECK(contains(e, "hidden.yaml:3"));
    CHECK(contains(e, "copy_naive_fp32"));  // the list of real variants
    e = error_for("lab: 01-memory-roof\nseed: [1\n");
    check_mentions(e, {"hidden.yaml:", "malformed YAML"});
    e = input_error_of([&] { load_hidden(dir / "nowhere.yaml", lab); });
    check_mentions(e, {"nowhere.yaml", "--hidden instructor/hidden/01-memory-roof.yaml"});
}

TEST_CASE("slices: K/N parsed strictly, every submission in exactly one slice", "[batch]") {
    CHECK(parse_slice("0/4").index == 0);
    CHECK(parse_slice("3/4").count == 4);
    for (auto bad : {"4/4", "-1/2", "1", "a/b", "1/0", "1/2x"}) {
        CHECK(contains(input_error_of([&] { parse_slice(bad); }), "--slice"));
    }
    std::vector<Submission> all;
    for (int i = 0; i < 11; ++i) all.push_back({"s" + std::to_string(100 + i), {}});
    std::map<std::string, int> seen;
    for (int k = 0; k < 3; ++k) {
        auto part = slice_of(all, {k, 3});
        CHECK((part.size() == 3 || part.size() == 4));
        for (const auto& s : part) seen[s.name]++;
    }
    CHECK(seen.size() == all.size());
    for (const auto& [name, count] : seen) CHECK(count == 1);
}

TEST_CASE("the build kit CMake writes is read strictly", "[batch]") {
    auto kit = parse_build_kit("# comment\nlab=01-memory-roof\nnvcc=/usr/local/cuda/bin/nvcc\n"
                               "compile=-I/work/grader/problems\ncompile=-I/usr/include\ncompile=-I/work/grader/problems\n"
                               "compile=-D\ncompile=-O3\nlink=/b/libroofline_lab_main.a\n",
                               "kit");
    CHECK(kit.compile == std::vector<std::string>{"-I/work/grader/problems", "-O3"});
    CHECK(kit.link.size() == 1);
    auto e = input_error_of([] { parse_build_kit("nvcc=/x\nflags=-O3\n", "the.kit"); });
    check_mentions(e, {"the.kit:2", "re-run cmake"});
    CHECK(first_error_line("a.cu(3): warning: x\na.cu(4): error: expected a \";\"\n") == "a.cu(4): error: expected a \";\"");
}

TEST_CASE("lab files: the student's files are those with a solution, the rest is given code", "[batch]") {
    TempDir dir;
    write_file(dir / "labs" / "77-x" / "kernels" / "a.cu", "");
    write_file(dir / "labs" / "77-x" / "kernels" / "given.cu", "");
    write_file(dir / "solutions" / "77-x" / "kernels" / "a.cu", "");
    Workspace ws{dir.path(), dir / "build"};
    auto files = lab_files(ws, "77-x");
    CHECK(files.student == std::vector<std::string>{"a.cu"});
    CHECK(files.given == std::vector<std::string>{"given.cu"});
    std::filesystem::remove_all(dir / "solutions");  // the student edition: every file is the student's
    CHECK(lab_files(ws, "77-x").student.size() == 2);
}

TEST_CASE("--gpus: all, none, a list; indices count the visible devices", "[batch]") {
    const char* before = std::getenv("CUDA_VISIBLE_DEVICES");
    std::string saved = before ? before : "";
    ::setenv("CUDA_VISIBLE_DEVICES", "2,3", 1);
    CHECK(resolve_gpus("all") == std::vector<std::string>{"2", "3"});
    CHECK(resolve_gpus("1") == std::vector<std::string>{"3"});
    CHECK(resolve_gpus("none").empty());
    CHECK(contains(input_error_of([] { resolve_gpus("0,2"); }), "device 2 is not visible"));
    CHECK(contains(input_error_of([] { resolve_gpus("first"); }), "not a device index"));
    if (before) ::setenv("CUDA_VISIBLE_DEVICES", saved.c_str(), 1);
    else ::unsetenv("CUDA_VISIBLE_DEVICES");
}
