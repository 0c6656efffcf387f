// The sandbox a submission's code runs in (sandbox.hpp), tried with real bwrap and a
// shell script that reports what it could reach: what it is shown it reads, its own
// folder it writes, and nothing else (no network, no home, no grader process, no
// root-only system files). Also: the limits and the kill reach through it, and a lab
// program under ROOFLINE_SANDBOX runs in it.
#include "lab_session.hpp"
#include "lab_run.hpp"
#include "process.hpp"
#include "sandbox.hpp"
#include "sandbox_support.hpp"
#include "test_support.hpp"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <sstream>

using namespace roofline;
using namespace roofline_test;

namespace {

// Runs `script` with /bin/sh inside the sandbox; its output.
std::string run_script(const Sandbox& sandbox, const SandboxRoom& room, const std::string& script,
                       const fs::path& output_file, ProcessLimits limits = {}) {
    ProcessSpec spec;
    spec.argv = sandboxed_argv(sandbox, room, {"/bin/sh", "-c", script});
    spec.output_file = output_file;
    limits.timeout_s = 30;
    spec.limits = limits;
    auto run = run_process(spec);
    INFO(read_file(output_file));
    CHECK(run.ok());
    return read_file(output_file);
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
    return text;
}

// The processes (pid and command line) still alive with `argument` on their command line;
// waits up to 5 s for them to go (the kernel ends a PID namespace's processes after its
// first one, asynchronously).
std::string processes_with_argument(const std::string& argument) {
    std::string found;
    for (int tries = 0; tries < 50; ++tries) {
        found.clear();
        std::error_code error;
        for (const auto& entry : fs::directory_iterator("/proc", error)) {
            auto cmdline = read_file(entry.path() / "cmdline");
            auto state = read_file(entry.path() / "stat");
            bool zombie = state.find(") Z ") != std::string::npos;
            if (cmdline.find(argument) != std::string::npos && !zombie) {
                found += entry.path().filename().string() + ": " + cmdline + "\n";
            }
        }
        if (found.empty()) return found;
        ::usleep(100000);
    }
    return found;
}

}  // namespace

TEST_CASE("sandbox: a program reads what it is shown, writes only its own folder, reaches nothing else", "[sandbox]") {
    auto sandbox = working_sandbox();
    TempDir dir;
    write_file(dir / "secret" / "answer.txt", "42");
    write_file(dir / "shown" / "given.txt", "given");
    fs::create_directories(dir / "own");
    std::string script = R"SH(
        cat SECRET/answer.txt >/dev/null 2>&1 && echo "secret: read" || echo "secret: unseen"
        cat SHOWN/given.txt >/dev/null 2>&1 && echo "shown: read" || echo "shown: unread"
        (echo x > SHOWN/given.txt) 2>/dev/null && echo "shown: written" || echo "shown: read-only"
        (echo x > OWN/made.txt) 2>/dev/null && echo "own: written" || echo "own: read-only"
        (echo x > "$HOME/made.txt") 2>/dev/null && echo "home: written" || echo "home: read-only"
        echo "home: $(ls -A "$HOME" | wc -l) entries"
        (echo x > /made.txt) 2>/dev/null && echo "root: written" || echo "root: read-only"
        (echo x > /dev/shm/made.txt) 2>/dev/null && echo "shm: written" || echo "shm: read-only"
        [ -d /proc/GRADER ] && echo "grader: seen" || echo "grader: unseen"
        echo "interfaces: $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
        if [ -r /etc/shadow ]; then echo "shadow: read"; else echo "shadow: unread"; fi
        echo "tmpdir: $TMPDIR"
    )SH";
    script = replace_all(script, "SECRET", (dir / "secret").string());
    script = replace_all(script, "SHOWN", (dir / "shown").string());
    script = replace_all(script, "OWN", (dir / "own").string());
    script = replace_all(script, "GRADER", std::to_string(::getpid()));
    auto said = run_script(sandbox, {{dir / "shown"}, {dir / "own"}, dir / "own"}, script, dir / "out.txt");
    INFO(said);
    check_mentions(said, {"secret: unseen", "shown: read\n", "shown: read-only", "own: written", "home: read-only",
                          "home: 0 entries", "root: read-only", "shm: read-only", "grader: unseen"});
    CHECK(contains(said, "interfaces: lo \n"));  // a network namespace of its own: loopback only
    CHECK(contains(said, "shadow: unread"));     // root-only /etc files are left out, even for root
    CHECK(contains(said, "tmpdir: " + fs::canonical(dir / "own").string()));
    CHECK(read_file(dir / "shown" / "given.txt") == "given");
    CHECK(read_file(dir / "own" / "made.txt") == "x\n");
}

TEST_CASE("sandbox: a hidden folder inside a system folder is covered, what is shown inside it stays", "[sandbox]") {
    auto sandbox = working_sandbox();
    // /usr/share, with one of its folders that has files in it.
    fs::path hidden = "/usr/share", shown;
    for (const auto& entry : fs::directory_iterator(hidden)) {
        if (entry.is_directory() && !entry.is_symlink() && !fs::is_empty(entry.path())) {
            shown = entry.path();
            break;
        }
    }
    REQUIRE(!shown.empty());
    sandbox.hidden = {hidden};
    TempDir dir;
    fs::create_directories(dir / "own");
    auto said = run_script(sandbox, {{shown}, {dir / "own"}, dir / "own"},
                           "echo \"hidden: $(ls -A " + hidden.string() + " | wc -l)\"; echo \"shown: $(ls -A " +
                               shown.string() + " | wc -l)\"",
                           dir / "out.txt");
    INFO(said);
    CHECK(contains(said, "hidden: 1\n"));  // only the folder shown inside it
    CHECK_FALSE(contains(said, "shown: 0\n"));
}

TEST_CASE("sandbox: the timeout kills everything inside; the memory limit reaches it", "[sandbox]") {
    auto sandbox = working_sandbox();
    TempDir dir;
    fs::create_directories(dir / "own");
    ProcessSpec spec;
    spec.argv = sandboxed_argv(sandbox, {{}, {dir / "own"}, dir / "own"},
                               {"/bin/sh", "-c", "sleep 4242.25 & sleep 4242.25; echo never"});
    spec.output_file = dir / "out.txt";
    spec.limits.timeout_s = 1;
    auto run = run_process(spec);
    CHECK(run.timed_out);
    CHECK(processes_with_argument("4242.25") == "");

    ProcessLimits limits;
    limits.memory_bytes = 256LL << 20;
    auto said = run_script(sandbox, {{}, {dir / "own"}, dir / "own"}, "ulimit -v", dir / "limit.txt", limits);
    CHECK(said == "262144\n");  // KiB
}

TEST_CASE("sandbox: where bwrap is missing or cannot work, the problem says what to do", "[sandbox]") {
    Sandbox none;
    CHECK(contains(sandbox_problem(none), "install the bubblewrap package"));
    {
        ScopedEnv bwrap("ROOFLINE_BWRAP", "/bin/false");
        Sandbox broken{find_bwrap(), {}};
        CHECK(broken.bwrap == "/bin/false");
        CHECK(contains(sandbox_problem(broken), "/bin/false cannot make a sandbox here"));
    }
    ScopedEnv bwrap("ROOFLINE_BWRAP", "/nonexistent/bwrap");
    auto message = input_error_of([] { find_bwrap(); });
    check_mentions(message, {"ROOFLINE_BWRAP=/nonexistent/bwrap", "scripts/fetch_bwrap.sh"});
}

TEST_CASE("sandbox: roofline batch hands it to grade through the environment", "[sandbox]") {
    Sandbox sandbox{"/usr/bin/bwrap", {"/srv/course", "/srv/out"}};
    {
        ScopedEnv handed(kSandboxVariable, sandbox_to_environment(sandbox));
        auto back = sandbox_from_environment();
        REQUIRE(back.has_value());
        CHECK(back->bwrap == "/usr/bin/bwrap");
        CHECK(back->hidden == sandbox.hidden);
    }
    CHECK_FALSE(sandbox_from_environment().has_value());
    ScopedEnv broken(kSandboxVariable, "/usr/bin/bwrap");
    CHECK(contains(input_error_of([] { sandbox_from_environment(); }), "unset it"));
}

TEST_CASE("sandbox: a lab program under ROOFLINE_SANDBOX runs inside it", "[sandbox][lab_session]") {
    auto sandbox = working_sandbox();
    sandbox.pass_environment = {"FAKE_DEVICE"};  // the fake program's device, through the clean environment
    TempDir dir;
    ScopedEnv handed(kSandboxVariable, sandbox_to_environment(sandbox));
    ScopedEnv temporary("TMPDIR", dir.path().string());
    ScopedEnv device("FAKE_DEVICE", "NVIDIA H200");
    LabSession session(ROOFLINE_FAKE_LAB_PROGRAM, dir / "program", /*judged=*/false);
    REQUIRE(session.device(nullptr).has_value());
    auto result_file = dir / "job" / "result.json";
    fs::create_directories(result_file.parent_path());
    protocol::Job job;
    job.variant = "ok";
    job.result_path = result_file.string();
    auto run = interpret(session.run(job, 10), job, 10);
    REQUIRE(run.outcome == Outcome::correct);  // its result file, in its temporary folder, came back
    // A session of its own inside the sandbox (bwrap --new-session), not the grader's.
    CHECK(nlohmann::json::parse(read_file(result_file)).value("sid", 0L) != long(::getsid(0)));
}

TEST_CASE("lab session: a program that fails as it starts is its own failure, not a missing GPU", "[lab_session]") {
    TempDir dir;
    ScopedEnv failing("FAKE_EXIT_AT_START", "static initializer: cannot write /home/x");
    LabSession session(ROOFLINE_FAKE_LAB_PROGRAM, dir / "program", /*judged=*/false);
    std::string why;
    bool failed = false;
    CHECK_FALSE(session.device(&why, &failed).has_value());
    CHECK(failed);
    check_mentions(why, {"exit 3", "static initializer: cannot write /home/x"});
}

TEST_CASE("sandbox: the environment is cleared, then only the allow-list is set", "[sandbox]") {
    Sandbox sandbox{"/usr/bin/bwrap", {}};
    ScopedEnv secret("ROOFLINE_TEST_TOKEN", "hunter2");
    ScopedEnv device("CUDA_VISIBLE_DEVICES", "1");
    auto argv = sandboxed_argv(sandbox, {{}, {"/tmp/own"}, "/tmp/own"}, {"/bin/true"});
    auto clear = std::find(argv.begin(), argv.end(), "--clearenv");
    REQUIRE(clear != argv.end());
    auto names = sandbox_environment_names();
    std::vector<std::string> set;
    for (auto it = argv.begin(); it != argv.end() && *it != "--"; ++it) {
        if (*it != "--setenv") continue;
        CHECK(it > clear);  // after the clearing, or it would be cleared too
        set.push_back(*(it + 1));
        INFO(*(it + 1));
        CHECK(std::find(names.begin(), names.end(), *(it + 1)) != names.end());
    }
    for (auto name : {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES"}) {
        CHECK(std::find(set.begin(), set.end(), name) != set.end());
    }
    CHECK(std::find(argv.begin(), argv.end(), "hunter2") == argv.end());
    sandbox.pass_environment = {"ROOFLINE_TEST_TOKEN"};  // named by the caller: passed
    argv = sandboxed_argv(sandbox, {{}, {"/tmp/own"}, "/tmp/own"}, {"/bin/true"});
    CHECK(std::find(argv.begin(), argv.end(), "hunter2") != argv.end());
}

TEST_CASE("sandbox: a program inside sees none of the grader's variables", "[sandbox]") {
    auto sandbox = working_sandbox();
    TempDir dir;
    fs::create_directories(dir / "own");
    ScopedEnv secret("ROOFLINE_TEST_TOKEN", "hunter2");
    ScopedEnv old("OLDPWD", "/home/instructor/secret-place");
    ScopedEnv device("CUDA_VISIBLE_DEVICES", "1");
    ScopedEnv handed(kSandboxVariable, sandbox_to_environment(sandbox));
    auto said = run_script(sandbox, {{}, {dir / "own"}, dir / "own"}, "env", dir / "env.txt");
    INFO(said);
    CHECK_FALSE(contains(said, "hunter2"));
    CHECK_FALSE(contains(said, "OLDPWD"));
    CHECK_FALSE(contains(said, kSandboxVariable));
    check_mentions(said, {"HOME=/home/submission\n", "LC_ALL=C\n", "CUDA_VISIBLE_DEVICES=1\n",
                          "TMPDIR=" + fs::canonical(dir / "own").string() + "\n"});
    auto names = sandbox_environment_names();
    std::istringstream lines(said);
    for (std::string line; std::getline(lines, line);) {
        auto name = line.substr(0, line.find('='));
        INFO(line);
        // What bwrap or the shell adds itself (PWD, SHLVL, _) is no variable of the grader's.
        bool shells_own = name == "PWD" || name == "SHLVL" || name == "_";
        CHECK((shells_own || std::find(names.begin(), names.end(), name) != names.end()));
    }
}

TEST_CASE("sandbox: the program memory limit: a cgroup where systemd-run works, else rlimits for CPU programs",
          "[sandbox]") {
    Sandbox sandbox{"/usr/bin/bwrap", {}};
    sandbox.program_memory_bytes = 256LL << 20;
    SandboxRoom cuda{{}, {"/tmp/own"}, "/tmp/own"};
    SandboxRoom cpu{{}, {"/tmp/own"}, "/tmp/own", true, false};
    SandboxRoom compiler{{}, {"/tmp/own"}, "/tmp/own", false, false};
    // No cgroup: a CUDA program is not limited (its address space is mostly reservations), a CPU
    // program gets an address-space limit, a compiler keeps its own.
    CHECK(sandboxed_argv(sandbox, cuda, {"/bin/true"}).front() == "/usr/bin/bwrap");
    auto limited = sandboxed_argv(sandbox, cpu, {"/bin/true"});
    REQUIRE(limited.size() > 3);
    CHECK(fs::path(limited[0]).filename() == "prlimit");
    CHECK(limited[1] == "--as=268435456");
    CHECK(limited[3] == "/usr/bin/bwrap");
    CHECK(sandboxed_argv(sandbox, compiler, {"/bin/true"}).front() == "/usr/bin/bwrap");
    // A cgroup (systemd-run --user --scope) holds every program that asks, CUDA or not.
    sandbox.systemd_run = "/usr/bin/systemd-run";
    for (const auto& room : {cuda, cpu}) {
        auto argv = sandboxed_argv(sandbox, room, {"/bin/true"});
        CHECK(argv[0] == "/usr/bin/systemd-run");
        CHECK(std::find(argv.begin(), argv.end(), "--property=MemoryMax=268435456") != argv.end());
        CHECK(std::find(argv.begin(), argv.end(), "/usr/bin/bwrap") != argv.end());
    }
    CHECK(sandboxed_argv(sandbox, compiler, {"/bin/true"}).front() == "/usr/bin/bwrap");
    // Handed to grade with the rest.
    ScopedEnv handed(kSandboxVariable, sandbox_to_environment(sandbox));
    auto back = sandbox_from_environment();
    REQUIRE(back.has_value());
    CHECK(back->program_memory_bytes == sandbox.program_memory_bytes);
    CHECK(back->systemd_run == sandbox.systemd_run);
}

TEST_CASE("sandbox: a CPU program's memory hog stops at the limit, inside the sandbox", "[sandbox]") {
    auto sandbox = working_sandbox();
    sandbox.program_memory_bytes = 256LL << 20;
    TempDir dir;
    fs::create_directories(dir / "own");
    SandboxRoom cpu{{}, {dir / "own"}, dir / "own", true, false};
    auto said = run_script(sandbox, cpu, "ulimit -v", dir / "limit.txt");
    CHECK(said == "262144\n");  // KiB
}

TEST_CASE("deaths: bwrap's 128+N is the child's signal N, named, with the limit it hit", "[sandbox][outcome]") {
    {
        // Outside the sandbox an exit status is what the program chose.
        ScopedEnv none(kSandboxVariable, "");
        CHECK(death_signal(139, 0) == 0);
        CHECK(death_signal(0, 11) == 11);
    }
    ScopedEnv handed(kSandboxVariable, sandbox_to_environment(Sandbox{"/usr/bin/bwrap", {}}));
    CHECK(death_signal(139, 0) == SIGSEGV);
    CHECK(death_signal(153, 0) == SIGXFSZ);
    CHECK(death_signal(9, 0) == 0);  // a plain exit
    check_mentions(death_in_words(SIGSEGV), {"SIGSEGV (signal 11", "stack overflow"});
    check_mentions(death_in_words(SIGXFSZ), {"SIGXFSZ (signal 25", "output limit", "stdout and stderr"});
    check_mentions(death_in_words(SIGXCPU), {"SIGXCPU", "CPU-time limit"});
    check_mentions(death_in_words(SIGKILL), {"SIGKILL", "out-of-memory"});
    check_mentions(death_in_words(SIGABRT), {"SIGABRT", "std::bad_alloc"});

    protocol::Job job;
    job.variant = "flood";
    job.result_path = "/nonexistent/result.json";
    ChildRun child;
    child.exit_code = 153;
    child.last_stage = "time";
    auto run = interpret(child, job, 10);
    CHECK(run.outcome == Outcome::crashed);
    check_mentions(run.message, {"flood died of SIGXFSZ", "output limit", "during 'time'"});
    CHECK_FALSE(contains(run.message, "exit()"));
    child.exit_code = 3;
    check_mentions(interpret(child, job, 10).message, {"exited with code 3", "exit() during the job"});
}

TEST_CASE("deaths: an output flood inside the sandbox is SIGXFSZ, named as the output limit", "[sandbox][outcome]") {
    auto sandbox = working_sandbox();
    TempDir dir;
    fs::create_directories(dir / "own");
    ProcessSpec spec;
    spec.argv = sandboxed_argv(sandbox, {{}, {dir / "own"}, dir / "own"}, {"/bin/sh", "-c", "while :; do echo flood; done"});
    spec.output_file = dir / "out.txt";
    spec.limits.timeout_s = 30;
    spec.limits.file_bytes = 1 << 20;
    auto ended = run_process(spec);
    INFO("exit " << ended.exit_code << ", signal " << ended.signal);
    CHECK_FALSE(ended.timed_out);
    ScopedEnv handed(kSandboxVariable, sandbox_to_environment(sandbox));
    CHECK(death_signal(ended.exit_code, ended.signal) == SIGXFSZ);  // 153 from bwrap
}

TEST_CASE("deaths: a stack overflow in a sandboxed lab program is named, not 'exit 139'", "[sandbox][lab_session][outcome]") {
    auto sandbox = working_sandbox();
    TempDir dir;
    ScopedEnv handed(kSandboxVariable, sandbox_to_environment(sandbox));
    ScopedEnv temporary("TMPDIR", dir.path().string());
    LabSession session(ROOFLINE_FAKE_LAB_PROGRAM, dir / "program");
    auto result_file = dir / "job" / "result.json";
    fs::create_directories(result_file.parent_path());
    protocol::Job job;
    job.variant = "stack";
    job.result_path = result_file.string();
    auto child = session.run(job, 30);
    INFO("exit " << child.exit_code << ", signal " << child.signal << "\n" << child.output_tail);
    auto run = interpret(child, job, 30);
    CHECK(run.outcome == Outcome::crashed);
    check_mentions(run.message, {"stack died of SIGSEGV", "stack overflow"});
    CHECK_FALSE(contains(run.message, "exit 139"));
}
