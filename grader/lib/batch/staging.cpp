#include "batch/staging.hpp"

#include "input_error.hpp"
#include "prediction_log.hpp"
#include "source_hash.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace roofline::batch {

namespace fs = std::filesystem;

std::vector<Submission> find_submissions(const fs::path& dir) {
    if (!fs::is_directory(dir)) {
        throw InputError(fmt::format("--submissions {}: not a folder; give the folder holding one folder per submission",
                                     dir.string()));
    }
    std::vector<Submission> all;
    for (const auto& entry : fs::directory_iterator(dir)) {
        auto name = entry.path().filename().string();
        if (entry.is_directory() && !name.starts_with(".")) all.push_back({name, entry.path()});
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
        // DRAM bytes follow the model's bytes (lab 06 scores them against the batch's own profile).
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

}  // namespace

StagedSubmission stage_submission(const Workspace& course, const LabSpec& public_lab, const fs::path& staged_lab_yaml,
                                  const Submission& submission, const fs::path& stage_dir) {
    StagedSubmission staged;
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
    auto from = fs::is_directory(submission.dir / "kernels") ? submission.dir / "kernels" : submission.dir;
    std::vector<std::string> missing;
    for (const auto& name : files.student) {
        auto source = from / name;
        if (!fs::is_regular_file(source)) {
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
    // The CPU part's files (lab 09's layout library: cpu/*.cpp), from the submission's cpu/
    // folder or its top level, else the course's skeleton.
    auto cpu_skeletons = course.kernels_root(public_lab.id, false) / "cpu";
    if (std::any_of(public_lab.variants.begin(), public_lab.variants.end(), [](const VariantSpec& v) { return v.cpu_graded; })) {
        auto cpu = staged.workspace.kernels_root(public_lab.id, false) / "cpu";
        fs::create_directories(cpu);
        auto cpu_from = fs::is_directory(submission.dir / "cpu") ? submission.dir / "cpu" : submission.dir;
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(cpu_skeletons))
            if (entry.path().extension() == ".cpp") names.push_back(entry.path().filename().string());
        std::sort(names.begin(), names.end());
        for (const auto& name : names) {
            auto source = cpu_from / name;
            if (!fs::is_regular_file(source)) {
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
    if (!fs::exists(log_file)) {
        staged.log = LogState::missing;
        staged.log_message = "no predictions.yaml in the submission: graded without prediction points";
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
