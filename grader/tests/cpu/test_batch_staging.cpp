// Staging a submission (batch/staging.hpp) reads regular files only, inside the submission: the
// grader stages outside the sandbox, so an entry that is a link (to a solution, to the hidden
// shapes, to /etc/passwd), a fifo, a device, or a folder that resolves elsewhere is refused,
// naming the entry, before anything of it is read. A submission folder that is a link, or that
// holds the same files as another, is named. Fixtures are made in a temporary folder.
#include "test_support.hpp"

#include "batch.hpp"
#include "staging.hpp"
#include "lab_spec.hpp"
#include "workspace.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

using namespace roofline;
using namespace roofline::batch;
using namespace roofline_test;

namespace {

constexpr const char* kLab = "01-memory-roof";
constexpr const char* kKernel = "01_copy_naive.cu";

struct Stager {
    Workspace course{repo_root(), ROOFLINE_BINARY_DIR};
    LabSpec lab = load_lab(course.lab_yaml(kLab));
    TempDir dir;

    // A submission folder under dir/subs holding the lab's skeleton kernel (a regular file).
    fs::path submission(const std::string& name) {
        auto sub = dir / "subs" / name;
        write_file(sub / "kernels" / kKernel, read_file(repo_root() / "labs" / kLab / "kernels" / kKernel));
        return sub;
    }
    StagedSubmission stage(const fs::path& sub) {
        return stage_submission(course, lab, course.lab_yaml(kLab), {sub.filename().string(), sub}, dir / "stage");
    }
    // The refusal's words; fails the test when staging accepts the submission.
    std::string refusal(const fs::path& sub) {
        try {
            stage(sub);
        } catch (const UnsafeEntry& e) {
            return e.what();
        }
        FAIL("staging accepted " << sub);
        return "";
    }
};

}  // namespace

TEST_CASE("staging: a submission of regular files is staged as before", "[batch][staging]") {
    Stager s;
    auto sub = s.submission("ann");
    auto staged = s.stage(sub);
    CHECK(read_file(staged.workspace.kernels_root(kLab, false) / "kernels" / kKernel) == read_file(sub / "kernels" / kKernel));
    CHECK(staged.log == LogState::missing);
}

TEST_CASE("staging: the hours the student's log shows on this lab come along, another lab's do not", "[batch][staging]") {
    Stager s;
    auto sub = s.submission("ann");
    CHECK_FALSE(s.stage(sub).logged_hours);  // no log, no hours
    auto log = sub / "predictions.yaml";
    auto predict = [&](const std::string& lab, const std::string& variant) {
        auto p = make_prediction(variant, "n=268435456", "h", 500, "w");
        p.lab = lab;
        return append_prediction(log, p);
    };
    predict(kLab, "copy_naive_fp32");
    predict("03-gemm", "naive");
    auto lines = read_file(log);
    // The entries' times, set 40 minutes apart for this lab (a log is text the student holds).
    auto first = lines.find("made_at: ");
    auto second = lines.find("made_at: ", first + 1);
    REQUIRE(second != std::string::npos);
    lines.replace(first + 9, 20, "2026-12-01T10:00:00Z");
    lines.replace(second + 9, 20, "2026-12-01T10:40:00Z");
    write_file(log, lines);
    auto p = make_prediction("add_fp32", "n=268435456", "h", 500, "w");
    append_prediction(log, p);  // now: more than 40 minutes after 10:00, in another sitting
    auto fixed = read_file(log);
    auto third = fixed.rfind("made_at: ");
    fixed.replace(third + 9, 20, "2026-12-01T10:30:00Z");
    write_file(log, fixed);
    auto staged = s.stage(sub);
    REQUIRE(staged.log == LogState::present);
    REQUIRE(staged.logged_hours);
    CHECK(*staged.logged_hours == Approx(0.5));  // 10:00 and 10:30 of this lab; 03-gemm's 10:40 is not this lab's
}

TEST_CASE("staging: a kernel file that is a symbolic link is refused, naming the entry", "[batch][staging]") {
    Stager s;
    auto sub = s.submission("mallory");
    fs::remove(sub / "kernels" / kKernel);
    fs::create_symlink(repo_root() / "solutions" / kLab / "kernels" / kKernel, sub / "kernels" / kKernel);
    auto said = s.refusal(sub);
    check_mentions(said, {"kernels/01_copy_naive.cu is a symbolic link", "regular files only", "nothing of it was graded"});
    CHECK_FALSE(fs::exists(s.dir / "stage" / "labs" / kLab / "kernels" / kKernel));  // not copied
}

TEST_CASE("staging: a prediction log that links to a system file is refused, never parsed", "[batch][staging]") {
    Stager s;
    auto sub = s.submission("mallory");
    fs::create_symlink("/etc/passwd", sub / "predictions.yaml");
    auto said = s.refusal(sub);
    check_mentions(said, {"predictions.yaml is a symbolic link (to /etc/passwd)"});
    CHECK_FALSE(contains(said, "root:"));  // nothing of the file it names
}

TEST_CASE("staging: a kernels/ folder that is a link (to the solutions) is refused", "[batch][staging]") {
    Stager s;
    auto sub = s.dir / "subs" / "mallory";
    fs::create_directories(sub);
    fs::create_directory_symlink(repo_root() / "solutions" / kLab / "kernels", sub / "kernels");
    check_mentions(s.refusal(sub), {"kernels/ is a symbolic link"});
}

TEST_CASE("staging: a relative link that climbs out of the submission is refused", "[batch][staging]") {
    Stager s;
    write_file(s.dir / "elsewhere" / kKernel, "// not the student's\n");
    auto sub = s.submission("mallory");
    fs::remove(sub / "kernels" / kKernel);
    fs::create_symlink("../../../elsewhere/01_copy_naive.cu", sub / "kernels" / kKernel);
    check_mentions(s.refusal(sub), {"kernels/01_copy_naive.cu is a symbolic link (to ../../../elsewhere/01_copy_naive.cu)"});
}

TEST_CASE("staging: a hard link is refused", "[batch][staging]") {
    Stager s;
    write_file(s.dir / "outside.cu", "// someone else's file\n");
    auto sub = s.submission("mallory");
    fs::remove(sub / "kernels" / kKernel);
    fs::create_hard_link(s.dir / "outside.cu", sub / "kernels" / kKernel);
    check_mentions(s.refusal(sub), {"kernels/01_copy_naive.cu is a hard link (one of 2 names"});
}

TEST_CASE("staging: a fifo would hang the grader; it is refused", "[batch][staging]") {
    Stager s;
    auto sub = s.submission("mallory");
    fs::remove(sub / "kernels" / kKernel);
    REQUIRE(::mkfifo((sub / "kernels" / kKernel).c_str(), 0644) == 0);
    check_mentions(s.refusal(sub), {"kernels/01_copy_naive.cu is a fifo"});
}

TEST_CASE("staging: a device file is refused", "[batch][staging]") {
    Stager s;
    auto sub = s.submission("mallory");
    auto node = sub / "kernels" / kKernel;
    fs::remove(node);
    // A character device (/dev/null's numbers) needs the right to make one: root, outside a
    // container that forbids it. Where that is refused, the test says so and checks nothing.
    if (::mknod(node.c_str(), S_IFCHR | 0644, makedev(1, 3)) != 0) {
        WARN("cannot make a device node here (" << std::strerror(errno) << "): not checked");
        return;
    }
    check_mentions(s.refusal(sub), {"kernels/01_copy_naive.cu is a device file"});
}

TEST_CASE("staging: a CPU part's file that is a link is refused too", "[batch][staging][layouts]") {
    Workspace course{repo_root(), ROOFLINE_BINARY_DIR};
    auto lab = load_lab(course.lab_yaml("05-layouts"));
    TempDir dir;
    auto sub = dir / "subs" / "mallory";
    fs::create_directories(sub / "cpu");
    std::string name;
    for (const auto& entry : fs::directory_iterator(repo_root() / "labs" / "05-layouts" / "cpu")) {
        if (entry.path().extension() == ".cpp") name = entry.path().filename().string();
    }
    REQUIRE(!name.empty());
    fs::create_symlink(repo_root() / "solutions" / "05-layouts" / "cpu" / name, sub / "cpu" / name);
    std::string said;
    try {
        stage_submission(course, lab, course.lab_yaml("05-layouts"), {"mallory", sub}, dir / "stage");
    } catch (const UnsafeEntry& e) {
        said = e.what();
    }
    CHECK(contains(said, "cpu/" + name + " is a symbolic link"));
}

TEST_CASE("submissions: a folder that links inside the class is graded and named; outside, refused", "[batch][staging]") {
    Stager s;
    s.submission("ann");
    auto outside = s.dir / "elsewhere";
    write_file(outside / "kernels" / kKernel, "// the solution, say\n");
    fs::create_directory_symlink(s.dir / "subs" / "ann", s.dir / "subs" / "ann_again");
    fs::create_directory_symlink(outside, s.dir / "subs" / "outsider");
    auto all = find_submissions(s.dir / "subs");
    REQUIRE(all.size() == 3);
    CHECK(all[0].link_target.empty());
    CHECK(all[1].name == "ann_again");
    CHECK(all[1].link_target == fs::canonical(s.dir / "subs" / "ann"));
    CHECK_FALSE(all[1].outside_class);
    CHECK(all[2].outside_class);
    CHECK_NOTHROW(s.stage(s.dir / "subs" / "ann_again"));
    std::string said;
    try {
        stage_submission(s.course, s.lab, s.course.lab_yaml(kLab), all[2], s.dir / "stage");
    } catch (const UnsafeEntry& e) {
        said = e.what();
    }
    check_mentions(said, {"the submission folder is a symbolic link to", "outside the class's folder"});
}

TEST_CASE("submissions: byte-identical ones are found, empty ones and different ones are not", "[batch][staging]") {
    Stager s;
    s.submission("ann");
    s.submission("ben");  // the same skeleton, byte for byte
    auto carl = s.submission("carl");
    write_file(carl / "kernels" / kKernel, read_file(carl / "kernels" / kKernel) + "// mine\n");
    fs::create_directories(s.dir / "subs" / "dora");
    fs::create_directories(s.dir / "subs" / "eve");  // two empty folders match nothing
    auto same = identical_submissions(find_submissions(s.dir / "subs"));
    REQUIRE(same.size() == 2);
    CHECK(same["ann"] == std::vector<std::string>{"ben"});
    CHECK(same["ben"] == std::vector<std::string>{"ann"});
    // A file's place counts, not only its bytes.
    fs::rename(s.dir / "subs" / "ben" / "kernels" / kKernel, s.dir / "subs" / "ben" / kKernel);
    CHECK(identical_submissions(find_submissions(s.dir / "subs")).empty());
}
