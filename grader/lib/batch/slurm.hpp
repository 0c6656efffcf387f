// `roofline batch --slurm`: the batch as a Slurm job array. Each array task runs
// `roofline batch ... --slice $SLURM_ARRAY_TASK_ID/N` into the same OUT folder;
// `roofline batch --merge OUT` then writes the gradebook and the summary.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace roofline::batch {

struct SlurmPlan {
    int tasks = 1;
    std::string job_name;
    std::vector<std::string> options;       // extra #SBATCH lines, e.g. --gres=gpu:1, --partition=gpu
    std::vector<std::string> task_command;  // `roofline ... batch ...` without --slice
    std::filesystem::path out;
};

std::string sbatch_script(const SlurmPlan& plan);
// Writes OUT/slurm/batch.sbatch, submits it with sbatch and returns the job id.
// Throws InputError with sbatch's message when it fails.
std::string submit_slurm(const SlurmPlan& plan);

}  // namespace roofline::batch
