// Each broken kernel must be caught and named for what it is, through the real
// CLI: `roofline run` for correctness, `roofline grade` where timing matters.
#include "catch.hpp"
#include "cli_run.hpp"
#include "device_query.hpp"
#include "lab_session.hpp"
#include "lab_spec.hpp"
#include "lab_run.hpp"

#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

namespace {

// A course root with the real hardware/ and the fixture lab.
std::filesystem::path fixture_root() {
    static std::filesystem::path root = [] {
        auto dir = std::filesystem::temp_directory_path() / "roofline-gpu-tests";
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        std::filesystem::create_directory_symlink(std::filesystem::path(ROOFLINE_SOURCE_DIR) / "hardware", dir / "hardware");
        std::filesystem::create_directory_symlink(std::filesystem::path(ROOFLINE_FIXTURE_ROOT) / "labs", dir / "labs");
        return dir;
    }();
    return root;
}

std::string in_fixtures(const std::string& args) {
    return "--root " + fixture_root().string() + " --build-dir " + ROOFLINE_TEST_BUILD_DIR + " " + args + " --no-build";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A job for lab 99's control variant, as roofline grade would send it.
roofline::protocol::Job correct_job(roofline::protocol::JobMode mode, const std::filesystem::path& result) {
    roofline::protocol::Job job;
    job.mode = mode;
    job.variant = "correct";
    job.verify_shapes = {roofline::Shape{{"n", 4099}}};
    job.timed_shape = roofline::Shape{{"n", 1 << 20}};
    job.replay_launches = 5;
    job.result_path = result.string();
    return job;
}

}  // namespace

TEST_CASE("a correct kernel passes `run`", "[gpu]") {
    auto r = run_cli(in_fixtures("run 99-broken-kernels/correct"));
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(contains(r.output, "CORRECT"));
}

TEST_CASE("each broken kernel is caught and named", "[gpu]") {
    struct Case {
        const char* variant;
        int exit_code;
        const char* must_say;
    };
    const Case cases[] = {
        {"zeros", 1, "outside tolerance"},
        {"half", 1, "were never written"},
        {"past_end", 1, "stray write"},
        {"nan", 1, "NaN or Inf"},
        {"hang", 6, "hung: a kernel was still running 2 s after its launch"},
        {"illegal_address", 6, "cudaErrorIllegalAddress"},
        {"input_zeroing", 1, "modified its input x: 4099 of 4099 elements changed"},
        {"input_scratch", 1, "modified its input x: 4099 of 4099 elements changed"},
        {"cublas_caller", 8, "calls cublasScopy_v2"},
        {"dlopen_caller", 8, "calls dlopen"},
        {"function_pointer", 8, "that the kernel file does not define"},
        // The host function named like cuBLAS's kernel does not make that kernel the file's own.
        {"named_like_library", 8, "copy_kernel"},
        {"legacy_stream", 1, "on a stream other than the one it was given"},
        {"wrong_dtype", 1, "registers it with dtype bf16"},
        {"registered_elsewhere", 1, "it is registered in registered_elsewhere.cu"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.variant) {
            auto r = run_cli(in_fixtures(std::string("run 99-broken-kernels/") + c.variant));
            INFO(r.output);
            CHECK(r.exit_code == c.exit_code);
            CHECK(contains(r.output, c.must_say));
            CHECK(contains(r.output, c.variant));
        }
    }
}

// One lab program serves the whole `grade --all` (lab_session.hpp); after the
// hang and the illegal address it is started again, and every variant's outcome
// is the one it gets graded alone.
TEST_CASE("grade --all: each variant's outcome is the one it gets in a program of its own", "[gpu]") {
    auto log = std::filesystem::temp_directory_path() / "roofline-gpu-tests-all.yaml";
    std::filesystem::remove(log);
    auto flags = " --json --score-without-prediction --seed 7 --log " + log.string();
    auto outcome_of = [](const nlohmann::json& j) {
        return j.contains("outcome") ? j["outcome"].get<std::string>()
                                     : std::string(j.value("correct", false) ? "correct" : "incorrect");
    };
    auto all = run_cli(in_fixtures("grade 99-broken-kernels --all" + flags));
    INFO(all.output);
    auto start = all.output.find('[');
    REQUIRE(start != std::string::npos);
    auto results = nlohmann::json::parse(all.output.substr(start));
    std::map<std::string, std::string> expected{
        {"correct", "correct"},         {"zeros", "incorrect"},          {"half", "incorrect"},
        {"past_end", "incorrect"},      {"nan", "incorrect"},            {"hang", "timed_out"},
        {"illegal_address", "cuda_error"}, {"cached", "incorrect"},      {"input_zeroing", "incorrect"},
        {"input_scratch", "incorrect"}, {"cublas_caller", "forbidden_call"}, {"dlopen_caller", "forbidden_call"},
        {"function_pointer", "forbidden_call"}, {"named_like_library", "forbidden_call"}, {"legacy_stream", "incorrect"}, {"wrong_dtype", "incorrect"},
        {"registered_elsewhere", "incorrect"}, {"skip_when_done", "correct"}, {"slow_when_watched", "timing_refused"}};
    REQUIRE(results.size() == expected.size());  // a fixture variant added without its expected outcome fails here
    for (const auto& r : results) {
        auto target = r["target"].get<std::string>();
        auto variant = target.substr(target.find('/') + 1);
        auto alone = run_cli(in_fixtures("grade " + target + flags));
        INFO(variant << " alone: " << alone.output);
        auto alone_json = nlohmann::json::parse(alone.output.substr(alone.output.find('{')));
        CHECK(outcome_of(r) == outcome_of(alone_json));
        CHECK(outcome_of(r) == expected[variant]);
    }
}

// Graded, the checks before timing are not watched (CUPTI stays out of a timing program):
// the lab program sees the legacy stream still busy after the launch and names it.
TEST_CASE("grade: a launch on the legacy default stream is named, not given a random verdict", "[gpu]") {
    auto r = run_cli(in_fixtures("grade 99-broken-kernels/legacy_stream --score-without-prediction --seed 7"));
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK(contains(r.output, "legacy default stream"));
    CHECK(contains(r.output, "on a stream other than the one it was given"));
}

TEST_CASE("grading: a cached answer fails the check after timing; a correct one is scored and logged", "[gpu]") {
    auto log = fixture_root() / "predictions.yaml";
    std::filesystem::remove(log);
    auto log_flag = " --log " + log.string();
    for (const char* variant : {"cached", "correct"}) {
        auto p = run_cli("--root " + fixture_root().string() + " predict 99-broken-kernels/" + variant +
                          " --gbps 3000 --regime memory --why \"a 128 MiB copy at about 3 TB/s\"" + log_flag);
        INFO(p.output);
        REQUIRE(p.exit_code == 0);
    }
    auto cached = run_cli(in_fixtures("grade 99-broken-kernels/cached" + log_flag));
    INFO(cached.output);
    CHECK(cached.exit_code == 1);
    CHECK(contains(cached.output, "after timing"));

    auto correct = run_cli(in_fixtures("grade 99-broken-kernels/correct --json" + log_flag));
    INFO(correct.output);
    CHECK(correct.exit_code == 0);
    CHECK(contains(correct.output, "\"fraction_of_peer\""));
    auto history = run_cli("--root " + fixture_root().string() + " log --json" + log_flag);
    CHECK(contains(history.output, "\"variant\": \"correct\""));
}

TEST_CASE("a kernel file that redefines a runtime function is refused, and so is every variant beside it", "[gpu]") {
    for (const char* variant : {"clock_scaler", "peer_wrapper"}) {
        auto r = run_cli(in_fixtures(std::string("grade 98-interposers/") + variant + " --score-without-prediction"));
        INFO(r.output);
        CHECK(r.exit_code == 8);
        CHECK(contains(r.output, "forbidden_symbol"));
        CHECK(contains(r.output, "clock_scaler.cu.o defines cudaEventElapsedTime"));
        CHECK(contains(r.output, "peer_wrapper.cu.o defines cublasSgemm_v2"));
    }
}

// The lab program itself, by hand: what the grader's judgement rests on is in its result.
nlohmann::json lab_program_result(const std::string& arguments) {
    auto program = std::filesystem::path(ROOFLINE_TEST_BUILD_DIR) / "labs" / "lab-99-broken-kernels";
    auto command = program.string() + " " + arguments + " --result - 2>/dev/null";
    std::string output;
    FILE* pipe = popen(command.c_str(), "r");
    std::array<char, 4096> buffer{};
    while (auto n = fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
    pclose(pipe);
    INFO(output);
    auto result = nlohmann::json::parse(output);
    CHECK_NOTHROW(result.get<roofline::protocol::Result>());  // the typed answer the grader reads (lab_result.hpp)
    return result;
}

TEST_CASE("the lab program times without watching, and watches in a job of its own", "[gpu]") {
    const std::string shapes = "--variant correct --verify-shape n=4099 --timed-shape n=16777216 --seed 3";
    SECTION("a grade job: checked and timed against a second clock, nothing watched (CUPTI slows launches)") {
        auto result = lab_program_result(shapes + " --mode grade");
        INFO(result.dump(1));
        REQUIRE(result["status"] == "ok");
        for (const auto& check : result["checks"]) {
            CHECK(check["launched"].is_null());
            CHECK(check["inputs_changed"].empty());
        }
        CHECK_FALSE(result.contains("peer_launched"));
        for (const auto& check : result["timing"]["cross_check"]) {
            double events = check["event_median_s"].get<double>(), bracket = check["globaltimer_median_s"].get<double>();
            CHECK(bracket > 0);
            CHECK(events <= bracket * 1.03 + 10e-6);
            CHECK(events >= bracket * 0.97 - 10e-6);
        }
    }
    SECTION("a watch job: every check, the replayed launches and the peer, each with what the GPU ran") {
        auto result = lab_program_result(shapes + " --mode watch --replay-launches 5");
        INFO(result.dump(1));
        REQUIRE(result["status"] == "ok");
        REQUIRE(result["checks"].size() == 3);  // n=4099, the timed shape, the replay
        for (const auto& check : result["checks"]) {
            REQUIRE(check["launched"]["watched"] == true);
            REQUIRE(check["launched"]["kernels"].size() == 1);
            CHECK(contains(check["launched"]["kernels"].begin().key(), "copy_kernel"));
            CHECK(check["launched"]["other_stream_kernels"].empty());
        }
        const auto& replay = result["checks"][2];
        CHECK(replay["launches"].get<long long>() >= 3);
        CHECK(replay["median_s"].get<double>() > 0);
        // The peer (cudaMemcpy) ran alone: a copy, no kernel of the kernel file's.
        CHECK(result["peer_launched"]["copies"].get<long long>() >= 1);
        CHECK(result["peer_launched"]["kernels"].empty());
    }
}

// A lab program that has watched (CUPTI attached) refuses to time again: the guard for a lab
// program run unjudged. Judged, the grade jobs go to the judge, which never watches, and the
// watch jobs to the lab program: both may follow each other (the second test).
TEST_CASE("a lab program that has watched refuses the next grade job; one that has timed may watch", "[gpu]") {
    auto program = std::filesystem::path(ROOFLINE_TEST_BUILD_DIR) / "labs" / "lab-99-broken-kernels";
    auto dir = std::filesystem::temp_directory_path() / "roofline-gpu-watch-then-time";
    std::filesystem::remove_all(dir);
    roofline::LabSession session(program, dir, /*judged=*/false);
    auto job_of = [&](roofline::protocol::JobMode mode, const std::string& name) { return correct_job(mode, dir / name); };
    auto result_of = [&](const roofline::protocol::Job& job) {
        auto run = roofline::interpret(session.run(job, 60), job, 60);
        INFO(run.message);
        return run;
    };
    auto timed = result_of(job_of(roofline::protocol::JobMode::grade, "timed.json"));
    REQUIRE(timed.outcome == roofline::Outcome::correct);
    auto watched = result_of(job_of(roofline::protocol::JobMode::watch, "watched.json"));
    REQUIRE(watched.outcome == roofline::Outcome::correct);
    auto timed_again = result_of(job_of(roofline::protocol::JobMode::grade, "timed-again.json"));
    CHECK(timed_again.outcome != roofline::Outcome::correct);
    CHECK(contains(timed_again.message + timed_again.result.message, "will not time any more"));
    CHECK(session.starts() == 1);  // refused by the same program, not by a restart
    std::filesystem::remove_all(dir);
}

// A variant whose machine code is for another GPU (lab 07, sm_100a, on the H200) is
// refused cleanly instead: exit 7, one message, nothing run.
TEST_CASE("every lab skeleton grades incorrect without crashing; given code passes", "[gpu]") {
    if (!std::filesystem::is_directory(std::filesystem::path(ROOFLINE_SOURCE_DIR) / "solutions")) {
        WARN("the student edition has no solutions/: which kernel files are given code is unknown; skipped");
        return;
    }
    auto device = roofline::first_device(nullptr);
    REQUIRE(device.has_value());
    const roofline::ComputeCapability here{device->cc_major, device->cc_minor};
    for (const auto& lab : roofline::load_labs(std::filesystem::path(ROOFLINE_SOURCE_DIR) / "labs")) {
        for (const auto& variant : lab.variants) {
            DYNAMIC_SECTION(lab.id << "/" << variant.name) {
                auto r = run_cli(std::string("--build-dir ") + ROOFLINE_TEST_BUILD_DIR + " run " + lab.id + "/" +
                                  variant.name + " --no-build");
                INFO(r.output);
                if (variant.requires_cc && !(*variant.requires_cc == here)) {
                    CHECK(r.exit_code == 7);
                    CHECK(contains(r.output, "needs a " + roofline::architecture_name(*variant.requires_cc) + " GPU"));
                    CHECK(contains(r.output, "Nothing was built, run or scored"));
                    CHECK_FALSE(contains(r.output, "INCORRECT"));
                    continue;
                }
                // Given code (lab 04's unfused baselines) and lab 02's slow-by-design kernels pass
                // (lab.yaml's `given_kernels: correct`); skeletons fail.
                bool given = roofline::given_kernel_passes(
                    lab, variant, std::filesystem::path(ROOFLINE_SOURCE_DIR) / "solutions" / lab.id);
                CHECK(r.exit_code == (given ? 0 : 1));
                CHECK(contains(r.output, given ? "CORRECT" : "INCORRECT"));
            }
        }
    }
}

TEST_CASE("grade --all refuses a lab built for another GPU before the prediction gate, with no score or log entry",
          "[gpu]") {
    auto device = roofline::first_device(nullptr);
    REQUIRE(device.has_value());
    auto lab = roofline::load_lab(std::filesystem::path(ROOFLINE_SOURCE_DIR) / "labs" / "07-blackwell" / "lab.yaml");
    const auto& required = *lab.variants.front().requires_cc;
    if (required == roofline::ComputeCapability{device->cc_major, device->cc_minor}) {
        SUCCEED("this GPU runs lab 07's code: it grades like any lab");
        return;
    }
    auto log = std::filesystem::temp_directory_path() / "roofline-gpu-tests-05.yaml";
    std::filesystem::remove(log);
    // No prediction exists, so without the refusal this would stop at the gate (exit 3).
    auto r = run_cli(std::string("--build-dir ") + ROOFLINE_TEST_BUILD_DIR + " grade 07-blackwell --all --no-build --log " +
                     log.string());
    INFO(r.output);
    CHECK(r.exit_code == 7);
    CHECK(contains(r.output, "07-blackwell/tcgen05_gemm needs a Blackwell GPU of compute capability 10.0"));
    CHECK(contains(r.output, "this GPU is " + device->name));
    CHECK(contains(r.output, "roofline calc --hardware b200"));
    CHECK_FALSE(std::filesystem::exists(log));
}

// The verdict and the clock are the judge's (harness/judge.hpp): a kernel file that forges a
// passing result file, and answers the judge's socket itself, computes nothing and is graded so.
TEST_CASE("grade: a kernel file that forges its verdict is graded on what it computed", "[gpu]") {
    auto r = run_cli(in_fixtures("grade 97-forgers/forged_verdict --json --score-without-prediction --seed 7"));
    INFO(r.output);
    auto json = nlohmann::json::parse(r.output.substr(r.output.find('{')));
    CHECK(json.value("outcome", std::string()) == "incorrect");
    CHECK(json["points"]["total"].get<double>() == 0.0);
}

// Every timed output is poisoned before its batch: a kernel that skips work it finds done
// does all of it, and is timed at the whole copy's time (within noise of the honest copy).
TEST_CASE("grade: work skipped when the output already holds the answer is not timed as done", "[gpu]") {
    auto flags = std::string(" --json --score-without-prediction --seed 7");
    auto honest = run_cli(in_fixtures("grade 99-broken-kernels/correct" + flags));
    auto skipper = run_cli(in_fixtures("grade 99-broken-kernels/skip_when_done" + flags));
    INFO(honest.output << skipper.output);
    auto h = nlohmann::json::parse(honest.output.substr(honest.output.find('{')));
    auto k = nlohmann::json::parse(skipper.output.substr(skipper.output.find('{')));
    REQUIRE(k.value("outcome", std::string()) == "correct");
    CHECK(k["time_s"]["median"].get<double>() > 0.9 * h["time_s"]["median"].get<double>());
}

// A kernel slow under every watch (as one that does less work when timed would be) is watched
// twice and refused; the correct copy beside it is watched once (replay_retry.hpp).
TEST_CASE("grade: a replay too slow is watched again, and refused when it is slow again", "[gpu]") {
    auto flags = std::string(" --json --score-without-prediction --seed 7");
    auto slow = run_cli(in_fixtures("grade 99-broken-kernels/slow_when_watched" + flags));
    INFO(slow.output);
    CHECK(slow.exit_code == 8);
    auto s = nlohmann::json::parse(slow.output.substr(slow.output.find('{')));
    CHECK(s.value("outcome", std::string()) == "timing_refused");
    CHECK(contains(slow.output, "did less work while it was timed"));
    CHECK(contains(slow.output, "Watched twice"));
    auto honest = run_cli(in_fixtures("grade 99-broken-kernels/correct" + flags));
    INFO(honest.output);
    REQUIRE(honest.exit_code == 0);
    auto h = nlohmann::json::parse(honest.output.substr(honest.output.find('{')));
    REQUIRE(h.contains("watched_replay"));
    CHECK_FALSE(h["watched_replay"].contains("first"));  // within the limit the first time
}

TEST_CASE("judged: grade jobs go to the judge and watch jobs to the lab program, in any order", "[gpu]") {
    auto program = std::filesystem::path(ROOFLINE_TEST_BUILD_DIR) / "labs" / "lab-99-broken-kernels";
    auto dir = std::filesystem::temp_directory_path() / "roofline-gpu-judged-sessions";
    std::filesystem::remove_all(dir);
    roofline::LabSession session(program, dir);
    auto job_of = [&](roofline::protocol::JobMode mode, const std::string& name) { return correct_job(mode, dir / name); };
    for (auto [mode, name] : {std::pair{roofline::protocol::JobMode::grade, "timed.json"},
                              std::pair{roofline::protocol::JobMode::watch, "watched.json"},
                              std::pair{roofline::protocol::JobMode::grade, "timed-again.json"}}) {
        auto job = job_of(mode, name);
        auto run = roofline::interpret(session.run(job, 60), job, 60);
        INFO(name << ": " << run.message);
        CHECK(run.outcome == roofline::Outcome::correct);
        if (mode == roofline::protocol::JobMode::grade) {
            REQUIRE(run.result.timing.has_value());
            CHECK(run.result.timing->batch_launches >= 1);  // timed by the judge, in batches
        }
    }
    std::filesystem::remove_all(dir);
}
