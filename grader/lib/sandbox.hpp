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
};

// What one sandboxed program sees beside the system.
struct SandboxRoom {
    std::vector<std::filesystem::path> read_only;  // files or folders
    std::vector<std::filesystem::path> writable;   // its own folders; the first is also its TMPDIR
    std::filesystem::path work_dir;                // where it starts
};

// The command line that runs `argv` inside the sandbox: bwrap, its options, `--`, argv.
std::vector<std::string> sandboxed_argv(const Sandbox& sandbox, const SandboxRoom& room,
                                        const std::vector<std::string>& argv);

// bwrap: $ROOFLINE_BWRAP if set, else `bwrap` on PATH; empty when there is none.
// Throws InputError when ROOFLINE_BWRAP is set but names no executable file.
std::filesystem::path find_bwrap();

// Empty when the sandbox works here (it runs `true` in one); else what went wrong,
// in bwrap's words (no bwrap, or no permission to make namespaces).
std::string sandbox_problem(const Sandbox& sandbox);

// `roofline batch` hands its sandbox to the `roofline grade` it starts through this
// environment variable (JSON); grade then starts its lab program inside it.
inline constexpr const char* kSandboxVariable = "ROOFLINE_SANDBOX";
std::string sandbox_to_environment(const Sandbox& sandbox);
std::optional<Sandbox> sandbox_from_environment();  // nothing when the variable is unset or empty

}  // namespace roofline
