// roofline report: the course in a browser. Writes one self-contained HTML file
// (the calculator, your kernels on the roofline, your predictions, the labs'
// state; html_report.hpp) and prints its path; --open also opens it.
#include "command.hpp"
#include "number_flags.hpp"
#include "process.hpp"
#include "html_page.hpp"
#include "html_report.hpp"
#include "output_file.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace roofline::cli {

namespace {

struct ReportFlags {
    std::string log;
    std::string out;
    bool open = false;
};

// Hands the page to the desktop's browser where there is one; says so where there is not.
void open_in_browser(const std::filesystem::path& page) {
    for (const char* opener : {"xdg-open", "open"}) {
        auto program = find_on_path(opener);
        if (program.empty()) continue;
        std::string command = fmt::format("{} {} >/dev/null 2>&1 &", quoted_for_shell(program.string()),
                                          quoted_for_shell(page.string()));
        if (std::system(command.c_str()) == 0) return;
    }
    fmt::print(stderr, "no browser opener here (xdg-open, open): open the file above in a browser\n");
}

void run_report(Context& context, const ReportFlags& f) {
    auto ws = context.workspace();
    auto log = f.log.empty() ? ws.default_log() : std::filesystem::path(f.log);
    auto out = f.out.empty() ? ws.state_dir() / "report.html" : std::filesystem::path(f.out);
    // The page's folder is made where missing (--out pages/course.html), as for the default.
    check_output_file(out, "--out", OutputFolder::create);
    write_output_file(out, student_report_html(ws, log), "--out", OutputFolder::create);
    fmt::print("{}\n", std::filesystem::absolute(out).string());
    if (f.open) open_in_browser(std::filesystem::absolute(out));
}

}  // namespace

void add_report_command(CLI::App& app, Context& context) {
    static ReportFlags f;
    auto* report = app.add_subcommand(
        "report", "the course in a browser: one HTML file with the calculator, your roofline, predictions and labs");
    report->add_option("--log", f.log, "the prediction log (default: predictions.yaml at the course root)")->check(file_path());
    report->add_option("--out", f.out, "the HTML file to write (default: .roofline/report.html at the course root)")->check(file_path());
    report->add_flag("--open", f.open, "also open it in this machine's browser, where there is one");
    report->footer("The calculator reads its settings from the page's URL fragment, e.g.\n"
                   "  report.html#hardware=b200&dtype=fp16&n=512\n"
                   "  report.html#hardware=h200-sxm&dtype=bf16&gemm=1,8192,8192\n"
                   "  report.html#hardware=l4&dtype=fp32&elementwise=268435456&reads=2&writes=1&flops-per-element=1\n"
                   "(the names of `roofline calc`'s flags; n=N is a square GEMM, as --gemm N)");
    report->callback([&context] { run_report(context, f); });
}

}  // namespace roofline::cli
