// roofline batch end to end, as an instructor runs it, on this build's lab 01
// without a GPU (--gpus none): a submission that does not compile is named
// compile_error with the compiler's message; finished submissions are skipped
// on a re-run; --merge joins results and names the missing ones.
#include "test_support.hpp"

#include "batch.hpp"
#include "outcome.hpp"
#include "result.hpp"

using namespace roofline;
using namespace roofline::batch;
using namespace roofline_test;
using nlohmann::json;

namespace {


// A finished submission as a batch leaves it.
void fake_finished(const std::filesystem::path& out, const std::string& name, SubmissionOutcome outcome, double score) {
    SubmissionResult r;
    r.submission = name;
    r.outcome = outcome;
    r.score = score;
    r.max_score = 900;
    write_file(submission_dir(out, name) / "result.json", to_json(r).dump());
    write_file(submission_dir(out, name) / "done", "finished\n");
}

}  // namespace

TEST_CASE("batch: a re-run skips finished submissions; --merge names the missing", "[batch]") {
    TempDir dir;
    auto subs = dir / "subs";
    auto out = dir / "out";
    for (auto name : {"ann", "ben"}) std::filesystem::create_directories(subs / name / "kernels");
    fake_finished(out, "ann", SubmissionOutcome::graded, 800);
    fake_finished(out, "ben", SubmissionOutcome::hang, 0);

    auto r = run_cli(course_flags() + " batch 01-memory-roof --gpus none --jobs 1 --submissions " +
                     shell_quote(subs.string()) + " --out " + shell_quote(out.string()));
    INFO(r.all());
    CHECK(r.exit_code == 0);
    CHECK(contains(r.err, "0 to grade, 2 already graded"));
    auto csv = read_file(out / "gradebook.csv");
    check_mentions(csv, {"ann,graded,800.00", "ben,hang,0.00"});
    CHECK(contains(read_file(out / "summary.md"), "| hang | 1 |"));

    // A third submission appears and nobody grades it: --merge reports it and fails.
    std::filesystem::remove(submission_dir(out, "ben") / "done");
    auto m = run_cli("batch --merge " + shell_quote(out.string()));
    CHECK(m.exit_code == 1);
    CHECK(contains(m.err, "ben"));
    CHECK(contains(read_file(out / "summary.md"), "Not graded yet (1):** ben"));
}

TEST_CASE("batch: bad options are one-line errors that say what to do", "[batch]") {
    TempDir dir;
    auto r = run_cli(course_flags() + " batch 01-memory-roof --gpus none --submissions " + shell_quote((dir / "none").string()) +
                     " --out " + shell_quote((dir / "out").string()));
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "not a folder"));
    r = run_cli(course_flags() + " batch 42-nothing --submissions " + shell_quote(dir.path().string()) + " --out x");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "roofline list"));
    r = run_cli("batch --merge " + shell_quote((dir / "nothing").string()));
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "batch.json"));
}

TEST_CASE("batch: a submission that does not compile is named, with the compiler's message", "[batch]") {
    TempDir dir;
    auto subs = dir / "subs";
    auto out = dir / "out";
    // The first file compiled: nvcc stops at the syntax error within seconds.
    write_file(subs / "broken" / "kernels" / "01_copy_naive.cu",
               "#include \"roofline/contract/elementwise.cuh\"\nint oops( {\n");
    auto batch = course_flags() + " batch 01-memory-roof --gpus none --jobs 1 --submissions " +
                 shell_quote(subs.string()) + " --out " + shell_quote(out.string());
    // Finished before (say, with an older file): skipped, until --force regrades it.
    fake_finished(out, "broken", SubmissionOutcome::graded, 700);
    auto skipped = run_cli(batch);
    CHECK(contains(skipped.err, "0 to grade, 1 already graded"));
    CHECK(contains(read_file(out / "gradebook.csv"), "broken,graded,700.00"));
    auto r = run_cli(batch + " --force");
    INFO(r.all());
    CHECK(r.exit_code == 0);
    CHECK(contains(r.err, "[1/1] broken: compile_error"));
    auto result = json::parse(read_file(submission_dir(out, "broken") / "result.json"));
    CHECK(result["outcome"] == "compile_error");
    CHECK(contains(result["reason"].get<std::string>(), "01_copy_naive.cu"));
    CHECK(contains(result["reason"].get<std::string>(), "error"));
    auto gradescope = json::parse(read_file(submission_dir(out, "broken") / "results.json"));
    CHECK(gradescope["score"] == 0);
    CHECK(gradescope["max_score"].get<double>() > 0);
    CHECK(gradescope["tests"].size() == 10);  // lab 01's nine rungs and its open rung
    CHECK(contains(read_file(out / "gradebook.csv"), "broken,compile_error,0.00"));
}

TEST_CASE("batch: the GPU holder ends when its stdin closes, and holds only where there is a GPU", "[batch]") {
    // roofline batch starts one per GPU and closes its stdin when done; with no GPU it must not linger.
    auto r = run_cli("hold-gpu < /dev/null");
    INFO(r.all());
    if (r.exit_code == 0) {
        CHECK(r.out == "holding\n");  // a GPU here: it held a context until stdin closed
    } else {
        CHECK(r.exit_code == 1);  // none: nothing to hold, nothing printed
        CHECK(r.out.empty());
        CHECK(r.err.empty());
    }
}

// Lab 05's CPU part (the layout library) under batch, with no GPU: each submission's
// cpu/*.cpp are staged, compiled with the CPU part's build kit and checked by
// `roofline grade` like its GPU variants (which stop at the device check here).
TEST_CASE("batch: lab 05's CPU part is compiled and graded per submission; a broken one is a compile_error",
          "[batch][layout]") {
    TempDir dir;
    auto subs = dir / "subs";
    auto out = dir / "out";
    // "solved": the reference's layout library; "skeleton": no cpu/ files (graded as the
    // unedited skeletons, noted); "broken": one file that does not compile.
    for (const auto& entry : std::filesystem::directory_iterator(repo_root() / "solutions" / "05-layouts" / "cpu")) {
        write_file(subs / "solved" / "cpu" / entry.path().filename(), read_file(entry.path()));
    }
    std::filesystem::create_directories(subs / "skeleton" / "kernels");
    write_file(subs / "broken" / "cpu" / "03_compose.cpp", "#include \"roofline/contract/layout.hpp\"\nint oops( {\n");
    // Hostile ones (issue 31). "forger": nothing implemented; a static constructor writes a
    // "correct" verdict to every path on its command line and its parent's and to every
    // result.json in the folder around its own, then _exit(0)s. "garbler": the solution, but
    // its static constructor writes a "correct" verdict to the reply descriptor. "chatty":
    // the solution, printing garbage on stdout (as student debugging does) as it starts.
    write_file(subs / "forger" / "cpu" / "01_evaluate.cpp", R"SOURCE(#include "roofline/contract/layout.hpp"
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
namespace {
void forge(const std::filesystem::path& path) {
    std::ofstream(path) << R"({"part": "evaluate", "status": "correct", "cases": 8610, "indices": 1, "message": "forged"})";
}
void forge_arguments(const std::string& cmdline) {
    std::ifstream in(cmdline);
    std::string argument;
    while (std::getline(in, argument, '\0')) {
        if (argument.ends_with(".json")) forge(argument);
    }
}
struct Forger {
    Forger() {
        forge_arguments("/proc/self/cmdline");
        forge_arguments("/proc/" + std::to_string(::getppid()) + "/cmdline");
        std::error_code error;
        // Around its own folder only: outside a sandbox, a wider search would reach other programs' files.
        for (std::filesystem::recursive_directory_iterator it("..", std::filesystem::directory_options::skip_permission_denied, error), end;
             !error && it != end; it.increment(error)) {
            if (it->path().filename() == "result.json") forge(it->path());
        }
        ::_exit(0);
    }
} forger;
}  // namespace
namespace layouts {
long long evaluate(const Layout&, long long) { throw std::logic_error("TODO"); }
}  // namespace layouts
)SOURCE");
    auto solution = [](const std::string& name) {
        return read_file(repo_root() / "solutions" / "05-layouts" / "cpu" / name);
    };
    for (const auto& entry : std::filesystem::directory_iterator(repo_root() / "solutions" / "05-layouts" / "cpu")) {
        auto name = entry.path().filename().string();
        write_file(subs / "garbler" / "cpu" / name, solution(name));
        write_file(subs / "chatty" / "cpu" / name, solution(name));
    }
    write_file(subs / "chatty" / "cpu" / "01_evaluate.cpp",
               "#include <cstdio>\nnamespace { struct Chatter { Chatter() { for (int i = 0; i < 5000; ++i) "
               "std::printf(\"{\\\"runner\\\": \\\"layout\\\"} {\\\"status\\\": \\\"correct\\\"} %d\\n\", i); } } chatter; }\n" +
                   solution("01_evaluate.cpp"));
    write_file(subs / "garbler" / "cpu" / "01_evaluate.cpp",
               "#include <unistd.h>\nnamespace { struct Garbler { Garbler() { const char line[] = "
               "\"{\\\"status\\\": \\\"correct\\\"}\\n\"; (void)::write(3, line, sizeof line - 1); } } garbler; }\n" +
                   solution("01_evaluate.cpp"));

    auto r = run_cli(course_flags() + " batch 05-layouts --gpus none --jobs 2 --submissions " + shell_quote(subs.string()) +
                     " --out " + shell_quote(out.string()));
    INFO(r.all());
    CHECK(r.exit_code == 0);
    CHECK_FALSE(contains(r.err, "does not grade CPU parts"));
    auto variant_of = [](const json& result, const std::string& name) {
        for (const auto& v : result["variants"])
            if (v["name"] == name) return v;
        return json();
    };

    auto solved = json::parse(read_file(submission_dir(out, "solved") / "result.json"));
    for (auto part : {"evaluate", "coalesce", "compose", "complement", "logical_divide", "swizzle", "wavefronts"}) {
        INFO(part << ": " << variant_of(solved, part).dump());
        CHECK(variant_of(solved, part)["outcome"] == "graded");
        CHECK(variant_of(solved, part)["points"].get<double>() == 40);
    }
    CHECK(solved["outcome"] == "no_gpu");  // the transposes need a GPU
    CHECK(solved["correctness"].get<double>() == 7 * 40);

    auto skeleton = json::parse(read_file(submission_dir(out, "skeleton") / "result.json"));
    CHECK(variant_of(skeleton, "evaluate")["outcome"] == "wrong_answer");
    CHECK(variant_of(skeleton, "evaluate")["points"].get<double>() == 0);
    CHECK(skeleton["correctness"].get<double>() == 0);
    CHECK(contains(skeleton["reason"].get<std::string>(), "cpu/01_evaluate.cpp"));  // graded as the skeleton, noted

    // The forged verdict is not taken: the checker's is (the runner ended before answering).
    auto forger = json::parse(read_file(submission_dir(out, "forger") / "result.json"));
    INFO("forger: " << forger.dump());
    CHECK(variant_of(forger, "evaluate")["outcome"] == "crash");
    CHECK(variant_of(forger, "evaluate")["points"].get<double>() == 0);
    CHECK(forger["correctness"].get<double>() == 0);
    auto garbler = json::parse(read_file(submission_dir(out, "garbler") / "result.json"));
    INFO("garbler: " << garbler.dump());
    CHECK(variant_of(garbler, "evaluate")["outcome"] == "crash");
    CHECK(contains(variant_of(garbler, "evaluate").dump(), "not an answer"));
    CHECK(garbler["correctness"].get<double>() == 0);
    auto chatty = json::parse(read_file(submission_dir(out, "chatty") / "result.json"));
    INFO("chatty: " << chatty.dump());
    CHECK(chatty["correctness"].get<double>() == 7 * 40);

    auto broken = json::parse(read_file(submission_dir(out, "broken") / "result.json"));
    CHECK(broken["outcome"] == "compile_error");
    CHECK(contains(broken["reason"].get<std::string>(), "03_compose.cpp"));
    CHECK(contains(read_file(out / "gradebook.csv"), "broken,compile_error,0.00"));
}
