#include "incident_score.hpp"

#include "input_error.hpp"
#include "roofline.hpp"
#include "yaml_fields.hpp"

#include <fmt/format.h>

#include <cmath>

namespace roofline {

std::map<std::string, IncidentKey> load_incident_key(const std::filesystem::path& file) {
    std::map<std::string, IncidentKey> key;
    if (!std::filesystem::exists(file)) return key;
    auto root = YamlView::load_file(file);
    for (const auto& name : root.keys()) {
        auto entry = root.at(name);
        IncidentKey k;
        // "memory (the healthy control)": the regime is the first word, the rest a note.
        auto regime_text = entry.string("regime");
        auto word = regime_text.substr(0, regime_text.find_first_of(" \t("));
        if (!parse_regime(word)) entry.at("regime").fail("must begin with compute, memory or overhead");
        k.regime = word;
        if (entry.has("cause")) k.cause = entry.string("cause");
        if (entry.has("fix")) k.fix = entry.string("fix");
        auto stem = name.size() > 5 && name.ends_with(".yaml") ? name.substr(0, name.size() - 5) : name;
        key[stem] = k;
    }
    return key;
}

const Diagnosis* newest_incident_diagnosis(const PredictionLog& log, const std::string& lab, const std::string& incident) {
    const Diagnosis* found = nullptr;
    for (const auto& d : log.diagnoses)
        if (d.lab == lab && d.variant == incident && parse_regime(d.cause)) found = &d;
    return found;
}

IncidentScore score_incident(const Diagnosis& d, const IncidentReport& report, const std::string& record_digest,
                             const std::optional<IncidentKey>& key) {
    IncidentScore s;
    s.named = d.cause;
    s.answer = report.reading.regime;
    s.regime_right = s.named == s.answer;
    s.measured_tokens_per_s = report.tokens_per_s;
    s.predicted_tokens_per_s = d.predicted_tokens_per_s;
    s.key = key;

    auto evidence = regime_evidence(report);
    auto sentence_for = [&](const std::string& regime) {
        for (const auto& e : evidence)
            if (e.regime == regime) return e.sentence;
        return std::string();
    };
    if (s.regime_right) {
        s.points += kIncidentRegimePoints;
        s.lines.push_back(fmt::format("regime: you named {}, and the step's numbers read {}: {}", s.named, s.answer,
                                      report.reading.evidence));
    } else {
        s.lines.push_back(fmt::format("regime: you named {}, but the step's numbers read {}: {}", s.named, s.answer,
                                      report.reading.evidence));
        s.lines.push_back(fmt::format("against {}: {}", s.named, sentence_for(s.named)));
    }

    if (!d.predicted_tokens_per_s) {
        s.lines.push_back(fmt::format("tokens/s: no prediction (--tokens-per-s); measured {:.1f}", s.measured_tokens_per_s));
    } else {
        double ratio = *d.predicted_tokens_per_s / s.measured_tokens_per_s;
        double off = std::max(ratio, 1 / ratio);
        s.prediction_credit = off <= kIncidentFullWithin ? 1 : off <= kIncidentHalfWithin ? 0.5 : 0;
        s.prediction_counts = d.report_digest != record_digest;
        if (s.prediction_counts) s.points += kIncidentPredictionPoints * s.prediction_credit;
        s.lines.push_back(fmt::format(
            "tokens/s: you predicted {:.1f}, measured {:.1f} ({:.2f}x; full within {:g}x, half within {:g}x){}",
            *d.predicted_tokens_per_s, s.measured_tokens_per_s, ratio, kIncidentFullWithin, kIncidentHalfWithin,
            s.prediction_counts ? "" : ": written after this run was saved, so it earns nothing"));
    }
    if (key) {
        s.key_agrees = key->regime == s.answer;
        s.lines.push_back(fmt::format("answer key (instructor): {}{}{}", key->regime,
                                      s.key_agrees ? ", as the step read"
                                                   : fmt::format(", but this run read {}: look at this run", s.answer),
                                      key->fix.empty() ? "" : "; fix: " + key->fix));
    }
    return s;
}

std::string incident_score_text(const IncidentScore& s) {
    std::string text;
    for (const auto& line : s.lines) text += line + "\n";
    text += fmt::format("points: {:g} of {:g}\n", s.points, s.max_points);
    return text;
}

nlohmann::json incident_score_json(const IncidentScore& s) {
    nlohmann::json out{{"named", s.named},
                       {"answer", s.answer},
                       {"regime_right", s.regime_right},
                       {"measured_tokens_per_s", s.measured_tokens_per_s},
                       {"prediction_counts", s.prediction_counts},
                       {"prediction_credit", s.prediction_credit},
                       {"points", s.points},
                       {"max_points", s.max_points},
                       {"verdict", s.lines}};
    if (s.predicted_tokens_per_s) out["predicted_tokens_per_s"] = *s.predicted_tokens_per_s;
    if (s.key) out["key"] = {{"regime", s.key->regime}, {"agrees", s.key_agrees}};
    return out;
}

}  // namespace roofline
