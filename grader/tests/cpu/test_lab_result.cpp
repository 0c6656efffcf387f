// The lab program's answer (protocol/lab_result.hpp): a full Result survives its trip
// through JSON with the keys the saved results already use; an answer file that is
// malformed, partial or for another job becomes the variant's crash, naming the file and
// the part, never an exception out of `interpret`.
#include "test_support.hpp"

#include "lab_result.hpp"
#include "lab_run.hpp"

#include <cmath>
#include <limits>

using namespace roofline;
using namespace roofline_test;
using namespace roofline::protocol;
using nlohmann::json;

namespace {

WatchedLaunches watched_kernels(const std::string& kernel, long long copies) {
    return {.watched = true, .kernels = {{kernel, 3}}, .other_stream_kernels = {{"_Z5otherv", 1}}, .copies = copies,
            .memsets = 2};
}

// Every part filled, none at its default.
Result full_result() {
    Result r;
    r.status = JobStatus::timing_refused;
    r.variant = "r7_warptiled";
    r.mode = JobMode::watch;
    r.message = "events disagree with the global timer";
    r.registration = Registration{"gemm", "fp32", "kernels/07_warptiled.cu"};
    r.device = Device{"NVIDIA H200", 132, 52428800, "9.0"};
    Check check;
    check.shape = {{"m", 130}, {"n", 70}, {"k", 33}};
    check.seed = 18446744073709551557ULL;  // 64-bit: no trip through a double
    check.when = "before timing";
    check.report = {.passed = false, .verdict = "3 of 9100 wrong", .elements = 9100, .mismatches = 3, .unwritten = 1,
                    .nonfinite = 1, .guard_bytes_damaged = 4, .rel_l2 = std::numeric_limits<double>::quiet_NaN(),
                    .max_abs_error = 0.25,
                    .first_mismatches = {{.index = 5, .expected = 1.5, .got = 2.5},
                                         {.index = 6, .expected = 1.0, .got = 0, .unwritten = true},
                                         {.index = 7, .expected = 1.0, .got = std::numeric_limits<double>::quiet_NaN()},
                                         {.index = 8, .expected = -1.0, .got = -std::numeric_limits<double>::infinity()}}};
    check.inputs_changed = {{"a", 12, 4290}};
    check.launched = watched_kernels("_Z6kernelPf", 1);
    r.checks.push_back(check);
    Check during;  // a check made while timing: no seed, no launch of its own
    during.shape = {{"m", 4096}, {"n", 4096}, {"k", 4096}};
    during.when = "during timing";
    during.report.verdict = "input a changed";
    r.checks.push_back(during);
    r.replay = Replay{{{"m", 4096}, {"n", 4096}, {"k", 4096}}, 41, 2.5e-3, {.watched = false, .error = "no CUPTI"}};
    r.peer_launched = watched_kernels("_Z5cublasv", 0);
    r.watch_seconds = 1.25;
    Timing t;
    t.variant = {17, 2.0e-3, 1.9e-3, 2.1e-3, 1.8e-3, 2.01e-3, 0.004, {2.0e-3, 1.9e-3}};
    t.peer = {12, 1.5e-3, 1.4e-3, 1.6e-3, 1.3e-3, 1.51e-3, 0.003, {1.5e-3}};
    t.cross_check = {{2.0e-3, 2.001e-3}, {1.5e-3, 1.502e-3}};
    t.peer_name = "cuBLAS SGEMM";
    t.sm_clock_mhz = {1980, 1965, 1985};
    t.hit_time_cap = true;
    t.l2_flush_bytes = 104857600;
    t.also_measured = AlsoMeasured{"cuBLASLt", {10, 1.7e-3, 1.6e-3, 1.8e-3, 1.5e-3, 1.7e-3, 0.002, {}}};
    r.timing = t;
    r.timeline = Timeline{.watched = true,
                          .began_ns = 1764536400123456789ULL,  // CUPTI's clock: past 2^53, exact on the wire
                          .kernels = {{"_Z4stepPfi", 1764536400123458001ULL, 1764536400123459003ULL, 7}}};
    return r;
}

// What goes wrong in `text` written as the answer to `job`, as read_answer says it.
std::string malformed_error(const TempDir& dir, const std::string& text, Job job) {
    job.result_path = (dir.path() / "result.json").string();
    write_file(job.result_path, text);
    try {
        read_answer(job);
    } catch (const MalformedResult& e) {
        return e.what();
    }
    return "";
}

Job grade_job() {
    Job job;
    job.mode = JobMode::grade;
    job.variant = "copy_naive_fp32";
    return job;
}

}  // namespace

TEST_CASE("lab result: every part survives the trip through JSON", "[lab_result][protocol]") {
    const auto r = full_result();
    const json wire = r;
    auto back = json::parse(wire.dump()).get<Result>();
    // Written back, the answer is the same text, key for key (NaN travels as null or a word;
    // compared as text, since a NaN inside a json value is unequal to itself).
    CHECK(json(back).dump() == wire.dump());

    CHECK(back.status == JobStatus::timing_refused);
    CHECK(back.variant == "r7_warptiled");
    CHECK(back.mode == JobMode::watch);
    CHECK(back.message == r.message);
    REQUIRE(back.registration);
    CHECK(back.registration->source_file == "kernels/07_warptiled.cu");
    REQUIRE(back.device);
    CHECK(back.device->l2_bytes == 52428800);
    CHECK(back.device->compute_capability == "9.0");

    REQUIRE(back.checks.size() == 2);
    const auto& c = back.checks[0];
    CHECK(c.shape == r.checks[0].shape);
    CHECK(c.seed == std::optional<std::uint64_t>(18446744073709551557ULL));
    CHECK(c.report.verdict == "3 of 9100 wrong");
    CHECK(c.report.guard_bytes_damaged == 4);
    CHECK(std::isnan(c.report.rel_l2));
    CHECK(c.report.max_abs_error == 0.25);
    REQUIRE(c.report.first_mismatches.size() == 4);
    CHECK(c.report.first_mismatches[0].got == 2.5);
    CHECK(c.report.first_mismatches[1].unwritten);
    CHECK(std::isnan(c.report.first_mismatches[2].got));
    CHECK_FALSE(c.report.first_mismatches[2].unwritten);
    CHECK(c.report.first_mismatches[3].got == -std::numeric_limits<double>::infinity());
    REQUIRE(c.inputs_changed.size() == 1);
    CHECK(c.inputs_changed[0].input == "a");
    CHECK(c.inputs_changed[0].changed == 12);
    REQUIRE(c.launched);
    CHECK(c.launched->kernels.at("_Z6kernelPf") == 3);
    CHECK(c.launched->other_stream_kernels.at("_Z5otherv") == 1);
    CHECK(c.launched->copies == 1);
    CHECK(c.launched->memsets == 2);
    CHECK_FALSE(back.checks[1].seed);
    CHECK_FALSE(back.checks[1].launched);

    REQUIRE(back.replay);
    CHECK(back.replay->launches == 41);
    CHECK(back.replay->median_s == 2.5e-3);
    CHECK_FALSE(back.replay->launched.watched);
    CHECK(back.replay->launched.error == "no CUPTI");
    REQUIRE(back.peer_launched);
    CHECK(back.peer_launched->kernels.count("_Z5cublasv") == 1);
    CHECK(back.watch_seconds == std::optional<double>(1.25));

    REQUIRE(back.timing);
    CHECK(back.timing->variant.count == 17);
    CHECK(back.timing->variant.mean_s == 2.01e-3);
    CHECK(back.timing->variant.samples_s == r.timing->variant.samples_s);
    CHECK(back.timing->peer.rse == 0.003);
    REQUIRE(back.timing->cross_check.size() == 2);
    CHECK(back.timing->cross_check[1].globaltimer_median_s == 1.502e-3);
    CHECK(back.timing->peer_name == "cuBLAS SGEMM");
    CHECK(back.timing->sm_clock_mhz.max == 1985);
    CHECK(back.timing->hit_time_cap);
    CHECK(back.timing->l2_flush_bytes == 104857600);
    REQUIRE(back.timing->also_measured);
    CHECK(back.timing->also_measured->stats.median_s == 1.7e-3);

    REQUIRE(back.timeline);
    CHECK(back.timeline->began_ns == 1764536400123456789ULL);
    REQUIRE(back.timeline->kernels.size() == 1);
    CHECK(back.timeline->kernels[0].end_ns - back.timeline->kernels[0].start_ns == 1002);
    CHECK(back.timeline->kernels[0].stream == 7);
}

TEST_CASE("lab result: the wire keys are the ones reports and saved results read", "[lab_result][protocol]") {
    const json wire = full_result();
    for (const char* key : {"status", "variant", "mode", "message", "problem", "dtype", "source_file", "device",
                            "checks", "peer_launched", "watch_seconds", "timing", "timeline"})
        CHECK(wire.contains(key));
    CHECK(wire["status"] == "timing_refused");
    CHECK(wire["timing"]["variant"]["median_s"] == 2.0e-3);
    CHECK(wire["timing"]["sm_clock_mhz"]["median"] == 1980.0);
    CHECK(wire["timing"]["also_measured"]["stats"]["count"] == 10);
    // The replay travels as the last check, the one with a median.
    REQUIRE(wire["checks"].size() == 3);
    CHECK(wire["checks"][2]["when"] == "replaying the timed launches");
    CHECK(wire["checks"][2].contains("median_s"));
    CHECK(wire["checks"][0]["report"]["first_mismatches"][1]["got"] == "unwritten");
    CHECK(wire["checks"][0]["report"]["first_mismatches"][2]["got"] == "NaN");
    CHECK(wire["checks"][0]["report"]["first_mismatches"][3]["got"] == "-Inf");
    CHECK(wire["checks"][0]["inputs_changed"][0]["input"] == "a");
    CHECK(wire["checks"][1]["launched"].is_null());
    CHECK_FALSE(wire["checks"][1].contains("seed"));
    // Optional parts a job did not reach are left out, not written empty.
    Result bare;
    bare.status = JobStatus::unknown_variant;
    const json bare_wire = bare;
    for (const char* key : {"message", "problem", "device", "timing", "timeline", "peer_launched"})
        CHECK_FALSE(bare_wire.contains(key));
    CHECK(bare_wire.get<Result>().status == JobStatus::unknown_variant);
}

TEST_CASE("lab result: a malformed or partial answer is refused, naming the file and the part", "[lab_result][protocol]") {
    TempDir dir;
    auto ok_answer = json(lab_result("ok", 1e-3, 1e-3));
    ok_answer["device"] = Device{"NVIDIA H200", 132, 52428800, "9.0"};
    ok_answer["problem"] = "copy";
    ok_answer["dtype"] = "fp32";
    ok_answer["source_file"] = "kernels/01_copy_naive.cu";
    REQUIRE(malformed_error(dir, ok_answer.dump(), grade_job()).empty());  // the whole answer reads

    auto error = malformed_error(dir, "{\"status\": \"ok\", ", grade_job());
    check_mentions(error, {(dir.path() / "result.json").string(), "not JSON"});
    CHECK(contains(malformed_error(dir, "[1, 2]", grade_job()), "the answer must be a JSON object, not array"));
    CHECK(contains(malformed_error(dir, R"({"status": "ok"})", grade_job()), "result.json: variant: missing"));

    auto wrong = ok_answer;
    wrong["timing"]["variant"]["median_s"] = "fast";
    CHECK(contains(malformed_error(dir, wrong.dump(), grade_job()),
                   "result.json: timing.variant.median_s: type must be number, but is string"));
    wrong = ok_answer;
    wrong["checks"][0]["report"]["first_mismatches"] = json::array({{{"index", 1}, {"expected", 2}, {"got", true}}});
    CHECK(contains(malformed_error(dir, wrong.dump(), grade_job()), "checks[0].report.first_mismatches[0].got: must be"));
    wrong = ok_answer;
    wrong["checks"] = json::array({{{"median_s", 1.0}}, ok_answer["checks"][0]});
    CHECK(contains(malformed_error(dir, wrong.dump(), grade_job()), "checks[0]: the replay (the check with median_s) must come last"));

    // Partial: an ok answer to a grade job without its timing, or to a watch job without its replay.
    auto partial = ok_answer;
    partial.erase("timing");
    CHECK(contains(malformed_error(dir, partial.dump(), grade_job()), "says ok but has no timing"));
    auto watch = grade_job();
    watch.mode = JobMode::watch;
    partial["mode"] = "watch";
    CHECK(contains(malformed_error(dir, partial.dump(), watch), "says ok but has no replay of the timed launches"));
    partial = ok_answer;
    partial.erase("device");
    CHECK(contains(malformed_error(dir, partial.dump(), grade_job()), "says ok but has no device"));
    // An answer to another job (another variant's file, or a mode the job did not ask for).
    CHECK(contains(malformed_error(dir, ok_answer.dump(), watch), "not the job's 'copy_naive_fp32' in mode \"watch\""));
    // Not ok, only the status, variant and mode need be there.
    CHECK(malformed_error(dir, R"({"status": "cuda_error", "variant": "copy_naive_fp32", "mode": "grade"})", grade_job())
              .empty());
}

TEST_CASE("lab result: interpret turns a malformed answer into the variant's crash", "[lab_result][runner]") {
    TempDir dir;
    auto job = grade_job();
    job.result_path = (dir.path() / "result.json").string();
    ChildRun child;
    child.exit_code = 0;
    child.last_stage = "verify n=17 seed 1 (before timing)";

    write_file(job.result_path, R"({"status": "ok", "variant": "copy_naive_fp32", "mode": "grade", "checks": "all good"})");
    auto run = interpret(child, job, 10);
    CHECK(run.outcome == Outcome::crashed);
    check_mentions(run.message, {"copy_naive_fp32 left an answer the grader cannot read during 'verify n=17",
                                 job.result_path + ": checks: must be an array, not string"});
    CHECK(run.result.checks.empty());

    // A status the grader does not know (a word or not) is the lab program's error, as before.
    write_file(job.result_path, R"({"status": 42, "variant": "copy_naive_fp32", "mode": "grade", "message": "?"})");
    CHECK(interpret(child, job, 10).outcome == Outcome::harness_error);

    // Incorrect: the failing check names the shape and the verdict.
    auto incorrect = json(lab_result("incorrect", 1e-3, 1e-3));
    write_file(job.result_path, incorrect.dump());
    run = interpret(child, job, 10);
    CHECK(run.outcome == Outcome::incorrect);
    CHECK(run.message == "copy_naive_fp32 is incorrect on {\"n\":17} (before timing): 3 of 17 wrong");

    std::filesystem::remove(job.result_path);
    run = interpret(child, job, 10);
    CHECK(run.outcome == Outcome::crashed);
    CHECK(contains(run.message, "without a result"));
}
