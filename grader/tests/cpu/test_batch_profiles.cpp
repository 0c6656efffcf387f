// Lab 02 under `roofline batch`: the points only a profile earns (byte prediction, diagnosis)
// come from profiles the batch makes itself. Here, without a GPU: the staged log keeps the
// student's predictions (byte figures scaled to the graded shape) and diagnoses but drops
// the profile entries the student wrote; the batch says once when ncu is missing; under the
// sandbox, ncu and the lab program it starts run inside it.
#include "test_support.hpp"

#include "profiling.hpp"
#include "staging.hpp"
#include "lab_spec.hpp"
#include "prediction_log.hpp"
#include "profile.hpp"
#include "source_hash.hpp"

#include <fmt/format.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>

using namespace roofline;
using namespace roofline::batch;
using namespace roofline_test;

namespace {

const std::string kLab = "02-profile";

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("batch profiles only where lab.yaml scores them, and says once what a missing ncu costs",
          "[batch][profile]") {
    auto lab02 = load_lab(repo_root() / "labs" / kLab / "lab.yaml");
    auto lab01 = load_lab(repo_root() / "labs" / "01-memory-roof" / "lab.yaml");
    CHECK(scores_profiles(lab02));
    CHECK_FALSE(scores_profiles(lab01));
    auto note = profiler_missing_note(lab02, false);
    check_mentions(note, {"ncu (Nsight Compute) was not found", "15 points per variant",
                          "byte prediction 5, diagnosis 10", "Profiles under batch"});
    CHECK(profiler_missing_note(lab02, true).empty());
    CHECK(profiler_missing_note(lab01, false).empty());
    // The README section the note points at exists.
    CHECK(contains(read_file(repo_root() / "README.md"), "### Profiles under batch (lab 02)"));
}

TEST_CASE("a staged lab 02 log: predictions rebased, bytes too; diagnoses kept; the student's profiles dropped",
          "[batch][profile][diagnose]") {
    TempDir dir;
    Workspace course{repo_root(), ROOFLINE_BINARY_DIR};
    auto public_lab = load_lab(course.lab_yaml(kLab));
    // The graded lab.yaml: the tail variant at twice the public size.
    auto staged_yaml = dir / "graded" / kLab / "lab.yaml";
    write_file(staged_yaml, replaced(read_file(course.lab_yaml(kLab)), "timed: {n: 13074432}", "timed: {n: 26148864}"));

    auto sub = dir / "subs" / "ann";
    auto kernel = sub / "kernels" / "06_fma_tail.cu";
    write_file(kernel, read_file(repo_root() / "solutions" / kLab / "kernels" / "06_fma_tail.cu"));
    auto log = sub / "predictions.yaml";
    Prediction p;
    p.lab = kLab;
    p.variant = "fma_tail_fp32";
    p.shape = "n=13074432";
    p.predicted_time_s = 235e-6;
    p.given_as = "time_us 235";
    p.regime = Regime::compute;
    p.why = "light tiles";
    p.source_hash = hash_file(kernel);
    p.made_at = "2026-12-01T00:00:00Z";
    p.predicted_dram_bytes = 1.046e8;
    append_prediction(log, p);
    append_diagnosis(log, {kLab, "fma_tail_fp32", "tail_effect", "half the SMs idle", "given-hash",
                           "2026-12-01T00:00:00Z", 0});
    ProfileEntry forged;  // what a student could write by hand: never trusted
    forged.lab = kLab;
    forged.variant = "fma_tail_fp32";
    forged.shape = "n=13074432";
    forged.dram_bytes = 1.046e8;
    forged.gpu = "NVIDIA H200";
    forged.profiled_at = "2026-12-01T00:00:00Z";
    forged.source_hash = "given-hash";
    forged.causes = {"tail_effect"};
    forged.figures = {{"sm_busy_balance", 0.5}};
    append_profile(log, forged);

    auto staged = stage_submission(course, public_lab, staged_yaml, {"ann", sub}, dir / "stage");
    INFO(fmt::format("{}", fmt::join(staged.notes, "\n")));
    REQUIRE(staged.log == LogState::present);
    auto read = load_log(staged.workspace.default_log());
    REQUIRE(read.predictions.size() == 1);
    CHECK(read.predictions[0].shape == "n=26148864");
    CHECK(read.predictions[0].predicted_time_s == Approx(470e-6));  // compute-bound: the FLOPs doubled
    REQUIRE(read.predictions[0].predicted_dram_bytes.has_value());
    CHECK(*read.predictions[0].predicted_dram_bytes == Approx(2.092e8));  // so did the model's bytes
    REQUIRE(read.diagnoses.size() == 1);
    CHECK(read.diagnoses[0].cause == "tail_effect");
    CHECK(read.diagnoses[0].source_hash == "given-hash");
    CHECK(read.profiles.empty());

    // The batch's own profiles of the given kernels are what it copies in.
    auto given = dir / "given-profiles.yaml";
    append_profile(given, forged);
    copy_profiles(given, staged.workspace.default_log());
    copy_profiles(dir / "none.yaml", staged.workspace.default_log());  // no file: nothing
    CHECK(load_log(staged.workspace.default_log()).profiles.size() == 1);
}

TEST_CASE("under the sandbox, ncu and the lab program it starts run inside it", "[batch][profile][sandbox]") {
    Sandbox sandbox;
    sandbox.bwrap = "/usr/bin/bwrap";
    sandbox.hidden = {"/course"};
    TempDir dir;
    auto ncu_argv = ncu_profile_command("/usr/local/cuda/bin/ncu", dir / "r.ncu-rep", {"/stage/build/lab", "--once"});
    auto argv = sandboxed_ncu_command(sandbox, "/usr/local/cuda/bin/ncu", "/stage/build/lab", dir.path(), ncu_argv);
    REQUIRE(argv.size() > ncu_argv.size());
    CHECK(argv.front() == "/usr/bin/bwrap");
    auto separator = std::find(argv.begin(), argv.end(), "--");
    REQUIRE(separator != argv.end());
    CHECK(std::vector<std::string>(separator + 1, argv.end()) == ncu_argv);
    auto joined = fmt::format("{}", fmt::join(argv, " "));
    CHECK(contains(joined, "/stage/build/lab"));  // the lab program, read-only
    CHECK(contains(joined, dir.path().string()));  // the report and the result: writable
}

TEST_CASE("the sandbox shows ncu the Nsight Compute folder its launcher script starts", "[batch][profile][sandbox]") {
    TempDir dir;
    // The CUDA Toolkit's layout: bin/ncu a script, nsight-compute-VERSION a link to the vendor's folder.
    write_file(dir / "cuda" / "bin" / "ncu", "#!/bin/sh\n");
    write_file(dir / "vendor" / "nsight-compute" / "2025.3.1" / "ncu", "");
    std::filesystem::create_directory_symlink(dir / "vendor" / "nsight-compute" / "2025.3.1",
                                              dir / "cuda" / "nsight-compute-2025.3.1");
    auto folders = ncu_install_folders(dir / "cuda" / "bin" / "ncu", dir / "vendor");
    auto canonical = [](const std::filesystem::path& p) { return std::filesystem::canonical(p); };
    auto has = [&](const std::filesystem::path& p) {
        return std::find(folders.begin(), folders.end(), canonical(p)) != folders.end();
    };
    CHECK(has(dir / "cuda" / "bin"));
    CHECK(has(dir / "vendor" / "nsight-compute" / "2025.3.1"));
    CHECK(has(dir / "vendor"));
    CHECK(folders.size() == 3);
    CHECK(ncu_install_folders(dir / "cuda" / "bin" / "no-such-ncu").empty());

    Sandbox sandbox;
    sandbox.bwrap = "/usr/bin/bwrap";
    auto argv = sandboxed_ncu_command(sandbox, dir / "cuda" / "bin" / "ncu", "/stage/build/lab", dir.path(), {"ncu"});
    CHECK(contains(fmt::format("{}", fmt::join(argv, " ")), canonical(dir / "vendor").string()));
}

TEST_CASE("batch of lab 02 without ncu: one clear note, and the rest graded as usual", "[batch][profile][cli]") {
    TempDir dir;
    auto subs = dir / "subs";
    auto out = dir / "out";
    write_file(subs / "broken" / "kernels" / "06_fma_tail.cu", "#include \"roofline/contract/elementwise.cuh\"\nint oops( {\n");
    auto err = dir / "err";
    std::string command = "env ROOFLINE_NCU=/nonexistent/ncu " + shell_quote(ROOFLINE_CLI) + " " + course_flags() +
                          " batch " + kLab + " --gpus none --jobs 1 --submissions " + shell_quote(subs.string()) +
                          " --out " + shell_quote(out.string()) + " > /dev/null 2> " + shell_quote(err.string());
    int status = std::system(command.c_str());
    auto said = read_file(err);
    INFO(said);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(occurrences(said, "ncu (Nsight Compute) was not found") == 1);
    CHECK(contains(said, "broken: compile_error"));
}
