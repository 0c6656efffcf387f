// Bad input that used to get through the `roofline` command line (issue 15): a
// value the log loader refuses, sizes past any GPU, a dtype the part lacks, paths
// that are not logs, CLI11's own messages, a course folder paired with another
// tree's build, and calibration figures that read as perfect when there are none.
#include "test_support.hpp"

#include "device_query.hpp"
#include "hardware.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <set>
#include <sstream>

using namespace roofline;
using namespace roofline_test;
using nlohmann::json;

namespace {

// `roofline ARGS` run from `dir`, with `env` (NAME=value ...) before it.
CliResult run_cli_in(const fs::path& dir, const std::string& env, const std::string& args) {
    return run_cli(args, "cd " + shell_quote(dir.string()) + " && env " + env + " ");
}

bool only_printable(const std::string& text) {
    for (unsigned char c : text) {
        if ((c < 0x20 && c != '\n') || c == 0x7f) return false;
    }
    return true;
}

}  // namespace

TEST_CASE("prediction log: an entry the loader would refuse is never written", "[log][input]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    append_prediction(file, make_prediction("copy_naive_fp32", "n=1024", "h", 600));
    auto before = read_file(file);
    for (double bad : {std::nan(""), std::numeric_limits<double>::infinity(), -5e-6}) {
        auto p = make_prediction("add_fp32", "n=1024", "h", 1);
        p.predicted_time_s = bad;
        auto message = input_error_of([&] { append_prediction(file, p); });
        INFO(message);
        check_mentions(message, {"nothing was written", "predicted_time_us"});
        CHECK(read_file(file) == before);
    }
    // The loader refuses what the writer refuses: a hand-typed nan or inf in the file.
    for (const char* bad : {"nan", "inf", ".inf"}) {
        write_file(file, replaced(before, "predicted_time_us: 600", std::string("predicted_time_us: ") + bad));
        auto message = input_error_of([&] { load_log(file); });
        CHECK(contains(message, "predicted_time_us"));
    }
}

TEST_CASE("prediction log: an empty file gets the header; folders and binary files are named", "[log][input]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    write_file(file, "");
    append_prediction(file, make_prediction("copy_naive_fp32", "n=1024", "h", 600));
    CHECK(read_file(file).rfind("# Roofline prediction log: append-only.", 0) == 0);

    check_refused("log --log /nonexistent/dir/p.yaml", {"/nonexistent/dir does not exist"});

    auto folder = run_cli("log --log " + shell_quote(dir.path().string()));
    check_one_line_error(folder);
    check_mentions(folder.err, {dir.path().string(), "is a folder"});

    auto binary = dir / "binary.yaml";
    write_file(binary, std::string("- kind: pre\x01\x02\x1b[2J\x7f\x00", 19));
    auto garbled = run_cli("log --log " + shell_quote(binary.string()));
    check_one_line_error(garbled);
    check_mentions(garbled.err, {"binary.yaml:1:", "not a text file"});
    CHECK(only_printable(garbled.err));

    // A missing file in an existing folder is a log not started yet: said on stderr, not an error.
    auto fresh = run_cli("log --log " + shell_quote((dir / "new.yaml").string()));
    CHECK(fresh.exit_code == 0);
    CHECK(contains(fresh.err, "does not exist yet"));
}

TEST_CASE("cli calc: sizes past any GPU's memory are refused, and every profile is under the limit", "[cli][input]") {
    auto fits = run_cli(repo_flag() + " calc --gemm 408000 --hardware h200-sxm");  // 3 x 408000^2 x 2 B = 0.999 TB
    INFO(fits.all());
    CHECK(fits.exit_code == 0);
    check_refused(repo_flag() + " calc --gemm 409000 --hardware h200-sxm", {"more than any GPU holds"});
    check_refused(repo_flag() + " calc --elementwise 1000000000000 --hardware h200-sxm", {"--elementwise"});
    // The 1 TB limit is above every GPU described in hardware/.
    for (const auto& p : load_profiles(repo_root() / "hardware")) CHECK(p.memory.capacity_gb * 1e9 < 1e12);
}

TEST_CASE("cli predict: a time under every GPU's datasheet floor is refused with the floor", "[cli][input]") {
    TempDir dir;
    auto r = run_cli(repo_flag() + " predict 01-memory-roof/copy_naive_fp32 --time-us 1e-30 --regime memory --why w --log " +
                     shell_quote((dir / "p.yaml").string()));
    check_one_line_error(r);
    check_mentions(r.err, {"--time-us", "--time-us 1e-30 means", "datasheet floor"});
    // the fastest memory in hardware/ sets it: 2^31 bytes at its bandwidth
    double fastest = 0;
    std::string fastest_id;
    for (const auto& p : load_profiles(repo_root() / "hardware")) {
        if (p.memory.bandwidth_tbs > fastest) fastest = p.memory.bandwidth_tbs, fastest_id = p.id;
    }
    check_mentions(r.err, {fastest_id, fmt::format("{:.4g} us", 2147483648.0 / (fastest * 1e12) * 1e6)});
    CHECK_FALSE(fs::exists(dir / "p.yaml"));
}

TEST_CASE("cli calc: a dtype the GPU has no unit for is an error; in a table it is a row", "[cli][input]") {
    auto alone = run_cli(repo_flag() + " calc --gemm 4096 --dtype fp8 --hardware a100-40gb");
    check_one_line_error(alone);
    check_mentions(alone.err, {"no fp8 unit", "NVIDIA A100 40GB", "a100-40gb", "a100-40gb.yaml", "peak_tflops.fp8"});
    CHECK(contains(alone.err, "bf16"));  // what it has instead
    auto table = run_cli(repo_flag() + " calc --gemm 4096 --dtype fp8 --hardware a100-40gb,h200-sxm");
    INFO(table.all());
    CHECK(table.exit_code == 0);
    CHECK(contains(table.out, "a100-40gb        no fp8 unit on this part"));
}

TEST_CASE("cli: CLI11's errors are one short line naming the option or the word", "[cli][input]") {
    auto range = run_cli("calc --gemm 4096 --bandwidth-tbs 8 --peak-tflops 0");
    check_one_line_error(range);
    CHECK(contains(range.err, "--peak-tflops"));
    CHECK(range.err.size() < 200);  // not "Value 0 not in range 0.000000 to 1797693134862315708145274237..."

    check_refused("bogus", {"unknown command 'bogus'", "calc"});

    check_refused(repo_flag() + " classify --generate 2 --seed -1", {"--seed"});

    check_refused(repo_flag() + " predict 01-memory-roof/copy_naive_fp32 --time-us 600 --why w",
                  {"--regime", "roofline predict --help"});
}

TEST_CASE("cli predict: --why with a line break says so; case does not matter for dtype, regime, hardware",
          "[cli][input]") {
    TempDir dir;
    auto log_flag = " --log " + shell_quote((dir / "p.yaml").string());
    auto newline = run_cli(repo_flag() + " predict 01-memory-roof/copy_naive_fp32 --time-us 600 --regime memory --why "
                                         "\"$(printf 'two lines\\nof reasons')\"" + log_flag);
    check_one_line_error(newline);
    CHECK(contains(newline.err, "line break"));
    CHECK_FALSE(fs::exists(dir / "p.yaml"));

    auto upper = run_cli(repo_flag() + " calc --gemm 4096 --dtype BF16 --hardware H200-SXM");
    INFO(upper.all());
    CHECK(upper.exit_code == 0);
    CHECK(contains(upper.out, "bf16"));
    auto regime = run_cli(repo_flag() + " predict 01-memory-roof/copy_naive_fp32 --time-us 600 --regime Memory --why w" +
                          log_flag);
    CHECK(regime.exit_code == 0);
    REQUIRE(load_log(dir / "p.yaml").predictions.size() == 1);
    CHECK(load_log(dir / "p.yaml").predictions[0].regime == Regime::memory);
}

TEST_CASE("cli: no GPU and no build folder are said as such", "[cli][input]") {
    std::string why;
    if (first_device(&why)) {
        WARN("a CUDA device is present: the no-GPU message of `ceilings` is not checked here");
    } else {
        auto ceilings = run_cli(repo_flag() + " ceilings");
        INFO(ceilings.all());
        CHECK(ceilings.exit_code == 4);
        CHECK_FALSE(contains(ceilings.err, "driver version is insufficient"));
        CHECK(contains(ceilings.err, "no NVIDIA GPU"));
    }
    TempDir dir;
    auto run = run_cli(repo_flag() + " --build-dir " + shell_quote((dir / "missing").string()) +
                       " run 01-memory-roof/copy_naive_fp32");
    INFO(run.all());
    CHECK(run.exit_code == 5);
    CHECK_FALSE(contains(run.out, "the compiler said"));
    CHECK(contains(run.out, "is not a configured build folder"));
}

TEST_CASE("cli: a default build made from another tree than --root is refused, naming both", "[cli][input]") {
    TempDir copy;
    copy_course(copy.path());
    auto log_flag = " --log " + shell_quote((copy / "p.yaml").string());
    auto root_flag = "--root " + shell_quote(copy.path().string());
    for (const std::string& command : {"grade 01-memory-roof/copy_naive_fp32 --no-build" + log_flag,
                                       std::string("run 01-memory-roof/copy_naive_fp32 --no-build")}) {
        INFO(command);
        auto r = run_cli(root_flag + " " + command);
        check_one_line_error(r);
        CHECK(contains(r.err, copy.path().string()));  // the course folder
        CHECK(contains(r.err, ROOFLINE_BINARY_DIR));   // the build folder
        CHECK(contains(r.err, "cmake -S"));            // the fix
    }
    // --build-dir beside --root is a chosen pairing (a batch's staging tree, the GPU tests'
    // fixture course): the grade goes on to the prediction gate (3).
    for (const std::string& build : {(copy / "build").string(), std::string(ROOFLINE_BINARY_DIR)}) {
        auto chosen = run_cli(root_flag + " --build-dir " + shell_quote(build) +
                              " grade 01-memory-roof/copy_naive_fp32 --no-build" + log_flag);
        INFO(chosen.all());
        CHECK(chosen.exit_code == 3);
    }
    // The matching pair passes the check.
    auto same = run_cli(repo_flag() + " grade 01-memory-roof/copy_naive_fp32 --no-build" + log_flag);
    CHECK(same.exit_code == 3);
}

TEST_CASE("cli: the course folder comes from ROOFLINE_ROOT, else a note says which tree is used", "[cli][input]") {
    TempDir outside, copy;
    copy_course(copy.path());
    auto from_env = run_cli_in(outside.path(), "ROOFLINE_ROOT=" + shell_quote(copy.path().string()),
                               "hardware show h200-sxm");
    INFO(from_env.all());
    CHECK(from_env.exit_code == 0);
    CHECK(contains(from_env.out, (copy / "hardware" / "h200-sxm.yaml").string()));
    CHECK(from_env.err.empty());

    auto fallback = run_cli_in(outside.path(), "-u ROOFLINE_ROOT", "hardware show h200-sxm");
    INFO(fallback.all());
    CHECK(fallback.exit_code == 0);
    check_mentions(fallback.err, {"note: no course folder", ROOFLINE_SOURCE_DIR});
    CHECK(count_lines(fallback.err) == 1);
}

TEST_CASE("cli log: calibration with no, one and edited measurements", "[cli][input]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    auto log_flag = " --log " + shell_quote(file.string());
    append_prediction(file, make_prediction("copy_naive_fp32", "n=268435456", "h", 500, "w"));
    auto none = run_cli("log --json" + log_flag);
    REQUIRE(none.exit_code == 0);
    auto j = json::parse(none.out);
    CHECK(j["calibration"]["all"]["count"] == 0);
    CHECK(j["calibration"]["all"]["median_abs_log2_ratio"].is_null());  // not 0.0, which reads as perfect
    CHECK(j["calibration"]["all"]["share_within_1_5x"].is_null());

    auto p1 = load_log(file).predictions[0];
    append_measurement(file, make_measurement(p1, 1000));
    auto one = run_cli("log" + log_flag);
    INFO(one.out);
    CHECK(contains(one.out, "1 entries: median error 2.00x"));
    CHECK_FALSE(contains(one.out, "first half"));
    CHECK(contains(one.out, "needs a second measurement"));
    CHECK(json::parse(run_cli("log --json" + log_flag).out)["calibration"]["first_half"].is_null());

    // a second prediction measured exactly, then the first one edited after its measurement
    append_prediction(file, make_prediction("add_fp32", "n=268435456", "h", 800, "w"));
    append_measurement(file, make_measurement(load_log(file).predictions[1], 800));
    write_file(file, replaced(read_file(file), "predicted_time_us: 500", "predicted_time_us: 999"));
    auto edited = json::parse(run_cli("log --json" + log_flag).out);
    CHECK(edited["calibration"]["all"]["count"] == 1);  // the edited one left out
    CHECK(edited["calibration"]["all"]["median_abs_log2_ratio"].get<double>() == Approx(0.0));
    CHECK(edited["calibration"]["edited_left_out"] == 1);
    CHECK(edited["entries"].size() == 2);  // still listed, flagged
    CHECK(contains(run_cli("log" + log_flag).out, "left out: 1"));
}

TEST_CASE("cli: help footers, counts, labels and columns", "[cli][input]") {
    auto main_help = run_cli("--help");
    check_mentions(main_help.out, {"3 no prediction", "ROOFLINE_ROOT"});
    for (const char* command : {"calc", "log", "list", "hardware", "classify"}) {
        INFO(command);
        auto help = run_cli(std::string(command) + " --help");
        CHECK(help.exit_code == 0);
        CHECK_FALSE(contains(help.out, "3 no prediction for this kernel source"));
    }
    CHECK(contains(run_cli("grade --help").out, "3 no prediction"));

    auto elements = run_cli(repo_flag() + " calc --elementwise 268435456 --hardware h200-sxm");
    check_mentions(elements.out, {"268435456 elements", "each value read or written once"});

    auto raw = run_cli(repo_flag() + " calc --flops 1e12 --bytes 1e9 --hardware h200-sxm");
    CHECK(raw.exit_code == 0);
    CHECK_FALSE(contains(raw.out, "read once"));

    auto overridden = run_cli(repo_flag() + " calc --gemm 4096 --hardware h200-sxm --peak-tflops 2000");
    CHECK(contains(overridden.out, "with --peak-tflops 2000"));
    auto overridden_json = json::parse(
        run_cli(repo_flag() + " calc --gemm 4096 --hardware h200-sxm --peak-tflops 2000 --json").out);
    CHECK(overridden_json["results"][0]["overridden"] == "--peak-tflops 2000");
    auto table = run_cli(repo_flag() + " calc --gemm 4096 --hardware h200-sxm,l4 --bandwidth-tbs 9");
    check_mentions(table.out, {"h200-sxm*", "figures overridden by --bandwidth-tbs 9"});

    auto overhead = run_cli(repo_flag() + " calc --elementwise 1024 --hardware h200-sxm");
    INFO(overhead.out);
    check_mentions(overhead.out, {"overhead-bound", "attainable       -"});
    CHECK_FALSE(contains(overhead.out, "TFLOP/s   ("));

    // list: the dtype column starts at the same place on every variant row
    auto list = run_cli(repo_flag() + " list --log " + shell_quote((repo_root() / "no-such-log-here.yaml").string()));
    REQUIRE(list.exit_code == 0);
    std::istringstream lines(list.out);
    std::set<std::size_t> columns;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("  ", 0) != 0) continue;
        for (const char* dtype : {" fp32 ", " bf16 ", " fp16 ", " fp64 ", " tf32 ", " fp8  "}) {
            auto at = line.find(dtype);
            if (at != std::string::npos) {
                columns.insert(at);
                break;
            }
        }
    }
    CHECK(columns.size() == 1);
}
