// GPU spec sheets (hardware/*.yaml) and the ceilings measured on this GPU
// by `roofline ceilings` (.roofline/ceilings/<id>.yaml).
#pragma once
#include "dtype.hpp"
#include "roofline.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct PeakFigure {
    double dense_tflops = 0;
    std::optional<double> sparse_tflops;  // kept to explain the trap; never used for a ceiling
    std::string source;
};

struct MemorySpec {
    std::string kind;  // HBM3e, GDDR6, ...
    double capacity_gb = 0;
    double bandwidth_tbs = 0;
    std::string source;
};

struct HardwareProfile {
    std::string id;    // the file's stem: h200-sxm
    std::string name;  // NVIDIA H200 SXM 141GB
    std::vector<std::string> match;  // substrings of the CUDA device name
    std::string architecture;        // sm_90
    int sm_count = 0;
    double l2_mb = 0;
    MemorySpec memory;
    std::map<Dtype, PeakFigure> peak;  // a dtype absent here has no unit on this part
    std::filesystem::path file;

    bool supports(Dtype dtype) const { return peak.count(dtype) > 0; }
    // Datasheet ceiling for a dtype; throws InputError if the part lacks that unit.
    Ceiling datasheet_ceiling(Dtype dtype) const;
};

// Loads and schema-checks one profile; every error names the file, the line and the field.
HardwareProfile load_profile(const std::filesystem::path& file);
// Every *.yaml in `dir`, sorted by id.
std::vector<HardwareProfile> load_profiles(const std::filesystem::path& dir);
// By id or name, case-insensitive; the error lists the known ids.
const HardwareProfile& find_profile(const std::vector<HardwareProfile>& profiles, const std::string& name);
// The profile whose `match` strings appear in a CUDA device name, if any.
const HardwareProfile* match_device(const std::vector<HardwareProfile>& profiles, const std::string& device_name);

// Ceilings measured on one GPU by `roofline ceilings`, each the median of its samples.
struct MeasuredCeilings {
    std::string profile_id;
    std::string device_name;
    std::string measured_at;    // ISO date-time
    double copy_kernel_tbs = 0;  // float4 copy kernel, bytes read + written
    double memcpy_tbs = 0;       // cudaMemcpy device to device, read + written
    double read_only_tbs = 0;    // float4 read-and-reduce kernel
    double fp32_fma_tflops = 0;  // FMA chain kernel on CUDA cores
    // bf16 m16n8k16 mma.sync from registers: the roof of warp-level tensor-core kernels.
    // 0: not measured (a file written before the probe had it, or a GPU older than sm_80).
    double mma_sync_bf16_tflops = 0;
    // e4m3 wgmma.m64n256k32 from shared memory: the FP8 tensor roof measured on Hopper (sm_90a).
    // 0: not measured (another architecture, or a file written before the probe had it).
    double wgmma_fp8_tflops = 0;
    std::string wgmma_fp8_skipped;  // the probe's note where it did not measure it
    std::map<Dtype, double> gemm_tflops;  // cuBLAS at the largest size measured
    double launch_us = 0;        // back-to-back empty kernels
    double graph_launch_us = 0;  // the same captured in a CUDA graph
    double sm_clock_mhz = 0;     // during the GEMM samples
    std::filesystem::path file;
};

MeasuredCeilings load_measured(const std::filesystem::path& file);
// The ceilings probe's answer (`roofline-ceilings --result FILE`, JSON, which the YAML reader
// reads), checked as load_measured checks a saved file: a missing, negative or zero figure is an
// InputError naming the file, the line and the field. The FP8 wgmma figure is measured on Hopper
// only: the answer holds it or a note why not (wgmma_fp8_skipped), and one of the two must be
// there. A probe that says it failed (status error) is an InputError with its message. The
// profile and the time are the caller's to fill.
MeasuredCeilings read_ceilings_probe(const std::filesystem::path& file);
void save_measured(const MeasuredCeilings& measured, const std::filesystem::path& file);

// What scoring divides by: a datasheet figure or a measured one, and which.
struct CeilingChoice {
    Ceiling ceiling;
    std::string peak_origin;       // "measured: cuBLAS bf16 GEMM", "measured fp8 wgmma probe" or "datasheet"
    std::string bandwidth_origin;  // "measured: cudaMemcpy D2D" or "datasheet"
    double launch_overhead_s = 5e-6;
    std::optional<MeasuredCeilings> measured;  // what was measured on this GPU, when anything was
};
CeilingChoice choose_ceiling(const HardwareProfile& profile, const MeasuredCeilings* measured, Dtype dtype);

}  // namespace roofline
