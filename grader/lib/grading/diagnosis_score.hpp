// Points for a diagnosis (`roofline diagnose`) that the counters bear out (lab.yaml
// `scoring: {diagnosis: N}`), read off the prediction log's profiles (`roofline profile`
// keeps each profile's causes and figures there, with the hash of the source it profiled):
//   half: a profile of the source the student diagnosed shows the cause named;
//   half: a profile of the source being graded (the fix) no longer shows it, and the
//         cause's figure moved by its factor (diagnosis.hpp: bank conflicts cut 10x, ...).
// The diagnosis scored is the newest one made against a source other than the graded one:
// a diagnosis names what was wrong with the kernel before the fix.
#pragma once
#include "prediction_log.hpp"

#include <string>

namespace roofline {

struct DiagnosisScore {
    std::string cause;            // empty: no diagnosis to score
    bool shown_before = false;    // the diagnosed source's counters show the cause
    bool fixed_after = false;     // the graded source's counters show it gone
    double points = 0;
    std::string verdict;          // one line: what was found, or what to run
};

DiagnosisScore score_diagnosis(const PredictionLog& log, const std::string& lab, const std::string& variant,
                               const std::string& graded_source_hash, double max_points);

}  // namespace roofline
