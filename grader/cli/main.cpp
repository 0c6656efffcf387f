// `roofline`: the course's command line. See `roofline --help`.
#include "command.hpp"
#include "input_error.hpp"
#include "number_flags.hpp"

#include <fmt/format.h>

#include <optional>
#include <string_view>

namespace {

// Errors are one line: control bytes (a newline in --why, a binary file's content)
// are shown escaped rather than sent to the terminal.
std::string printable(std::string_view text) {
    std::string out;
    for (unsigned char c : text) {
        if (c == '\n') out += "\\n";
        else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
        else out += static_cast<char>(c);
    }
    return out;
}

// CLI11 reports `roofline bogus` as "A subcommand is required"; name the word instead.
// Returns the first word that is neither an option, an option's value nor a subcommand.
std::optional<std::string> unknown_command(const CLI::App& app, int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        std::string_view arg = argv[i];
        if (arg == "--root" || arg == "--build-dir") {
            ++i;  // its value
            continue;
        }
        if (!arg.empty() && arg.front() == '-') continue;
        for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
            if (sub->check_name(std::string(arg))) return std::nullopt;
        }
        return std::string(arg);
    }
    return std::nullopt;
}

}  // namespace

namespace roofline::cli {
// cmd_serve.cpp: module 10's decode server. Declared here, not in command.hpp, so that adding it
// rebuilds main.cpp alone.
void add_serve_command(CLI::App& app, Context& context);
}  // namespace roofline::cli

int main(int argc, char** argv) {
    CLI::App app{
        "roofline: a GPU-performance course. Predict whether a kernel is compute-, memory- or\n"
        "overhead-bound and how fast it runs, then let the grader check and measure it.\n\n"
        "Start with:  roofline calc --gemm 4096 --dtype bf16 --hardware h200-sxm\n"
        "Student loop: roofline predict LAB/VARIANT ...; roofline grade LAB/VARIANT; roofline debrief LAB/VARIANT;\n"
        "              roofline explain LAB/VARIANT --why \"...\"; roofline log\n"};
    app.require_subcommand(1);
    roofline::cli::Context context;
    app.add_option("--root", context.root_flag, "the course checkout (default: found from the current folder)")
        ->check(roofline::cli::file_path());
    app.add_option("--build-dir", context.build_flag, "the CMake build folder (default: the one this binary came from)")
        ->check(roofline::cli::file_path());
    roofline::cli::add_hardware_command(app, context);
    roofline::cli::add_calc_command(app, context);
    roofline::cli::add_list_command(app, context);
    roofline::cli::add_predict_command(app, context);
    roofline::cli::add_grade_commands(app, context);
    roofline::cli::add_log_command(app, context);
    roofline::cli::add_ceilings_command(app, context);
    roofline::cli::add_classify_command(app, context);
    roofline::cli::add_batch_command(app, context);
    roofline::cli::add_report_command(app, context);
    roofline::cli::add_debrief_command(app, context);
    roofline::cli::add_explain_command(app, context);
    roofline::cli::add_profile_command(app, context);
    roofline::cli::add_diagnose_command(app, context);
    roofline::cli::add_timeline_command(app, context);
    roofline::cli::add_serve_command(app, context);
    roofline::cli::add_hold_gpu_command(app, context);
    // After the subcommands: CLI11 copies the footer into those added later, and the
    // grading exit codes do not belong under `calc --help`.
    app.footer(
        "Exit codes: 0 graded and correct, 1 graded and incorrect, 2 bad usage or input,\n"
        "3 no prediction for this kernel source, 4 no CUDA device, 5 build failed,\n"
        "6 the lab program crashed or timed out, 7 the variant needs another GPU (lab.yaml `requires`),\n"
        "8 refused: the timed work was not the kernel file's own (a library, a redefined function, clocks disagree),\n"
        "9 not graded yet: debrief and explain need a graded measurement of the variant in the log,\n"
        "10 a tool is missing or refused: ncu (profile) or compute-sanitizer (run --sanitize) is not installed,\n"
        "   or the GPU's performance counters are not permitted (ERR_NVGPUCTRPERM).\n"
        "The course folder: --root, else $ROOFLINE_ROOT, else the nearest folder up from here holding\n"
        "hardware/ and labs/, else the tree this roofline was built from.");
    app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
        std::string where = "roofline";
        for (const auto* sub : failed->get_subcommands()) where += " " + sub->get_name();
        return fmt::format("error: {}; see `{} --help`\n", printable(e.what()), where);
    });
    if (auto word = unknown_command(app, argc, argv)) {
        std::vector<std::string> names;
        for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
        fmt::print(stderr, "error: unknown command '{}'; the commands are {}; see `roofline --help`\n", printable(*word),
                   fmt::join(names, ", "));
        return roofline::kBadInput;
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? 0 : roofline::kBadInput;
    } catch (const roofline::InputError& e) {
        fmt::print(stderr, "error: {}\n", printable(e.what()));
        return roofline::kBadInput;
    } catch (const std::exception& e) {
        fmt::print(stderr, "error: {}\n", printable(e.what()));
        return roofline::kBadInput;
    }
    return context.exit_code;
}
