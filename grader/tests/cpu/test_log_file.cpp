// The prediction log as a file (lib/course/prediction_log.cpp): appended in place under an flock
// on the log itself, so a symbolic link, a hard link, the owner and the mode survive; a
// device, a pipe or a read-only log is refused in one line; no lock or temporary file is
// left beside it; an entry cut short by a killed write is named, never read as an entry;
// a prediction id used twice is named with its line.
#include "test_support.hpp"

#include "prediction_log.hpp"

#include <fmt/format.h>

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>

using namespace roofline;
using namespace roofline_test;

namespace {

const std::string kShape = "n=268435456";

Prediction prediction(int i) {
    return make_prediction("copy_naive_fp32", kShape, "fnv1a64:aaaa", 600 + i, "entry " + std::to_string(i));
}

struct stat stat_of(const fs::path& file) {
    struct stat st {};
    REQUIRE(::stat(file.c_str(), &st) == 0);
    return st;
}

// Only the files a test made itself: no <log>.lock, no <log>.tmp.PID.
std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

TEST_CASE("log file: appends keep the inode, the mode and hard links, and leave nothing beside the log", "[log][log-file]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    append_prediction(file, prediction(1));
    REQUIRE(::chmod(file.c_str(), 0600) == 0);
    REQUIRE(::link(file.c_str(), (dir / "hard-link.yaml").c_str()) == 0);
    auto before = stat_of(file);

    append_prediction(file, prediction(2));
    auto after = stat_of(file);
    CHECK(after.st_ino == before.st_ino);
    CHECK((after.st_mode & 07777) == 0600);
    CHECK(after.st_uid == before.st_uid);
    CHECK(after.st_nlink == 2);
    CHECK(load_log(dir / "hard-link.yaml").predictions.size() == 2);  // the other name sees the new entry
    CHECK(names_in(dir.path()) == std::vector<std::string>{"hard-link.yaml", "predictions.yaml"});
}

TEST_CASE("log file: a symbolic link is followed and its file appended to in place", "[log][log-file]") {
    TempDir dir;
    fs::create_directories(dir / "real");
    auto target = dir / "real" / "predictions.yaml";
    append_prediction(target, prediction(1));
    auto link = dir / "predictions.yaml";
    fs::create_symlink(target, link);

    auto written = append_prediction(link, prediction(2));
    CHECK(written.id == "p2");
    CHECK(fs::is_symlink(fs::symlink_status(link)));  // still a link
    CHECK(load_log(target).predictions.size() == 2);   // the real log got the entry
    CHECK(load_log(link).predictions.size() == 2);
}

TEST_CASE("log file: a read-only log, a device, a pipe and a folder are refused in one line, untouched",
          "[log][log-file]") {
    TempDir dir;
    SECTION("read-only (refused even for root, who could write it)") {
        auto file = dir / "predictions.yaml";
        append_prediction(file, prediction(1));
        REQUIRE(::chmod(file.c_str(), 0444) == 0);
        auto bytes = read_file(file);
        auto message = input_error_of([&] { append_prediction(file, prediction(2)); });
        check_mentions(message, {"predictions.yaml", "read-only", "0444"});
        CHECK(message.find('\n') == std::string::npos);
        CHECK(read_file(file) == bytes);
        CHECK((stat_of(file).st_mode & 07777) == 0444);
        CHECK(load_log(file).predictions.size() == 1);  // reading it is fine
    }
    SECTION("a character device") {
        auto message = input_error_of([&] { append_prediction("/dev/null", prediction(1)); });
        check_mentions(message, {"/dev/null", "character device", "not a regular file"});
        CHECK(S_ISCHR(stat_of("/dev/null").st_mode));
        check_mentions(input_error_of([&] { load_log("/dev/null"); }), {"/dev/null", "character device"});
    }
    SECTION("a pipe (refused without blocking on it)") {
        auto fifo = dir / "fifo.yaml";
        REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
        check_mentions(input_error_of([&] { append_prediction(fifo, prediction(1)); }), {"fifo.yaml", "a pipe"});
        check_mentions(input_error_of([&] { load_log(fifo); }), {"fifo.yaml", "a pipe"});
    }
    SECTION("a folder, a missing folder, an empty path") {
        check_mentions(input_error_of([&] { append_prediction(dir.path(), prediction(1)); }), {"is a folder"});
        check_mentions(input_error_of([&] { append_prediction(dir / "missing" / "p.yaml", prediction(1)); }),
                       {"missing", "does not exist"});
        check_mentions(input_error_of([&] { append_prediction("", prediction(1)); }), {"path is empty"});
    }
    CHECK(!fs::exists(dir / "predictions.yaml.lock"));
}

TEST_CASE("log file: a refused append leaves no lock or temporary file", "[log][log-file]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    write_file(file, read_file(test_data() / "logs" / "bad_regime.yaml"));
    input_error_of([&] { append_prediction(file, prediction(1)); });
    CHECK(names_in(dir.path()) == std::vector<std::string>{"predictions.yaml"});
}

TEST_CASE("log file: a prediction id used twice is named with both lines", "[log][log-file]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    auto original = read_file(test_data() / "logs" / "duplicate_id.yaml");
    write_file(file, original);
    auto message = input_error_of([&] { load_log(file); });
    check_mentions(message, {"predictions.yaml:14:", "p1", "used twice", "first at line 3"});
    input_error_of([&] { append_prediction(file, prediction(1)); });
    CHECK(read_file(file) == original);
}

TEST_CASE("log file: a new id is one past the highest, even after an entry was removed by hand", "[log][log-file]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    write_file(file, replaced(read_file(test_data() / "logs" / "valid.yaml"), "id: p2", "id: p7"));
    CHECK(append_prediction(file, prediction(1)).id == "p8");
    CHECK(load_log(file).predictions.size() == 3);
}

// What a write killed part-way leaves: the old log and a prefix of the new entry. Every
// prefix either reads as the old log (the cut fell inside the opening comment line) or
// is named as cut short at the entry's first line; none reads as one more entry.
TEST_CASE("log file: an entry cut short at any byte is named, never read as an entry", "[log][log-file]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    append_prediction(file, prediction(1));
    auto old_bytes = read_file(file);
    auto old_lines = count_lines(old_bytes);
    append_prediction(file, prediction(2));
    auto full = read_file(file);
    REQUIRE(full.size() > old_bytes.size());
    REQUIRE(full.compare(0, old_bytes.size(), old_bytes) == 0);
    auto entry = full.substr(old_bytes.size());
    REQUIRE(entry.rfind("# entry begins\n", 0) == 0);
    REQUIRE(entry.size() > 15);
    int cut_short = 0, read_as_old = 0;
    // (Only the final newline missing is a whole entry, and reads as one.)
    for (std::size_t keep = 1; keep + 1 < entry.size(); ++keep) {
        INFO("kept " << keep << " of the entry's " << entry.size() << " bytes");
        write_file(file, old_bytes + entry.substr(0, keep));
        try {
            auto log = load_log(file);
            CHECK(log.predictions.size() == 1);  // never the half entry
            ++read_as_old;
        } catch (const InputError& e) {
            std::string message = e.what();
            INFO(message);
            CHECK(contains(message, fmt::format("predictions.yaml:{}:", old_lines + 1)));
            CHECK(contains(message, "cut short"));
            ++cut_short;
            // and the next command refuses rather than append after the half entry
            auto bytes = read_file(file);
            input_error_of([&] { append_prediction(file, prediction(3)); });
            CHECK(read_file(file) == bytes);
        }
    }
    CHECK(read_as_old == 13);  // cut inside "# entry begins": a comment fragment
    CHECK(cut_short == static_cast<int>(entry.size()) - 15);
}
