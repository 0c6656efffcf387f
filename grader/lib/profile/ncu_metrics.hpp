// The Nsight Compute metrics `roofline profile` asks for, and what each one is for.
// One list, so that a metric ncu renames in a later version is fixed here alone.
// Peaks come from ncu itself (`.peak_sustained` per cycle, times the unit's clock), so the
// L2 and L1 roofs are this GPU's without a datasheet figure for them.
#pragma once
#include <string>
#include <vector>

namespace roofline::ncu_metric {

// Bytes at each level of the hierarchy.
inline const std::string kDramRead = "dram__bytes_read.sum";
inline const std::string kDramWrite = "dram__bytes_write.sum";
inline const std::string kL2Bytes = "lts__t_bytes.sum";       // every byte the L2 slices served or took
inline const std::string kL2HitRate = "lts__t_sector_hit_rate.pct";  // sectors found in the L2, of all looked up
inline const std::string kL1Bytes = "l1tex__t_bytes.sum";     // every byte through L1/TEX (shared memory included)
// Peaks of those levels: bytes per cycle, and the cycles per second they run at.
inline const std::string kDramPeakPerCycle = "dram__bytes.sum.peak_sustained";
inline const std::string kDramCyclesPerSecond = "dram__cycles_elapsed.avg.per_second";
inline const std::string kL2PeakPerCycle = "lts__t_bytes.sum.peak_sustained";
inline const std::string kL2CyclesPerSecond = "lts__cycles_elapsed.avg.per_second";
inline const std::string kL1PeakPerCycle = "l1tex__t_bytes.sum.peak_sustained";
inline const std::string kL1CyclesPerSecond = "l1tex__cycles_elapsed.avg.per_second";
inline const std::string kSmCyclesPerSecond = "sm__cycles_elapsed.avg.per_second";
// Arithmetic, per pipe: thread-level FP32 instructions (an FFMA is two FLOPs) and
// warp-level tensor instructions by kind (their FLOPs depend on the shape; see lesson 02).
inline const std::string kFfma = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum";
inline const std::string kFadd = "sm__sass_thread_inst_executed_op_fadd_pred_on.sum";
inline const std::string kFmul = "sm__sass_thread_inst_executed_op_fmul_pred_on.sum";
inline const std::string kFfmaPeakPerCycle = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained";
// Per kind, not the pipe's total: sm__inst_executed_pipe_tensor.sum is not an MMA count. The
// H200 recorded 8,388,608 of it on lab 02's scattered copy and 306,432 on the FMA-tail fix,
// kernels without one MMA (data/ncu/h200-2026-11-30, h200-2026-12-01). HMMA is mma.sync and
// wmma; GMMA is wgmma, which only sm_90 has. Both are asked for where the GPU knows them
// (architecture_specific()).
inline const std::string kTensorHmma = "sm__inst_executed_pipe_tensor_op_hmma.sum";
inline const std::string kTensorGmma = "sm__inst_executed_pipe_tensor_op_gmma.sum";
// Time, and the Speed Of Light section's percentages of peak.
inline const std::string kDuration = "gpu__time_duration.sum";
inline const std::string kSolSm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
inline const std::string kSolMemory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
inline const std::string kSolDram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
inline const std::string kSolL2 = "lts__throughput.avg.pct_of_peak_sustained_elapsed";
inline const std::string kSolL1 = "l1tex__throughput.avg.pct_of_peak_sustained_elapsed";
// Occupancy: achieved, theoretical, and the blocks per SM each resource allows.
inline const std::string kAchievedOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline const std::string kTheoreticalOccupancy = "sm__maximum_warps_per_active_cycle_pct";
inline const std::string kLimitRegisters = "launch__occupancy_limit_registers";
inline const std::string kLimitSharedMem = "launch__occupancy_limit_shared_mem";
inline const std::string kLimitWarps = "launch__occupancy_limit_warps";
inline const std::string kLimitBlocks = "launch__occupancy_limit_blocks";
inline const std::string kRegistersPerThread = "launch__registers_per_thread";
inline const std::string kBlockSize = "launch__block_size";
inline const std::string kGridSize = "launch__grid_size";
inline const std::string kWaves = "launch__waves_per_multiprocessor";
// How evenly the SMs were kept busy: the average SM's active cycles against the busiest
// one's. Far under 1 when the last wave of blocks ran on a few SMs while the rest idled.
inline const std::string kSmActiveCyclesAvg = "sm__cycles_active.avg";
inline const std::string kSmActiveCyclesMax = "sm__cycles_active.max";
// Access quality: sectors per request of global loads, shared-memory bank conflicts.
inline const std::string kGlobalLoadSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
inline const std::string kGlobalLoadRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
inline const std::string kSharedBankConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum";

// The metrics every GPU the course profiles knows, in the order passed to `ncu --metrics`.
inline std::vector<std::string> portable() {
    return {kDramRead, kDramWrite, kL2Bytes, kL2HitRate, kL1Bytes, kDramPeakPerCycle, kDramCyclesPerSecond,
            kL2PeakPerCycle, kL2CyclesPerSecond, kL1PeakPerCycle, kL1CyclesPerSecond, kSmCyclesPerSecond, kFfma,
            kFadd, kFmul, kFfmaPeakPerCycle, kDuration, kSolSm, kSolMemory, kSolDram, kSolL2, kSolL1,
            kAchievedOccupancy, kTheoreticalOccupancy, kLimitRegisters, kLimitSharedMem, kLimitWarps, kLimitBlocks,
            kRegistersPerThread, kBlockSize, kGridSize, kWaves, kSmActiveCyclesAvg, kSmActiveCyclesMax,
            kGlobalLoadSectors, kGlobalLoadRequests, kSharedBankConflicts};
}

// Metrics one architecture has and others lack: ncu refuses a whole run over a name the GPU
// does not know ("Failed to find metric"), so `roofline profile` asks for these first and,
// refused, profiles again with portable() alone.
inline std::vector<std::string> architecture_specific() { return {kTensorHmma, kTensorGmma}; }

// Everything above.
inline std::vector<std::string> all() {
    auto metrics = portable();
    for (const auto& m : architecture_specific()) metrics.push_back(m);
    return metrics;
}

}  // namespace roofline::ncu_metric
