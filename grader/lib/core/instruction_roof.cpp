#include "instruction_roof.hpp"

#include <fmt/format.h>

namespace roofline {

const std::vector<std::string>& instruction_roof_ids() {
    static const std::vector<std::string> ids{"mma_sync"};
    return ids;
}

InstructionRoof instruction_roof_for(const std::string& id, const MeasuredCeilings* measured, double achieved_tflops) {
    InstructionRoof roof;
    roof.id = id;
    if (id == "mma_sync") {
        roof.name = "mma.sync roof (bf16 m16n8k16 from registers)";
        if (measured && measured->mma_sync_bf16_tflops > 0) {
            roof.tflops = measured->mma_sync_bf16_tflops;
            roof.measured_at = measured->measured_at;
        }
    }
    if (roof.measured()) roof.fraction = achieved_tflops / roof.tflops;
    return roof;
}

std::string instruction_roof_line(const InstructionRoof& roof) {
    if (!roof.measured()) {
        return fmt::format("            {}: not measured on this GPU (`roofline ceilings` measures it)\n", roof.name);
    }
    return fmt::format("            {:.1f}% of the {} ({:.4g} TFLOP/s, measured {}; not scored)\n",
                       100 * roof.fraction, roof.name, roof.tflops, roof.measured_at);
}

nlohmann::json instruction_roof_json(const InstructionRoof& roof) {
    nlohmann::json j = {{"id", roof.id}, {"name", roof.name}, {"measured", roof.measured()}, {"scored", false}};
    if (roof.measured()) {
        j["tflops"] = roof.tflops;
        j["measured_at"] = roof.measured_at;
        j["fraction"] = roof.fraction;
    }
    return j;
}

}  // namespace roofline
