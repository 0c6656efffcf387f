// A second compute roof for kernels built on a slower tensor-core instruction than the one
// the scoring ceiling assumes. Lab 03's rungs 8 and 9 use mma.sync (warp-level, operands in
// registers); cuBLAS and the measured bf16 ceiling use wgmma on Hopper (warpgroup-level,
// operands from shared memory), which mma.sync cannot reach however well it is fed. So a
// variant that names `instruction_roof: mma_sync` in lab.yaml also gets its fraction of the
// bf16 m16n8k16 mma.sync ceiling that `roofline ceilings` measures: how well it uses the
// instruction it chose, beside how far that instruction is from the library. Not scored.
#pragma once
#include "hardware.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace roofline {

// The instruction roofs lab.yaml may name (`instruction_roof:`): mma_sync.
const std::vector<std::string>& instruction_roof_ids();

struct InstructionRoof {
    std::string id;           // mma_sync
    std::string name;         // "mma.sync (bf16 m16n8k16 from registers)"
    double tflops = 0;        // measured on this GPU; 0: not measured
    std::string measured_at;  // when `roofline ceilings` measured it
    double fraction = 0;      // the variant's TFLOP/s over tflops; 0 when not measured
    bool measured() const { return tflops > 0; }
};

// The roof `id` on this GPU (from its measured ceilings, when there are some) and the
// variant's fraction of it at `achieved_tflops`.
InstructionRoof instruction_roof_for(const std::string& id, const MeasuredCeilings* measured, double achieved_tflops);

// The report's line: the fraction, or that this GPU has not measured the roof and how to.
std::string instruction_roof_line(const InstructionRoof& roof);
nlohmann::json instruction_roof_json(const InstructionRoof& roof);

}  // namespace roofline
