// Where a graded kernel sits on the course's roofline pictures: the lab
// picture `roofline grade` writes (svg.hpp), and any report drawn from the
// same results. One convention for every lab:
//
//   x: arithmetic intensity, FLOP/byte, on a log axis, with a column of its
//      own at the left for 0 FLOP/byte (a copy has no place on a log axis);
//   y: the fraction of the roof that binds the kernel, in that roof's unit:
//      achieved TB/s over the memory roof, or achieved TFLOP/s over the
//      compute roof. 100% is the roof itself, for every dtype at once.
//
// So a copy at 94% of the memory roof sits just under the 100% line, as
// visibly as a GEMM at 94% of its compute roof. The fraction is the one
// `roofline grade` prints as "% of the roofline", from the same saved fields.
#pragma once
#include "hardware.hpp"
#include "score.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct RoofPlacement {
    std::string label;
    double intensity = 0;     // FLOP/byte; 0 for pure data movement (the zero-FLOP column)
    double ridge = 0;         // FLOP/byte where this kernel's two roofs meet (its dtype's peak / bandwidth)
    std::string unit;         // "TB/s" when the memory roof binds, "TFLOP/s" when the compute roof does
    double achieved = 0;      // in `unit`
    double roof = 0;          // the binding roof at this intensity, in `unit`
    std::string roof_origin;  // where the roof's figure came from: "measured cudaMemcpy D2D (...)", "datasheet (...)"

    double fraction() const { return roof > 0 ? achieved / roof : 0; }
    bool memory_bound() const { return unit == "TB/s"; }
};

// From a score computed now.
RoofPlacement place_scored(const std::string& label, const Score& score);
// From a saved grade (the JSON `roofline grade --json` prints and results/ keeps);
// nothing for an incorrect or failed run, or one saved without these fields.
std::optional<RoofPlacement> place_graded(const std::string& label, const nlohmann::json& grade);

// Another ceiling of the memory side, drawn as a line at its fraction of the
// memory roof: the datasheet bandwidth above a measured cudaMemcpy roof.
struct RoofReference {
    std::string label;
    double fraction = 0;
};
// The datasheet bandwidth when the memory roof is a measured one; nothing when
// the roof is the datasheet already.
std::vector<RoofReference> memory_references(const CeilingChoice& ceiling, const HardwareProfile& datasheet);

}  // namespace roofline
