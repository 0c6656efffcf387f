// Lab 05's CPU-graded layout library: the reference solution against hand-worked layouts
// (independent of the checker), the checker against the solution and against planted
// wrong answers (each must fail, naming the first wrong index), the checker program
// (roofline-layout-check) against runners that misbehave (a forged verdict, garbage on
// stdout or on the replies, an early exit, a signal, a hang, a flood), how the checker's
// verdict becomes the grade, and `roofline grade` end to end on the skeleton, the solution
// and a runner that forges the verdict. The solution's files are linked in where
// solutions/ exists (not in the student edition: tests/CMakeLists.txt).
#include "test_support.hpp"

#include "cpu_grade.hpp"
#include "exit_code.hpp"
#include "lab_spec.hpp"
#include "layout/layout_check.hpp"
#include "layout/query_child.hpp"
#include "layout/remote_library.hpp"
#include "sandbox_support.hpp"

#include <sys/stat.h>

#include <chrono>
#include <csignal>
#include <thread>

using namespace roofline_test;

namespace {

fs::path layout_checker() { return fs::path(ROOFLINE_BUILD_DIR) / "roofline-layout-check"; }
fs::path layout_runner(bool solution) {
    return fs::path(ROOFLINE_BUILD_DIR) / "labs" / (solution ? "solution-05-layouts-cpu" : "lab-05-layouts-cpu");
}

// A runner that is a shell script: `body` runs with the requests on stdin and the replies
// on file descriptor 3, like lab-05-layouts-cpu --serve.
fs::path script_runner(const fs::path& dir, const std::string& name, const std::string& body) {
    auto file = dir / name;
    write_file(file, "#!/bin/sh\n" + body + "\n");
    ::chmod(file.c_str(), 0755);
    return file;
}

// `reply TEXT`: replies {"id": ID, TEXT} to the request just read, as lab 05's runner does;
// then the hello, answered.
const std::string kHello =
    "reply() { printf '{\"id\": %s, %s}\\n' \"$(printf '%s' \"$request\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/')\" \"$1\" >&3; }\n"
    "read request; reply '\"runner\": \"layout\"'\n";

struct CheckerRun {
    int exit_code = -1;
    nlohmann::json result;  // the verdict file, or null when there is none
    std::string err;
    double seconds = 0;
};

// roofline-layout-check on one part, with `runner` (argv) behind `--`.
// `settle_s`: how long to wait after it ends before reading the verdict (for a runner that
// leaves something behind to rewrite it).
CheckerRun run_checker(const std::string& part, const std::vector<std::string>& runner, double timeout_s = 60,
                       bool sandboxed = false, double settle_s = 0) {
    TempDir dir;
    auto result = dir / "result.json";
    std::string command = shell_quote(layout_checker().string()) + " --part " + part + " --result " +
                          shell_quote(result.string()) + " --timeout " + std::to_string(timeout_s) +
                          (sandboxed ? " --sandboxed" : "") + " --";
    for (const auto& word : runner) command += " " + shell_quote(word);
    command = "cd " + shell_quote(dir.path().string()) + " && " + command + " > /dev/null 2> " +
              shell_quote((dir / "err.txt").string()) + " < /dev/null";
    auto began = std::chrono::steady_clock::now();
    int status = std::system(command.c_str());
    CheckerRun run;
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    run.err = read_file(dir / "err.txt");
    std::this_thread::sleep_for(std::chrono::duration<double>(settle_s));
    if (fs::exists(result)) run.result = nlohmann::json::parse(read_file(result), nullptr, false);
    return run;
}

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
    SECTION("compose that bounds a's last mode (b may not reach past size(a)): the lesson says it runs on") {
        // It passed every case of the checker before the cases past size(a) (issue 33, item 11).
        library.compose = [](const layouts::Layout& a, const layouts::Layout& b) {
            for (long long i = 0; i < layouts::size(b); ++i) {
                if (layouts::evaluate(b, i) >= layouts::size(a)) throw std::invalid_argument("compose: b runs past a");
            }
            return layouts::compose(a, b);
        };
        auto report = layouts::check_part("compose", library);
        CHECK(report.status == "threw");
        CHECK(report.first_wrong.case_text == "a = (2,3):(1,4), b = (2,6):(1,2)");
        library.compose = [](const layouts::Layout& a, const layouts::Layout& b) {  // or stops a's last mode at its shape
            auto r = layouts::compose(a, b);
            long long reach = 0;
            for (long long i = 0; i < layouts::size(b); ++i) reach = std::max(reach, layouts::evaluate(b, i));
            if (reach >= layouts::size(a)) r.back().shape = std::max(1LL, r.back().shape / 2);
            return r;
        };
        report = layouts::check_part("compose", library);
        CHECK(report.status == "incorrect");
        CHECK(report.first_wrong.case_text == "a = (2,3):(1,4), b = (2,6):(1,2)");
        CHECK(contains(report.message, "must have size 12"));
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

TEST_CASE("cpu grade: the checker's verdict file becomes the grade; no verdict is never a pass", "[layouts]") {
    using roofline::interpret_cpu_check;
    roofline::ProcessResult ended;  // how the checker (roofline-layout-check) ended
    ended.exit_code = 0;

    SECTION("a verdict that says correct") {
        auto v = interpret_cpu_check(ended, nlohmann::json{{"status", "correct"}, {"message", "compose: 4500 cases"}}, "", 90);
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
        auto v = interpret_cpu_check(ended, result, "", 90);
        CHECK(v.exit_code == roofline::kGradedIncorrect);
        CHECK(v.outcome == "incorrect");
        check_mentions(v.message, {"index     4 = coordinate (0,1)", "expected  8", "got       9"});
    }
    SECTION("the runner's crash, hang and bad reply, as the checker names them") {
        ended.exit_code = 1;
        nlohmann::json crashed{{"status", "crashed"},
                               {"message", "your code crashed (Segmentation fault, signal 11) (on compose: a = (8):(1), b = (2,4):(4,1))"},
                               {"first_wrong", {{"case", "a = (8):(1), b = (2,4):(4,1)"}, {"index", -1}}}};
        auto v = interpret_cpu_check(ended, crashed, "", 90);
        CHECK(v.exit_code == roofline::kCrashedOrTimedOut);
        CHECK(v.outcome == "crashed");
        check_mentions(v.message, {"signal 11", "on compose: a = (8):(1), b = (2,4):(4,1)", "case      a = (8):(1)"});
        auto hang = interpret_cpu_check(ended, nlohmann::json{{"status", "hang"}, {"message", "no answer within 60 s"}}, "", 90);
        CHECK(hang.outcome == "hang");
        CHECK(hang.exit_code == roofline::kCrashedOrTimedOut);
        auto bad = interpret_cpu_check(ended, nlohmann::json{{"status", "bad_reply"}, {"message", "the runner's reply is not an answer"}},
                                       "", 90);
        CHECK(bad.outcome == "crashed");
        CHECK(bad.exit_code == roofline::kCrashedOrTimedOut);
        CHECK(contains(bad.message, "not an answer"));
    }
    SECTION("a checker that ends without a verdict is the grader's failure, not a pass") {
        auto v = interpret_cpu_check(ended, std::nullopt, "roofline-layout-check: something broke\n", 90);
        CHECK(v.exit_code == roofline::kCrashedOrTimedOut);
        CHECK(v.outcome == "error");
        check_mentions(v.message, {"grader's checker ended (exit 0) without a verdict", "something broke"});
    }
    SECTION("a verdict file left by a checker that was killed or timed out does not count") {
        nlohmann::json forged{{"status", "correct"}, {"message", "forged"}};
        ended.signal = SIGKILL;
        CHECK(interpret_cpu_check(ended, forged, "", 90).outcome == "error");
        ended.signal = 0;
        ended.timed_out = true;
        CHECK(interpret_cpu_check(ended, forged, "", 90).outcome == "error");
        ended.timed_out = false;
        ended.exit_code = 1;  // a checker that said correct exits 0
        CHECK(interpret_cpu_check(ended, forged, "", 90).exit_code != roofline::kGradedCorrect);
    }
}

TEST_CASE("layout checker program: the runner only answers; what it does wrong is the part's failure", "[layouts][checker]") {
    TempDir dir;
    REQUIRE(fs::exists(layout_checker()));

    SECTION("a runner that forges the verdict file and exits before answering: crashed, never correct") {
        // It finds the checker's verdict file on the checker's command line (its parent's),
        // writes "correct" there (and in its folder), leaves a job rewriting it, and exits 0.
        auto runner = script_runner(dir.path(), "forger",
                                    "forge() { printf '{\"status\": \"correct\", \"message\": \"forged\"}' > \"$1\"; }\n"
                                    "result=$(tr '\\0' '\\n' < /proc/$PPID/cmdline | sed -n '/^--result$/{n;p;}')\n"
                                    "[ -n \"$result\" ] || exit 9\n"
                                    "forge \"$result\"; forge \"$result.tmp\"; forge result.json\n"
                                    "( for i in 1 2 3 4 5 6 7 8 9 10; do forge \"$result\"; sleep 0.2; done ) &\n"
                                    "exit 0");
        // Read a second after the checker ended: the job would have rewritten it by then.
        auto run = run_checker("evaluate", {runner.string()}, 60, false, 1.0);
        INFO(run.result.dump() << run.err);
        CHECK(run.exit_code == 1);
        CHECK(run.result["status"] == "crashed");
        check_mentions(run.result.value("message", ""), {"before its first answer", "exit 0", "static constructor"});
    }
    if (fs::exists(layout_runner(true))) {
        SECTION("a runner that prints garbage on stdout and stderr still grades correct when its answers are right") {
            auto runner = script_runner(dir.path(), "chatty",
                                        "i=0; while [ $i -lt 2000 ]; do echo '{\"status\": \"correct\"} garbage'; "
                                        "echo '{\"runner\": \"layout\"}'; i=$((i+1)); done\n"
                                        "echo 'stderr garbage' >&2\n"
                                        "exec " + shell_quote(layout_runner(true).string()) + " --serve");
            auto run = run_checker("swizzle", {runner.string()});
            INFO(run.result.dump() << run.err);
            CHECK(run.exit_code == 0);
            CHECK(run.result["status"] == "correct");
        }
    }
    SECTION("garbage on the replies is a bad reply, quoted") {
        auto runner = script_runner(dir.path(), "garbler", kHello + "while read request; do echo 'the answer is 42' >&3; done");
        auto run = run_checker("compose", {runner.string()});
        INFO(run.result.dump());
        CHECK(run.exit_code == 1);
        CHECK(run.result["status"] == "bad_reply");
        check_mentions(run.result.value("message", ""),
                       {"not an answer", "'the answer is 42'", "file descriptor 3", "on compose: a = (6,2):(8,2), b = (4,3):(3,1)"});
    }
    SECTION("a forged verdict sent as the reply is a bad reply") {
        auto runner = script_runner(dir.path(), "replier", "while read request; do echo '{\"status\": \"correct\"}' >&3; done");
        auto run = run_checker("evaluate", {runner.string()});
        CHECK(run.result["status"] == "bad_reply");
        CHECK(contains(run.result.value("message", ""), "is this lab 05's runner"));
    }
    SECTION("the wrong number of values is a bad reply") {
        auto runner = script_runner(dir.path(), "counter", kHello + "while read request; do reply '\"values\": [0, 0]'; done");
        auto run = run_checker("evaluate", {runner.string()});
        CHECK(run.result["status"] == "bad_reply");
        check_mentions(run.result.value("message", ""), {"2 values for 1 inputs", "on evaluate: layout (1):(0)"});
    }
    SECTION("running out of memory (std::bad_alloc past the runner's limit) names the limit") {
        auto runner = script_runner(dir.path(), "hog", kHello + "while read request; do reply '\"threw\": \"std::bad_alloc\"'; done");
        auto run = run_checker("compose", {runner.string()});
        CHECK(run.result["status"] == "threw");
        check_mentions(run.result.value("message", ""), {"std::bad_alloc", "may use 2048 MiB of memory"});
    }
    SECTION("a mode that is not two integers is a bad reply") {
        auto runner = script_runner(dir.path(), "moder", kHello + "while read request; do reply '\"layout\": [[4, 1.5]]'; done");
        auto run = run_checker("coalesce", {runner.string()});
        CHECK(run.result["status"] == "bad_reply");
        CHECK(contains(run.result.value("message", ""), "two integers"));
    }
    SECTION("two replies to one request are a bad reply") {
        auto runner = script_runner(dir.path(), "twice",
                                    kHello + "while read request; do reply '\"value\": 1'; reply '\"value\": 1'; done");
        auto run = run_checker("wavefronts", {runner.string()});
        CHECK(run.result["status"] == "bad_reply");
        check_mentions(run.result.value("message", ""), {"the reply to request 1 where request 2 was awaited",
                                                         "two replies to one request"});
    }
    SECTION("a reply that never ends its line is cut off at the limit") {
        auto runner = script_runner(dir.path(), "flood", kHello + "read request; head -c 3000000 /dev/zero | tr '\\0' x >&3; sleep 30");
        auto run = run_checker("compose", {runner.string()});
        CHECK(run.result["status"] == "bad_reply");
        CHECK(contains(run.result.value("message", ""), "ran past 1048576 bytes"));
        CHECK(run.seconds < 20);  // not the runner's 30 s: cut off, then killed
    }
    SECTION("an exit in the middle of the answers is a crash, with the case") {
        auto runner = script_runner(dir.path(), "quitter", kHello + "read request; echo 'giving up' >&2; exit 3");
        auto run = run_checker("complement", {runner.string()});
        CHECK(run.result["status"] == "crashed");
        check_mentions(run.result.value("message", ""),
                       {"exit 3", "in the middle of its answers", "giving up", "on complement: layout = (4):(1), cotarget = 24"});
    }
    SECTION("an exit that leaves a child holding the replies open is still an exit, not a hang") {
        auto runner = script_runner(dir.path(), "leaver", kHello + "read request; sleep 30 & exit 4");
        auto run = run_checker("compose", {runner.string()});
        CHECK(run.result["status"] == "crashed");
        CHECK(contains(run.result.value("message", ""), "exit 4"));
        CHECK(run.seconds < 20);
    }
    SECTION("a signal is named") {
        auto runner = script_runner(dir.path(), "segv", kHello + "read request; kill -SEGV $$");
        auto run = run_checker("logical_divide", {runner.string()});
        CHECK(run.result["status"] == "crashed");
        check_mentions(run.result.value("message", ""), {"signal 11", "on logical_divide: layout = (4,2,3):(2,1,8)"});
    }
    SECTION("in a sandbox, exit 128 + N is the signal N bwrap handed back") {
        auto runner = script_runner(dir.path(), "sandboxed", kHello + "read request; exit 139");
        auto run = run_checker("swizzle", {runner.string()}, 60, true);
        CHECK(run.result["status"] == "crashed");
        CHECK(contains(run.result.value("message", ""), "signal 11"));
    }
    SECTION("a hang is a hang, stopped at the timeout, naming the case") {
        auto runner = script_runner(dir.path(), "sleeper", kHello + "read request; sleep 300");
        auto run = run_checker("compose", {runner.string()}, 2);
        INFO(run.result.dump());
        CHECK(run.exit_code == 1);
        CHECK(run.result["status"] == "hang");
        check_mentions(run.result.value("message", ""), {"no answer within 2 s", "on compose: a = (6,2):(8,2)"});
        CHECK(run.seconds < 60);
    }
    SECTION("a runner that is not there is the checker's failure (status error, exit 3)") {
        auto run = run_checker("compose", {(dir / "no-such-runner").string()});
        CHECK(run.exit_code == 3);
        CHECK(run.result["status"] == "error");
        CHECK(contains(run.result.value("message", ""), "cannot start the runner"));
    }
    SECTION("bad arguments: exit 2, no verdict") {
        auto run = run_checker("transpose", {"/bin/true"});
        CHECK(run.exit_code == 2);
        CHECK(run.result.is_null());
        CHECK(contains(run.err, "no part 'transpose'"));
    }
}

TEST_CASE("layout checker program: the skeleton's runner throws, the solution's is correct on every part",
          "[layouts][checker]") {
    auto skeleton = run_checker("compose", {layout_runner(false).string(), "--serve"});
    INFO(skeleton.result.dump() << skeleton.err);
    CHECK(skeleton.exit_code == 1);
    CHECK(skeleton.result["status"] == "threw");
    check_mentions(skeleton.result.value("message", ""), {"compose threw on a = (6,2):(8,2), b = (4,3):(3,1)",
                                                          "TODO: 03_compose is not written yet", "the skeleton"});
    if (!fs::exists(layout_runner(true))) return;  // the student edition
    for (const auto& part : layouts::part_names()) {
        auto run = run_checker(part, {layout_runner(true).string(), "--serve"});
        INFO(part << ": " << run.result.dump() << run.err);
        CHECK(run.exit_code == 0);
        CHECK(run.result["status"] == "correct");
        CHECK(run.result.value("cases", 0) >= 60);
    }
}

#ifdef ROOFLINE_LAYOUT_SOLUTION
TEST_CASE("layout checker: the remote library agrees with the solution in process, threw included", "[layouts][checker]") {
    // The same planted checks as in process, through the protocol: a wrong answer from the
    // runner is reported exactly as the in-process one.
    TempDir dir;
    cpu_part::QueryChild runner({layout_runner(true).string(), "--serve"}, dir / "stderr.txt", {});
    auto remote = layouts::remote_library(runner);
    CHECK(remote.evaluate({{4, 2}, {2, 1}}, 5) == 3);
    CHECK(layouts::to_string(remote.compose({{6, 8}, {2, 2}}, {{4, 3}, {3, 1}})) ==
          layouts::to_string(layouts::compose({{6, 8}, {2, 2}}, {{4, 3}, {3, 1}})));
    CHECK(remote.swizzle({3, 4, 3}, 404) == 420);
    auto table = remote.evaluate_table({{2, 1}, {2, 4}});
    CHECK(table.values == std::vector<long long>{0, 1, 4, 5});
    CHECK_FALSE(table.threw);
    // The solution's compose throws where b's strides do not divide a: the runner says so.
    std::string threw;
    try {
        remote.compose({{3, 1}, {4, 5}}, {{2, 2}});
    } catch (const std::runtime_error& e) {
        threw = e.what();
    }
    CHECK(contains(threw, "compose: stride 2 does not divide"));
    runner.finish();
}
#endif
TEST_CASE("lab 05: CPU-graded variants in lab.yaml", "[layouts]") {
    auto lab = roofline::load_lab(repo_root() / "labs/05-layouts/lab.yaml");
    const auto& compose = lab.variant("compose");
    CHECK(compose.cpu_graded);
    CHECK(compose.problem == "layout");
    CHECK(lab.verify_shapes_for(compose).empty());
    CHECK_FALSE(lab.variant("transpose_tma_fp32").cpu_graded);
    CHECK(lab.work(lab.variant("transpose_naive_bf16"), {{"rows", 1024}, {"cols", 512}}).bytes == 2.0 * 1024 * 512 * 2);

    TempDir dir;
    auto yaml = read_file(repo_root() / "labs/05-layouts/lab.yaml");
    auto at = yaml.find("{name: compose, problem: layout,");
    REQUIRE(at != std::string::npos);
    yaml.insert(at + std::string("{name: compose, problem: layout,").size(), " dtype: fp32,");
    fs::create_directories(dir / "05-layouts");
    fs::copy(repo_root() / "labs/05-layouts/cpu", dir / "05-layouts/cpu");
    fs::copy(repo_root() / "labs/05-layouts/kernels", dir / "05-layouts/kernels");
    write_file(dir / "05-layouts/lab.yaml", yaml);
    auto message = input_error_of([&] { roofline::load_lab(dir / "05-layouts/lab.yaml"); });
    check_mentions(message, {"lab.yaml:", "dtype"});
}

TEST_CASE("roofline grade of a CPU-graded variant: no GPU, no prediction", "[layouts][cli]") {
    TempDir dir;
    auto log = " --log " + shell_quote((dir / "predictions.yaml").string());

    auto skeleton = run_cli(course_flags() + " grade 05-layouts/compose --no-build" + log);
    INFO(skeleton.all());
    CHECK(skeleton.exit_code == roofline::kGradedIncorrect);
    check_mentions(skeleton.out, {"05-layouts/compose  INCORRECT (threw)", "not written yet",
                                  "case      a = (6,2):(8,2), b = (4,3):(3,1)", "points    0 / 40"});

    auto predict = run_cli(course_flags() + " predict 05-layouts/compose --time-us 5 --regime memory --why x" + log);
    CHECK(predict.exit_code == roofline::kBadInput);
    CHECK(contains(predict.err, "graded on the CPU"));

    if (fs::exists(repo_root() / "solutions/05-layouts/cpu")) {
        auto solved = run_cli(course_flags() + " grade 05-layouts/swizzle --solutions --no-build --json" + log);
        INFO(solved.all());
        CHECK(solved.exit_code == roofline::kGradedCorrect);
        auto json = nlohmann::json::parse(solved.out);
        CHECK(json["outcome"] == "correct");
        CHECK(json["graded_on"] == "cpu");
        CHECK(json["points"]["total"] == 40);
    }
}

// A build folder whose lab-05-layouts-cpu is `runner_script` (a shell script), for
// `roofline grade --build-dir`; the checker is the one beside roofline, never this folder's.
static fs::path build_with_runner(const TempDir& dir, const std::string& runner_script) {
    auto build = dir / "build";
    fs::create_directories(build / "labs");
    script_runner(build / "labs", "lab-05-layouts-cpu", runner_script);
    return build;
}

// The forger of issue 31: finds the verdict file (on its parent's command line, and in the
// folder above its own), writes "correct" there, and exits 0 before answering anything.
const std::string kForger =
    "forge() { printf '{\"status\": \"correct\", \"message\": \"forged\", \"cases\": 1}' > \"$1\" 2>/dev/null; }\n"
    "result=$(tr '\\0' '\\n' < /proc/$PPID/cmdline 2>/dev/null | sed -n '/^--result$/{n;p;}')\n"
    "[ -n \"$result\" ] && forge \"$result\"\n"
    "for f in ../result.json ../*/result.json; do forge \"$f\"; done\n"
    "exit 0";

TEST_CASE("roofline grade: a runner that forges the verdict is graded a crash, in the sandbox and out of it",
          "[layouts][cli]") {
    TempDir dir;
    auto build = build_with_runner(dir, kForger);
    auto flags = "--root " + shell_quote(repo_root().string()) + " --build-dir " + shell_quote(build.string());
    auto log = " --log " + shell_quote((dir / "predictions.yaml").string());
    auto plain = run_cli(flags + " grade 05-layouts/evaluate --no-build" + log);
    INFO(plain.all());
    CHECK(plain.exit_code == roofline::kCrashedOrTimedOut);
    check_mentions(plain.out, {"05-layouts/evaluate  FAILED (crashed)", "before its first answer", "points    0 / 40"});
    CHECK_FALSE(contains(plain.out, "CORRECT"));

    auto sandbox = working_sandbox();
    ScopedEnv handed(roofline::kSandboxVariable, roofline::sandbox_to_environment(sandbox));
    auto boxed = run_cli(flags + " grade 05-layouts/evaluate --no-build --json" + log);
    INFO(boxed.all());
    CHECK(boxed.exit_code == roofline::kCrashedOrTimedOut);
    auto json = nlohmann::json::parse(boxed.out, nullptr, false);
    CHECK(json.value("outcome", "") == "crashed");
    CHECK(json.value("correct", true) == false);

    if (fs::exists(layout_runner(true))) {  // and an honest runner in the sandbox answers through it
        auto solved = run_cli(course_flags() + " grade 05-layouts/compose --solutions --no-build --json" + log);
        INFO(solved.all());
        CHECK(solved.exit_code == roofline::kGradedCorrect);
    }
}

// A CPU grade is a measurement in the log (graded_on: cpu), so the student loop works for
// lab 05's parts: the grade is recorded, `log` lists it, `explain` and `debrief` accept it.
TEST_CASE("a CPU grade is recorded in the log; explain, debrief and log work for it", "[layouts][cli][log]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    auto log = " --log " + shell_quote(file.string());

    auto skeleton = run_cli(course_flags() + " grade 05-layouts/compose --no-build" + log);
    INFO(skeleton.all());
    CHECK(skeleton.exit_code == roofline::kGradedIncorrect);
    auto after_grade = roofline::load_log(file);
    REQUIRE(after_grade.measurements.size() == 1);
    const auto& recorded = after_grade.measurements[0];
    CHECK(recorded.graded_on_cpu);
    CHECK(recorded.lab == "05-layouts");
    CHECK(recorded.variant == "compose");
    CHECK_FALSE(recorded.correct);
    CHECK(recorded.points == 0);
    CHECK(recorded.max_points == 40);
    CHECK(recorded.prediction_id.empty());
    // an incorrect grade opens nothing
    CHECK(run_cli(course_flags() + " explain 05-layouts/compose --why w" + log).exit_code == roofline::kNotGradedYet);

    // A correct grade of the part (as `grade` records it when the student's code passes).
    auto correct = roofline::record_cpu_grade(file, "05-layouts", "compose", true, 40, 40);
    CHECK(correct.id == "m2");
    auto explain = run_cli(course_flags() + " explain 05-layouts/compose --why 'the last mode was left unbounded'" + log);
    INFO(explain.all());
    CHECK(explain.exit_code == 0);
    CHECK(contains(explain.out, "m2"));
    CHECK(contains(explain.out, "graded on the CPU"));
    auto debrief = run_cli(course_flags() + " debrief 05-layouts/compose" + log);
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
    CHECK(contains(text.out, "05-layouts/compose"));
}

TEST_CASE("roofline batch grades a lab with CPU-graded parts instead of refusing it", "[layouts][cli]") {
    // It used to refuse (exit 2, naming the line); test_batch_run.cpp checks what it grades.
    TempDir dir;
    fs::create_directories(dir / "subs/alice/kernels");
    auto r = run_cli(course_flags() + " batch 05-layouts --submissions " + shell_quote((dir / "subs").string()) +
                     " --out " + shell_quote((dir / "grades").string()) + " --gpus none --jobs 2");
    INFO(r.all());
    CHECK(r.exit_code == 0);
    CHECK_FALSE(contains(r.err, "is graded on the CPU"));
    CHECK(contains(r.err, "[1/1] alice:"));
    CHECK(contains(read_file(dir / "grades" / "gradebook.csv"), "alice,"));
}
