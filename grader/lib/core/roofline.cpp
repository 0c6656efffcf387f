#include "roofline.hpp"

#include "name_match.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

std::string_view regime_name(Regime regime) {
    switch (regime) {
        case Regime::compute: return "compute";
        case Regime::memory: return "memory";
        case Regime::overhead: return "overhead";
    }
    return "?";
}

// Case-insensitive, like dtypes and hardware ids.
std::optional<Regime> parse_regime(std::string_view name) {
    for (auto regime : {Regime::compute, Regime::memory, Regime::overhead}) {
        if (same_name_ignoring_case(regime_name(regime), name)) return regime;
    }
    return std::nullopt;
}

RooflinePoint analyze(const Workload& work, const Ceiling& ceiling, double launch_overhead_s) {
    RooflinePoint p;
    double peak = ceiling.peak_tflops * 1e12;
    double bandwidth = ceiling.bandwidth_tbs * 1e12;
    p.intensity = work.bytes > 0 ? work.flops / work.bytes : INFINITY;
    p.ridge = peak / bandwidth;
    p.compute_floor_s = work.flops / peak;
    p.memory_floor_s = work.bytes / bandwidth;
    p.floor_s = std::max(p.compute_floor_s, p.memory_floor_s);
    p.time_floor_s = std::max(p.floor_s, launch_overhead_s);
    p.attainable_tflops = std::min(peak, bandwidth * p.intensity) / 1e12;
    p.attainable_tbs = p.floor_s > 0 ? work.bytes / p.floor_s / 1e12 : 0;
    p.regime = p.intensity >= p.ridge ? Regime::compute : Regime::memory;
    if (launch_overhead_s > 0 && p.floor_s < launch_overhead_s) p.regime = Regime::overhead;
    return p;
}

long long gemm_crossover_n(const Ceiling& ceiling, Dtype dtype) {
    double ridge = ceiling.peak_tflops / ceiling.bandwidth_tbs;
    return static_cast<long long>(std::ceil(1.5 * dtype_bytes(dtype) * ridge));
}

}  // namespace roofline
