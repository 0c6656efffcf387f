// The sandbox a submission's code runs in under `roofline batch`: its compile and
// link (nvcc, build_kit.cpp) and its lab program (lab_session.cpp, started by the
// `roofline grade` that batch runs outside the sandbox). bubblewrap (bwrap) makes it:
//
//   visible, read-only   /usr, the /bin and /lib links, of /etc what any user may read
//                        (not /etc/shadow, ssh or munge keys), /sys, a /proc of its own,
//                        /dev with the NVIDIA device nodes, and the paths the caller lists
//   writable             only the caller's folders (the first one is its TMPDIR)
//   home                 an empty, read-only folder
//   not there            everything else: the course, instructor/, solutions/, the other
//                        submissions, the batch's output, the instructor's home
//   no                   network, other processes, capabilities, controlling terminal
//   environment          only the allow-list (sandbox_environment_names): nothing of the
//                        grader's own variables (tokens, OLDPWD, ROOFLINE_SANDBOX) gets in
//   memory               Sandbox::program_memory_bytes per program started with a room
//                        that asks for it: a cgroup's MemoryMax where `systemd-run --user
//                        --scope` works here, else, for a program without CUDA only, an
//                        address-space rlimit (prlimit); a CUDA program reserves far more
//                        address space than it uses, so without a cgroup it has no limit
//
// Where a hidden folder lies inside one of the system's (a course under /usr/local),
// it is covered by an empty one.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct Sandbox {
    std::filesystem::path bwrap;  // the bwrap program
    // Out of sight even where a visible system folder holds them: the course, the
    // submissions, the batch's output, the hidden shapes' folder, the instructor's home.
    std::vector<std::filesystem::path> hidden;
    // Memory per program whose room asks for it (SandboxRoom::limit_memory); 0: none.
    long long program_memory_bytes = 0;
    // `systemd-run` where `systemd-run --user --scope` works here (sandbox_cgroup_runner):
    // the memory limit is then a cgroup's. Empty: rlimits only.
    std::filesystem::path systemd_run;
    // Variables passed in beside the allow-list, by name (the tests' fake lab program).
    std::vector<std::string> pass_environment;
};

// What one sandboxed program sees beside the system.
struct SandboxRoom {
    std::vector<std::filesystem::path> read_only;  // files or folders
    std::vector<std::filesystem::path> writable;   // its own folders; the first is also its TMPDIR
    std::filesystem::path work_dir;                // where it starts
    // Whether the sandbox's program memory limit applies (a lab program, a CPU part's program;
    // not a compiler, which has its own address-space limit), and whether the program uses
    // CUDA (then only a cgroup can limit it).
    bool limit_memory = true;
    bool uses_cuda = true;
};

// The variables a sandboxed program gets (bwrap --clearenv, then these): PATH (the grader's),
// HOME (the empty one), TMPDIR (its first writable folder), LANG and LC_ALL (C), and, where the
// grader has them, LD_LIBRARY_PATH (the CUDA driver's library may be found through it),
// CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER (which GPU), ROOFLINE_TRACE (stage marks).
std::vector<std::string> sandbox_environment_names();

// The command line that runs `argv` inside the sandbox: bwrap, its options, `--`, argv.
std::vector<std::string> sandboxed_argv(const Sandbox& sandbox, const SandboxRoom& room,
                                        const std::vector<std::string>& argv);

// bwrap: $ROOFLINE_BWRAP if set, else `bwrap` on PATH; empty when there is none.
// Throws InputError when ROOFLINE_BWRAP is set but names no executable file.
std::filesystem::path find_bwrap();

// `systemd-run` when `systemd-run --user --scope -p MemoryMax=...` works here (it needs a user
// session's systemd with the memory controller delegated), else empty; `why_not` says why.
std::filesystem::path sandbox_cgroup_runner(std::string* why_not = nullptr);

// Empty when the sandbox works here (it runs `true` in one); else what went wrong,
// in bwrap's words (no bwrap, or no permission to make namespaces).
std::string sandbox_problem(const Sandbox& sandbox);

// `roofline batch` hands its sandbox to the `roofline grade` it starts through this
// environment variable (JSON); grade then starts its lab program inside it.
inline constexpr const char* kSandboxVariable = "ROOFLINE_SANDBOX";
std::string sandbox_to_environment(const Sandbox& sandbox);
std::optional<Sandbox> sandbox_from_environment();  // nothing when the variable is unset or empty

}  // namespace roofline
