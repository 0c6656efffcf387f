#include "lab_run.hpp"

#include "exit_code.hpp"
#include "file_text.hpp"
#include "process.hpp"
#include "input_error.hpp"
#include "sandbox.hpp"

#include <fmt/format.h>

#include <sys/resource.h>

#include <csignal>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace roofline {

protocol::Result read_answer(const protocol::Job& job) {
    const auto& file = job.result_path;
    protocol::Result result;
    try {
        result = nlohmann::json::parse(read_file_text(file)).get<protocol::Result>();
    } catch (const protocol::MalformedResult& e) {
        throw protocol::MalformedResult(file, e.what());
    } catch (const nlohmann::json::exception& e) {
        throw protocol::MalformedResult(file, fmt::format("not JSON ({})", protocol::result_fields::without_prefix(e.what())));
    }
    if (result.variant != job.variant || result.mode != job.mode) {
        throw protocol::MalformedResult(file, fmt::format("answers variant '{}' in mode {}, not the job's '{}' in mode {}",
                                                          result.variant, nlohmann::json(result.mode).dump(),
                                                          job.variant, nlohmann::json(job.mode).dump()));
    }
    if (auto missing = protocol::missing_part(result, job.mode))
        throw protocol::MalformedResult(file, fmt::format("says ok but has no {}", *missing));
    return result;
}

int death_signal(int exit_code, int signal) {
    if (signal != 0) return signal;
    const char* sandboxed = std::getenv(kSandboxVariable);
    if (sandboxed && *sandboxed && exit_code > 128 && exit_code <= 128 + 64) return exit_code - 128;
    return 0;
}

namespace {

// This process's limit of `resource` (a lab program inherits the grader's), or 0 for none.
unsigned long long own_limit(int resource) {
    rlimit limit{};
    if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 0;
    return limit.rlim_cur;
}

const char* signal_abbreviation(int signal) {
    switch (signal) {
        case SIGHUP: return "SIGHUP";
        case SIGINT: return "SIGINT";
        case SIGQUIT: return "SIGQUIT";
        case SIGILL: return "SIGILL";
        case SIGTRAP: return "SIGTRAP";
        case SIGABRT: return "SIGABRT";
        case SIGBUS: return "SIGBUS";
        case SIGFPE: return "SIGFPE";
        case SIGKILL: return "SIGKILL";
        case SIGUSR1: return "SIGUSR1";
        case SIGSEGV: return "SIGSEGV";
        case SIGUSR2: return "SIGUSR2";
        case SIGPIPE: return "SIGPIPE";
        case SIGALRM: return "SIGALRM";
        case SIGTERM: return "SIGTERM";
        case SIGXCPU: return "SIGXCPU";
        case SIGXFSZ: return "SIGXFSZ";
        case SIGSYS: return "SIGSYS";
        default: return nullptr;
    }
}

}  // namespace

std::string death_in_words(int signal) {
    const char* abbreviation = signal_abbreviation(signal);
    std::string name = abbreviation ? fmt::format("{} (signal {}, {})", abbreviation, signal, strsignal(signal))
                                    : fmt::format("signal {} ({})", signal, strsignal(signal));
    switch (signal) {
        case SIGXFSZ: {
            auto limit = own_limit(RLIMIT_FSIZE);
            return fmt::format("{}: the output limit{}: it wrote more than that to its output (stdout and stderr, kept "
                               "together) or to a file of its own",
                               name, limit ? fmt::format(" of {} MiB", limit >> 20) : std::string());
        }
        case SIGXCPU: {
            auto limit = own_limit(RLIMIT_CPU);
            return fmt::format("{}: the CPU-time limit{}: busy on every core it could use",
                               name, limit ? fmt::format(" of {} s", limit) : std::string());
        }
        case SIGKILL: {
            std::string memory;  // a cgroup's limit kills with SIGKILL (an address-space limit fails an allocation)
            std::optional<Sandbox> sandbox;
            try {
                sandbox = sandbox_from_environment();
            } catch (const InputError&) {
            }
            if (sandbox && sandbox->program_memory_bytes > 0 && !sandbox->systemd_run.empty()) {
                memory = fmt::format("its memory limit of {} MiB", sandbox->program_memory_bytes >> 20);
            }
            return fmt::format("{}, from outside: {}the machine's out-of-memory killer (too much memory)", name,
                               memory.empty() ? "" : memory + ", or ");
        }
        case SIGSEGV:
            return name + ": a bad address, or a stack overflow (deep recursion, a large local array)";
        case SIGABRT:
            return name + ": an assert, an uncaught exception, or memory it could not get (std::bad_alloc)";
        case SIGBUS: return name + ": a misaligned or unmapped access";
        case SIGFPE: return name + ": an integer division by zero";
        case SIGILL: return name + ": an illegal instruction";
        default: return name;
    }
}

LabRun interpret(const ChildRun& child, const protocol::Job& job, double timeout_s) {
    const auto& variant = job.variant;
    LabRun run;
    run.child = child;
    if (child.timed_out) {
        run.outcome = Outcome::timed_out;
        run.message = fmt::format("{} timed out after {:g} s during '{}' (a hang: a loop that never ends, or a "
                                  "barrier not every thread reaches?)",
                                  variant, timeout_s, child.last_stage);
        return run;
    }
    if (int signal = death_signal(child.exit_code, child.signal); signal != 0) {
        run.outcome = Outcome::crashed;
        run.message = fmt::format("{} died of {} during '{}'", variant, death_in_words(signal), child.last_stage);
        return run;
    }
    if (!std::filesystem::exists(job.result_path)) {
        run.outcome = Outcome::crashed;
        run.message = fmt::format("{} exited with code {} during '{}' without a result: exit() during the job (did "
                                  "the kernel file call exit()?)",
                                  variant, child.exit_code, child.last_stage);
        return run;
    }
    try {
        run.result = read_answer(job);
    } catch (const protocol::MalformedResult& e) {
        // A kernel file can write anything into the answer: what it wrote is its crash.
        run.outcome = Outcome::crashed;
        run.message = fmt::format("{} left an answer the grader cannot read during '{}': {} (did the kernel file "
                                  "write to the grader's files? If not, rebuild the lab program: cmake --build)",
                                  variant, child.last_stage, e.what());
        return run;
    }
    const auto& message = run.result.message;
    switch (run.result.status) {
        case protocol::JobStatus::ok:
            run.outcome = Outcome::correct;
            run.message = "correct";
            break;
        case protocol::JobStatus::incorrect:
            run.outcome = Outcome::incorrect;
            run.message = fmt::format("{} is incorrect: {}", variant, message.empty() ? "no check says why" : message);
            for (const auto& check : run.result.checks) {
                if (!check.report.passed) {
                    run.message = fmt::format("{} is incorrect on {} ({}): {}", variant, nlohmann::json(check.shape).dump(),
                                              check.when, check.report.verdict);
                }
            }
            break;
        case protocol::JobStatus::hang:
            run.outcome = Outcome::timed_out;
            run.message = fmt::format("{} hung: {} (a loop that never ends, or a barrier not every thread reaches?)",
                                      variant, message);
            break;
        case protocol::JobStatus::timing_refused:
            run.outcome = Outcome::timing_refused;
            run.message = fmt::format("{}: {}", variant, message);
            break;
        case protocol::JobStatus::cuda_error:
            run.outcome = Outcome::cuda_error;
            run.message = fmt::format("{} raised a CUDA error during '{}': {}", variant, child.last_stage, message);
            break;
        case protocol::JobStatus::unknown_variant:
        case protocol::JobStatus::bad_shape:
        case protocol::JobStatus::no_device:
        case protocol::JobStatus::error:
            run.outcome = Outcome::harness_error;
            run.message = fmt::format("{}: {}", variant, message);
            break;
    }
    return run;
}

}  // namespace roofline
