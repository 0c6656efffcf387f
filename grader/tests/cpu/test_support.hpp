// Small helpers shared by the CPU test files (tests/cpu/test_*.cpp): temporary
// folders, whole-file reads and writes, running the built `roofline` binary,
// and catching an InputError's message. Everything lives in namespace
// roofline_test so nothing clashes with other test files linked beside these.
#pragma once
#include "catch.hpp"
#include "hardware.hpp"
#include "input_error.hpp"
#include "lab_result.hpp"
#include "prediction_log.hpp"

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#if __has_include(<catch2/catch_test_macros.hpp>)
using Catch::Approx;  // Catch2 3; Catch2 2 declares a global Approx itself
#endif

namespace roofline_test {

namespace fs = std::filesystem;

inline fs::path repo_root() { return ROOFLINE_SOURCE_DIR; }
inline fs::path test_data() { return ROOFLINE_TEST_DATA; }

inline bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

// One CHECK per part: `text` holds each of `parts`. A failure shows the text and names the part
// it lacks.
inline void check_mentions(const std::string& text, const std::vector<std::string>& parts) {
    INFO(text);
    for (const auto& part : parts) {
        INFO("lacks: " << part);
        CHECK(contains(text, part));
    }
}

inline std::string read_file(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
}

// `text` with its first `from` replaced by `to`; a test failure if `from` is not in it.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

inline void write_file(const fs::path& file, const std::string& text) {
    if (file.has_parent_path()) fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out << text;
}

// A fresh folder under the system temp dir, removed with everything in it at scope exit.
class TempDir {
public:
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "roofline-cpu-test-XXXXXX").string();
        if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const { return path_; }
    fs::path operator/(const std::string& name) const { return path_ / name; }

private:
    fs::path path_;
};

// The message of the InputError `action` throws; a test failure if it throws none or another type.
inline std::string input_error_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const roofline::InputError& e) {
        return e.what();
    } catch (const std::exception& e) {
        FAIL("expected roofline::InputError, got another exception: " << e.what());
    }
    FAIL("expected roofline::InputError, nothing was thrown");
    return {};
}

struct CliResult {
    int exit_code = -1;
    std::string out;  // stdout
    std::string err;  // stderr
    std::string all() const { return out + err; }
};

inline std::string shell_quote(const std::string& text) {
    std::string out = "'";
    for (char c : text) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

// Runs the built `roofline` with `args` (already shell-quoted where needed),
// stdout and stderr kept apart, and returns its exit status. `before`, when given, is shell
// text put in front of the call ("cd DIR && env NAME=value ").
inline CliResult run_cli(const std::string& args, const std::string& before = "") {
    TempDir capture;
    auto out_file = capture / "stdout.txt";
    auto err_file = capture / "stderr.txt";
    std::string command = before + shell_quote(ROOFLINE_CLI) + " " + args + " > " + shell_quote(out_file.string()) +
                          " 2> " + shell_quote(err_file.string()) + " < /dev/null";
    int status = std::system(command.c_str());
    CliResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(out_file);
    r.err = read_file(err_file);
    return r;
}

// The real course as --root.
inline std::string repo_flag() { return "--root " + shell_quote(repo_root().string()); }

// A course root in `dir` holding copies of hardware/ and labs/01-memory-roof.
inline void copy_course(const fs::path& dir) {
    fs::copy(repo_root() / "hardware", dir / "hardware", fs::copy_options::recursive);
    fs::create_directories(dir / "labs");
    fs::copy(repo_root() / "labs" / "01-memory-roof", dir / "labs" / "01-memory-roof", fs::copy_options::recursive);
}

inline int count_lines(const std::string& text) {
    int lines = 0;
    for (char c : text) lines += c == '\n';
    if (!text.empty() && text.back() != '\n') ++lines;
    return lines;
}

// A bad-input failure: exit 2, nothing on stdout, exactly one line on stderr.
inline void check_one_line_error(const CliResult& r) {
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(count_lines(r.err) == 1);
    CHECK(contains(r.err, "error: "));
}

// `roofline ARGS` refuses its input with one line (check_one_line_error) that holds each of `mentions`.
inline void check_refused(const std::string& args, const std::vector<std::string>& mentions) {
    auto r = run_cli(args);
    INFO("roofline " << args);
    check_one_line_error(r);
    check_mentions(r.err, mentions);
}

// The real course and this build, for tests that run `roofline` on them.
inline std::string course_flags() {
    return "--root " + shell_quote(repo_root().string()) + " --build-dir " + shell_quote(ROOFLINE_BINARY_DIR);
}

// A GPU with the H200's datasheet figures (4.8 TB/s; 67 TFLOP/s fp32, 989.4 bf16, 34 fp64),
// built here so the scoring tests do not move when hardware/*.yaml is revised.
inline roofline::HardwareProfile test_gpu() {
    using roofline::Dtype;
    roofline::HardwareProfile p;
    p.id = "test-gpu";
    p.name = "Test GPU";
    p.match = {"Test GPU"};
    p.architecture = "sm_90";
    p.sm_count = 132;
    p.l2_mb = 50;
    p.memory = {"HBM3e", 141, 4.8, "test"};
    p.peak[Dtype::fp64] = {34, std::nullopt, "test"};
    p.peak[Dtype::fp32] = {67, std::nullopt, "test"};
    p.peak[Dtype::tf32] = {494.7, 989.4, "test"};
    p.peak[Dtype::fp16] = {989.4, 1978.9, "test"};
    p.peak[Dtype::bf16] = {989.4, 1978.9, "test"};
    p.file = "test-gpu.yaml";
    return p;
}

// Measured ceilings as `roofline ceilings` saves them for an H200 (the figures of a
// 2026-11-29 run, at the power-capped SM clock); a test changes what it is about.
inline roofline::MeasuredCeilings h200_measured_ceilings() {
    roofline::MeasuredCeilings m;
    m.profile_id = "h200-sxm";
    m.device_name = "NVIDIA H200";
    m.measured_at = "2026-11-29T10:00:00Z";
    m.copy_kernel_tbs = 3.95;
    m.memcpy_tbs = 4.24;
    m.read_only_tbs = 4.55;
    m.fp32_fma_tflops = 50.25;
    m.gemm_tflops = {{roofline::Dtype::bf16, 733}};
    m.launch_us = 5.1;
    m.graph_launch_us = 0.5;
    m.sm_clock_mhz = 1515;
    return m;
}

// Timing statistics as the lab program writes them, around a median.
inline roofline::protocol::TimingStats timing_stats(double median_s, int count = 12) {
    return {.count = count, .median_s = median_s, .q1_s = 0.99 * median_s, .q3_s = 1.01 * median_s,
            .min_s = 0.98 * median_s, .mean_s = median_s, .rse = 0.002, .samples_s = {}};
}

// A lab program's answer to a grade job with a status (a word of protocol::JobStatus; another
// reads as "error"), the variant's and the peer's median times.
inline roofline::protocol::Result lab_result(const std::string& status, double variant_median_s, double peer_median_s,
                                             const std::string& peer_name = "cudaMemcpy D2D") {
    roofline::protocol::Result result;
    result.status = nlohmann::json(status).get<roofline::protocol::JobStatus>();
    result.variant = "copy_naive_fp32";
    result.mode = roofline::protocol::JobMode::grade;
    roofline::protocol::Check check;
    check.shape = {{"n", 17}};
    check.seed = 1;
    check.when = "before timing";
    check.report.passed = status == "ok";
    check.report.verdict = status == "ok" ? "all match" : "3 of 17 wrong";
    check.report.elements = 17;
    result.checks.push_back(check);
    auto& timing = result.timing.emplace();
    timing.variant = timing_stats(variant_median_s);
    timing.peer = timing_stats(peer_median_s);
    timing.peer_name = peer_name;
    timing.sm_clock_mhz = {1980.0, 1965.0, 1980.0};
    return result;
}

// A prediction and its measurement, for log tests; fields a test cares about are arguments.
inline roofline::Prediction make_prediction(const std::string& variant, const std::string& shape, const std::string& hash,
                           double time_us, const std::string& why = "2 GiB moved at about 3.6 TB/s") {
    roofline::Prediction p;
    p.lab = "01-memory-roof";
    p.variant = variant;
    p.shape = shape;
    p.predicted_time_s = time_us * 1e-6;
    p.given_as = "time_us " + std::to_string(static_cast<int>(time_us));
    p.regime = roofline::Regime::memory;
    p.why = why;
    p.source_hash = hash;
    p.made_at = "2026-11-29T10:00:00Z";
    return p;
}

inline roofline::Measurement make_measurement(const roofline::Prediction& p, double time_us) {
    roofline::Measurement m;
    m.prediction_id = p.id;
    m.prediction_digest = p.digest();
    m.lab = p.lab;
    m.variant = p.variant;
    m.shape = p.shape;
    m.measured_time_s = time_us * 1e-6;
    m.measured_regime = roofline::Regime::memory;
    m.correct = true;
    m.fraction = 0.85;
    m.points = 92.5;
    m.max_points = 100;
    m.gpu = "NVIDIA H200";
    m.sm_clock_mhz = 1980;
    m.measured_at = "2026-11-29T10:05:00Z";
    return m;
}

}  // namespace roofline_test
