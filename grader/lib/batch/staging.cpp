#include "staging.hpp"

#include "input_error.hpp"
#include "prediction_log.hpp"
#include "source_hash.hpp"
#include "time_on_lab.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>

namespace roofline::batch {

namespace fs = std::filesystem;

std::string stage_name(const std::string& name) {
    auto safe = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
               c == '.';
    };
    bool plain = !name.empty() && name.size() <= 100 && name[0] != '.' && name[0] != '-' &&
                 std::all_of(name.begin(), name.end(), safe);
    if (plain) return name;
    std::string out = "s_";  // never starts with `-` (an option) or `.` (hidden)
    for (char c : name.substr(0, 64)) out += safe(c) ? c : '_';
    auto hash = fnv1a64_hex(name);  // "fnv1a64:" and 16 hex digits
    return out + "-" + hash.substr(hash.find(':') + 1, 12);
}

std::vector<Submission> find_submissions(const fs::path& dir) {
    if (!fs::is_directory(dir)) {
        throw InputError(fmt::format("--submissions {}: not a folder; give the folder holding one folder per submission",
                                     dir.string()));
    }
    std::vector<Submission> all;
    auto class_root = fs::canonical(dir);
    for (const auto& entry : fs::directory_iterator(dir)) {
        auto name = entry.path().filename().string();
        if (!entry.is_directory() || name.starts_with(".")) continue;
        Submission s{name, entry.path(), {}, false};
        if (entry.is_symlink()) {  // graded where it resolves inside the class, and named either way
            s.link_target = fs::canonical(entry.path());
            auto relative = s.link_target.lexically_relative(class_root);
            s.outside_class = relative.empty() || *relative.begin() == ".." || relative == ".";
        }
        all.push_back(s);
    }
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    if (all.empty()) {
        throw InputError(fmt::format("--submissions {}: no submission folders in it (expected NAME/kernels/*.cu and "
                                     "NAME/predictions.yaml)", dir.string()));
    }
    return all;
}

Slice parse_slice(const std::string& text) {
    auto slash = text.find('/');
    Slice slice;
    try {
        if (slash == std::string::npos) throw std::invalid_argument("no slash");
        std::size_t used = 0;
        slice.index = std::stoi(text.substr(0, slash), &used);
        if (used != slash) throw std::invalid_argument("index");
        auto count = text.substr(slash + 1);
        slice.count = std::stoi(count, &used);
        if (used != count.size()) throw std::invalid_argument("count");
    } catch (const std::exception&) {
        throw InputError(fmt::format("--slice {}: expected K/N, e.g. 0/4 (slice K of N, K from 0 to N-1)", text));
    }
    if (slice.count < 1 || slice.index < 0 || slice.index >= slice.count) {
        throw InputError(fmt::format("--slice {}: K must be 0 to N-1 and N at least 1", text));
    }
    return slice;
}

std::vector<Submission> slice_of(const std::vector<Submission>& all, Slice slice) {
    std::vector<Submission> mine;
    for (std::size_t i = slice.index; i < all.size(); i += slice.count) mine.push_back(all[i]);
    return mine;
}

std::map<std::string, std::vector<std::string>> identical_submissions(const std::vector<Submission>& all) {
    std::map<std::string, std::vector<std::string>> by_content;  // fingerprint -> names
    for (const auto& s : all) {
        if (s.outside_class) continue;  // refused, never read
        std::vector<std::pair<std::string, std::string>> files;  // relative path, hash of its bytes
        std::error_code error;
        for (fs::recursive_directory_iterator it(s.dir, error), end; !error && it != end; it.increment(error)) {
            if (!it->is_regular_file(error) || it->is_symlink(error)) continue;
            std::string path = fs::relative(it->path(), s.dir, error).string();
            try {
                files.emplace_back(path, hash_file(it->path()));
            } catch (const InputError&) {
                files.emplace_back(path, "unreadable");
            }
        }
        if (files.empty()) continue;
        std::sort(files.begin(), files.end());
        std::string fingerprint;
        for (const auto& [path, hash] : files) fingerprint += path + '\0' + hash + '\n';
        by_content[fnv1a64_hex(fingerprint)].push_back(s.name);
    }
    std::map<std::string, std::vector<std::string>> same;
    for (const auto& [fingerprint, names] : by_content) {
        if (names.size() < 2) continue;
        for (const auto& name : names) {
            for (const auto& other : names)
                if (other != name) same[name].push_back(other);
        }
    }
    return same;
}

LabFiles lab_files(const Workspace& course, const std::string& lab) {
    LabFiles files;
    auto labs = course.kernels_root(lab, false) / "kernels";
    auto solutions = course.kernels_root(lab, true) / "kernels";
    bool have_solutions = fs::is_directory(solutions);
    for (const auto& entry : fs::directory_iterator(labs)) {
        if (entry.path().extension() != ".cu") continue;
        auto name = entry.path().filename().string();
        if (!have_solutions || fs::exists(solutions / name)) files.student.push_back(name);
        else files.given.push_back(name);
    }
    std::sort(files.student.begin(), files.student.end());
    std::sort(files.given.begin(), files.given.end());
    return files;
}

namespace {

// The work a prediction's time scales with: bytes for memory-bound, FLOPs for compute-bound.
double work_measure(const LabSpec& lab, const VariantSpec& v, const Shape& shape, Regime regime) {
    auto w = lab.work(v, shape);
    if (regime == Regime::memory) return w.bytes;
    if (regime == Regime::compute) return w.flops;
    return 1;  // overhead-bound: the time does not follow the size
}

// The student's current predictions, rewritten for the staged shapes: a prediction made
// for the public timed shape is moved to the hidden one, its time scaled by the work.
void rebase_predictions(const PredictionLog& log, const LabSpec& public_lab, const LabSpec& staged_lab,
                        const fs::path& stage_kernels, const fs::path& out, std::vector<std::string>& notes) {
    std::vector<std::string> without;
    for (const auto& v : staged_lab.variants) {
        if (v.cpu_graded) continue;  // checked on the CPU: no prediction to carry over
        const auto& public_v = public_lab.variant(v.name);
        auto hash = hash_file(stage_kernels / v.file.filename());
        const Prediction* p = log.find_current(public_lab.id, v.name, shape_text(public_v.timed), hash);
        if (!p) {
            without.push_back(v.name);
            continue;
        }
        Prediction staged = *p;
        staged.shape = shape_text(v.timed);
        double before = work_measure(public_lab, public_v, public_v.timed, p->regime);
        double after = work_measure(staged_lab, v, v.timed, p->regime);
        if (before > 0 && after > 0) staged.predicted_time_s = p->predicted_time_s * after / before;
        // DRAM bytes follow the model's bytes (lab 02 scores them against the batch's own profile).
        double bytes_before = public_lab.work(public_v, public_v.timed).bytes;
        double bytes_after = staged_lab.work(v, v.timed).bytes;
        if (p->predicted_dram_bytes && bytes_before > 0 && bytes_after > 0)
            staged.predicted_dram_bytes = *p->predicted_dram_bytes * bytes_after / bytes_before;
        append_prediction(out, staged);
    }
    if (!without.empty()) {
        notes.push_back(fmt::format("no prediction made against the submitted source for: {} (no prediction points)",
                                    fmt::join(without, ", ")));
    }
}

// What kind of entry `path` is, without following a link: empty for a regular file with one
// name (or nothing there), else why staging refuses to read it.
std::string unsafe_kind(const fs::path& path) {
    struct stat st{};
    if (::lstat(path.c_str(), &st) != 0) return "";  // not there: the caller's "missing"
    if (S_ISLNK(st.st_mode)) {
        std::error_code error;
        auto target = fs::read_symlink(path, error);
        return fmt::format("a symbolic link (to {})", error ? "?" : target.string());
    }
    if (S_ISREG(st.st_mode)) {
        if (st.st_nlink > 1) return fmt::format("a hard link (one of {} names of the same file)", st.st_nlink);
        return "";
    }
    if (S_ISDIR(st.st_mode)) return "a folder";
    if (S_ISFIFO(st.st_mode)) return "a fifo (named pipe)";
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device file";
    if (S_ISSOCK(st.st_mode)) return "a socket";
    return "not a regular file";
}

[[noreturn]] void refuse(const std::string& entry, const std::string& kind) {
    throw UnsafeEntry(fmt::format("{} is {}: a submission may hold regular files only, inside its own folder; nothing "
                                  "of it was graded (replace the entry with the file itself)",
                                  entry, kind));
}

// The folder a submission's files come from (its `sub`/ folder, else its top level), checked:
// `sub` must be a real folder, not a link to one.
fs::path source_folder(const Submission& submission, const std::string& sub) {
    auto folder = submission.dir / sub;
    struct stat st{};
    if (::lstat(folder.c_str(), &st) != 0) return submission.dir;
    if (S_ISLNK(st.st_mode)) refuse(sub + "/", unsafe_kind(folder));
    return S_ISDIR(st.st_mode) ? folder : submission.dir;
}

// Whether `name` in `folder` (shown to the student as `shown`) is there to copy: true for a
// regular file, false when missing; refused (UnsafeEntry) for anything else.
bool present_file(const fs::path& folder, const std::string& name, const std::string& shown) {
    auto path = folder / name;
    auto kind = unsafe_kind(path);
    if (!kind.empty()) refuse(shown, kind);
    return fs::exists(fs::symlink_status(path));
}

}  // namespace

StagedSubmission stage_submission(const Workspace& course, const LabSpec& public_lab, const fs::path& staged_lab_yaml,
                                  const Submission& submission, const fs::path& stage_dir) {
    StagedSubmission staged;
    if (submission.outside_class) {
        throw UnsafeEntry(fmt::format("the submission folder is a symbolic link to {}, outside the class's folder; "
                                      "nothing of it was graded",
                                      submission.link_target.string()));
    }
    fs::remove_all(stage_dir);
    staged.workspace = {stage_dir, stage_dir / "build"};
    auto kernels = staged.workspace.kernels_root(public_lab.id, false) / "kernels";
    fs::create_directories(kernels);
    fs::create_directories(staged.workspace.build_dir / "labs");
    fs::copy_file(staged_lab_yaml, staged.workspace.lab_yaml(public_lab.id));
    fs::create_directory_symlink(fs::absolute(course.root / "hardware"), stage_dir / "hardware");
    auto ceilings = course.state_dir() / "ceilings";
    if (fs::is_directory(ceilings)) {
        fs::create_directories(staged.workspace.state_dir());
        fs::copy(ceilings, staged.workspace.state_dir() / "ceilings", fs::copy_options::recursive);
    }

    // The student's files; a submission may also hold them directly in its folder.
    auto files = lab_files(course, public_lab.id);
    // Every entry is checked before it is read: copy_file and the log's parser follow links, and
    // run as the grader, outside the sandbox.
    auto from = source_folder(submission, "kernels");
    const std::string shown_from = from == submission.dir ? "" : "kernels/";
    std::vector<std::string> missing;
    for (const auto& name : files.student) {
        auto source = from / name;
        if (!present_file(from, name, shown_from + name)) {
            missing.push_back(name);
            source = course.kernels_root(public_lab.id, false) / "kernels" / name;  // the unedited skeleton
        }
        fs::copy_file(source, kernels / name);
        staged.sources.push_back(kernels / name);
    }
    for (const auto& name : files.given) {  // given code always comes from the course
        fs::copy_file(course.kernels_root(public_lab.id, false) / "kernels" / name, kernels / name);
        staged.sources.push_back(kernels / name);
    }
    // The CPU part's files (lab 05's layout library: cpu/*.cpp), from the submission's cpu/
    // folder or its top level, else the course's skeleton.
    auto cpu_skeletons = course.kernels_root(public_lab.id, false) / "cpu";
    if (std::any_of(public_lab.variants.begin(), public_lab.variants.end(), [](const VariantSpec& v) { return v.cpu_graded; })) {
        auto cpu = staged.workspace.kernels_root(public_lab.id, false) / "cpu";
        fs::create_directories(cpu);
        auto cpu_from = source_folder(submission, "cpu");
        const std::string shown_cpu = cpu_from == submission.dir ? "" : "cpu/";
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(cpu_skeletons))
            if (entry.path().extension() == ".cpp") names.push_back(entry.path().filename().string());
        std::sort(names.begin(), names.end());
        for (const auto& name : names) {
            auto source = cpu_from / name;
            if (!present_file(cpu_from, name, shown_cpu + name)) {
                missing.push_back("cpu/" + name);
                source = cpu_skeletons / name;
            }
            fs::copy_file(source, cpu / name);
            staged.cpu_sources.push_back(cpu / name);
        }
    }
    if (!missing.empty()) {
        staged.notes.push_back(fmt::format("not in the submission, graded as the unedited skeleton: {}",
                                           fmt::join(missing, ", ")));
    }

    auto log_file = submission.dir / "predictions.yaml";
    if (!present_file(submission.dir, "predictions.yaml", "predictions.yaml")) {
        staged.log = LogState::missing;
        staged.log_message = "no predictions.yaml in the submission: graded without prediction points";
        return staged;
    }
    // Read by the batch itself, outside the sandbox: a log far past any real one (a class's logs are
    // kilobytes) would cost minutes and gigabytes to parse, so its size is checked first.
    std::error_code size_error;
    auto log_bytes = fs::file_size(log_file, size_error);
    if (!size_error && log_bytes > kMaxPredictionLogBytes) {
        staged.log = LogState::malformed;
        staged.log_message = fmt::format("predictions.yaml is {:.1f} MB, over the batch's limit of {} MB; not read, "
                                         "graded without prediction points",
                                         double(log_bytes) / 1e6, kMaxPredictionLogBytes / 1000000);
        return staged;
    }
    PredictionLog log;
    try {
        log = load_log(log_file);
    } catch (const InputError& e) {
        staged.log = LogState::malformed;
        std::string what = e.what();
        auto prefix = (submission.dir / "").string();  // the student knows the file as predictions.yaml
        if (what.starts_with(prefix)) what = what.substr(prefix.size());
        staged.log_message = fmt::format("predictions.yaml does not parse, graded without prediction points: {}", what);
        return staged;
    }
    staged.log = LogState::present;
    for (const auto& v : public_lab.variants) {
        bool noted = std::any_of(log.gap_notes.begin(), log.gap_notes.end(), [&](const GapNote& n) {
            return n.lab == public_lab.id && n.variant == v.name;
        });
        if (noted) staged.gap_noted.push_back(v.name);
    }
    for (const auto& t : time_on_labs(log))
        if (t.lab == public_lab.id) staged.logged_hours = t.logged_hours;
    auto staged_lab = load_lab(staged.workspace.lab_yaml(public_lab.id));
    rebase_predictions(log, public_lab, staged_lab, kernels, staged.workspace.default_log(), staged.notes);
    // Diagnoses are the student's words and come along; profiles are measurements, and the
    // batch makes its own (batch/profiling.hpp).
    for (const auto& d : log.diagnoses) {
        if (d.lab == public_lab.id) append_diagnosis(staged.workspace.default_log(), d);
    }
    return staged;
}

}  // namespace roofline::batch
