// A submission's own staging tree: a course root of its own holding the lab's
// lab.yaml (with the hidden shapes), the submission's kernel files beside the
// course's given code, a link to hardware/, the measured ceilings, and the
// prediction log. `roofline grade --root STAGE` grades it like any checkout,
// and nothing it writes lands in the course or the submission.
//
//   STAGE/labs/LAB/lab.yaml, STAGE/labs/LAB/kernels/*.cu, STAGE/labs/LAB/cpu/*.cpp (a CPU part)
//   STAGE/hardware -> COURSE/hardware
//   STAGE/.roofline/ceilings/   (copied from the course)
//   STAGE/predictions.yaml      (the student's current predictions, rebased to the hidden shapes)
//   STAGE/build/labs/lab-LAB    (built by build_submission; lab-LAB-cpu too for a CPU part)
#pragma once
#include "lab_spec.hpp"
#include "workspace.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

namespace roofline::batch {

struct Submission {
    std::string name;  // the folder's name
    std::filesystem::path dir;
    // Where the folder is a symbolic link: what it resolves to, and whether that lies outside
    // the class's folder (then it is refused as unsafe_entry; inside, it is graded and named).
    std::filesystem::path link_target;
    bool outside_class = false;
};

// The name a submission is staged (and built) under: its folder's name where that holds only
// letters, digits, `_`, `-` and `.` (not first); else those characters with `_` for the rest and
// a hash of the real name, so that two names never share one. The compilers take paths through
// a shell of their own (nvcc's host and link steps), where a `"`, a space or a `$` breaks the
// build; the gradebook and OUT/submissions/ keep the real name.
std::string stage_name(const std::string& name);

// Every folder under `dir` is a submission, sorted by name. Throws InputError when there is none.
std::vector<Submission> find_submissions(const std::filesystem::path& dir);

// The submissions that hold the same files, byte for byte, as another (every regular file under
// the folder, by path and content; an empty folder matches nothing): each name with the others
// that match it.
std::map<std::string, std::vector<std::string>> identical_submissions(const std::vector<Submission>& all);

// Staging reads regular files only, inside the submission: an entry it would read that is a
// symbolic or hard link, a device, a fifo or a socket, or a folder that is a link (or the
// submission folder itself linking outside the class) is refused with this, naming the entry.
// Nothing of the submission is graded then (outcome unsafe_entry).
class UnsafeEntry : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// "K/N": the K-th of N slices, 0 <= K < N.
struct Slice {
    int index = 0, count = 1;
};
Slice parse_slice(const std::string& text);
// The submissions of one slice: every N-th, from the K-th (round robin, so slices are even).
std::vector<Submission> slice_of(const std::vector<Submission>& all, Slice slice);

// A lab's kernel files, by name: the ones the student writes (those with a counterpart
// in solutions/, or all of them where solutions/ is absent) and the given code.
struct LabFiles {
    std::vector<std::string> student, given;
};
LabFiles lab_files(const Workspace& course, const std::string& lab);

enum class LogState { present, missing, malformed };

// A predictions.yaml larger than this is malformed without being read (the batch parses it outside the sandbox).
inline constexpr std::uintmax_t kMaxPredictionLogBytes = 10'000'000;

struct StagedSubmission {
    Workspace workspace;  // root: the staging tree; build_dir: STAGE/build
    std::vector<std::filesystem::path> sources;  // the kernel files to compile
    std::vector<std::filesystem::path> cpu_sources;  // the CPU part's files (lab 05's cpu/*.cpp), if the lab has one
    LogState log = LogState::missing;
    std::string log_message;  // why malformed (file:line and the parser's words)
    std::vector<std::string> notes;  // missing files, predictions not matching the source
    std::vector<std::string> gap_noted;  // the lab's variants with a gap note in the student's log
    std::optional<double> logged_hours;   // time on this lab by the log's entries (time_on_lab.hpp)
};

// Builds the staging tree in `stage_dir` (emptied first). Throws UnsafeEntry (above). `staged_lab_yaml` is the
// lab.yaml to use (the public one, or one with the hidden shapes).
StagedSubmission stage_submission(const Workspace& course, const LabSpec& public_lab,
                                  const std::filesystem::path& staged_lab_yaml, const Submission& submission,
                                  const std::filesystem::path& stage_dir);

}  // namespace roofline::batch
