#include "slurm.hpp"

#include "process.hpp"
#include "input_error.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace roofline::batch {

namespace fs = std::filesystem;

std::string sbatch_script(const SlurmPlan& plan) {
    auto logs = fs::absolute(plan.out / "slurm");
    std::string script = "#!/bin/bash\n";
    script += "# Written by `roofline batch --slurm`: one array task per slice of the submissions.\n";
    script += fmt::format("#SBATCH --job-name={}\n", plan.job_name);
    script += fmt::format("#SBATCH --array=0-{}\n", plan.tasks - 1);
    script += fmt::format("#SBATCH --output={}/task-%a.out\n", logs.string());
    for (const auto& option : plan.options) script += fmt::format("#SBATCH {}\n", option);
    script += "set -euo pipefail\n";
    std::string command;
    for (const auto& word : plan.task_command) command += quoted_for_shell(word) + " ";
    script += fmt::format("exec {}--slice \"${{SLURM_ARRAY_TASK_ID}}/{}\"\n", command, plan.tasks);
    return script;
}

std::string submit_slurm(const SlurmPlan& plan) {
    auto dir = fs::absolute(plan.out / "slurm");
    fs::create_directories(dir);
    auto script_file = dir / "batch.sbatch";
    std::ofstream(script_file) << sbatch_script(plan);
    std::string sbatch;
    for (const char* candidate : {"/usr/bin/sbatch", "/usr/local/bin/sbatch", "/bin/sbatch"}) {
        if (fs::exists(candidate)) {
            sbatch = candidate;
            break;
        }
    }
    if (const char* path = std::getenv("PATH"); sbatch.empty() && path) {
        std::stringstream dirs(path);
        std::string d;
        while (std::getline(dirs, d, ':')) {
            if (!d.empty() && fs::exists(fs::path(d) / "sbatch")) {
                sbatch = (fs::path(d) / "sbatch").string();
                break;
            }
        }
    }
    if (sbatch.empty()) throw InputError("--slurm: sbatch not found on PATH; run it on a Slurm login node");
    auto output = dir / "sbatch-output.txt";
    auto run = run_process({{sbatch, "--parsable", script_file.string()}, dir, output, {}, {}, {.timeout_s = 120}});
    std::string text = file_tail(output, 4000);
    if (!run.ok()) {
        throw InputError(script_file, 0, fmt::format("sbatch refused the job (exit {}): {}", run.exit_code, text));
    }
    auto id = text.substr(0, text.find_first_of(";\n"));
    return id;
}

}  // namespace roofline::batch
