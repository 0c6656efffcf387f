// The prediction log (lib/course/prediction_log.cpp): append-only, ids in order, old
// bytes never rewritten, lookups by source hash and shape, edits detected,
// malformed logs reported and left alone, concurrent appends serialised.
#include "test_support.hpp"

#include "prediction_log.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <set>

using namespace roofline;
using namespace roofline_test;

namespace {

bool starts_with(const std::string& text, const std::string& prefix) { return text.compare(0, prefix.size(), prefix) == 0; }

const std::string kShape = "n=268435456";

}  // namespace

TEST_CASE("a missing log is an empty log", "[log]") {
    TempDir dir;
    auto log = load_log(dir / "predictions.yaml");
    CHECK(log.predictions.empty());
    CHECK(log.measurements.empty());
    CHECK(log.find_current("01-memory-roof", "copy_naive_fp32", kShape, "h") == nullptr);
}

TEST_CASE("append prediction, measurement, prediction: ids and untouched earlier bytes", "[log]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";

    auto p1 = append_prediction(file, make_prediction("copy_naive_fp32", kShape, "fnv1a64:aaaa", 600,
                                                      "quotes \" and colons: 2 GiB # not a comment"));
    CHECK(p1.id == "p1");
    auto bytes1 = read_file(file);
    CHECK(starts_with(bytes1, "# Roofline prediction log"));

    auto loaded = load_log(file);
    REQUIRE(loaded.predictions.size() == 1);
    auto m = append_measurement(file, make_measurement(loaded.predictions[0], 640));
    auto bytes2 = read_file(file);
    CHECK(bytes2.size() > bytes1.size());
    CHECK(starts_with(bytes2, bytes1));

    auto p2 = append_prediction(file, make_prediction("add_fp32", kShape, "fnv1a64:bbbb", 900));
    CHECK(p2.id == "p2");
    auto bytes3 = read_file(file);
    CHECK(bytes3.size() > bytes2.size());
    CHECK(starts_with(bytes3, bytes2));

    auto log = load_log(file);
    REQUIRE(log.predictions.size() == 2);
    REQUIRE(log.measurements.size() == 1);
    const auto& a = log.predictions[0];
    CHECK(a.id == "p1");
    CHECK(a.lab == "01-memory-roof");
    CHECK(a.variant == "copy_naive_fp32");
    CHECK(a.shape == kShape);
    CHECK(a.predicted_time_s == Approx(600e-6));
    CHECK(a.given_as == "time_us 600");
    CHECK(a.regime == Regime::memory);
    CHECK(a.why == "quotes \" and colons: 2 GiB # not a comment");  // survives YAML quoting
    CHECK(a.source_hash == "fnv1a64:aaaa");
    CHECK(a.made_at == "2026-11-29T10:00:00Z");
    CHECK(a.line > 0);
    CHECK(log.predictions[1].id == "p2");
    CHECK(log.predictions[1].line > log.measurements[0].line);
    const auto& b = log.measurements[0];
    CHECK(b.prediction_id == "p1");
    CHECK(b.prediction_digest == m.prediction_digest);
    CHECK(b.measured_time_s == Approx(640e-6));
    CHECK(b.measured_regime == Regime::memory);
    CHECK(b.correct);
    CHECK(b.fraction == Approx(0.85));
    CHECK(b.points == Approx(92.5));
    CHECK(b.max_points == Approx(100));
    CHECK(b.gpu == "NVIDIA H200");
    CHECK(b.sm_clock_mhz == Approx(1980));
    CHECK(log.find_by_id("p2") == &log.predictions[1]);
    CHECK(log.find_by_id("p3") == nullptr);
    // no temporary files left beside the log
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
        CHECK(entry.path().filename().string().find(".tmp") == std::string::npos);
    }
}

TEST_CASE("appending keeps a hand-written log's bytes, even without a final newline", "[log]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    auto original = read_file(test_data() / "logs" / "valid.yaml");
    REQUIRE(!original.empty());
    original.pop_back();  // drop the trailing newline
    write_file(file, original);
    auto p = append_prediction(file, make_prediction("copy_naive_fp32", kShape, "fnv1a64:cccc", 500));
    CHECK(p.id == "p3");  // after p1 and p2 in the file
    CHECK(starts_with(read_file(file), original));
    CHECK(load_log(file).predictions.size() == 3);
}

TEST_CASE("find_current respects lab, variant, shape and source hash, newest first", "[log]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    append_prediction(file, make_prediction("copy_naive_fp32", kShape, "hashA", 600));        // p1
    append_prediction(file, make_prediction("copy_naive_fp32", kShape, "hashB", 610));        // p2
    append_prediction(file, make_prediction("copy_naive_fp32", "n=1024", "hashA", 5));        // p3
    append_prediction(file, make_prediction("copy_naive_fp32", kShape, "hashA", 620));        // p4
    append_prediction(file, make_prediction("add_fp32", kShape, "hashA", 900));               // p5
    auto log = load_log(file);
    auto id = [&](const std::string& variant, const std::string& shape, const std::string& hash) -> std::string {
        const auto* p = log.find_current("01-memory-roof", variant, shape, hash);
        return p ? p->id : "(none)";
    };
    CHECK(id("copy_naive_fp32", kShape, "hashA") == "p4");  // newest of p1 and p4
    CHECK(id("copy_naive_fp32", kShape, "hashB") == "p2");
    CHECK(id("copy_naive_fp32", "n=1024", "hashA") == "p3");
    CHECK(id("copy_naive_fp32", "n=1024", "hashB") == "(none)");
    CHECK(id("copy_naive_fp32", kShape, "hashC") == "(none)");  // the kernel changed since
    CHECK(id("add_fp32", kShape, "hashA") == "p5");
    CHECK(id("scale_fp32", kShape, "hashA") == "(none)");
    CHECK(log.find_current("03-gemm", "copy_naive_fp32", kShape, "hashA") == nullptr);
}

TEST_CASE("a prediction edited after its measurement is detected", "[log]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    append_prediction(file, make_prediction("copy_naive_fp32", kShape, "hashA", 600, "original reasoning"));
    append_prediction(file, make_prediction("add_fp32", kShape, "hashA", 900, "never measured"));
    auto before = load_log(file);
    append_measurement(file, make_measurement(before.predictions[0], 640));

    auto log = load_log(file);
    REQUIRE(log.predictions.size() == 2);
    CHECK_FALSE(log.edited_after_measurement(log.predictions[0]));
    CHECK_FALSE(log.edited_after_measurement(log.predictions[1]));

    SECTION("the why changed") {
        write_file(file, replaced(read_file(file), "original reasoning", "better reasoning"));
        auto edited = load_log(file);
        CHECK(edited.predictions[0].why == "better reasoning");
        CHECK(edited.edited_after_measurement(edited.predictions[0]));
        CHECK_FALSE(edited.edited_after_measurement(edited.predictions[1]));  // not measured: nothing to compare
    }
    SECTION("the predicted time changed") {
        write_file(file, replaced(read_file(file), "predicted_time_us: 600", "predicted_time_us: 630"));
        auto edited = load_log(file);
        CHECK(edited.edited_after_measurement(edited.predictions[0]));
    }
}

TEST_CASE("digest covers the fields that matter", "[log]") {
    auto p = make_prediction("copy_naive_fp32", kShape, "hashA", 600);
    p.id = "p1";
    auto base = p.digest();
    CHECK(base == p.digest());  // deterministic
    auto changed = [&](auto mutate) {
        auto q = p;
        mutate(q);
        return q.digest() != base;
    };
    CHECK(changed([](Prediction& q) { q.why = "other"; }));
    CHECK(changed([](Prediction& q) { q.predicted_time_s = 601e-6; }));
    CHECK(changed([](Prediction& q) { q.regime = Regime::compute; }));
    CHECK(changed([](Prediction& q) { q.source_hash = "hashB"; }));
    CHECK(changed([](Prediction& q) { q.made_at = "2026-11-30T10:00:00Z"; }));
    CHECK(changed([](Prediction& q) { q.id = "p2"; }));
    CHECK_FALSE(changed([](Prediction& q) { q.line = 99; }));  // where it sits is not what it says
}

TEST_CASE("a malformed log is reported with file:line and left byte-identical", "[log]") {
    struct Case {
        const char* fixture;
        const char* where;  // ":line:"
        const char* what;   // the field or the kind of error
    };
    for (auto c : {Case{"syntax_error.yaml", ":16:", "malformed YAML"}, Case{"unknown_kind.yaml", ":14:", "kind"},
                   Case{"missing_why.yaml", ":14:", "why"}, Case{"bad_regime.yaml", ":21:", "regime"},
                   Case{"unknown_field.yaml", ":22:", "whyy"}}) {
        INFO(c.fixture);
        TempDir dir;
        auto file = dir / "predictions.yaml";
        auto original = read_file(test_data() / "logs" / c.fixture);
        REQUIRE(!original.empty());
        write_file(file, original);

        auto load_message = input_error_of([&] { load_log(file); });
        INFO(load_message);
        check_mentions(load_message, {"predictions.yaml" + std::string(c.where), c.what});

        auto append_message =
            input_error_of([&] { append_prediction(file, make_prediction("copy_naive_fp32", kShape, "h", 600)); });
        CHECK(contains(append_message, "predictions.yaml" + std::string(c.where)));
        CHECK(read_file(file) == original);

        Prediction stale = make_prediction("copy_naive_fp32", kShape, "h", 600);
        stale.id = "p1";
        input_error_of([&] { append_measurement(file, make_measurement(stale, 640)); });
        CHECK(read_file(file) == original);
    }
}

TEST_CASE("the valid log fixture loads (the malformed ones differ from it by one line)", "[log]") {
    auto log = load_log(test_data() / "logs" / "valid.yaml");
    REQUIRE(log.predictions.size() == 2);
    CHECK(log.predictions[0].line == 3);
    CHECK(log.predictions[1].line == 14);
    CHECK(log.predictions[1].predicted_time_s == Approx(550e-6));
}

TEST_CASE("two processes appending at once leave every entry, well formed, with unique ids", "[log]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    constexpr int kChildren = 2, kEach = 20;
    std::vector<pid_t> children;
    for (int c = 0; c < kChildren; ++c) {
        pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            int status = 0;
            try {
                for (int i = 0; i < kEach; ++i) {
                    append_prediction(file, make_prediction("copy_naive_fp32", kShape,
                                                            "child" + std::to_string(c), 600 + i,
                                                            "child " + std::to_string(c) + " entry " + std::to_string(i)));
                }
            } catch (...) {
                status = 1;
            }
            ::_exit(status);  // no Catch2 or static destructors in the child
        }
        children.push_back(pid);
    }
    for (auto pid : children) {
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
    auto log = load_log(file);
    REQUIRE(log.predictions.size() == kChildren * kEach);
    std::set<std::string> ids, whys;
    for (const auto& p : log.predictions) {
        ids.insert(p.id);
        whys.insert(p.why);
    }
    CHECK(ids.size() == kChildren * kEach);
    CHECK(whys.size() == kChildren * kEach);  // no entry lost or duplicated
    for (int i = 1; i <= kChildren * kEach; ++i) CHECK(ids.count("p" + std::to_string(i)) == 1);
    // each child's own entries stay in the order it wrote them
    for (int c = 0; c < kChildren; ++c) {
        int next = 0;
        for (const auto& p : log.predictions) {
            if (p.source_hash != "child" + std::to_string(c)) continue;
            CHECK(p.why == "child " + std::to_string(c) + " entry " + std::to_string(next));
            ++next;
        }
        CHECK(next == kEach);
    }
}

TEST_CASE("utc_now_iso8601 has the shape 2026-11-29T10:00:00Z", "[log]") {
    auto now = utc_now_iso8601();
    REQUIRE(now.size() == 20);
    CHECK(now[4] == '-');
    CHECK(now[10] == 'T');
    CHECK(now.back() == 'Z');
}
