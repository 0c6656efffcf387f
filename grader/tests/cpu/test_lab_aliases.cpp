// Issue 32: the modules were renumbered in the order taught. A name from before then (a
// student's log, an instructor's hidden file or class folder, a command typed from an old
// README) is read as the module's new name, with a one-line note; the log is never rewritten.
#include "test_support.hpp"

#include "hidden.hpp"
#include "lab_aliases.hpp"
#include "lab_spec.hpp"
#include "prediction_log.hpp"
#include "workspace.hpp"

#include <cstdio>

using namespace roofline;
using namespace roofline_test;

namespace {

// Old folder name -> new, as the README's tables numbered the modules before and after.
const std::vector<std::pair<std::string, std::string>> kRenumbered = {
    {"06-profile", "02-profile"},     {"02-gemm", "03-gemm"},         {"03-fusion", "04-fusion"},
    {"09-layouts", "05-layouts"},     {"04-async", "06-async"},       {"05-blackwell", "07-blackwell"},
    {"07-attention", "08-attention"}, {"08-decode", "09-decode"},
};

// What `resolve_lab_name` wrote to a scratch stream.
std::string notes_of(std::FILE* notes) {
    std::fflush(notes);
    std::rewind(notes);
    std::string text;
    for (int c; (c = std::fgetc(notes)) != EOF;) text += char(c);
    return text;
}

// A log as the grader wrote it before the renumbering: lab 02 (now 03-gemm) predicted,
// measured and explained, lab 01 (unchanged) predicted. Returns the file's bytes.
std::string write_old_log(const fs::path& file) {
    auto p = make_prediction("r1_naive", "m=4096,n=4096,k=4096", "fnv1a64:0123456789abcdef", 90000, "naive loads");
    p.lab = "02-gemm";
    auto written = append_prediction(file, p);
    auto m = make_measurement(written, 120000);  // its digest names 02-gemm, as the old grader computed it
    m.measured_at = "2026-11-29T11:00:00Z";
    append_measurement(file, m);
    GapNote note{"m1", "02-gemm", "r1_naive", "every thread reloads its row from DRAM", "2026-11-29T12:00:00Z"};
    append_gap_note(file, note);
    append_prediction(file, make_prediction("copy_naive_fp32", "n=268435456", "h", 600));
    return read_file(file);
}

}  // namespace

TEST_CASE("every old module name maps to a lab folder of the course, and back", "[lab][aliases]") {
    for (const auto& [old_name, new_name] : kRenumbered) {
        INFO(old_name << " -> " << new_name);
        CHECK(current_lab_name(old_name) == new_name);
        CHECK(former_lab_name(new_name) == old_name);
        CHECK(std::filesystem::exists(repo_root() / "labs" / new_name / "lab.yaml"));
        CHECK_FALSE(std::filesystem::exists(repo_root() / "labs" / old_name));
        CHECK(renamed_lab_note(old_name) ==
              "note: " + old_name + " is now " + new_name + " (modules are numbered in the order taught)");
    }
    // A current name is itself, even where its number was another module's before (06-async
    // is not 06-profile's alias); names the table does not hold pass through for the usual error.
    for (const std::string name : {"00-three-regimes", "01-memory-roof", "06-async", "02-profile", "99-nope", "04"}) {
        CHECK(current_lab_name(name) == name);
        CHECK_FALSE(renamed_lab_note(name));
    }
    CHECK_FALSE(former_lab_name("01-memory-roof"));
}

TEST_CASE("an old name resolves with its note, once per name", "[lab][aliases]") {
    std::FILE* notes = std::tmpfile();
    REQUIRE(notes);
    CHECK(resolve_lab_name("04-async", notes) == "06-async");
    CHECK(resolve_lab_name("04-async", notes) == "06-async");
    CHECK(resolve_lab_name("06-async", notes) == "06-async");
    CHECK(resolve_lab_name("01-memory-roof", notes) == "01-memory-roof");
    CHECK(notes_of(notes) == "note: 04-async is now 06-async (modules are numbered in the order taught)\n");
    std::fclose(notes);

    // LAB/VARIANT: the lab part resolves; a malformed target is refused as before.
    CHECK(split_target("07-attention/fused") == std::make_pair(std::string("08-attention"), std::string("fused")));
    CHECK(split_target("08-attention/fused") == std::make_pair(std::string("08-attention"), std::string("fused")));
    check_mentions(input_error_of([] { split_target("04-async"); }), {"LAB/VARIANT"});
}

TEST_CASE("a log written with old names is read with the new ones and left as it is", "[lab][aliases][log]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    auto bytes = write_old_log(file);
    REQUIRE(contains(bytes, "lab: 02-gemm"));
    REQUIRE_FALSE(contains(bytes, "03-gemm"));

    auto log = load_log(file);
    REQUIRE(log.predictions.size() == 2);
    REQUIRE(log.measurements.size() == 1);
    REQUIRE(log.gap_notes.size() == 1);
    CHECK(log.predictions[0].lab == "03-gemm");
    CHECK(log.predictions[0].lab_as_written == "02-gemm");
    CHECK(log.predictions[1].lab == "01-memory-roof");
    CHECK(log.measurements[0].lab == "03-gemm");
    CHECK(log.gap_notes[0].lab == "03-gemm");
    // The digest the measurement recorded is the one of the prediction as written: not "edited".
    CHECK_FALSE(log.edited_after_measurement(log.predictions[0]));
    // Found under the new name, as `grade`, `debrief` and `explain` look it up.
    CHECK(log.find_current("03-gemm", "r1_naive", "m=4096,n=4096,k=4096", "fnv1a64:0123456789abcdef") ==
          &log.predictions[0]);
    CHECK(log.latest_graded("03-gemm", "r1_naive") == &log.measurements[0]);
    CHECK(read_file(file) == bytes);

    // An edit to the old entry is still caught.
    write_file(file, replaced(bytes, "why: \"naive loads\"", "why: \"naive loads, edited\""));
    auto edited = load_log(file);
    CHECK(edited.edited_after_measurement(edited.predictions[0]));

    // New entries after the renumbering are written with the new name, beside the old ones.
    write_file(file, bytes);
    auto again = make_prediction("r1_naive", "m=4096,n=4096,k=4096", "fnv1a64:0123456789abcdef", 100000);
    again.lab = "03-gemm";
    append_prediction(file, again);
    auto mixed = load_log(file);
    REQUIRE(mixed.predictions.size() == 3);
    CHECK(mixed.predictions[2].lab == "03-gemm");
    CHECK(mixed.predictions[2].lab_as_written == "03-gemm");
    CHECK(contains(read_file(file), "lab: 03-gemm"));
}

TEST_CASE("cli: an old name is accepted with a note; a wrong name keeps its error", "[cli][aliases]") {
    TempDir dir;
    auto log = dir / "p.yaml";
    auto log_flag = " --log " + shell_quote(log.string());
    auto predicted = run_cli(repo_flag() + " predict 02-gemm/r1_naive --time-us 90000 --regime compute "
                                           "--why 'naive loads'" + log_flag);
    INFO(predicted.all());
    REQUIRE(predicted.exit_code == 0);
    CHECK(contains(predicted.err, "note: 02-gemm is now 03-gemm (modules are numbered in the order taught)"));
    CHECK(count_lines(predicted.err) == 1);
    CHECK(contains(predicted.out, "roofline grade 03-gemm/r1_naive"));
    CHECK_FALSE(contains(predicted.out, "02-gemm"));  // the new name echoed back, not the one typed
    CHECK(contains(read_file(log), "lab: 03-gemm"));
    CHECK_FALSE(contains(read_file(log), "02-gemm"));

    // An old name with a variant its lab does not have: the note, then the lab's variants.
    auto no_variant = run_cli(repo_flag() + " predict 02-gemm/r0_turbo --time-us 1 --regime compute --why w" + log_flag);
    CHECK(no_variant.exit_code == 2);
    check_mentions(no_variant.err, {"02-gemm is now 03-gemm", "r0_turbo", "r1_naive"});

    // Names that are neither a lab nor an old one: the error as before, one line, no note.
    check_refused(repo_flag() + " predict 10-gemm/r1_naive --time-us 1 --regime compute --why w" + log_flag,
                  {"no lab '10-gemm'"});
    check_refused(repo_flag() + " run 02-gemmm/r1_naive --no-build", {"02-gemmm"});
    check_refused(repo_flag() + " grade 04 --all", {"04"});
}

TEST_CASE("cli log: a log written with old names shows the new ones", "[cli][aliases][log]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    auto bytes = write_old_log(file);
    auto r = run_cli("log --log " + shell_quote(file.string()));
    INFO(r.all());
    REQUIRE(r.exit_code == 0);
    check_mentions(r.out, {"03-gemm/r1_naive", "01-memory-roof/copy_naive_fp32", "1 entries"});
    CHECK_FALSE(contains(r.out, "02-gemm"));
    CHECK_FALSE(contains(r.out, "EDITED"));
    CHECK(contains(r.err, "note: 02-gemm is now 03-gemm"));
    CHECK(count_lines(r.err) == 1);  // once, however many entries name it

    auto as_json = run_cli("log --json --log " + shell_quote(file.string()));
    REQUIRE(as_json.exit_code == 0);
    auto j = nlohmann::json::parse(as_json.out);
    REQUIRE(j["entries"].size() == 1);
    CHECK(j["entries"][0]["lab"] == "03-gemm");
    CHECK(read_file(file) == bytes);  // append-only: reading never rewrites it
}

TEST_CASE("a hidden file naming the lab's old name is accepted", "[batch][aliases]") {
    TempDir dir;
    auto lab = load_lab(repo_root() / "labs" / "08-attention" / "lab.yaml");
    auto file = dir / "hidden.yaml";
    write_file(file, "lab: 07-attention\nseed: 77\n");
    CHECK(batch::load_hidden(file, lab).seed == 77u);
    write_file(file, "lab: 08-decode\nseed: 77\n");  // an old name, of another lab: refused as before
    check_mentions(input_error_of([&] { batch::load_hidden(file, lab); }), {"hidden.yaml:1", "09-decode", "08-attention"});
}

TEST_CASE("a grade saved under the lab's old name is found", "[lab][aliases]") {
    TempDir dir;
    Workspace ws{dir.path(), dir / "build"};
    auto old_file = ws.results_dir("04-async", false) / "wgmma_gemm_4096.json";
    CHECK(ws.saved_grade("06-async", false, "wgmma_gemm_4096") == ws.results_dir("06-async", false) / "wgmma_gemm_4096.json");
    write_file(old_file, "{}");
    CHECK(ws.saved_grade("06-async", false, "wgmma_gemm_4096") == old_file);
    CHECK(ws.saved_grade("06-async", true, "wgmma_gemm_4096") == ws.results_dir("06-async", true) / "wgmma_gemm_4096.json");
    auto new_file = ws.results_dir("06-async", false) / "wgmma_gemm_4096.json";
    write_file(new_file, "{}");  // a grade since the renumbering wins
    CHECK(ws.saved_grade("06-async", false, "wgmma_gemm_4096") == new_file);
}
