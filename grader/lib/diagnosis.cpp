#include "diagnosis.hpp"

namespace roofline {

const std::vector<DiagnosisCause>& diagnosis_causes() {
    static const std::vector<DiagnosisCause> causes{
        {"uncoalesced", "a warp's accesses spread over many sectors, each used in part",
         "sectors per request above 16; L2 bytes well above DRAM bytes"},
        {"traversal_order", "data fetched again after the L2 lost it, or sectors fetched and used in part",
         "DRAM bytes above 1.2x the model's"},
        {"occupancy", "too few warps per SM to cover latency, capped by registers, shared memory or the launch",
         "theoretical occupancy under 50% or achieved under 40%, no roof binding"},
        {"bank_conflicts", "shared-memory accesses of a warp falling into the same bank",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared above zero, L1 busier than its bytes"},
        {"latency_chain", "each warp waits on its own previous result; warps are there, no roof binds",
         "no roof within 60%, achieved occupancy 40% or more"},
        {"at_roof", "nothing to fix: a roof binds", "a roof within 60% and no other sign"},
    };
    return causes;
}

const DiagnosisCause* find_cause(const std::string& id) {
    for (const auto& c : diagnosis_causes()) {
        if (c.id == id) return &c;
    }
    return nullptr;
}

std::vector<std::string> causes_shown(const ProfileReport& r) {
    std::vector<std::string> shown;
    bool roof_binds = r.binding.find(" binds:") != std::string::npos;
    double dram = r.dram_bytes();
    if ((r.sectors_per_request && *r.sectors_per_request > 16.5) ||
        (dram > 0 && r.levels.size() > 1 && r.levels[1].bytes > 2.5 * dram && dram <= 1.2 * r.model.bytes))
        shown.push_back("uncoalesced");
    if (r.model.bytes > 0 && dram > 1.2 * r.model.bytes) shown.push_back("traversal_order");
    bool few_warps = (r.theoretical_occupancy_pct && *r.theoretical_occupancy_pct < 50) ||
                     (r.achieved_occupancy_pct && *r.achieved_occupancy_pct < 40);
    if (!roof_binds && few_warps) shown.push_back("occupancy");
    // Conflicts replay in the L1/shared pipe: they are the cause only where that pipe binds. The
    // fixed row sum still counted 231 k of them beside the given one's 260 M, with L2 and DRAM
    // binding at 92% and 90% (H200, 2026-11-30).
    if (r.bank_conflicts && *r.bank_conflicts > 0 && r.binding.find("replayed accesses") != std::string::npos &&
        r.binding.starts_with("L1"))
        shown.push_back("bank_conflicts");
    if (!roof_binds && !few_warps) shown.push_back("latency_chain");
    if (shown.empty() && roof_binds) shown.push_back("at_roof");
    return shown;
}

}  // namespace roofline
