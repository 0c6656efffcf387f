// roofline batch LAB --submissions DIR --out DIR: grade a whole class (grader/lib/batch/).
// roofline batch --merge OUT: join the slices of a Slurm batch into one gradebook.
#include "batch.hpp"
#include "outcome.hpp"
#include "process.hpp"
#include "slurm.hpp"
#include "command.hpp"
#include "input_error.hpp"
#include "lab_aliases.hpp"
#include "number_flags.hpp"
#include "number_text.hpp"

#include <fmt/format.h>

#include <csignal>
#include <limits>
#include <thread>

namespace roofline::cli {

namespace {

struct BatchFlags {
    std::string lab, submissions, out, hidden, gpus = "all", slice, hardware, merge;
    int jobs = 0;
    bool force = false, slurm = false, keep_stage = false;
    int slurm_tasks = 0;
    std::vector<std::string> slurm_options;
    std::optional<std::uint64_t> seed;
    double timeout_s = 0;
    double compile_timeout_s = 120;
    long long compile_memory_mib = 4096;
    long long compile_memory_total_mib = 0;
    long long program_memory_mib = 8192;
    bool no_sandbox = false;
    bool require_sandbox = false;  // the default now; the flag is still accepted
};

std::filesystem::path this_program() { return std::filesystem::read_symlink("/proc/self/exe"); }

// The command each Slurm array task runs: this batch, less --slurm, with absolute paths.
std::vector<std::string> slurm_task_command(const Context& context, const BatchFlags& f) {
    namespace fs = std::filesystem;
    std::vector<std::string> argv{this_program().string(), "--root", fs::absolute(context.root()).string(),
                                  "--build-dir", fs::absolute(context.build_dir()).string(), "batch", f.lab,
                                  "--submissions", fs::absolute(f.submissions).string(),
                                  "--out", fs::absolute(f.out).string(), "--gpus", f.gpus};
    if (!f.hidden.empty()) argv.insert(argv.end(), {"--hidden", fs::absolute(f.hidden).string()});
    if (f.jobs > 0) argv.insert(argv.end(), {"--jobs", std::to_string(f.jobs)});
    if (f.seed) argv.insert(argv.end(), {"--seed", std::to_string(*f.seed)});
    if (f.timeout_s > 0) argv.insert(argv.end(), {"--timeout", fmt::format("{:g}", f.timeout_s)});
    if (!f.hardware.empty()) argv.insert(argv.end(), {"--hardware", f.hardware});
    if (f.force) argv.push_back("--force");
    argv.insert(argv.end(), {"--compile-timeout", fmt::format("{:g}", f.compile_timeout_s), "--compile-memory",
                             std::to_string(f.compile_memory_mib), "--program-memory",
                             std::to_string(f.program_memory_mib)});
    if (f.compile_memory_total_mib > 0)
        argv.insert(argv.end(), {"--compile-memory-total", std::to_string(f.compile_memory_total_mib)});
    if (f.no_sandbox) argv.push_back(batch::kNoSandboxFlag);
    return argv;
}

void run_batch_command(Context& context, const BatchFlags& typed) {
    BatchFlags f = typed;
    if (!f.lab.empty()) f.lab = resolve_lab_name(f.lab);  // an old name (lab_aliases.hpp): its alias, with a note
    if (!f.merge.empty()) {
        context.exit_code = batch::merge_batch(f.merge);
        return;
    }
    if (f.lab.empty() || f.submissions.empty() || f.out.empty()) {
        throw InputError("batch needs LAB, --submissions DIR and --out DIR (or --merge OUT); see roofline batch --help");
    }
    context.build_workspace();  // refuses a build of another tree before anything starts
    if (f.slurm) {
        if (!f.slice.empty()) throw InputError("--slurm makes the slices itself; leave out --slice");
        auto count = batch::find_submissions(f.submissions).size();
        batch::SlurmPlan plan;
        plan.tasks = f.slurm_tasks > 0 ? std::min<int>(f.slurm_tasks, int(count)) : std::min<int>(int(count), 8);
        plan.job_name = "roofline-" + f.lab;
        plan.options = f.slurm_options;
        plan.task_command = slurm_task_command(context, f);
        plan.out = f.out;
        auto id = batch::submit_slurm(plan);
        fmt::print("{}\n", id);
        fmt::print(stderr, "submitted job {}: {} array tasks grading {} submissions into {}\n"
                   "when it has finished (squeue -j {}): roofline batch --merge {}\n",
                   id, plan.tasks, count, f.out, id, f.out);
        return;
    }
    batch::BatchOptions o;
    o.lab = f.lab;
    o.submissions = f.submissions;
    o.out = f.out;
    o.hidden = f.hidden;
    o.gpus = f.gpus;
    o.jobs = f.jobs;
    o.force = f.force;
    o.seed = f.seed;
    o.timeout_s = f.timeout_s;
    if (!f.slice.empty()) o.slice = batch::parse_slice(f.slice);
    o.hardware = f.hardware;
    o.keep_stage = f.keep_stage;
    o.roofline = this_program();
    if (f.compile_timeout_s <= 0) throw InputError("--compile-timeout: give the seconds one compile may take, e.g. 120");
    if (f.compile_memory_mib < 0) throw InputError("--compile-memory: give MiB per compiler process (0: no limit), e.g. 4096");
    o.compile_timeout_s = f.compile_timeout_s;
    o.compile_memory_mib = f.compile_memory_mib;
    if (f.compile_memory_total_mib < 0) throw InputError("--compile-memory-total: give MiB for all compiles together (0: 3/4 of the machine's)");
    if (f.program_memory_mib < 0) throw InputError("--program-memory: give MiB per lab program (0: no limit), e.g. 8192");
    o.compile_memory_total_mib = f.compile_memory_total_mib;
    o.program_memory_mib = f.program_memory_mib;
    o.no_sandbox = f.no_sandbox;
    // Ctrl-C, or the scheduler's SIGTERM: stop every grading child, keep what finished.
    std::signal(SIGINT, [](int) { request_stop(); });
    std::signal(SIGTERM, [](int) { request_stop(); });
    context.exit_code = batch::run_batch(context.build_workspace(), o);
}

}  // namespace

void add_batch_command(CLI::App& app, Context& context) {
    static BatchFlags f;
    auto* cmd = app.add_subcommand(
        "batch", "grade a class: every submission built and graded in isolation, a gradebook CSV and a summary");
    cmd->add_option("lab", f.lab, "the lab, e.g. 01-memory-roof");
    cmd->add_option("--submissions", f.submissions, "a folder with one folder per submission (kernels/*.cu, predictions.yaml)");
    cmd->add_option("--out", f.out, "where results go (OUT/gradebook.csv, OUT/summary.md, OUT/submissions/NAME/)");
    cmd->add_option("--hidden", f.hidden, "the instructor's hidden shapes and seed (e.g. instructor/hidden/LAB.yaml)");
    cmd->add_option("--gpus", f.gpus, "all (default), none, or device indices such as 0,1: one grading worker per GPU");
    cmd->add_option("--jobs", f.jobs, "parallel builds (default: the CPU count)")->check(whole_in(1, 1024));
    cmd->add_flag("--force", f.force, "regrade submissions that already have a result");
    cmd->add_option("--seed", f.seed, "the input seed for every submission (default: the hidden file's, else 1)")
        ->check(whole_in(0, std::numeric_limits<std::uint64_t>::max()));
    cmd->add_option("--timeout", f.timeout_s, "seconds one submission's grading may take (default: from the lab)")
        ->check(number_in(1, 86400));
    cmd->add_option("--hardware", f.hardware, "score against this hardware profile instead of the detected GPU's");
    cmd->add_option("--slice", f.slice, "grade only slice K of N (K/N, K from 0), as a Slurm array task does")
        ->check(CLI::Validator(
            [](std::string& text) {
                // digits/digits; batch::parse_slice checks K < N (an empty value would read as no slice)
                auto slash = text.find('/');
                bool ok = slash != std::string::npos && parse_whole(text.substr(0, slash)) &&
                          parse_whole(text.substr(slash + 1));
                return ok ? std::string() : "expected K/N, e.g. 0/4 (slice K of N, K from 0) (got '" + text + "')";
            },
            "K/N"));
    cmd->add_flag("--slurm", f.slurm, "submit the batch as a Slurm job array (sbatch) instead of running it here");
    cmd->add_option("--slurm-tasks", f.slurm_tasks, "array tasks for --slurm (default: up to 8)")
        ->check(whole_in(1, 10000));
    cmd->add_option("--slurm-option", f.slurm_options, "an extra #SBATCH line for --slurm, e.g. --slurm-option=--gres=gpu:1");
    cmd->add_option("--merge", f.merge, "join the results in this OUT folder (after --slurm) into the gradebook and summary");
    cmd->add_flag("--keep-stage", f.keep_stage, "keep each submission's staging tree (for debugging)");
    cmd->add_option("--compile-timeout", f.compile_timeout_s,
                    "seconds one nvcc run (a kernel file, or the link) may take before it is a compile_error (default 120)");
    cmd->add_option("--compile-memory", f.compile_memory_mib,
                    "MiB of address space for each process nvcc starts (default 4096; 0: no limit)");
    cmd->add_option("--compile-memory-total", f.compile_memory_total_mib,
                    "MiB for all compiles at once: build jobs are capped to total / --compile-memory "
                    "(default: 3/4 of the machine's memory)");
    cmd->add_option("--program-memory", f.program_memory_mib,
                    "MiB per lab program and CPU-part program (default 8192; 0: no limit): a cgroup where "
                    "`systemd-run --user --scope` works, else address space for CPU parts only");
    cmd->add_flag(batch::kNoSandboxFlag, f.no_sandbox,
                  "grade WITHOUT a sandbox: every submission's code runs with your rights (only for code you trust; "
                  "recorded in the gradebook's sandbox column and the summary). Without it, a batch where bwrap "
                  "cannot make a sandbox refuses (exit 2)");
    cmd->add_flag("--require-sandbox", f.require_sandbox, "the default now (kept for older scripts)")->group("");
    cmd->footer(
        "Outcomes (the gradebook's outcome column; a submission gets its worst variant's):\n" +
        batch::submission_outcomes_help() +
        "Exit codes: 0 every submission has a result, 1 some have none (--merge), 2 bad input, or no sandbox\n"
        "(nothing graded: install bubblewrap, set ROOFLINE_BWRAP, or pass " + std::string(batch::kNoSandboxFlag) + "),\n"
        "130 interrupted (Ctrl-C or SIGTERM: the same command resumes).\n"
        "Sandbox: bwrap from $ROOFLINE_BWRAP, else from PATH (scripts/fetch_bwrap.sh unpacks one).");
    cmd->callback([&context] { run_batch_command(context, f); });
}

}  // namespace roofline::cli
