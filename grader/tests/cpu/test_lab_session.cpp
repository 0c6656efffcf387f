// LabSession: one lab program serves many jobs, and a job that crashes, hangs,
// exits or hits a CUDA error costs only a restart for the jobs after it.
// fake_lab_program stands in for a lab program (no GPU needed).
#include "lab_session.hpp"
#include "test_support.hpp"

#include <signal.h>

using namespace roofline;
using namespace roofline_test;

namespace {
protocol::Job job_for(const std::string& variant, const fs::path& result) {
    protocol::Job job;
    job.variant = variant;
    job.result_path = result.string();
    return job;
}

struct Job {
    LabRun run;
    long pid = 0, sid = 0;  // the program's, from its answer's extra keys (jobs that wrote one)
};

Job run_job(LabSession& session, const fs::path& dir, const std::string& variant, double timeout_s = 10) {
    static int count = 0;
    auto result = dir / (variant + std::to_string(++count) + ".json");
    Job job;
    auto sent = job_for(variant, result);
    job.run = interpret(session.run(sent, timeout_s), sent, timeout_s);
    if (fs::exists(result)) {
        auto written = nlohmann::json::parse(read_file(result));
        job.pid = written.value("pid", 0L);
        job.sid = written.value("sid", 0L);
    }
    return job;
}
}  // namespace

TEST_CASE("lab session: one program serves the jobs until one of them fails", "[lab_session]") {
    TempDir dir;
    long first_pid = 0;
    {
        LabSession session(ROOFLINE_FAKE_LAB_PROGRAM, dir.path() / "program", /*judged=*/false);
        auto a = run_job(session, dir.path(), "ok");
        auto b = run_job(session, dir.path(), "ok");
        REQUIRE(a.run.outcome == Outcome::correct);
        REQUIRE(b.run.outcome == Outcome::correct);
        CHECK(a.pid == b.pid);
        CHECK(session.starts() == 1);
        // In the grader's session, so that roofline batch, killing a grade's session, kills it too.
        CHECK(a.sid == long(::getsid(0)));
        first_pid = a.pid;

        auto crash = run_job(session, dir.path(), "segfault");
        CHECK(crash.run.outcome == Outcome::crashed);
        CHECK(contains(crash.run.message, "signal 11"));
        CHECK(contains(crash.run.message, "verify n=3 (segfault)"));  // the stage it died in, not an earlier job's

        auto after_crash = run_job(session, dir.path(), "ok");
        CHECK(after_crash.run.outcome == Outcome::correct);
        CHECK(after_crash.pid != first_pid);
        CHECK(session.starts() == 2);

        auto hang = run_job(session, dir.path(), "hang", 0.5);
        CHECK(hang.run.outcome == Outcome::timed_out);
        CHECK(contains(hang.run.message, "verify n=3 (hang)"));
        CHECK(run_job(session, dir.path(), "ok").run.outcome == Outcome::correct);
        CHECK(session.starts() == 3);

        auto cuda = run_job(session, dir.path(), "cuda_error");
        CHECK(cuda.run.outcome == Outcome::cuda_error);
        CHECK(contains(cuda.run.message, "illegal memory access"));
        CHECK(run_job(session, dir.path(), "ok").run.outcome == Outcome::correct);
        CHECK(session.starts() == 4);

        // An answer that is there but malformed is the variant's crash, naming the file and the
        // part, and the program goes on serving.
        auto garbled = run_job(session, dir.path(), "garbled");
        CHECK(garbled.run.outcome == Outcome::crashed);
        check_mentions(garbled.run.message, {"garbled", ".json: checks[0].report: must be a JSON object, not string"});
        CHECK(garbled.run.result.checks.empty());
        CHECK(run_job(session, dir.path(), "ok").run.outcome == Outcome::correct);
        CHECK(session.starts() == 4);

        auto exited = run_job(session, dir.path(), "exit");
        CHECK(exited.run.outcome == Outcome::crashed);
        CHECK(contains(exited.run.message, "exited with code 9 during 'verify n=3 (exit)'"));
        auto last = run_job(session, dir.path(), "ok");
        CHECK(last.run.outcome == Outcome::correct);
        first_pid = last.pid;
    }
    // The session's end ends its program.
    CHECK(::kill(static_cast<pid_t>(first_pid), 0) != 0);
}

TEST_CASE("lab session: the device is the one the program sees, asked once", "[lab_session]") {
    TempDir dir;
    {
        LabSession session(ROOFLINE_FAKE_LAB_PROGRAM, dir.path() / "program", /*judged=*/false);
        std::string why;
        CHECK_FALSE(session.device(&why).has_value());
        CHECK(why == "fake: no CUDA device");
    }
    ::setenv("FAKE_DEVICE", "NVIDIA H200", 1);
    LabSession session(ROOFLINE_FAKE_LAB_PROGRAM, dir.path() / "program", /*judged=*/false);
    auto device = session.device(nullptr);
    ::unsetenv("FAKE_DEVICE");
    REQUIRE(device.has_value());
    CHECK(device->name == "NVIDIA H200");
    CHECK(device->cc_major == 9);
    CHECK(device->cc_minor == 0);
    CHECK(device->sm_count == 132);
    CHECK(session.device(nullptr)->name == "NVIDIA H200");  // from memory: the program was not asked again
    CHECK(session.starts() == 1);
    // The same program goes on to serve the variants.
    CHECK(run_job(session, dir.path(), "ok").run.outcome == Outcome::correct);
    CHECK(session.starts() == 1);

    LabSession not_built(dir.path() / "not-built", dir.path() / "program2", /*judged=*/false);
    auto message = input_error_of([&] { not_built.device(nullptr); });
    check_mentions(message, {"not-built", "without --no-build"});
}

TEST_CASE("lab session: a program that cannot start is a failed job, not an exception", "[lab_session]") {
    TempDir dir;
    LabSession session(dir.path() / "not-built", dir.path() / "program", /*judged=*/false);
    auto job = run_job(session, dir.path(), "ok");
    CHECK(job.run.outcome == Outcome::crashed);
    CHECK(contains(job.run.message, "exited with code 127"));
}
