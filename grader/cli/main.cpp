// `roofline`: the course's command line. See `roofline --help`.
#include "command.hpp"
#include "input_error.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace roofline::cli {

std::filesystem::path Context::root() const {
    if (!root_flag.empty()) return root_flag;
    if (const char* env = std::getenv("ROOFLINE_ROOT")) return env;
    for (auto dir = std::filesystem::current_path(); !dir.empty(); dir = dir.parent_path()) {
        if (std::filesystem::is_directory(dir / "hardware") && std::filesystem::is_directory(dir / "labs")) return dir;
        if (dir == dir.parent_path()) break;
    }
    return ROOFLINE_SOURCE_DIR;
}

std::filesystem::path Context::build_dir() const {
    if (!build_flag.empty()) return build_flag;
    return ROOFLINE_BINARY_DIR;
}

}  // namespace roofline::cli

int main(int argc, char** argv) {
    CLI::App app{
        "roofline: a GPU-performance course. Predict whether a kernel is compute-, memory- or\n"
        "overhead-bound and how fast it runs, then let the grader check and measure it.\n\n"
        "Start with:  roofline calc --gemm 4096 --dtype bf16 --hardware h200-sxm\n"
        "Student loop: roofline predict LAB/VARIANT ...; roofline grade LAB/VARIANT; roofline log\n"};
    app.footer(
        "Exit codes: 0 graded and correct, 1 graded and incorrect, 2 bad usage or input,\n"
        "3 no prediction for this kernel source, 4 no CUDA device, 5 build failed,\n"
        "6 the lab program crashed or timed out, 7 the variant needs another GPU (lab.yaml `requires`).");
    app.require_subcommand(1);
    roofline::cli::Context context;
    app.add_option("--root", context.root_flag, "the course checkout (default: found from the current folder)");
    app.add_option("--build-dir", context.build_flag, "the CMake build folder (default: the one this binary came from)");
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

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? 0 : roofline::cli::kBadInput;
    } catch (const roofline::InputError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return roofline::cli::kBadInput;
    } catch (const std::exception& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return roofline::cli::kBadInput;
    }
    return context.exit_code;
}
