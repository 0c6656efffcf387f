// Scoring a diagnosis of one of module 10's incidents (`roofline diagnose 10-production/incident-b
// --cause overhead --tokens-per-s 900 --why "..."`), the step-level form of lab 02's kernel
// diagnoses. What it is scored against is the step's own numbers: the serve record of that
// configuration (incident_report.hpp, validated, its reading computed again by read_step), not
// the answer key; the key (instructor/incidents/LAB.yaml, absent from the student edition) is
// shown beside it where the checkout has it, so an instructor sees a run that read otherwise.
//
//   regime: kIncidentRegimePoints when the named regime is the step's reading, else none, with
//           the sentence of figures that decided it and the one against the regime named;
//   tokens/s: kIncidentPredictionPoints, full within 1.25x of the measured either way, half
//           within 2x; only for a prediction written before the record it is scored against
//           (the record's digest differs from the one the diagnosis saw, or it saw none).
#pragma once
#include "incident_report.hpp"
#include "prediction_log.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

inline constexpr double kIncidentRegimePoints = 2, kIncidentPredictionPoints = 1;
inline constexpr double kIncidentFullWithin = 1.25, kIncidentHalfWithin = 2.0;

// One incident of the answer key.
struct IncidentKey {
    std::string regime;  // compute, memory or overhead
    std::string cause, fix;
};
// instructor/incidents/LAB.yaml: incident name (with or without .yaml) -> its key. A missing file
// is an empty map (the student edition); a malformed one is an InputError naming file:line.
std::map<std::string, IncidentKey> load_incident_key(const std::filesystem::path& file);

struct IncidentScore {
    std::string named;   // the regime the student named
    std::string answer;  // the step's reading
    bool regime_right = false;
    std::optional<double> predicted_tokens_per_s;
    double measured_tokens_per_s = 0;
    bool prediction_counts = false;  // written before this record
    double prediction_credit = 0;    // 0, 0.5 or 1
    double points = 0;
    double max_points = kIncidentRegimePoints + kIncidentPredictionPoints;
    std::vector<std::string> lines;  // the verdict, one sentence a line
    std::optional<IncidentKey> key;  // the answer key's entry, where the checkout has one
    bool key_agrees = true;
};

// `record_digest`: the digest of the record's file (hash_file), compared with the diagnosis's.
IncidentScore score_incident(const Diagnosis& diagnosis, const IncidentReport& report, const std::string& record_digest,
                             const std::optional<IncidentKey>& key);

// The newest diagnosis of this incident in the log, or none.
const Diagnosis* newest_incident_diagnosis(const PredictionLog& log, const std::string& lab, const std::string& incident);

std::string incident_score_text(const IncidentScore& score);
nlohmann::json incident_score_json(const IncidentScore& score);

}  // namespace roofline
