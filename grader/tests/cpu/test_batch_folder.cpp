// The batch's folder and processes (issue 33): a batch holds a lock on its --out folder, so a
// second one on the same folder refuses at once, naming the first's pid, while a lock file left
// by a dead batch blocks nothing; a child the batch starts dies with it, even by SIGKILL; the
// staging trees of killed batches are removed; a submission's name that the compilers cannot
// take is staged under a safe one and a gradebook cell never runs as a spreadsheet formula; an
// oversized prediction log is malformed without being read; a result that cannot be written
// fails the batch, naming the submission.
#include "test_support.hpp"

#include "batch.hpp"
#include "gradebook.hpp"
#include "out_lock.hpp"
#include "outcome.hpp"
#include "result.hpp"
#include "staging.hpp"
#include "process.hpp"

#include <fmt/format.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

using namespace roofline;
using namespace roofline::batch;
using namespace roofline_test;

namespace {

// A finished submission as a batch leaves it (so a batch over it has nothing to grade).
void fake_finished(const fs::path& out, const std::string& name) {
    SubmissionResult r;
    r.submission = name;
    r.outcome = SubmissionOutcome::graded;
    r.score = 800;
    r.max_score = 900;
    write_file(submission_dir(out, name) / "result.json", to_json(r).dump());
    write_file(submission_dir(out, name) / "done", "finished\n");
}

// A pid that was running and is no more (reaped: nothing answers to it).
pid_t dead_pid() {
    pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    int status = 0;
    ::waitpid(child, &status, 0);
    return child;
}

// Whether `pid` is running (a zombie waiting for init to reap it counts as ended).
bool running(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    auto close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

// Waits (up to `limit`) for `done`; a bound on a wait, not a measurement.
bool eventually(const std::function<bool()>& done, std::chrono::seconds limit = std::chrono::seconds(30)) {
    auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
        if (done()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return done();
}

}  // namespace

TEST_CASE("batch folder: a second batch on one --out refuses at once, naming the first's pid", "[batch][folder]") {
    TempDir dir;
    auto out = dir / "out";
    fs::create_directories(out);
    auto me = fmt::format("pid {}", ::getpid());
    {
        OutLock first(out, std::nullopt);
        auto refused = input_error_of([&] { OutLock second(out, std::nullopt); });
        CHECK(contains(refused, me));
        CHECK(contains(refused, out.string()));
        // A slice of a batch waits for no whole batch either.
        CHECK(contains(input_error_of([&] { OutLock slice(out, Slice{0, 2}); }), me));
    }
    // Its holder gone, the lock file stays and blocks nothing.
    CHECK(fs::exists(out / ".batch.lock"));
    CHECK_NOTHROW(OutLock(out, std::nullopt));
    {
        // Slices share the folder, each its own slice alone; a whole batch is refused, naming the slices.
        OutLock slice0(out, Slice{0, 2});
        CHECK_NOTHROW(OutLock(out, Slice{1, 2}));
        auto again = input_error_of([&] { OutLock other(out, Slice{0, 2}); });
        CHECK(contains(again, "slice 0/2"));
        CHECK(contains(again, me));
        auto whole = input_error_of([&] { OutLock batch(out, std::nullopt); });
        CHECK(contains(whole, "slices 0/2 (" + me + ")"));
    }
}

TEST_CASE("batch folder: the command refuses with exit 2 while another batch holds the folder", "[batch][folder]") {
    TempDir dir;
    auto subs = dir / "subs", out = dir / "out";
    fs::create_directories(subs / "ann" / "kernels");
    fake_finished(out, "ann");
    auto batch = course_flags() + " batch 01-memory-roof --gpus none --jobs 1 --submissions " + shell_quote(subs.string()) +
                 " --out " + shell_quote(out.string());
    {
        OutLock running_batch(out, std::nullopt);
        auto r = run_cli(batch);
        INFO(r.all());
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, fmt::format("pid {}", ::getpid())));
        CHECK_FALSE(fs::exists(out / "gradebook.csv"));  // nothing written by the refused one
    }
    auto r = run_cli(batch);
    INFO(r.all());
    CHECK(r.exit_code == 0);
    CHECK(contains(read_file(out / "gradebook.csv"), "ann,graded,800.00"));
}

TEST_CASE("batch folder: a child dies with its parent, even when the parent is killed with SIGKILL",
          "[batch][folder][process]") {
    TempDir dir;
    auto pid_file = dir / "grandchild.pid";
    // The "batch": a process that starts a long child the way the batch starts `roofline grade`.
    pid_t parent = ::fork();
    if (parent == 0) {
        ProcessSpec spec;
        spec.argv = {"/bin/sh", "-c", "echo $$ > " + quoted_for_shell(pid_file.string()) + "; exec sleep 300"};
        spec.output_file = dir / "child.txt";
        spec.new_session = false;
        spec.limits.timeout_s = 600;
        run_process(spec);
        ::_exit(0);
    }
    REQUIRE(parent > 0);
    REQUIRE(eventually([&] { return fs::exists(pid_file) && !read_file(pid_file).empty(); }));
    pid_t child = static_cast<pid_t>(std::stol(read_file(pid_file)));
    REQUIRE(running(child));
    ::kill(parent, SIGKILL);
    int status = 0;
    ::waitpid(parent, &status, 0);
    bool ended = eventually([&] { return !running(child); });
    if (!ended) ::kill(child, SIGKILL);  // not left behind by a failing test
    CHECK(ended);
}

TEST_CASE("batch folder: staging trees of killed batches are removed, others kept", "[batch][folder]") {
    TempDir dir;
    auto dead = dir / fmt::format("roofline-batch-{}-abc123", dead_pid());
    auto alive = dir / fmt::format("roofline-batch-{}-def456", ::getppid());
    auto kept = dir / fmt::format("roofline-batch-{}-ghi789", dead_pid());
    auto old_style = dir / "roofline-batch-Xy12Zq";
    for (const fs::path& tree : {dead, alive, kept, old_style}) write_file(tree / "ann" / "kernels" / "a.cu", "x");
    write_file(kept / kKeepStageMarker, "kept by --keep-stage\n");
    CHECK(remove_stale_staging_trees(dir.path()) == 1);
    CHECK_FALSE(fs::exists(dead));
    CHECK(fs::exists(alive));
    CHECK(fs::exists(kept));
    CHECK(fs::exists(old_style));

    // The command does it at start, and says so.
    auto tmp = dir / "tmp";
    auto another = tmp / fmt::format("roofline-batch-{}-jkl012", dead_pid());
    write_file(another / "x", "x");
    auto subs = dir / "subs", out = dir / "out";
    fs::create_directories(subs / "ann");
    fake_finished(out, "ann");
    auto r = run_cli(course_flags() + " batch 01-memory-roof --gpus none --submissions " + shell_quote(subs.string()) +
                         " --out " + shell_quote(out.string()),
                     "env TMPDIR=" + shell_quote(tmp.string()) + " ");
    INFO(r.all());
    CHECK(r.exit_code == 0);
    CHECK(contains(r.err, "removed 1 staging tree"));
    CHECK_FALSE(fs::exists(another));
}

TEST_CASE("batch folder: stage names hold only what the compilers take, one per real name", "[batch][folder]") {
    CHECK(stage_name("ann_lee-2.v1") == "ann_lee-2.v1");
    for (std::string name : {"o\"neil", "o'neil", "a b", "$(rm -rf x)", "-rf", ".hidden", "=1+1", "ünïcode"}) {
        auto staged = stage_name(name);
        INFO(name << " -> " << staged);
        CHECK(staged.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") ==
              std::string::npos);
        CHECK(staged.front() != '-');
        CHECK(staged.front() != '.');
    }
    CHECK(stage_name("o\"neil") != stage_name("o'neil"));  // both o_neil, told apart by the hash
}

TEST_CASE("batch folder: a gradebook cell never starts a spreadsheet formula", "[batch][folder]") {
    CHECK(csv_field("=HYPERLINK(\"http://x\",\"y\")") == "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
    for (std::string cell : {"+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"}) {
        INFO(cell);
        CHECK(csv_field(cell) == "\"'" + cell + "\"");
    }
    CHECK(csv_field("-") == "-");  // the GPU column of an ungraded submission
    CHECK(csv_field("ann") == "ann");
    SubmissionResult r;
    r.submission = "=cmd|' /C calc'!A0";
    r.reason = "-bad";
    auto row = gradebook_row(r);
    CHECK(row.starts_with("\"'=cmd|' /C calc'!A0\","));
    CHECK(contains(row, ",\"'-bad\","));
}

TEST_CASE("batch folder: a prediction log over 10 MB is malformed, never parsed", "[batch][folder][staging]") {
    Workspace course{repo_root(), ROOFLINE_BINARY_DIR};
    auto lab = load_lab(course.lab_yaml("01-memory-roof"));
    TempDir dir;
    auto sub = dir / "subs" / "big";
    write_file(sub / "kernels" / "01_copy_naive.cu",
               read_file(repo_root() / "labs" / "01-memory-roof" / "kernels" / "01_copy_naive.cu"));
    // Comments only: a log that parses (as empty) if it is read at all.
    std::string comment = "# " + std::string(998, 'x') + "\n";
    {
        std::ofstream log(sub / "predictions.yaml");
        for (int i = 0; i < 11000; ++i) log << comment;
    }
    REQUIRE(fs::file_size(sub / "predictions.yaml") > kMaxPredictionLogBytes);
    auto staged = stage_submission(course, lab, course.lab_yaml("01-memory-roof"), {"big", sub}, dir / "stage");
    CHECK(staged.log == LogState::malformed);
    CHECK(contains(staged.log_message, "over the batch's limit of 10 MB"));

    // Under the limit, the same comments are read (and parse as an empty log).
    fs::resize_file(sub / "predictions.yaml", comment.size() * 100);
    auto small = stage_submission(course, lab, course.lab_yaml("01-memory-roof"), {"big", sub}, dir / "stage");
    CHECK(small.log != LogState::malformed);
}

TEST_CASE("batch folder: a result that cannot be written fails the batch, naming the submission", "[batch][folder]") {
    TempDir dir;
    auto subs = dir / "subs";
    // A submission's result folder past PATH_MAX: nothing under it can be written (even by root),
    // while OUT itself (its lock, batch.json, the gradebook) can.
    auto out = dir.path();
    while (out.string().size() < 3700) out /= std::string(200, 'd');
    std::string name(250, 'n');
    write_file(subs / name / "kernels" / "01_copy_naive.cu", "int oops( {\n");
    // No sandbox: nothing is compiled (the result folder fails first), and bwrap is spared the long path.
    auto r = run_cli(course_flags() + " batch 01-memory-roof --gpus none --jobs 1 --submissions " +
                     shell_quote(subs.string()) + " --out " + shell_quote(out.string()) + " " + kNoSandboxFlag);
    INFO(r.all());
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, name + ": its result"));
    CHECK(contains(r.err, "could not be recorded"));
    CHECK(contains(r.err, "could not be written: " + name));
}

TEST_CASE("batch folder: a submission named with quotes and a leading = builds, and its name stays its own",
          "[batch][folder][sandbox]") {
    TempDir dir;
    auto subs = dir / "subs", out = dir / "out";
    std::string name = "=HYPERLINK(\"x\") o'neil";
    // A syntax error at the first file: nvcc runs (through its own shell steps) and stops within seconds.
    write_file(subs / name / "kernels" / "01_copy_naive.cu", "#include \"roofline/contract/elementwise.cuh\"\nint oops( {\n");
    auto r = run_cli(course_flags() + " batch 01-memory-roof --gpus none --jobs 1 --submissions " +
                     shell_quote(subs.string()) + " --out " + shell_quote(out.string()));
    INFO(r.all());
    CHECK(r.exit_code == 0);
    auto result = nlohmann::json::parse(read_file(submission_dir(out, name) / "result.json"));
    CHECK(result["submission"] == name);
    CHECK(result["outcome"] == "compile_error");
    // The compiler's own complaint about the code, not the shell's about the path.
    CHECK(contains(result["reason"].get<std::string>(), "01_copy_naive.cu"));
    CHECK(contains(result["reason"].get<std::string>(), "expected"));
    CHECK(contains(read_file(out / "gradebook.csv"), "\n\"'=HYPERLINK(\"\"x\"\") o'neil\",compile_error,"));
}
