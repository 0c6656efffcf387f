// The HTML pages in a real browser: headless Chromium (Debian's `chromium`,
// which setup.sh installs) loads each page from disk, runs its scripts, and
// the test reads the DOM it leaves (--dump-dom).
//
// - The calculator, set through the URL fragment, shows the figures
//   `roofline calc --json` prints for the same inputs, on a grid of GPUs,
//   dtypes and workloads (and, with measured ceilings, the figures analyze()
//   gives with them).
// - The batch's report.html with hostile submission names runs no script of
//   theirs and shows each name as text.
// - A screenshot of each page, at 1280 px and at a phone's width, is kept in
//   ROOFLINE_ARTIFACT_DIR for CI to keep.
//
// Hidden from the default run ([.browser]); ctest runs them as `cpu_browser`,
// which skips (exit 77) where no Chromium is installed.
#include "html_support.hpp"

#include "batch.hpp"
#include "gemm/model.hpp"
#include "hardware.hpp"

#include <fmt/format.h>

#include <cmath>
#include <regex>

using namespace roofline;
using namespace roofline_test;
using nlohmann::json;

namespace {

std::string chromium() {
    if (const char* env = std::getenv("ROOFLINE_CHROMIUM"); env && *env) return env;
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
        if (std::system(fmt::format("command -v {} >/dev/null 2>&1", name).c_str()) == 0) return name;
    }
    return "";
}

// Runs headless Chromium with `flags` on the page; returns its stdout.
std::string browse(const fs::path& page, const std::string& fragment, const std::string& flags) {
    auto browser = chromium();
    REQUIRE_FALSE(browser.empty());
    TempDir profile;
    auto out = profile / "stdout.html";
    auto url = "file://" + fs::absolute(page).string() + (fragment.empty() ? "" : "#" + fragment);
    auto command = fmt::format("{} --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions "
                               "--user-data-dir={} {} {} > {} 2>/dev/null",
                               browser, shell_quote((profile / "profile").string()), flags, shell_quote(url),
                               shell_quote(out.string()));
    INFO(command);
    REQUIRE(std::system(command.c_str()) == 0);
    return read_file(out);
}

std::string dump_dom(const fs::path& page, const std::string& fragment = "") {
    auto dom = browse(page, fragment, "--dump-dom");
    REQUIRE(contains(dom, "</html>"));
    return dom;
}

void screenshot(const fs::path& page, const std::string& name) {
    fs::path dir = ROOFLINE_ARTIFACT_DIR;
    fs::create_directories(dir);
    for (auto [width, suffix] : {std::pair{1280, "1280"}, std::pair{390, "phone"}}) {
        auto file = dir / fmt::format("{}-{}.png", name, suffix);
        fs::remove(file);
        browse(page, "", fmt::format("--hide-scrollbars --window-size={},5000 --screenshot={}", width,
                                     shell_quote(file.string())));
        INFO(file);
        REQUIRE(fs::exists(file));
        CHECK(read_file(file).substr(1, 3) == "PNG");
    }
}

// The figure the page shows as calc-NAME, as the number in its data-value ("" when none).
std::string figure(const std::string& dom, const std::string& name) {
    std::smatch m;
    std::regex pattern("id=\"calc-" + name + "\"[^>]*data-value=\"([^\"]*)\"");
    if (!std::regex_search(dom, m, pattern)) {
        FAIL("no calc-" << name << " with a data-value in the page");
    }
    return m[1].str();
}

void check_same(const std::string& dom, const std::string& name, double expected) {
    auto shown = figure(dom, name);
    INFO("calc-" << name << " shows '" << shown << "', expected " << expected);
    REQUIRE_FALSE(shown.empty());
    double value = std::stod(shown);
    CHECK(std::fabs(value - expected) <= 1e-12 * std::fabs(expected));
}

fs::path write_report(const TempDir& dir, const fs::path& root, const fs::path& log = "") {
    auto page = dir / "report.html";
    auto r = run_cli("--root " + shell_quote(root.string()) + " report --log " +
                     shell_quote((log.empty() ? dir / "none.yaml" : log).string()) + " --out " + shell_quote(page.string()));
    INFO(r.all());
    REQUIRE(r.exit_code == 0);
    return page;
}

// Text as Chromium writes a text node back out: only &, < and > escaped.
std::string dom_text(const std::string& text) {
    std::string out;
    for (char c : text) out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c);
    return out;
}

struct GridCase {
    std::string fragment;  // the page's inputs
    std::string calc;      // the same for `roofline calc`
};

}  // namespace

TEST_CASE("the calculator in a browser shows what roofline calc --json prints, on a grid", "[.browser]") {
    TempDir dir;
    auto page = write_report(dir, repo_root());

    std::vector<GridCase> grid = {
        {"hw=b200&dtype=fp16&n=512", "--gemm 512 --dtype fp16 --hardware b200"},
        {"hw=h200-sxm&dtype=bf16&n=4096", "--gemm 4096 --dtype bf16 --hardware h200-sxm"},
        {"hw=h200-sxm&dtype=bf16&n=64", "--gemm 64 --dtype bf16 --hardware h200-sxm"},          // overhead
        {"hw=l4&dtype=fp32&n=2048", "--gemm 2048 --dtype fp32 --hardware l4"},
        {"hw=a100-80gb-sxm&dtype=fp64&n=1000", "--gemm 1000 --dtype fp64 --hardware a100-80gb-sxm"},
        {"hw=rtx-4090&dtype=tf32&n=777", "--gemm 777 --dtype tf32 --hardware rtx-4090"},
        {"hw=b200&dtype=fp4&n=16384", "--gemm 16384 --dtype fp4 --hardware b200"},
        {"hw=h100-sxm&dtype=bf16&gemm=1,8192,8192", "--gemm 1,8192,8192 --dtype bf16 --hardware h100-sxm"},
        {"hw=rtx-5090&dtype=fp8&gemm=4096,128,4096", "--gemm 4096,128,4096 --dtype fp8 --hardware rtx-5090"},
        {"hw=l4&dtype=fp32&elementwise=268435456&reads=2&writes=1&flops=1",
         "--elementwise 268435456 --reads 2 --writes 1 --flops-per-element 1 --dtype fp32 --hardware l4"},
        {"hw=h200-sxm&dtype=fp32&elementwise=1000&reads=1&writes=1&flops=0",
         "--elementwise 1000 --reads 1 --writes 1 --dtype fp32 --hardware h200-sxm"},             // overhead, 0 FLOP
        {"hw=h100-pcie&dtype=fp16&elementwise=4096&reads=1&writes=1&flops=2000",
         "--elementwise 4096 --reads 1 --writes 1 --flops-per-element 2000 --dtype fp16 --hardware h100-pcie"},
        // the CLI's names, as the page now writes them
        {"hardware=l4&dtype=fp32&elementwise=268435456&reads=2&writes=1&flops-per-element=1",
         "--elementwise 268435456 --reads 2 --writes 1 --flops-per-element 1 --dtype fp32 --hardware l4"},
        {"hardware=h200-sxm&dtype=bf16&n=1", "--gemm 1 --dtype bf16 --hardware h200-sxm"},  // overhead: floor 5 us
    };
    for (const auto& c : grid) {
        DYNAMIC_SECTION(c.fragment) {
            auto calc = run_cli("--root " + shell_quote(repo_root().string()) + " calc " + c.calc + " --json");
            REQUIRE(calc.exit_code == 0);
            auto expected = json::parse(calc.out);
            const auto& result = expected["results"][0];
            auto dom = dump_dom(page, c.fragment);
            CHECK(contains(dom, "data-calculator-ready=\"1\""));
            REQUIRE(result["supported"].get<bool>());
            check_same(dom, "flops", expected["workload"]["flops"].get<double>());
            check_same(dom, "bytes", expected["workload"]["bytes"].get<double>());
            check_same(dom, "intensity", expected["workload"]["intensity_flop_per_byte"].get<double>());
            for (auto [name, key] : {std::pair{"ridge", "ridge_flop_per_byte"}, {"compute-floor", "compute_floor_s"},
                                     {"memory-floor", "memory_floor_s"}, {"floor", "floor_s"},
                                     {"attainable", "attainable_tflops"}, {"peak", "peak_tflops"},
                                     {"bandwidth", "bandwidth_tbs"}}) {
                check_same(dom, name, result[key].get<double>());
            }
            CHECK(figure(dom, "regime") == result["regime"].get<std::string>());
            if (result.contains("gemm_crossover_n")) check_same(dom, "crossover", result["gemm_crossover_n"].get<double>());
            else CHECK(figure(dom, "crossover").empty());
            // the FP8 switch: the other side's ridge, as calc's dtype_switch has it
            const auto& sw = result["dtype_switch"];
            if (sw.is_null()) {
                CHECK(figure(dom, "switch").empty());
            } else {
                bool from_fp8 = expected["workload"]["dtype"] == "fp8";
                check_same(dom, "switch", sw[from_fp8 ? "from" : "to"]["ridge_flop_per_byte"].get<double>());
            }
        }
    }
}

TEST_CASE("the calculator in a browser: the FP8 switch draws fp8's roof and the same GEMM under both", "[.browser]") {
    TempDir dir;
    auto page = write_report(dir, repo_root());
    auto gpu = load_profile(repo_root() / "hardware" / "h200-sxm.yaml");
    double fp8_ridge = gpu.peak.at(Dtype::fp8).dense_tflops / gpu.memory.bandwidth_tbs;
    double bf16_ridge = gpu.peak.at(Dtype::bf16).dense_tflops / gpu.memory.bandwidth_tbs;

    // The page's own example: a 256-token GEMM, just past the bf16 ridge.
    auto dom = dump_dom(page, "hardware=h200-sxm&dtype=bf16&gemm=256,8192,8192");
    CHECK(figure(dom, "regime") == "compute");
    check_same(dom, "switch", fp8_ridge);
    // the dashed fp8 roof, the point under it (same bytes: memory-bound there) and in fp8 bytes (compute-bound)
    check_mentions(dom, {"class=\"roof partner-roof\" data-dtype=\"fp8\"", "class=\"same-point\"",
                         "class=\"partner-point\"", "this point under the fp8 roof", "memory-bound",
                         "the same work in fp8 bytes"});
    CHECK(contains(dom, fmt::format("fp8 ridge {:g} FLOP/B", std::stod(fmt::format("{:.3g}", fp8_ridge)))));

    // From fp8 the other side is bf16's roof.
    dom = dump_dom(page, "hardware=h200-sxm&dtype=fp8&gemm=256,8192,8192");
    check_same(dom, "switch", bf16_ridge);
    CHECK(contains(dom, "data-dtype=\"bf16\""));

    // No FP8 roof on the A100: no second roof, and the row says why.
    dom = dump_dom(page, "hardware=a100-40gb&dtype=bf16&n=4096");
    CHECK(figure(dom, "switch").empty());
    CHECK(contains(dom, "no fp8 unit on NVIDIA A100 40GB"));
    CHECK_FALSE(contains(dom, "class=\"roof partner-roof\""));  // the element; the script names the class too
}

TEST_CASE("the student's report in a browser: graded kernels on their roofline, predictions, labs", "[.browser]") {
    TempDir dir;
    auto root = dir / "course";
    auto log = write_graded_course(root);
    auto page = write_report(dir, root, log);
    auto dom = dump_dom(page);
    CHECK(contains(dom, "data-calculator-ready=\"1\""));
    CHECK_FALSE(std::regex_search(dom, std::regex("<body[^>]*data-pwned")));  // the hostile why stayed text
    check_mentions(dom, {dom_text(kHostileScript), "graded on NVIDIA H200", "graded on NVIDIA B200",
                         "data-trend=\"closing\""});
    screenshot(page, "student-report");
}

TEST_CASE("the calculator in a browser: a dtype the part lacks, an unknown GPU, bad sizes", "[.browser]") {
    TempDir dir;
    auto page = write_report(dir, repo_root());
    auto calc = run_cli("--root " + shell_quote(repo_root().string()) + " calc --gemm 1024 --dtype fp4 --hardware h200-sxm --json");
    CHECK(calc.exit_code == 2);  // calc refuses a dtype the named GPU has no unit for
    CHECK(contains(calc.err, "no fp4 unit on NVIDIA H200"));
    auto dom = dump_dom(page, "hw=h200-sxm&dtype=fp4&n=1024");
    check_mentions(dom, {"data-supported=\"false\"", "no fp4 unit on NVIDIA H200"});
    CHECK(figure(dom, "floor").empty());

    dom = dump_dom(page, "hw=no-such-gpu&dtype=bf16&n=1024");
    CHECK(contains(dom, "no GPU profile 'no-such-gpu'"));
    CHECK(figure(dom, "flops").empty());

    dom = dump_dom(page, "hw=l4&dtype=bf16&gemm=1,-2,3");
    CHECK(contains(dom, "M,N,K must be three positive numbers"));
    CHECK(figure(dom, "flops").empty());
}

TEST_CASE("the calculator in a browser with this machine's measured ceilings", "[.browser]") {
    TempDir dir;
    auto root = dir / "course";
    fs::create_directories(root / "labs");
    fs::copy(repo_root() / "hardware", root / "hardware", fs::copy_options::recursive);
    fs::copy(repo_root() / "labs" / "01-memory-roof", root / "labs" / "01-memory-roof", fs::copy_options::recursive);
    Workspace ws{root, root / "build"};
    auto measured = save_h200_measured_ceilings(ws);
    auto page = write_report(dir, root);

    auto choice = choose_ceiling(load_profile(root / "hardware" / "h200-sxm.yaml"), &measured, Dtype::bf16);
    for (double n : {256.0, 2048.0, 8192.0}) {
        auto expected =
            analyze(gemm::work_of(n, n, n, dtype_bytes(Dtype::bf16)), choice.ceiling, choice.launch_overhead_s);
        auto dom = dump_dom(page, fmt::format("hw=h200-sxm&dtype=bf16&ceilings=measured&n={:g}", n));
        check_same(dom, "peak", 690);
        check_same(dom, "bandwidth", 4.24);
        check_same(dom, "floor", expected.time_floor_s);
        check_same(dom, "attainable", expected.attainable_tflops);
        CHECK(figure(dom, "regime") == std::string(regime_name(expected.regime)));
        check_same(dom, "crossover", static_cast<double>(gemm_crossover_n(choice.ceiling, Dtype::bf16)));
    }
}

TEST_CASE("the batch's report.html in a browser: hostile names are text, no script of theirs runs", "[.browser]") {
    using batch::SubmissionOutcome;
    TempDir dir;
    auto out = dir / "grades";
    auto reason = "kernels/01_copy_naive.cu(3): error: " + kHostileScript;
    write_batch_folder(out,
                       {submission_result("alice", SubmissionOutcome::graded, 0.8), submission_result(kHostileImg, SubmissionOutcome::graded, 0.4),
                        submission_result("bob", SubmissionOutcome::compile_error, 0, reason)},
                       {json::array({saved_grade("01-memory-roof/copy_naive_fp32", 0, 14, "TB/s", 3.4, 4.24, 1.2)}),
                        json::array({saved_grade("01-memory-roof/copy_naive_fp32", 0, 14, "TB/s", 1.7, 4.24, 0)}),
                        json::array()});
    REQUIRE(batch::merge_batch(out) == 0);
    auto page = out / "report.html";
    auto dom = dump_dom(page);
    // neither name's handler nor the message's script ran: the body carries no attribute of theirs
    CHECK_FALSE(std::regex_search(dom, std::regex("<body[^>]*data-pwned")));
    CHECK(std::regex_search(dom, std::regex("<body>")));
    CHECK_FALSE(contains(dom, "<img"));        // no element made from a name
    CHECK_FALSE(contains(dom, "<script"));     // the class report has no script at all
    check_mentions(dom, {"<td class=\"submission\">" + dom_text(kHostileImg) + "</td>", dom_text(reason)});
    screenshot(page, "class-report");
}
