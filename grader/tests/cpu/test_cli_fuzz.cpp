// Every numeric option of every `roofline` subcommand, fed the values people and
// scripts get wrong: nan, inf, -0, 0, negative, huge, fractional, hex floats, empty,
// blanks. Each option lists the values it must accept; every other value must be
// refused with one line that names the option and exit 2. Accepted or refused:
// never a crash, never more than a few KB of output, no nan or inf in what is
// printed, and the prediction log byte for byte as it was after a refusal.
#include "test_support.hpp"

#include <fmt/format.h>

#include <regex>
#include <set>

using namespace roofline_test;

namespace {

const std::vector<std::string> kFuzzValues = {
    "nan", "NaN", "-nan", "inf", "-inf", "infinity", "-0", "0", "-1", "-4096", "1e400", "1e30",
    "18446744073709551616", "4096.5", "0.5", "1e-30", "0x10", "0x1p4", "", " ", " 7", "7 ", "1,5", "4k", "+3"};

struct NumericOption {
    std::string before;  // the command line up to the option (paths already quoted)
    std::string option;  // "--time-us"
    std::string good;    // a value the option must accept
    std::set<std::string> also_accepted;  // the fuzz values it must accept too; the rest are refused
    std::string after;   // anything the command needs after the option
};

constexpr std::size_t kMaxOutputBytes = 8192;

// A number printed as nan or inf. Where a GPU exists, `run` grades the unfilled skeleton,
// whose report names the "NaN poison" it finds: that is the verifier's word, not a figure.
bool prints_nan_or_inf(const std::string& text) {
    static const std::regex word(R"(\b(nan|inf|infinity)\b)", std::regex::icase);
    static const std::regex poison(R"(NaN poison|NaN or Inf)");
    return std::regex_search(std::regex_replace(text, poison, ""), word);
}

}  // namespace

TEST_CASE("cli fuzz: every numeric option refuses bad numbers with one line and keeps the log", "[cli][fuzz]") {
    TempDir dir;
    auto log = dir / "predictions.yaml";
    // A log with one entry, so "unchanged" means unchanged bytes, not a file that stayed missing.
    roofline::append_prediction(log, make_prediction("copy_naive_fp32", "n=268435456", "h", 600));
    const std::string log_bytes = read_file(log);
    const std::string root = "--root " + shell_quote(repo_root().string());
    const std::string log_flag = " --log " + shell_quote(log.string());
    const std::string predict_copy = root + " predict 01-memory-roof/copy_naive_fp32 --regime memory --why w" + log_flag;
    const std::string batch = root + " batch 01-memory-roof --submissions " + shell_quote((dir / "none").string()) +
                              " --out " + shell_quote((dir / "out").string());

    const std::vector<NumericOption> options = {
        // calc: sizes are whole numbers; counts and ceilings are finite and in range
        {root + " calc --hardware h200-sxm", "--gemm", "4096", {}},
        {root + " calc --hardware h200-sxm", "--elementwise", "1048576", {}},
        {root + " calc --hardware h200-sxm --elementwise 1048576", "--reads", "2", {"0"}},
        {root + " calc --hardware h200-sxm --elementwise 1048576", "--writes", "2", {"0"}},
        {root + " calc --hardware h200-sxm --elementwise 1048576", "--flops-per-element", "4", {"0", "0.5", "4096.5", "1e-30"}},
        {root + " calc --hardware h200-sxm --bytes 1e9", "--flops", "1e12", {"4096.5", "18446744073709551616"}},
        {root + " calc --hardware h200-sxm --flops 1e12", "--bytes", "1e9", {"4096.5"}},
        {"calc --gemm 4096 --bandwidth-tbs 8", "--peak-tflops", "2000", {"0.5", "4096.5"}},
        {"calc --gemm 4096 --peak-tflops 2000", "--bandwidth-tbs", "8", {"0.5"}},
        // predict: positive, finite, and not faster than every GPU's datasheet floor
        {predict_copy, "--time-us", "600", {"4096.5"}},
        {predict_copy, "--gbps", "3000", {"0.5", "4096.5"}},
        {root + " predict 03-gemm/r1_naive --regime compute --why w" + log_flag, "--tflops", "20", {"0.5"}},
        // seeds: whole numbers from 0 (never -1 read as 2^64 - 1)
        {root + " grade 01-memory-roof/copy_naive_fp32 --no-build" + log_flag, "--seed", "42", {"0"}},
        {root + " run 01-memory-roof/copy_naive_fp32 --no-build", "--seed", "42", {"0"}},
        {root + " classify --generate 2", "--seed", "42", {"0"}},
        {root + " classify", "--generate", "3", {}},
        // batch: checked before any submission is looked at
        {batch, "--jobs", "2", {}},
        {batch, "--seed", "42", {"0"}},
        {batch, "--timeout", "60", {"4096.5"}},
        {batch, "--slurm-tasks", "4", {}},
        {batch, "--slice", "0/1", {}},
    };

    int refused = 0, accepted = 0;
    for (const auto& o : options) {
        std::vector<std::string> values = kFuzzValues;
        values.push_back(o.good);
        for (const auto& value : values) {
            write_file(log, log_bytes);  // an accepted prediction appends; start each run from the same log
            auto command = o.before + " " + o.option + " " + shell_quote(value) + " " + o.after;
            auto r = run_cli(command);
            INFO("roofline " << command << "\nexit " << r.exit_code << "\nstdout: " << r.out.substr(0, 2000)
                             << "\nstderr: " << r.err.substr(0, 2000));
            CHECK(r.exit_code >= 0);  // exited, no signal
            CHECK(r.out.size() + r.err.size() <= kMaxOutputBytes);
            bool should_accept = value == o.good || o.also_accepted.count(value) > 0;
            if (should_accept) {
                ++accepted;
                // Whatever else happens next (no prediction, no GPU, no submissions), the number was taken.
                CHECK_FALSE((r.exit_code == 2 && contains(r.err, o.option + ":")));
                CHECK_FALSE(prints_nan_or_inf(r.out));
            } else {
                ++refused;
                CHECK(r.exit_code == 2);
                CHECK(r.out.empty());
                CHECK(count_lines(r.err) == 1);
                check_mentions(r.err, {"error: ", o.option});
                CHECK(read_file(log) == log_bytes);
            }
        }
    }
    // The table above is what is tested: most values are refused, each option accepts some.
    CHECK(accepted >= int(options.size()));
    CHECK(refused > 10 * int(options.size()));
}

TEST_CASE("cli fuzz: refused predictions leave the log loadable by every command", "[cli][fuzz]") {
    TempDir dir;
    auto log = dir / "predictions.yaml";
    const std::string root = "--root " + shell_quote(repo_root().string());
    const std::string log_flag = " --log " + shell_quote(log.string());
    for (const std::string& bad : {"--time-us nan", "--time-us inf", "--gbps nan", "--gbps inf", "--time-us 1e-30",
                                   "--gbps 1e30", "--time-us 0x1p4"}) {
        INFO(bad);
        auto r = run_cli(root + " predict 01-memory-roof/copy_naive_fp32 --regime memory --why w " + bad + log_flag);
        CHECK(r.exit_code == 2);
        CHECK_FALSE(std::filesystem::exists(log));
    }
    // A good prediction, then every reader of the log still works on it.
    REQUIRE(run_cli(root + " predict 01-memory-roof/copy_naive_fp32 --regime memory --why w --time-us 600" + log_flag)
                .exit_code == 0);
    CHECK(run_cli(root + " log" + log_flag).exit_code == 0);
    CHECK(run_cli(root + " list" + log_flag).exit_code == 0);
    CHECK(run_cli(root + " predict 01-memory-roof/copy_naive_fp32 --regime memory --why w --time-us 700" + log_flag)
              .exit_code == 0);
    CHECK(roofline::load_log(log).predictions.size() == 2);
}
