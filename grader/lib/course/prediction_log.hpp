// The prediction log (predictions.yaml): one YAML list, append-only.
// `roofline predict` appends a prediction bound to the kernel source's hash;
// `roofline grade` appends a measurement that names its prediction and a digest
// of it, so a prediction edited after it was measured is detected. Every write
// opens the log in place (a symbolic link is followed to its file), takes an
// flock on it, re-reads it, and appends the new entry with one write between an
// "# entry begins" and an "# entry ends" line: the file keeps its inode, links,
// owner and mode, nothing is left beside it, and a write cut short (a kill, a
// full disk) is named by the reader (file:line) instead of read as an entry.
// A log that is not a regular file (a device, a pipe) or is read-only is refused
// in one line. A malformed log, or one with a prediction id used twice, is
// reported (file:line) and left untouched.
// After a graded measurement, `roofline explain` appends a gap note: the student's
// explanation of the gap between prediction and measurement, bound to that
// measurement's id (m1, m2, ...: measurements are numbered in the order they were
// written; logs from before the ids were written are numbered the same way).
// A prediction may also say how many DRAM bytes the kernel will move (`predict
// --bytes`); `roofline profile` appends what ncu counted (a profile entry), and
// `roofline log` shows the byte calibration beside the time calibration.
#pragma once
#include "roofline.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct Prediction {
    std::string id;  // p1, p2, ... assigned on append
    std::string lab, variant, shape;  // lab: as the course names it now (lab_aliases.hpp)
    std::string lab_as_written;       // the lab as the log's entry names it (empty before it is written)
    double predicted_time_s = 0;
    std::string given_as;  // what the student typed: "time_us 900", "tflops 600", "gbps 3600"
    Regime regime = Regime::memory;
    std::string why;
    std::string source_hash;
    std::string made_at;  // UTC, ISO 8601
    std::optional<double> predicted_dram_bytes;  // `predict --bytes`: DRAM bytes read + written
    int line = 0;
    std::string digest() const;  // fingerprint of every field above but line (lab: as written)
};

// DRAM bytes counted by ncu for one run of a variant (`roofline profile`), bound to the
// prediction made for that source, if any.
struct ProfileEntry {
    std::string prediction_id;  // empty: no prediction for this source
    std::string lab, variant, shape;
    double dram_bytes = 0;   // read + written, as ncu counted them
    double model_bytes = 0;  // the lab's model at this shape
    std::string gpu;
    std::string profiled_at;  // UTC, ISO 8601
    int line = 0;
    // What `grade` checks a diagnosis against (diagnosis_score.hpp); entries written before
    // these were kept have none of them.
    std::string source_hash;                 // of the kernel file profiled
    std::vector<std::string> causes;         // the causes the counters showed (diagnosis.hpp)
    std::map<std::string, double> figures;   // each cause's counter figure (cause_figures)
};

// A grading's result. A CPU-graded part (lab 05's layout library: `graded_on: cpu`) has
// no time, regime, clock or GPU, and no prediction unless the lab asks for one; its
// correctness and points are recorded like any other grade, so that `explain`,
// `debrief` and `log` work for it.
struct Measurement {
    std::string id;  // m1, m2, ...: its place among the log's measurements
    bool graded_on_cpu = false;
    std::string prediction_id;      // empty: graded without a prediction (a CPU part)
    std::string prediction_digest;  // the prediction's digest when it was measured
    std::string lab, variant, shape;
    double measured_time_s = 0;
    Regime measured_regime = Regime::memory;
    bool correct = false;
    double fraction = 0;  // of the peer or roofline, in the scarce resource's unit
    double points = 0, max_points = 0;
    std::string gpu;
    double sm_clock_mhz = 0;
    std::string measured_at;
    int line = 0;
};

// The explanation of a measurement's gap, written after it (`roofline explain`).
struct GapNote {
    std::string measurement_id;  // the measurement it explains: m3
    std::string lab, variant;    // the measurement's
    std::string why;
    std::string written_at;  // UTC, ISO 8601
    int line = 0;
};

// The cause a student names for a slow kernel (`roofline diagnose`), bound to its source.
// Module 10's incidents use the same entry at step level: `variant` is the incident
// (incident-b), `cause` a regime (compute, memory, overhead), `source_hash` the hash of the
// incident's configuration, with the tokens/s the student predicted and the digest of the serve
// record they had seen when they wrote it (empty: none yet), so a prediction made after the
// measurement it is scored against is told apart (incident_score.hpp).
struct Diagnosis {
    std::string lab, variant;
    std::string cause;  // an id of diagnosis.hpp: uncoalesced, bank_conflicts, ...; or a regime for an incident
    std::string why;
    std::string source_hash;
    std::string written_at;  // UTC, ISO 8601
    int line = 0;
    // After `line`, so that a diagnosis written as {lab, variant, cause, why, hash, when, line}
    // keeps meaning what it did before incidents.
    std::optional<double> predicted_tokens_per_s;  // an incident's prediction
    std::string report_digest;                     // an incident: the serve record seen when written
};

struct PredictionLog {
    std::filesystem::path file;
    std::vector<Prediction> predictions;
    std::vector<Measurement> measurements;
    std::vector<GapNote> gap_notes;
    std::vector<ProfileEntry> profiles;
    std::vector<Diagnosis> diagnoses;

    // The newest prediction for this variant and shape made against `source_hash`.
    const Prediction* find_current(const std::string& lab, const std::string& variant, const std::string& shape,
                                   const std::string& source_hash) const;
    const Prediction* find_by_id(const std::string& id) const;
    // True if some measurement recorded a different digest for this prediction.
    bool edited_after_measurement(const Prediction& prediction) const;
    // The newest correct measurement of this variant (any shape): a graded one.
    const Measurement* latest_graded(const std::string& lab, const std::string& variant) const;
    std::vector<const GapNote*> notes_for(const std::string& measurement_id) const;
};

PredictionLog load_log(const std::filesystem::path& file);  // a missing file is an empty log
// Both return the entry as written (the prediction with its new id).
Prediction append_prediction(const std::filesystem::path& file, Prediction prediction);
Measurement append_measurement(const std::filesystem::path& file, Measurement measurement);
// The note must name a measurement already in the log, of the same lab and variant.
GapNote append_gap_note(const std::filesystem::path& file, GapNote note);
// A CPU-graded part's grade (graded_on: cpu), without a prediction.
Measurement record_cpu_grade(const std::filesystem::path& file, const std::string& lab, const std::string& variant,
                             bool correct, double points, double max_points);
ProfileEntry append_profile(const std::filesystem::path& file, ProfileEntry entry);
Diagnosis append_diagnosis(const std::filesystem::path& file, Diagnosis diagnosis);

std::string utc_now_iso8601();

}  // namespace roofline
