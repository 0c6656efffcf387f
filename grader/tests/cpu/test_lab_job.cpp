// The grader-lab program protocol (protocol/lab_job.hpp): a Job survives its trip
// through JSON, and what is missing or unknown is refused, not guessed.
#include "test_support.hpp"

#include "lab_job.hpp"

using namespace roofline::protocol;
using nlohmann::json;

TEST_CASE("lab job: every field survives the trip through JSON", "[lab_job]") {
    Job job;
    job.mode = JobMode::watch;
    job.variant = "r7_warptiled";
    job.verify_shapes = {{{"m", 64}, {"n", 64}, {"k", 64}}, {{"m", 130}, {"n", 70}, {"k", 33}}};
    job.timed_shape = Shape{{"m", 4096}, {"n", 4096}, {"k", 4096}};
    job.seed = 18446744073709551557ULL;  // seeds are 64-bit: no trip through a double
    job.atol = 1e-3;
    job.rtol = 2e-3;
    job.max_rel_l2 = 3e-4;
    job.min_samples = 7;
    job.max_samples = 70;
    job.target_rse = 0.01;
    job.time_cap_s = 1.5;
    job.launch_timeout_s = 20;
    job.flush_l2 = false;
    job.replay_launches = 41;
    job.replay_batch_launches = 9;
    job.result_path = "/tmp/r.json";

    auto back = json::parse(json(job).dump()).get<Job>();
    CHECK(back.mode == JobMode::watch);
    CHECK(back.variant == job.variant);
    CHECK(back.verify_shapes == job.verify_shapes);
    REQUIRE(back.timed_shape.has_value());
    CHECK(*back.timed_shape == *job.timed_shape);
    CHECK(back.seed == job.seed);
    CHECK(back.atol == job.atol);
    CHECK(back.rtol == job.rtol);
    CHECK(back.max_rel_l2 == job.max_rel_l2);
    CHECK(back.min_samples == 7);
    CHECK(back.max_samples == 70);
    CHECK(back.target_rse == job.target_rse);
    CHECK(back.time_cap_s == job.time_cap_s);
    CHECK(back.launch_timeout_s == job.launch_timeout_s);
    CHECK_FALSE(back.flush_l2);
    CHECK(back.replay_launches == 41);
    CHECK(back.replay_batch_launches == 9);
    CHECK(back.result_path == job.result_path);
}

TEST_CASE("lab job: a correctness job has no timed shape, and a missing field is refused", "[lab_job]") {
    Job job;
    job.variant = "copy_naive_fp32";
    auto text = json(job);
    CHECK_FALSE(text.contains("timed_shape"));
    CHECK_FALSE(text.get<Job>().timed_shape.has_value());
    text.erase("seed");
    CHECK_THROWS(text.get<Job>());
}

TEST_CASE("lab job: statuses are words, an unknown one reads as an error", "[lab_job]") {
    CHECK(json(JobStatus::timing_refused) == "timing_refused");
    CHECK(json("incorrect").get<JobStatus>() == JobStatus::incorrect);
    CHECK(json("exploded").get<JobStatus>() == JobStatus::error);
    CHECK(exit_code_of(JobStatus::ok) == 0);
    CHECK(exit_code_of(JobStatus::hang) == 5);
}
