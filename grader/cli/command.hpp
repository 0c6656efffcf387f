// Each `roofline` subcommand lives in its own cmd_*.cpp and adds itself to the
// app here. A callback reports its outcome by setting `exit_code`; bad input
// throws roofline::InputError, which main() prints as one line and exits 2.
#pragma once
#include "exit_code.hpp"
#include "lab_spec.hpp"
#include "workspace.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>

namespace roofline::cli {

// LAB/VARIANT as typed on the command line: the lab loaded (InputError naming what is
// wrong: the form, an unknown lab, an unknown variant) and the variant's name in it.
struct LabTarget {
    LabSpec lab;
    std::string variant_name;
    const VariantSpec& variant() const { return lab.variant(variant_name); }
    // LAB/VARIANT with the lab's name now: an old name typed (lab_aliases.hpp) is not echoed back.
    std::string name() const { return lab.id + "/" + variant_name; }
};
LabTarget load_target(const Workspace& ws, const std::string& target);  // lab_target.cpp

struct Context {
    std::string root_flag;   // --root
    std::string build_flag;  // --build-dir
    int exit_code = 0;
    mutable bool noted_fallback = false;  // root() said once that it fell back to the build's tree

    // The course checkout (hardware/, labs/, solutions/): --root, else $ROOFLINE_ROOT,
    // else the nearest folder up from here holding hardware/ and labs/, else the
    // source tree this binary was built from (with a note on stderr).
    std::filesystem::path root() const;
    // Where CMake built the labs: --build-dir, else the build this binary came from.
    std::filesystem::path build_dir() const;
    std::filesystem::path hardware_dir() const { return root() / "hardware"; }
    Workspace workspace() const { return {root(), build_dir()}; }
    // The workspace of a command that builds or runs lab programs: without --build-dir,
    // refuses (InputError) a default build configured from another tree than root(),
    // which would time one checkout's kernels against another's prediction.
    Workspace build_workspace() const;
};

void add_hardware_command(CLI::App& app, Context& context);
void add_calc_command(CLI::App& app, Context& context);
void add_list_command(CLI::App& app, Context& context);
void add_predict_command(CLI::App& app, Context& context);
void add_grade_commands(CLI::App& app, Context& context);  // grade and run
void add_log_command(CLI::App& app, Context& context);
void add_ceilings_command(CLI::App& app, Context& context);
void add_classify_command(CLI::App& app, Context& context);
void add_batch_command(CLI::App& app, Context& context);
void add_report_command(CLI::App& app, Context& context);  // cmd_report.cpp
void add_debrief_command(CLI::App& app, Context& context);
void add_explain_command(CLI::App& app, Context& context);
void add_profile_command(CLI::App& app, Context& context);  // cmd_profile.cpp
void add_diagnose_command(CLI::App& app, Context& context);
void add_timeline_command(CLI::App& app, Context& context);  // cmd_timeline.cpp
void add_hold_gpu_command(CLI::App& app, Context& context);  // hidden, for batch

}  // namespace roofline::cli
