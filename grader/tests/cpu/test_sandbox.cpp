// The sandbox a submission's code runs in (sandbox.hpp), tried with real bwrap and a
// shell script that reports what it could reach: what it is shown it reads, its own
// folder it writes, and nothing else (no network, no home, no grader process, no
// root-only system files). Also: the limits and the kill reach through it, and a lab
// program under ROOFLINE_SANDBOX runs in it.
#include "lab_session.hpp"
#include "process.hpp"
#include "sandbox.hpp"
#include "sandbox_support.hpp"
#include "test_support.hpp"

#include <unistd.h>

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
