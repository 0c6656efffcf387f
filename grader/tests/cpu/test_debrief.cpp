// Debriefs (labs/LAB/debrief/VARIANT.md) and the two commands around them, with
// synthetic prediction logs: `roofline debrief` refuses before a graded
// measurement and shows the text after one; `roofline explain` refuses without
// a measurement, appends a gap note after one and leaves earlier bytes alone;
// `roofline log` shows the note. Every lab variant has its debrief.
#include "test_support.hpp"

#include "debrief.hpp"
#include "lab_spec.hpp"
#include "prediction_log.hpp"

#include <fmt/format.h>

using namespace roofline;
using namespace roofline_test;

namespace {

const std::string kVariant = "copy_naive_fp32";
const std::string kShape = "n=268435456";

// A course in `dir`: hardware/ and lab 01, with a debrief for copy_naive_fp32 whose text the test knows.
const std::string kDebriefText = "# copy_naive_fp32\n\nSynthetic debrief: 787.7 us on our H200.\n";
void make_course(const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    fs::copy(repo_root() / "hardware", dir / "hardware", fs::copy_options::recursive);
    fs::create_directories(dir / "labs");
    fs::copy(repo_root() / "labs" / "01-memory-roof", dir / "labs" / "01-memory-roof", fs::copy_options::recursive);
    write_file(dir / "labs" / "01-memory-roof" / "debrief" / (kVariant + ".md"), kDebriefText);
}

std::string course_flags(const TempDir& dir) {
    return "--root " + shell_quote(dir.path().string());
}

// Appends a prediction and its measurement (correct or not) of copy_naive_fp32.
Measurement graded(const std::filesystem::path& log, bool correct = true) {
    auto p = append_prediction(log, make_prediction(kVariant, kShape, "fnv1a64:x", 600));
    auto m = make_measurement(p, 790);
    m.correct = correct;
    return append_measurement(log, m);
}

}  // namespace

TEST_CASE("open_debrief: closed without a correct measurement, open with one or for --solutions", "[debrief]") {
    TempDir dir;
    make_course(dir.path());
    Workspace ws{dir.path(), dir.path() / "build"};
    auto log_file = dir / "predictions.yaml";

    auto closed = open_debrief(ws, load_log(log_file), "01-memory-roof", kVariant, false, "");
    CHECK(!closed.text);
    check_mentions(closed.refusal, {"roofline predict 01-memory-roof/copy_naive_fp32",
                                    "roofline grade 01-memory-roof/copy_naive_fp32"});

    graded(log_file, false);  // an incorrect kernel's measurement opens nothing
    CHECK(!open_debrief(ws, load_log(log_file), "01-memory-roof", kVariant, false, "").text);

    auto instructor = open_debrief(ws, load_log(log_file), "01-memory-roof", kVariant, true, "");
    REQUIRE(instructor.text);
    CHECK(*instructor.text == kDebriefText);

    auto m = graded(log_file);
    auto log = load_log(log_file);
    auto open = open_debrief(ws, log, "01-memory-roof", kVariant, false, "");
    REQUIRE(open.text);
    CHECK(*open.text == kDebriefText);
    REQUIRE(open.measurement);
    CHECK(open.measurement->id == m.id);

    // Another variant of the same lab stays closed.
    write_file(dir / "labs" / "01-memory-roof" / "debrief" / "add_fp32.md", "add\n");
    CHECK(!open_debrief(ws, log, "01-memory-roof", "add_fp32", false, "").text);
    // A debrief file missing is reported with its path.
    std::filesystem::remove(debrief_file(ws, "01-memory-roof", "add_fp32"));
    auto message = input_error_of([&] { open_debrief(ws, log, "01-memory-roof", "add_fp32", false, ""); });
    CHECK(contains(message, "debrief/add_fp32.md"));
}

TEST_CASE("cli: debrief refuses (exit 9) before a graded measurement and shows the text after one", "[debrief][cli]") {
    TempDir dir;
    make_course(dir.path());
    auto log = dir / "predictions.yaml";
    auto target = " debrief 01-memory-roof/" + kVariant;

    auto before = run_cli(course_flags(dir) + target);
    INFO(before.all());
    CHECK(before.exit_code == 9);
    CHECK(!contains(before.all(), "Synthetic debrief"));
    CHECK(contains(before.err, "roofline grade 01-memory-roof/copy_naive_fp32"));

    auto p = append_prediction(log, make_prediction(kVariant, kShape, "fnv1a64:x", 600));
    auto predicted_only = run_cli(course_flags(dir) + target);
    CHECK(predicted_only.exit_code == 9);  // a prediction alone opens nothing

    append_measurement(log, make_measurement(p, 790));
    auto after = run_cli(course_flags(dir) + target);
    INFO(after.all());
    CHECK(after.exit_code == 0);
    CHECK(contains(after.out, "Synthetic debrief: 787.7 us"));
    CHECK(contains(after.out, "m1"));  // names the measurement that opened it
    CHECK(contains(after.out, "roofline explain 01-memory-roof/copy_naive_fp32"));

    // --log elsewhere: that log decides.
    TempDir other;
    auto elsewhere = run_cli(course_flags(dir) + target + " --log " + shell_quote((other / "p.yaml").string()));
    CHECK(elsewhere.exit_code == 9);
    CHECK(contains(elsewhere.err, "--log"));
    auto instructor = run_cli(course_flags(dir) + target + " --solutions");
    CHECK(instructor.exit_code == 0);
    CHECK(contains(instructor.out, "Synthetic debrief"));
}

TEST_CASE("cli: explain refuses without a measurement, appends after one, leaves earlier bytes untouched",
          "[debrief][gap_note][cli]") {
    TempDir dir;
    make_course(dir.path());
    auto log = dir / "predictions.yaml";
    auto explain = [&](const std::string& why) {
        return run_cli(course_flags(dir) + " explain 01-memory-roof/" + kVariant + " --why " + shell_quote(why));
    };

    auto none = explain("too few bytes in flight");
    CHECK(none.exit_code == 9);
    CHECK(!std::filesystem::exists(log));  // nothing written

    auto p = append_prediction(log, make_prediction(kVariant, kShape, "fnv1a64:x", 600));
    auto unmeasured = read_file(log);
    CHECK(explain("too few bytes in flight").exit_code == 9);
    CHECK(read_file(log) == unmeasured);

    append_measurement(log, make_measurement(p, 790));
    auto measured = read_file(log);
    auto first = explain("one 4-byte load in flight per thread cannot cover the DRAM latency");
    INFO(first.all());
    CHECK(first.exit_code == 0);
    CHECK(contains(first.out, "m1"));
    auto noted = read_file(log);
    CHECK(noted.size() > measured.size());
    CHECK(noted.compare(0, measured.size(), measured) == 0);
    CHECK(contains(noted, "kind: gap_note"));

    auto second = explain("and bf16 halves the bytes per load");
    CHECK(second.exit_code == 0);
    auto twice = read_file(log);
    CHECK(twice.compare(0, noted.size(), noted) == 0);
    CHECK(load_log(log).notes_for("m1").size() == 2);

    // A line break or an empty reason is refused, and the log is left as it was.
    CHECK(explain("two\nlines").exit_code == 2);
    CHECK(explain("   ").exit_code == 2);
    CHECK(read_file(log) == twice);

    auto shown = run_cli(course_flags(dir) + " log --log " + shell_quote(log.string()));
    INFO(shown.all());
    CHECK(contains(shown.out, "gap note on m1: one 4-byte load in flight per thread"));
    auto json = nlohmann::json::parse(
        run_cli(course_flags(dir) + " log --json --log " + shell_quote(log.string())).out);
    REQUIRE(json["entries"].size() == 1);
    CHECK(json["entries"][0]["measurement"] == "m1");
    CHECK(json["entries"][0]["gap_notes"].size() == 2);
}

TEST_CASE("every variant of every lab has its debrief, and it is not empty", "[debrief][lessons]") {
    Workspace ws{repo_root(), repo_root() / "build"};
    for (const auto& lab : load_labs(ws.labs_dir())) {
        for (const auto& v : lab.variants) {
            auto file = debrief_file(ws, lab.id, v.name);
            INFO(file.string());
            CHECK(std::filesystem::is_regular_file(file));
            CHECK(read_file(file).size() > 200);
        }
    }
}
