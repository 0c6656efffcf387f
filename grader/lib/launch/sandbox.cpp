#include "sandbox.hpp"

#include "file_text.hpp"
#include "input_error.hpp"
#include "process.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <sstream>

namespace roofline {

namespace fs = std::filesystem;

namespace {

// The empty, read-only home every sandboxed program gets.
constexpr const char* kHome = "/home/submission";

bool is_under(const fs::path& path, const fs::path& folder) {
    auto p = path.begin();
    for (auto f = folder.begin(); f != folder.end(); ++f, ++p) {
        if (p == path.end() || *p != *f) return false;
    }
    return true;
}

fs::path canonical_or_absolute(const fs::path& path) {
    std::error_code error;
    auto canonical = fs::weakly_canonical(fs::absolute(path), error);
    return error ? fs::absolute(path) : canonical;
}

bool others_may_read(const fs::file_status& status) {
    auto p = status.permissions();
    bool read = (p & fs::perms::others_read) != fs::perms::none;
    if (status.type() == fs::file_type::directory) return read && (p & fs::perms::others_exec) != fs::perms::none;
    return read;
}

// Whether any user may read everything under `dir` (links are shown as links, and
// point nowhere in the sandbox unless what they name is shown too).
bool wholly_readable(const fs::path& dir) {
    std::error_code error;
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::none, error), end; !error && it != end;
         it.increment(error)) {
        auto status = it->symlink_status(error);
        if (error) return false;
        if (status.type() != fs::file_type::symlink && !others_may_read(status)) return false;
    }
    return !error;
}

// Binds what any user may read under `path`, whole folders where it can: the grader
// may run as root, and root in the sandbox still owns (and so could read) /etc/shadow.
void add_readable(const fs::path& path, std::vector<std::string>& args) {
    std::error_code error;
    auto status = fs::symlink_status(path, error);
    if (error) return;
    if (status.type() == fs::file_type::symlink) {
        auto target = fs::read_symlink(path, error);
        if (!error) args.insert(args.end(), {"--symlink", target.string(), path.string()});
        return;
    }
    if (!others_may_read(status)) return;
    if (status.type() != fs::file_type::directory || wholly_readable(path)) {
        args.insert(args.end(), {"--ro-bind", path.string(), path.string()});
        return;
    }
    std::vector<fs::path> children;
    for (const auto& entry : fs::directory_iterator(path, error)) children.push_back(entry.path());
    std::sort(children.begin(), children.end());
    for (const auto& child : children) add_readable(child, args);
}

// The system's part of every sandbox: the same for every call, so made once.
const std::vector<std::string>& system_arguments() {
    static std::once_flag once;
    static std::vector<std::string> args;
    std::call_once(once, [] {
        for (const char* name : {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
            std::error_code error;
            auto status = fs::symlink_status(name, error);
            if (error || !fs::exists(status)) continue;
            if (status.type() == fs::file_type::symlink) {  // merged /usr: /bin -> usr/bin
                args.insert(args.end(), {"--symlink", fs::read_symlink(name, error).string(), name});
            } else if (status.type() == fs::file_type::directory) {
                args.insert(args.end(), {"--ro-bind", name, name});
            }
        }
        add_readable("/etc", args);
        // cuInit fails with 304 without /sys; the NVIDIA nodes need --dev-bind (a
        // plain bind gives "insufficient permissions"), nvidia-uvm-tools included.
        args.insert(args.end(), {"--ro-bind", "/sys", "/sys", "--proc", "/proc", "--dev", "/dev"});
        std::error_code error;
        std::vector<std::string> nodes;
        for (const auto& entry : fs::directory_iterator("/dev", error)) {
            if (entry.path().filename().string().starts_with("nvidia")) nodes.push_back(entry.path().string());
        }
        std::sort(nodes.begin(), nodes.end());
        for (const auto& node : nodes) args.insert(args.end(), {"--dev-bind", node, node});
    });
    return args;
}

bool is_system_path(const fs::path& path) {
    for (const char* name : {"/usr", "/etc", "/sys", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
        if (is_under(path, name)) return true;
    }
    return false;
}

}  // namespace

std::vector<std::string> sandbox_environment_names() {
    return {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
            "ROOFLINE_TRACE"};
}

std::vector<std::string> sandboxed_argv(const Sandbox& sandbox, const SandboxRoom& room,
                                        const std::vector<std::string>& argv) {
    // The memory limit goes around bwrap, so that it holds for everything inside.
    std::vector<std::string> args;
    if (room.limit_memory && sandbox.program_memory_bytes > 0) {
        if (!sandbox.systemd_run.empty()) {
            // A scope of its own whose memory the kernel caps (resident, not address space), no swap
            // to escape into. systemd-run execs bwrap in this process: its exit status is bwrap's.
            args = {sandbox.systemd_run.string(), "--user", "--scope", "--quiet", "--collect",
                    fmt::format("--property=MemoryMax={}", sandbox.program_memory_bytes), "--property=MemorySwapMax=0",
                    "--"};
        } else if (!room.uses_cuda) {
            if (auto prlimit = find_on_path("prlimit"); !prlimit.empty()) {
                args = {prlimit.string(), fmt::format("--as={}", sandbox.program_memory_bytes), "--"};
            }
        }
    }
    args.insert(args.end(), {sandbox.bwrap.string(),
                                  "--unshare-all",     // network, processes, IPC, host name (and a user namespace where it may)
                                  "--die-with-parent", // killing bwrap kills everything inside
                                  "--new-session",     // no controlling terminal to push keystrokes into
                                  "--cap-drop", "ALL"});
    const auto& system = system_arguments();
    args.insert(args.end(), system.begin(), system.end());

    // Outer folders before inner ones, so a writable folder inside a read-only one stays writable.
    std::vector<std::pair<fs::path, bool>> binds;
    for (const auto& p : room.read_only) binds.emplace_back(canonical_or_absolute(p), false);
    for (const auto& p : room.writable) binds.emplace_back(canonical_or_absolute(p), true);
    std::stable_sort(binds.begin(), binds.end(), [](const auto& a, const auto& b) {
        return std::distance(a.first.begin(), a.first.end()) < std::distance(b.first.begin(), b.first.end());
    });

    // A hidden folder is covered by an empty one where something shown holds it: before
    // the binds where a system folder does (the binds inside it stay visible), after them
    // where a bound folder does.
    std::vector<std::string> covered, covered_late;
    for (const auto& folder : sandbox.hidden) {
        auto path = canonical_or_absolute(folder);
        bool in_bind = std::any_of(binds.begin(), binds.end(), [&](const auto& b) { return is_under(path, b.first); });
        if (in_bind) covered_late.push_back(path.string());
        else if (is_system_path(path)) covered.push_back(path.string());
    }
    for (const auto& path : covered) args.insert(args.end(), {"--tmpfs", path});

    std::vector<fs::path> bound;
    for (const auto& [path, writable] : binds) {
        if (std::find(bound.begin(), bound.end(), path) != bound.end()) continue;
        bound.push_back(path);
        args.insert(args.end(), {writable ? "--bind" : "--ro-bind", path.string(), path.string()});
    }
    for (const auto& path : covered_late) args.insert(args.end(), {"--tmpfs", path});
    covered.insert(covered.end(), covered_late.begin(), covered_late.end());

    args.insert(args.end(), {"--tmpfs", kHome, "--remount-ro", kHome});
    for (const auto& path : covered) args.insert(args.end(), {"--remount-ro", path});
    args.insert(args.end(), {"--remount-ro", "/dev", "--remount-ro", "/"});
    // A clean environment: the allow-list (sandbox_environment_names) and nothing else.
    args.push_back("--clearenv");
    const char* path = std::getenv("PATH");
    args.insert(args.end(), {"--setenv", "PATH", path && *path ? path : "/usr/bin:/bin"});
    args.insert(args.end(), {"--setenv", "HOME", kHome, "--setenv", "LANG", "C", "--setenv", "LC_ALL", "C"});
    if (!room.writable.empty()) {
        args.insert(args.end(), {"--setenv", "TMPDIR", canonical_or_absolute(room.writable.front()).string()});
    }
    std::vector<std::string> passed{"LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "ROOFLINE_TRACE"};
    passed.insert(passed.end(), sandbox.pass_environment.begin(), sandbox.pass_environment.end());
    for (const auto& name : passed) {
        if (const char* value = std::getenv(name.c_str())) args.insert(args.end(), {"--setenv", name, value});
    }
    if (!room.work_dir.empty()) args.insert(args.end(), {"--chdir", canonical_or_absolute(room.work_dir).string()});
    args.push_back("--");
    args.insert(args.end(), argv.begin(), argv.end());
    return args;
}

fs::path find_bwrap() {
    if (const char* chosen = std::getenv("ROOFLINE_BWRAP"); chosen && *chosen) {
        fs::path path = fs::absolute(chosen);
        std::error_code unreadable;
        if (!fs::is_regular_file(path, unreadable) || ::access(path.c_str(), X_OK) != 0) {
            throw InputError(fmt::format("ROOFLINE_BWRAP={}: not an executable file; point it at a bwrap program "
                                         "(scripts/fetch_bwrap.sh unpacks one) or unset it to use bwrap on PATH",
                                         chosen));
        }
        return path;
    }
    return find_on_path("bwrap");
}

fs::path sandbox_cgroup_runner(std::string* why_not) {
    auto systemd_run = find_on_path("systemd-run");
    if (systemd_run.empty()) {
        if (why_not) *why_not = "systemd-run is not on PATH";
        return {};
    }
    std::string pattern = (fs::temp_directory_path() / "roofline-cgroup-check-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
        if (why_not) *why_not = "cannot make a temporary folder to try it in";
        return {};
    }
    ProcessSpec spec;
    spec.argv = {systemd_run.string(), "--user", "--scope", "--quiet", "--collect", "--property=MemoryMax=1G",
                 "--property=MemorySwapMax=0", "--", "/bin/true"};
    spec.output_file = fs::path(pattern) / "out.txt";
    spec.limits.timeout_s = 30;
    auto run = run_process(spec);
    auto said = read_file_text(spec.output_file);
    std::error_code ignored;
    fs::remove_all(pattern, ignored);
    if (run.ok()) return systemd_run;
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
    if (why_not) *why_not = fmt::format("systemd-run --user --scope fails here: {}", said.empty() ? "no reason given" : said);
    return {};
}

std::string sandbox_problem(const Sandbox& sandbox) {
    if (sandbox.bwrap.empty()) {
        return "bwrap (bubblewrap) not found: install the bubblewrap package, or set ROOFLINE_BWRAP=/path/to/bwrap "
               "(scripts/fetch_bwrap.sh unpacks one from the Debian package)";
    }
    std::string pattern = (fs::temp_directory_path() / "roofline-sandbox-check-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) return "cannot make a temporary folder to try the sandbox in";
    fs::path folder = pattern;
    ProcessSpec spec;
    spec.argv = sandboxed_argv(sandbox, {{}, {folder}, folder}, {"true"});
    spec.output_file = folder.parent_path() / (folder.filename().string() + ".log");
    spec.limits.timeout_s = 30;
    auto run = run_process(spec);
    auto said = read_file_text(spec.output_file);
    std::error_code ignored;
    fs::remove_all(folder, ignored);
    fs::remove(spec.output_file, ignored);
    if (run.ok()) return "";
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
    if (said.empty()) said = run.timed_out ? "it did not finish in 30 s" : fmt::format("exit {}", run.exit_code);
    return fmt::format("{} cannot make a sandbox here: {} (it needs user namespaces, or to run as root)",
                       sandbox.bwrap.string(), said);
}

std::string sandbox_to_environment(const Sandbox& sandbox) {
    nlohmann::json hidden = nlohmann::json::array();
    for (const auto& p : sandbox.hidden) hidden.push_back(canonical_or_absolute(p).string());
    return nlohmann::json{{"bwrap", sandbox.bwrap.string()},
                          {"hidden", hidden},
                          {"program_memory_bytes", sandbox.program_memory_bytes},
                          {"systemd_run", sandbox.systemd_run.string()},
                          {"pass_environment", sandbox.pass_environment}}
        .dump();
}

std::optional<Sandbox> sandbox_from_environment() {
    const char* text = std::getenv(kSandboxVariable);
    if (!text || !*text) return std::nullopt;
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object() || !j.contains("bwrap") || !j["bwrap"].is_string() || !j.value("hidden", nlohmann::json()).is_array()) {
        throw InputError(fmt::format("{}: expected the JSON that `roofline batch` sets ({{\"bwrap\": PATH, \"hidden\": "
                                     "[FOLDERS]}}); unset it to run lab programs without a sandbox", kSandboxVariable));
    }
    Sandbox sandbox;
    sandbox.bwrap = j["bwrap"].get<std::string>();
    for (const auto& p : j["hidden"]) sandbox.hidden.push_back(p.get<std::string>());
    try {
        sandbox.program_memory_bytes = j.value("program_memory_bytes", 0LL);
        sandbox.systemd_run = j.value("systemd_run", std::string());
        sandbox.pass_environment = j.value("pass_environment", std::vector<std::string>());
    } catch (const nlohmann::json::exception& e) {
        throw InputError(fmt::format("{}: {}; expected what `roofline batch` sets", kSandboxVariable, e.what()));
    }
    return sandbox;
}

}  // namespace roofline
