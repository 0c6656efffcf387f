#include "roof_placement.hpp"

#include <fmt/format.h>

namespace roofline {

RoofPlacement place_scored(const std::string& label, const Score& s) {
    return {label, s.roofline.intensity, s.roofline.ridge, s.unit, s.achieved, s.attainable, s.ceiling_origin};
}

std::optional<RoofPlacement> place_graded(const std::string& label, const nlohmann::json& grade) {
    if (!grade.is_object() || !grade.value("correct", false)) return std::nullopt;
    for (const char* key : {"intensity", "ridge", "unit", "achieved", "attainable"}) {
        if (!grade.contains(key)) return std::nullopt;
    }
    RoofPlacement p;
    p.label = label;
    p.intensity = grade["intensity"].get<double>();
    p.ridge = grade["ridge"].get<double>();
    p.unit = grade["unit"].get<std::string>();
    p.achieved = grade["achieved"].get<double>();
    p.roof = grade["attainable"].get<double>();
    p.roof_origin = grade.value("ceiling_origin", "");
    if (p.roof <= 0) return std::nullopt;
    return p;
}

std::vector<RoofReference> memory_references(const CeilingChoice& ceiling, const HardwareProfile& datasheet) {
    double roof = ceiling.ceiling.bandwidth_tbs;
    double sheet = datasheet.memory.bandwidth_tbs;
    if (roof <= 0 || sheet <= 0 || ceiling.bandwidth_origin.rfind("measured", 0) != 0) return {};
    return {{fmt::format("datasheet {:.3g} TB/s", sheet), sheet / roof}};
}

}  // namespace roofline
