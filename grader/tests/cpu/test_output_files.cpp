// Every command that writes a file, run against the four paths that used to go wrong: a
// missing folder, a folder, a read-only file and an empty path. Each either writes the
// file (`report --out` makes the page's folder) or fails with one line (exit 2) naming it; none prints a raw C++ exception, claims
// a file it did not write, leaves a temporary file, or changes the read-only file.
// Also: write_output_file itself (lib/core/output_file.hpp), and the prediction log given
// with --log to the commands that append to it.
#include "test_support.hpp"

#include "output_file.hpp"
#include "prediction_log.hpp"
#include "source_hash.hpp"

#include <sys/stat.h>

#include <algorithm>

using namespace roofline;
using namespace roofline_test;

namespace {

// A temporary folder holding a read-only file and nothing else.
struct Targets {
    TempDir dir;
    fs::path read_only = dir / "read-only.out";
    Targets() {
        write_file(read_only, "keep me\n");
        REQUIRE(::chmod(read_only.c_str(), 0444) == 0);
    }
    std::vector<std::pair<std::string, std::string>> cases() const {
        return {{"a missing folder", (dir / "missing" / "out.file").string()},
                {"a folder", dir.path().string()},
                {"a read-only file", read_only.string()},
                {"an empty path", ""}};
    }
    // Nothing was left or made: the read-only file, as it was, is all there is.
    void check_untouched() const {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(dir.path())) names.push_back(entry.path().filename().string());
        CHECK(names == std::vector<std::string>{"read-only.out"});
        CHECK(read_file(read_only) == "keep me\n");
    }
};

// `command` with {} replaced by the path (shell-quoted).
std::string with_path(const std::string& command, const std::string& path) {
    auto at = command.find("{}");
    REQUIRE(at != std::string::npos);
    return command.substr(0, at) + shell_quote(path) + command.substr(at + 2);
}

// A log with one prediction of 01-memory-roof/copy_naive_fp32 (its current source) and its measurement.
fs::path measured_log(const fs::path& dir) {
    auto file = dir / "log.yaml";
    auto p = make_prediction("copy_naive_fp32", "n=268435456",
                             hash_file(repo_root() / "labs" / "01-memory-roof" / "kernels" / "01_copy_naive.cu"), 600);
    p = append_prediction(file, p);
    append_measurement(file, make_measurement(p, 640));
    return file;
}

}  // namespace

TEST_CASE("write_output_file: written whole, a link followed, the mode kept, nothing left beside it", "[output-file]") {
    TempDir dir;
    auto file = dir / "chart.svg";
    write_output_file(file, "one\n", "--svg");
    CHECK(read_file(file) == "one\n");
    REQUIRE(::chmod(file.c_str(), 0640) == 0);
    write_output_file(file, "two\n", "--svg");
    CHECK(read_file(file) == "two\n");
    struct stat st {};
    REQUIRE(::stat(file.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0640);
    fs::create_symlink(file, dir / "link.svg");
    write_output_file(dir / "link.svg", "three\n", "--svg");
    CHECK(fs::is_symlink(fs::symlink_status(dir / "link.svg")));
    CHECK(read_file(file) == "three\n");
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir.path())) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    CHECK(names == std::vector<std::string>{"chart.svg", "link.svg"});
    // created folders only where asked
    check_mentions(input_error_of([&] { write_output_file(dir / "a" / "b.svg", "x", "--svg"); }),
                   {"--svg", "does not exist"});
    write_output_file(dir / "a" / "b.svg", "x", "the page", OutputFolder::create);
    CHECK(read_file(dir / "a" / "b.svg") == "x");
}

TEST_CASE("write_output_file refuses the four bad paths and a device in one line each", "[output-file]") {
    Targets t;
    for (const auto& [name, path] : t.cases()) {
        INFO(name);
        auto message = input_error_of([&, p = path] { write_output_file(p, "new\n", "--out"); });
        CHECK(message.find('\n') == std::string::npos);
        CHECK(contains(message, "--out"));
    }
    check_mentions(input_error_of([] { write_output_file("/dev/null", "x", "--out"); }), {"character device"});
    t.check_untouched();
}

TEST_CASE("cli: every command that writes a file refuses a missing folder, a folder, a read-only file and an empty "
          "path in one line", "[output-file][cli]") {
    TempDir work;
    auto log = measured_log(work.path());
    auto csv = test_data() / "ncu" / "copy_vectorized_raw.csv";
    const std::string flags = course_flags();
    const std::string log_flag = " --log " + shell_quote(log.string());
    const std::vector<std::string> commands = {
        flags + " log" + log_flag + " --svg {}",
        flags + " profile 01-memory-roof/copy_vectorized_fp32 --hardware h200-sxm" + log_flag + " --csv " +
            shell_quote(csv.string()) + " --svg {}",
        flags + " grade 01-memory-roof/copy_naive_fp32 --no-build" + log_flag + " --gradescope {}",
        flags + " timeline 01-memory-roof/copy_naive_fp32 --no-build --svg {}",
        flags + " timeline 01-memory-roof/copy_naive_fp32 --no-build --trace {}",
        flags + " classify --force --write-template {}",
        // the commands that append to the prediction log
        flags + " predict 01-memory-roof/copy_naive_fp32 --time-us 600 --regime memory --why w --log {}",
        flags + " explain 01-memory-roof/copy_naive_fp32 --why w --log {}",
        flags + " diagnose 01-memory-roof/copy_naive_fp32 --cause uncoalesced --why w --log {}",
    };
    for (const auto& command : commands) {
        Targets t;
        for (const auto& [name, path] : t.cases()) {
            std::string args = with_path(command, path);
            // explain appends to a log that holds a measurement: the read-only case gets a copy of one
            if (name == "a read-only file" && command.find(" explain ") != std::string::npos) {
                REQUIRE(::chmod(t.read_only.c_str(), 0644) == 0);
                write_file(t.read_only, read_file(log));
                REQUIRE(::chmod(t.read_only.c_str(), 0444) == 0);
            }
            auto before = read_file(t.read_only);
            INFO("roofline " << args << " (" << name << ")");
            auto r = run_cli(args);
            check_one_line_error(r);
            CHECK_FALSE(contains(r.err, "filesystem error"));
            CHECK_FALSE(contains(r.all(), "written to"));
            CHECK(read_file(t.read_only) == before);
            if (command.find(" explain ") != std::string::npos) {
                REQUIRE(::chmod(t.read_only.c_str(), 0644) == 0);
                write_file(t.read_only, "keep me\n");
                REQUIRE(::chmod(t.read_only.c_str(), 0444) == 0);
            }
        }
        t.check_untouched();
    }
}

// The report makes its page's folder (as it does for the default, .roofline/report.html); the
// other three paths are refused as for every other command.
TEST_CASE("cli: report --out makes a missing folder and refuses the other bad paths", "[output-file][cli]") {
    TempDir work;
    auto log = measured_log(work.path());
    Targets t;
    for (const auto& [name, path] : t.cases()) {
        auto r = run_cli(course_flags() + " report --log " + shell_quote(log.string()) + " --out " + shell_quote(path));
        INFO("report --out " << path << " (" << name << ")\n" << r.all());
        if (name == "a missing folder") {
            CHECK(r.exit_code == 0);
            CHECK(contains(read_file(path), "<html"));
            fs::remove_all(t.dir / "missing");
            continue;
        }
        check_one_line_error(r);
        CHECK_FALSE(contains(r.err, "filesystem error"));
    }
    t.check_untouched();
}

TEST_CASE("cli: log --svg and report --out write where they say", "[output-file][cli]") {
    TempDir work;
    auto log = measured_log(work.path());
    auto svg = work / "scatter.svg";
    auto r = run_cli(course_flags() + " log --log " + shell_quote(log.string()) + " --svg " + shell_quote(svg.string()));
    INFO(r.all());
    CHECK(r.exit_code == 0);
    CHECK(contains(r.out, "scatter written to " + svg.string()));
    CHECK(contains(read_file(svg), "<svg"));
    auto page = work / "report.html";
    auto report = run_cli(course_flags() + " report --log " + shell_quote(log.string()) + " --out " + shell_quote(page.string()));
    INFO(report.all());
    CHECK(report.exit_code == 0);
    CHECK(contains(read_file(page), "<html"));
}
