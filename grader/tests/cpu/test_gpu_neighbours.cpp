// The other processes on a grading's GPU (gpu_neighbours.hpp): nvidia-smi's CSV read by hand-
// written lines, the choice of whom to name, and the listing through a stand-in nvidia-smi
// (ROOFLINE_NVIDIA_SMI), since these machines have no GPU.
#include "test_support.hpp"

#include "gpu_neighbours.hpp"
#include "process.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <set>

using namespace roofline_test;
using roofline::ComputeAppsListing;
using roofline::GpuProcess;

namespace {

GpuProcess process(const std::string& gpu, long long pid, const std::string& name, long long mib) {
    return {gpu, pid, name, mib};
}

// ROOFLINE_NVIDIA_SMI set for the scope of one test, then unset.
struct StandInNvidiaSmi {
    explicit StandInNvidiaSmi(const fs::path& program) { ::setenv("ROOFLINE_NVIDIA_SMI", program.c_str(), 1); }
    ~StandInNvidiaSmi() { ::unsetenv("ROOFLINE_NVIDIA_SMI"); }
};

// A shell script that prints `output` when asked exactly what the grader asks, and exits `code`.
fs::path stand_in(const TempDir& dir, const std::string& output, int code = 0) {
    auto script = dir / "nvidia-smi";
    write_file(script, "#!/bin/sh\n"
                       "[ \"$1\" = --query-compute-apps=gpu_uuid,pid,process_name,used_memory ] || exit 2\n"
                       "[ \"$2\" = --format=csv,noheader ] || exit 2\n"
                       "cat <<'END'\n" + output + "END\n"
                       "exit " + std::to_string(code) + "\n");
    ::chmod(script.c_str(), 0755);
    return script;
}

}  // namespace

TEST_CASE("gpu neighbours: nvidia-smi's compute-apps CSV is read line by line", "[gpu_neighbours]") {
    SECTION("normal lines, a path and a memory each") {
        auto listed = roofline::parse_compute_apps(
            "GPU-5f1c2d3e-aaaa-bbbb-cccc-000000000001, 4242, python3, 2048 MiB\n"
            "GPU-5f1c2d3e-aaaa-bbbb-cccc-000000000002, 77, /usr/bin/lab-00-copy, 530 MiB\n");
        REQUIRE(listed.size() == 2);
        CHECK(listed[0].gpu_uuid == "GPU-5f1c2d3e-aaaa-bbbb-cccc-000000000001");
        CHECK(listed[0].pid == 4242);
        CHECK(listed[0].name == "python3");
        CHECK(listed[0].used_mib == 2048);
        CHECK(listed[1].pid == 77);
        CHECK(listed[1].name == "/usr/bin/lab-00-copy");
        CHECK(listed[1].used_mib == 530);
    }
    SECTION("no processes: empty output, or a message instead of lines") {
        CHECK(roofline::parse_compute_apps("").empty());
        CHECK(roofline::parse_compute_apps("\n\n").empty());
        CHECK(roofline::parse_compute_apps("No running processes found\n").empty());
    }
    SECTION("garbage lines are skipped, the good ones around them kept") {
        auto listed = roofline::parse_compute_apps("GPU-a, 12, good, 1 MiB\n"
                                                   "GPU-a, not-a-pid, name, 5 MiB\n"
                                                   "GPU-a, 13\n"
                                                   "GPU-a, 14, missing memory\n"
                                                   ", 15, no gpu, 5 MiB\n"
                                                   "GPU-a, -3, negative, 5 MiB\n"
                                                   "\x01\x02 binary, junk\r\n"
                                                   "GPU-a, 16, also good, [N/A]\r\n");
        REQUIRE(listed.size() == 2);
        CHECK(listed[0].pid == 12);
        CHECK(listed[1].pid == 16);
        CHECK(listed[1].name == "also good");
        CHECK_FALSE(listed[1].used_mib.has_value());  // "[N/A]": the driver did not say
    }
    SECTION("a name with spaces, or a comma, is kept whole") {
        auto listed = roofline::parse_compute_apps("GPU-a, 99, /opt/My Tools/train model.py, 12 MiB\n"
                                                   "GPU-a, 100, a, b, 3 MiB\n");
        REQUIRE(listed.size() == 2);
        CHECK(listed[0].name == "/opt/My Tools/train model.py");
        CHECK(listed[0].used_mib == 12);
        CHECK(listed[1].name == "a, b");
        CHECK(listed[1].used_mib == 3);
    }
}

TEST_CASE("gpu neighbours: only other processes on the grading's own GPU are named", "[gpu_neighbours]") {
    ComputeAppsListing before;
    before.listed = {process("GPU-ours", 10, "roofline-judge", 300), process("GPU-ours", 11, "lab-00-copy", 900),
                     process("GPU-ours", 20, "roofline", 200),  // a batch's GPU holder: quiet
                     process("GPU-ours", 4242, "python3", 2048), process("GPU-other", 5150, "train", 60000)};
    before.own = {10, 11};
    before.quiet = {20};
    SECTION("own and quiet processes are left out, and so is another GPU's") {
        auto others = roofline::gpu_neighbours({before});
        REQUIRE(others.size() == 1);
        CHECK(others[0].pid == 4242);
        CHECK(roofline::gpu_processes_text(others) == "4242 python3 (2048 MiB)");
    }
    SECTION("two listings: each process once, with the most memory it was seen with, in pid order") {
        ComputeAppsListing after;
        after.listed = {process("GPU-ours", 4242, "python3", 4096), process("GPU-ours", 31, "other-lab", 10)};
        auto others = roofline::gpu_neighbours({before, after});
        REQUIRE(others.size() == 2);
        CHECK(others[0].pid == 31);
        CHECK(others[1].pid == 4242);
        CHECK(others[1].used_mib == 4096);
    }
    SECTION("no own process seen: the grading's GPU cannot be told, so no one is named") {
        ComputeAppsListing stranger;
        stranger.listed = {process("GPU-ours", 4242, "python3", 2048)};
        CHECK(roofline::gpu_neighbours({stranger}).empty());
    }
    SECTION("the text shows a program's file name, never its folders (another student's, in a batch)") {
        auto text = roofline::gpu_processes_text({process("GPU-ours", 77, "/srv/class/alice/build/labs/lab-06-async", 512)});
        CHECK(text == "77 lab-06-async (512 MiB)");
        CHECK(text.find("alice") == std::string::npos);
        CHECK(roofline::gpu_processes_text({process("GPU-ours", 78, "/", 1)}) == "78 / (1 MiB)");
    }
    SECTION("the text names the first few, then how many more") {
        std::vector<GpuProcess> many;
        for (long long pid = 1; pid <= 6; ++pid) many.push_back(process("GPU-ours", pid, "p", 1));
        CHECK(roofline::gpu_processes_text(many, 4) == "1 p (1 MiB), 2 p (1 MiB), 3 p (1 MiB), 4 p (1 MiB) and 2 more");
        CHECK(roofline::gpu_processes_text({}).empty());
    }
}

TEST_CASE("gpu neighbours: the listing asks nvidia-smi, with no shell, and tells its own processes", "[gpu_neighbours]") {
    TempDir dir;
    // A child of this process (as a lab program is the grader's): its own, with this process.
    roofline::ProcessSpec sleeper_spec;
    sleeper_spec.argv = {"/bin/sleep", "30"};
    sleeper_spec.output_file = dir / "sleep.out";
    auto sleeper = roofline::start_process(sleeper_spec);
    REQUIRE(sleeper.running());
    const auto self = static_cast<long long>(::getpid());
    const auto child = static_cast<long long>(sleeper.pid);
    StandInNvidiaSmi program(stand_in(dir, fmt::format("GPU-ours, {}, roofline, 100 MiB\n"
                                                       "GPU-ours, {}, lab program, 900 MiB\n"
                                                       "GPU-ours, 1, someone else, 50 MiB\n"
                                                       "GPU-other, 1, someone else, 50 MiB\n",
                                                       self, child)));
    auto listing = roofline::list_compute_apps();
    roofline::kill_process(sleeper);
    REQUIRE(listing.has_value());
    CHECK(listing->listed.size() == 4);
    CHECK(listing->own == std::set<long long>{self, child});
    auto others = roofline::gpu_neighbours({*listing});
    REQUIRE(others.size() == 1);
    CHECK(others[0].pid == 1);
    CHECK(others[0].gpu_uuid == "GPU-ours");
}

TEST_CASE("gpu neighbours: no nvidia-smi, or one that fails, says nothing", "[gpu_neighbours]") {
    TempDir dir;
    SECTION("not an executable") {
        write_file(dir / "not-a-program", "text");
        StandInNvidiaSmi program(dir / "not-a-program");
        CHECK_FALSE(roofline::list_compute_apps().has_value());
    }
    SECTION("missing") {
        StandInNvidiaSmi program(dir / "nowhere" / "nvidia-smi");
        CHECK_FALSE(roofline::list_compute_apps().has_value());
    }
    SECTION("exits with an error, whatever it printed") {
        StandInNvidiaSmi program(stand_in(dir, "GPU-a, 1, init, 5 MiB\n", 9));
        CHECK_FALSE(roofline::list_compute_apps().has_value());
    }
}
