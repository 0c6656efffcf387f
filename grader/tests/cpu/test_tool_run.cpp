// `roofline profile` and `run --sanitize` hand the lab program the same typed Job as the
// grader, in a file (tool_run.hpp): a tool wraps the process and owns its stdin.
#include "lab_job.hpp"
#include "lab_run.hpp"
#include "tool_run.hpp"
#include "test_support.hpp"

#include <cstdlib>
#include <fstream>

using namespace roofline;
using namespace roofline_test;

TEST_CASE("a tool's run of the lab program gets a once job in a file", "[profile][protocol]") {
    TempDir dir;
    auto lab = load_lab(repo_root() / "labs" / "01-memory-roof" / "lab.yaml");
    const auto& variant = lab.variants.front();
    auto arguments = once_arguments(once_job(lab, variant, {variant.timed}, 42, dir / "result.json"));
    REQUIRE(arguments.size() == 2);
    CHECK(arguments[0] == "--job");
    std::ifstream in(arguments[1]);
    REQUIRE(in);
    auto job = nlohmann::json::parse(in).get<protocol::Job>();
    CHECK(job.mode == protocol::JobMode::once);
    CHECK(job.variant == variant.name);
    CHECK(job.seed == 42);
    CHECK(job.launch_timeout_s == 0);
    REQUIRE(job.verify_shapes.size() == 1);
    CHECK(job.verify_shapes[0] == variant.timed);
    CHECK(job.result_path == (dir / "result.json").string());
}

TEST_CASE("a lab program runs the job in a --job file and refuses one it cannot read", "[protocol]") {
    auto program = std::filesystem::path(ROOFLINE_BUILD_DIR) / "labs" / "lab-01-memory-roof";
    if (!std::filesystem::exists(program)) {
        WARN("lab-01-memory-roof is not built; skipped");
        return;
    }
    TempDir dir;
    protocol::Job job;
    job.mode = protocol::JobMode::device_info;
    job.result_path = (dir / "device.json").string();
    write_file(dir / "job.json", nlohmann::json(job).dump());
    int code = std::system((program.string() + " --job " + (dir / "job.json").string() + " 2>/dev/null").c_str());
    REQUIRE(WIFEXITED(code));
    // The answer is the typed Result (protocol/lab_result.hpp), read as the grader reads it.
    auto result = read_answer(job);
    // Here (no GPU in CI) the answer is no_device; on a GPU machine, ok, with the device.
    CHECK((result.status == protocol::JobStatus::no_device || result.status == protocol::JobStatus::ok));
    CHECK(WEXITSTATUS(code) == (result.status == protocol::JobStatus::ok ? 0 : 4));
    if (result.status == protocol::JobStatus::ok) CHECK_FALSE(result.device->name.empty());
    else CHECK_FALSE(result.message.empty());

    write_file(dir / "broken.json", "{\"mode\": \"once\"}");  // fields missing: refused, not guessed
    code = std::system((program.string() + " --job " + (dir / "broken.json").string() + " 2>/dev/null").c_str());
    REQUIRE(WIFEXITED(code));
    CHECK(WEXITSTATUS(code) == 2);
}
