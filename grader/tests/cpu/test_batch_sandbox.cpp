// roofline batch with hostile submissions, on this build's lab 01 without a GPU
// (--gpus none): the lab program still starts, so a submission's static initializer
// runs. One that reads instructor/hidden/ and solutions/, writes $HOME, the batch's
// output, another submission and its own prediction log, and opens a socket, fails at
// every one inside the sandbox, changes nothing outside its folder, and is reported as
// its own crash. A macro bomb ends as compile_error at --compile-timeout or
// --compile-memory, and the batch goes on. Where there is no sandbox the batch refuses
// (exit 2, one line naming the fixes) unless told --no-sandbox-i-trust-these-submissions,
// which the gradebook and the summary record. Entries that staging refuses, a submission
// folder that is a link and two identical submissions are named in the gradebook and summary.
#include "sandbox_support.hpp"
#include "test_support.hpp"

#include "batch.hpp"
#include "process.hpp"
#include "source_hash.hpp"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <sstream>

using namespace roofline;
using namespace roofline::batch;
using namespace roofline_test;
using nlohmann::json;

namespace {


std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
    return text;
}

// Every file under `dir` (relative path) with a hash of its bytes.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
    std::map<std::string, std::string> files;
    if (!fs::exists(dir)) return files;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        if (entry.is_regular_file()) files[fs::relative(entry.path(), dir).string()] = fnv1a64_hex(read_file(entry.path()));
    }
    return files;
}

// A TCP port on 127.0.0.1 that accepts connections (the kernel completes them without
// accept()), so that a connect from outside the sandbox would succeed.
class Listener {
public:
    Listener() {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof(address);
        REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), size) == 0);
        REQUIRE(::listen(fd_, 16) == 0);
        REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) == 0);
        port_ = ntohs(address.sin_port);
    }
    ~Listener() { ::close(fd_); }
    int port() const { return port_; }

private:
    int fd_ = -1;
    int port_ = 0;
};

// Host code run by a static initializer as the lab program starts: every try prints
// "failed" or "ESCAPED", then the program exits 3 so that the line reaches the result.
const char* kAttack = R"(
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <string>
namespace {
const char* try_read(const char* path) {
    int fd = ::open(path, O_RDONLY);
    if (fd < 0) return "failed";
    ::close(fd);
    return "ESCAPED";
}
const char* try_write(std::string path) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return "failed";
    ssize_t ignored = ::write(fd, "escaped\n", 8);
    (void)ignored;
    ::close(fd);
    return "ESCAPED";
}
const char* try_connect(int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return "failed";
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    ::close(fd);
    return connected ? "ESCAPED" : "failed";
}
struct Attack {
    Attack() {
        const char* home = std::getenv("HOME");
        std::fprintf(stderr, "attack: hidden=%s solutions=%s home=%s out=%s other=%s log=%s connect=%s\n",
                     try_read("@HIDDEN@"), try_read("@SOLUTION@"), try_write(std::string(home ? home : "/") + "/escaped"),
                     try_write("@OUT@/escaped"), try_write("@OTHER@/escaped"), try_write("../../predictions.yaml"),
                     try_connect(@PORT@));
        std::fflush(stderr);
        std::_Exit(3);
    }
} attack;
}  // namespace
)";

// The result.json that `roofline batch` wrote for submission `name` under `out`.
json result_of(const fs::path& out, const std::string& name) {
    return json::parse(read_file(submission_dir(out, name) / "result.json"));
}

// The same, after checking that the batch run `r` went through and said `said` on stderr.
json result_after(const CliResult& r, const fs::path& out, const std::string& name, const std::string& said) {
    INFO(r.all());
    REQUIRE(r.exit_code == 0);
    CHECK(contains(r.err, said));
    return result_of(out, name);
}

}  // namespace

TEST_CASE("batch sandbox: a submission's static initializer reaches nothing outside its folder", "[batch][sandbox]") {
    working_sandbox();
    TempDir dir;
    auto subs = dir / "subs", out = dir / "out", home = dir / "home";
    write_file(home / "notes.txt", "the instructor's\n");
    write_file(subs / "other" / "kernels" / "01_copy_naive.cu", read_file(repo_root() / "labs/01-memory-roof/kernels/01_copy_naive.cu"));
    auto hidden = repo_root() / "instructor/hidden/01-memory-roof.yaml";
    REQUIRE(fs::exists(hidden));
    Listener listener;
    std::string attack = kAttack;
    attack = replace_all(attack, "@HIDDEN@", hidden.string());
    attack = replace_all(attack, "@SOLUTION@", (repo_root() / "solutions/01-memory-roof/kernels/01_copy_naive.cu").string());
    attack = replace_all(attack, "@OUT@", out.string());
    attack = replace_all(attack, "@OTHER@", (subs / "other").string());
    attack = replace_all(attack, "@PORT@", std::to_string(listener.port()));
    write_file(subs / "mallory" / "kernels" / "01_copy_naive.cu",
               read_file(repo_root() / "labs/01-memory-roof/kernels/01_copy_naive.cu") + attack);

    auto subs_before = snapshot(subs);
    auto home_before = snapshot(home);
    auto hidden_before = read_file(hidden);
    // Without a sandbox the attack would write into this home; the batch's staging trees land in tmp/.
    ScopedEnv instructor_home("HOME", home.string());
    ScopedEnv temporary("TMPDIR", (dir / "tmp").string());
    fs::create_directories(dir / "tmp");
    auto r = run_cli(course_flags() + " batch 01-memory-roof --gpus none --jobs 2 --keep-stage --hidden " +
                     shell_quote(hidden.string()) + " --submissions " + shell_quote(subs.string()) + " --out " +
                     shell_quote(out.string()));
    auto result = result_after(r, out, "mallory", "sandbox: ");
    auto reason = result["reason"].get<std::string>();
    INFO(reason);
    // Its own failure, with its own words: every try failed inside the sandbox.
    CHECK(result["outcome"] == "crash");
    CHECK(contains(reason, "attack: hidden=failed solutions=failed home=failed out=failed other=failed log=failed "
                           "connect=failed"));
    CHECK_FALSE(contains(reason, "ESCAPED"));
    CHECK_FALSE(contains(reason, "the grader failed"));
    // The other submission is graded as usual: no_gpu where there is none; where there is
    // one (`--gpus none` does not hide it from the lab program), its unfilled skeleton is wrong.
    auto other = result_of(out, "other");
    CHECK((other["outcome"] == "no_gpu" || other["outcome"] == "wrong_answer"));

    // Nothing outside its folder changed.
    CHECK(snapshot(subs) == subs_before);
    CHECK(snapshot(home) == home_before);
    CHECK(read_file(hidden) == hidden_before);
    CHECK_FALSE(fs::exists(out / "escaped"));
    for (const auto& entry : fs::recursive_directory_iterator(dir / "tmp")) {
        CHECK(entry.path().filename() != "predictions.yaml");  // neither submission had one; none was made
        CHECK(entry.path().filename() != "escaped");
    }
}

TEST_CASE("batch sandbox: a macro bomb ends as compile_error at the compile limits, and the batch goes on",
          "[batch][sandbox]") {
    TempDir dir;
    auto subs = dir / "subs", out = dir / "out";
    // A24(x) expands to 2^(2^24) copies of x: nvcc would never finish, and takes memory as it goes.
    std::string bomb = "#define A0(x) x + x\n";
    for (int i = 1; i <= 24; ++i) bomb += fmt::format("#define A{}(x) A{}(A{}(x))\n", i, i - 1, i - 1);
    bomb += "int exploded(int x) { return A24(x); }\n";
    write_file(subs / "bomb" / "kernels" / "01_copy_naive.cu", bomb);
    write_file(subs / "broken" / "kernels" / "01_copy_naive.cu", "#include \"roofline/contract/elementwise.cuh\"\nint oops( {\n");
    auto batch = course_flags() + " batch 01-memory-roof --gpus none --jobs 2 --submissions " + shell_quote(subs.string()) +
                 " --out " + shell_quote(out.string());

    // The limits are the test's bound, not a timing assertion: the outcome and its reason are checked.
    auto r = run_cli(batch + " --compile-timeout 10 --compile-memory 0");
    INFO(r.all());
    REQUIRE(r.exit_code == 0);
    auto result = result_of(out, "bomb");
    CHECK(result["outcome"] == "compile_error");
    CHECK(contains(result["reason"].get<std::string>(), "01_copy_naive.cu: the compiler ran past 10 s"));
    CHECK(result_of(out, "broken")["outcome"] == "compile_error");
    CHECK(contains(read_file(out / "gradebook.csv"), "broken,compile_error"));

    r = run_cli(batch + " --force --compile-timeout 600 --compile-memory 300");
    INFO(r.all());
    REQUIRE(r.exit_code == 0);
    result = result_of(out, "bomb");
    CHECK(result["outcome"] == "compile_error");
    CHECK(contains(result["reason"].get<std::string>(), "01_copy_naive.cu: the compiler ran out of memory (limit 300 MiB)"));
}

TEST_CASE("batch sandbox: without a sandbox the batch refuses, naming the fixes; the opt-out is recorded",
          "[batch][sandbox]") {
    TempDir dir;
    auto subs = dir / "subs", out = dir / "out";
    for (auto name : {"ann", "ben"}) {
        write_file(subs / name / "kernels" / "01_copy_naive.cu",
                   std::string("#include \"roofline/contract/elementwise.cuh\"\nint oops( {\n// ") + name + "\n");
    }
    auto batch = course_flags() + " batch 01-memory-roof --gpus none --jobs 1 --submissions " + shell_quote(subs.string()) +
                 " --out " + shell_quote(out.string());

    for (auto bwrap : {"/bin/false", ""}) {  // a "bwrap" that cannot make namespaces; none at all
        ScopedEnv no_bwrap("ROOFLINE_BWRAP", bwrap);
        ScopedEnv no_path("PATH", *bwrap ? std::getenv("PATH") : "/nonexistent");
        auto refused = run_cli(batch);
        INFO(refused.all());
        check_one_line_error(refused);
        check_mentions(refused.err, {"no sandbox, nothing graded", "bubblewrap package", "ROOFLINE_BWRAP=",
                                     "scripts/fetch_bwrap.sh", "--no-sandbox-i-trust-these-submissions"});
        CHECK_FALSE(fs::exists(submission_dir(out, "ann") / "result.json"));
    }

    ScopedEnv no_bwrap("ROOFLINE_BWRAP", "/bin/false");
    auto r = run_cli(batch + " --no-sandbox-i-trust-these-submissions");
    INFO(r.all());
    CHECK(r.exit_code == 0);
    auto first = r.err.find("NO SANDBOX (--no-sandbox-i-trust-these-submissions)");
    REQUIRE(first != std::string::npos);
    CHECK(r.err.find("NO SANDBOX", first + 1) == std::string::npos);  // once, not per submission
    auto csv = read_file(out / "gradebook.csv");
    CHECK(contains(csv.substr(0, csv.find('\n')), ",sandbox"));
    CHECK(contains(csv, "ann,compile_error"));
    for (auto name : {"ann", "ben"}) {
        CHECK(result_of(out, name)["sandbox"] == "none");
    }
    auto rows = csv.substr(csv.find('\n') + 1);
    CHECK(count_lines(rows) == 2);
    std::istringstream lines(rows);
    // sandbox, then logged_hours (empty: neither submission holds a log) and shared_gpu (empty: neither was timed)
    for (std::string line; std::getline(lines, line);) CHECK(line.ends_with(",none,,"));
    check_mentions(read_file(out / "summary.md"),
                   {"## Look at these first", "graded without a sandbox (--no-sandbox-i-trust-these-submissions), 2 of 2",
                    "ann, ben"});
    CHECK(contains(read_file(out / "report.html"), "graded without a sandbox"));

    // A sandboxed run of the same class says bwrap in the column, and nothing in the summary.
    ScopedEnv real_bwrap("ROOFLINE_BWRAP", find_on_path("bwrap").string());
    r = run_cli(batch + " --force");
    INFO(r.all());
    REQUIRE(r.exit_code == 0);
    CHECK(result_of(out, "ann")["sandbox"] == "bwrap");
    CHECK_FALSE(contains(read_file(out / "summary.md"), "without a sandbox"));
}

TEST_CASE("batch staging: links and unsafe entries are unsafe_entry, linked and identical folders are named",
          "[batch][sandbox][staging]") {
    working_sandbox();
    TempDir dir;
    auto subs = dir / "subs", out = dir / "out";
    const std::string broken = "#include \"roofline/contract/elementwise.cuh\"\nint oops( {\n";
    write_file(subs / "ann" / "kernels" / "01_copy_naive.cu", broken);
    write_file(subs / "ben" / "kernels" / "01_copy_naive.cu", broken);  // the same files as ann's
    fs::create_directory_symlink(subs / "ann", subs / "ann_again");      // ann's folder again, under a new name
    fs::create_directories(subs / "mallory" / "kernels");
    fs::create_symlink(repo_root() / "solutions/01-memory-roof/kernels/01_copy_naive.cu",
                       subs / "mallory" / "kernels" / "01_copy_naive.cu");
    write_file(dir / "elsewhere" / "kernels" / "01_copy_naive.cu", broken + "// elsewhere\n");
    fs::create_directory_symlink(dir / "elsewhere", subs / "outsider");

    auto r = run_cli(course_flags() + " batch 01-memory-roof --gpus none --jobs 2 --submissions " +
                     shell_quote(subs.string()) + " --out " + shell_quote(out.string()));
    INFO(r.all());
    REQUIRE(r.exit_code == 0);
    auto mallory = result_of(out, "mallory");
    CHECK(mallory["outcome"] == "unsafe_entry");
    CHECK(contains(mallory["reason"].get<std::string>(), "kernels/01_copy_naive.cu is a symbolic link"));
    auto outsider = result_of(out, "outsider");
    CHECK(outsider["outcome"] == "unsafe_entry");
    CHECK(contains(outsider["reason"].get<std::string>(), "outside the class's folder"));
    CHECK(result_of(out, "ann_again")["outcome"] == "compile_error");  // graded, and named:
    auto warnings = result_of(out, "ann_again")["warnings"].dump();
    check_mentions(warnings, {"the submission folder is a symbolic link to", "same files, byte for byte, as ann, ben"});
    // The student's own reason (Gradescope) does not name the others.
    CHECK_FALSE(contains(read_file(submission_dir(out, "ben") / "results.json"), "ann_again"));

    auto csv = read_file(out / "gradebook.csv");
    check_mentions(csv, {"mallory,unsafe_entry", "outsider,unsafe_entry", "warning: holds the same files"});
    auto summary = read_file(out / "summary.md");
    check_mentions(summary, {"## Look at these first", "ann_again: the submission folder is a symbolic link to",
                             "ben: holds the same files, byte for byte, as ann, ann_again", "| unsafe_entry | 2 |"});
}

TEST_CASE("batch without a sandbox: a lab program that spoils its prediction log does not fail the grader",
          "[batch][sandbox]") {
    // grade reads the log once, before the lab program starts: the variants after the first
    // are gated on that reading, not on what the program wrote (the sandbox hides the file;
    // this is the second line of defence, for a batch that runs without one).
    TempDir dir;
    auto subs = dir / "subs", out = dir / "out";
    write_file(subs / "mallory" / "kernels" / "01_copy_naive.cu",
               read_file(repo_root() / "labs/01-memory-roof/kernels/01_copy_naive.cu") + R"(
#include <cstdio>
#include <cstdlib>
namespace {
struct Spoil {
    Spoil() {
        if (std::FILE* log = std::fopen("../../predictions.yaml", "a")) {
            std::fputs("not: [a list\n", log);
            std::fclose(log);
            std::fprintf(stderr, "spoiled the log\n");
        }
        std::_Exit(3);
    }
} spoil;
}  // namespace
)");
    auto r = run_cli(course_flags() + " batch 01-memory-roof --gpus none --jobs 2 --no-sandbox-i-trust-these-submissions "
                     "--submissions " + shell_quote(subs.string()) + " --out " + shell_quote(out.string()));
    auto result = result_after(r, out, "mallory", "NO SANDBOX");
    auto reason = result["reason"].get<std::string>();
    INFO(reason);
    CHECK(contains(reason, "spoiled the log"));  // it ran, outside a sandbox, and wrote the file
    CHECK(result["outcome"] == "crash");
    CHECK_FALSE(contains(reason, "the grader failed"));
}
