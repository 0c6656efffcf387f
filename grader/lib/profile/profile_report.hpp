// What `roofline profile` tells a student about one variant, read off ncu's counters
// (ncu_csv.hpp) beside the lab's model: the bytes at each level of the memory
// hierarchy against the bytes the model counts (and the student predicted), the
// arithmetic per pipe against the model's FLOPs, the kernel's place on a hierarchical
// roofline (DRAM, L2, L1), Speed Of Light, occupancy and what caps it, and the one
// limit that binds, in a sentence. Pure arithmetic on parsed numbers: no GPU here.
#pragma once
#include "ncu_csv.hpp"
#include "roofline.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct ProfileInput {
    std::string target;  // 01-memory-roof/copy_vectorized_fp32
    std::string shape;   // n=268435456
    std::string gpu;
    std::vector<NcuLaunch> launches;  // the variant's launches of one run, as ncu profiled them
    Workload model;                   // the lab's FLOPs and fewest bytes at this shape
    std::optional<double> predicted_bytes;  // from the prediction log (`predict --bytes`)
    // The DRAM roof and the arithmetic roof the grader scores with (hardware.hpp's
    // CeilingChoice), with where each came from. L2 and L1 roofs come from ncu.
    double dram_bytes_per_s = 0;
    std::string dram_origin;
    double peak_flops_per_s = 0;
    std::string peak_origin;
};

// One level of the hierarchy: what moved through it and how fast it can go.
struct LevelTraffic {
    std::string name;  // DRAM, L2, L1
    double bytes = 0;
    std::optional<double> peak_bytes_per_s;
    std::string peak_origin;
    std::optional<double> speed_of_light_pct;  // ncu's throughput percentage for the unit
};

struct OccupancyLimit {
    std::string resource;  // registers, shared memory, warps, blocks
    double blocks_per_sm = 0;
};

// Below this SM busy balance the report names a tail effect (wave quantization): the average
// SM sat idle for over a fifth of the busiest one's time.
inline constexpr double kTailBalance = 0.8;

// Above this L2-over-DRAM byte ratio the L2 served the same sectors again and again: 2.5,
// between a coalesced copy's 1.56 and the column walk's 6.6 on the H200 (lab 02, 2026-11-30).
inline constexpr double kL2OverDramUncoalesced = 2.5;

struct ProfileReport {
    std::string target, shape, gpu;
    std::vector<std::string> kernels;  // distinct kernel names, in launch order
    int launches = 0;
    double time_s = 0;  // summed over the launches (ncu's gpu__time_duration)
    double dram_read = 0, dram_write = 0;
    Workload model;
    std::vector<LevelTraffic> levels;  // DRAM, L2, L1
    double fp32_flops = 0;             // 2 x FFMA + FADD + FMUL, thread instructions
    double ffma = 0, fadd = 0, fmul = 0;
    // Warp-level MMA instructions by kind: HMMA (mma.sync, wmma) and GMMA (wgmma, sm_90). Their
    // sum is tensor_instructions; the tensor pipe's own total also counts instructions that are
    // not MMAs, so it is not asked for.
    double tensor_hmma = 0, tensor_gmma = 0, tensor_instructions = 0;
    double peak_flops_per_s = 0;
    std::string peak_origin;
    std::optional<double> sol_sm_pct, sol_memory_pct;
    std::optional<double> achieved_occupancy_pct, theoretical_occupancy_pct;
    std::vector<OccupancyLimit> occupancy_limits;  // what each resource allows, fewest first
    std::optional<double> registers_per_thread, waves;
    // The average SM's active cycles over the busiest SM's (sm__cycles_active .avg / .max):
    // 1 when every SM worked to the end; far under it when the last wave ran on a few.
    std::optional<double> sm_busy_balance;
    std::optional<double> sectors_per_request, bank_conflicts;
    std::optional<double> l2_hit_rate_pct;  // lts__t_sector_hit_rate, where the table has it
    // L2 bytes over DRAM bytes: 1.56 for a coalesced copy on the H200 (each fixed copy of lab 02,
    // data/ncu/h200-2026-11-30), 6.6 for the column walk. Nothing when DRAM moved nothing.
    std::optional<double> l2_over_dram() const {
        if (levels.size() < 2 || dram_bytes() <= 0 || levels[1].bytes <= 0) return std::nullopt;
        return levels[1].bytes / dram_bytes();
    }
    std::optional<double> predicted_bytes;
    std::vector<std::string> missing_metrics;  // asked for and not in the CSV
    double nearest_roof = 0;                   // achieved fraction of the roof it runs nearest to
    std::string binding;                       // the one limit that binds, in a sentence
    std::vector<std::string> signs;            // what else the counters point at

    double dram_bytes() const { return dram_read + dram_write; }
    // measured / predicted DRAM bytes, when a prediction was made.
    std::optional<double> byte_prediction_ratio() const;
    // Within 10% either way: what earns the byte-prediction points.
    bool byte_prediction_close() const;
    bool tail_effect() const { return sm_busy_balance && *sm_busy_balance < kTailBalance; }
};

inline constexpr double kBytePredictionTolerance = 0.10;

// Throws InputError when `input.launches` is empty.
ProfileReport build_profile_report(const ProfileInput& input);

std::string profile_text(const ProfileReport& report);
nlohmann::json profile_json(const ProfileReport& report);
// The hierarchical roofline: one roof per level (and the arithmetic roof), the kernel's
// point at each level's intensity. A kernel without FLOPs (a copy) gets each level's
// achieved bandwidth as a bar against its roof instead.
std::string profile_svg(const ProfileReport& report);

}  // namespace roofline
