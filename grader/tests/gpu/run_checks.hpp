// The verifications in `roofline run --json`'s output, for the GPU tests that check a
// lab's reference solutions shape by shape.
#pragma once
#include <nlohmann/json.hpp>

#include <vector>

// Every verification in the report, wherever the report nests them.
inline void collect_checks(const nlohmann::json& j, std::vector<nlohmann::json>& out) {
    if (j.is_object()) {
        for (const auto& [key, value] : j.items()) {
            if (key == "checks" && value.is_array()) {
                for (const auto& check : value) out.push_back(check);
            } else {
                collect_checks(value, out);
            }
        }
    } else if (j.is_array()) {
        for (const auto& item : j) collect_checks(item, out);
    }
}
