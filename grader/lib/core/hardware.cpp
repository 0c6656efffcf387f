#include "hardware.hpp"

#include "output_file.hpp"

#include "input_error.hpp"
#include "yaml_fields.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>

namespace roofline {

namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

PeakFigure read_peak(const YamlView& view) {
    view.only_keys({"dense", "sparse", "source"});
    PeakFigure figure;
    figure.dense_tflops = view.positive("dense");
    if (auto sparse = view.maybe("sparse")) figure.sparse_tflops = sparse->as_positive_double();
    figure.source = view.string("source");
    return figure;
}

}  // namespace

Ceiling HardwareProfile::datasheet_ceiling(Dtype dtype) const {
    auto it = peak.find(dtype);
    if (it == peak.end()) {
        throw InputError(fmt::format("{} has no {} unit (no peak_tflops.{} in {}); pick another dtype or GPU", name,
                                     dtype_name(dtype), dtype_name(dtype), file.string()));
    }
    return {it->second.dense_tflops, memory.bandwidth_tbs};
}

HardwareProfile load_profile(const std::filesystem::path& file) {
    auto root = YamlView::load_file(file);
    if (!root.node().IsMap()) root.fail("a hardware profile must be a mapping (name:, match:, ...)");
    root.only_keys({"name", "match", "architecture", "sm_count", "l2_mb", "memory", "peak_tflops"});

    HardwareProfile p;
    p.file = file;
    p.id = file.stem().string();
    p.name = root.string("name");
    p.match = root.at("match").as_string_list();
    if (p.match.empty()) root.at("match").fail("must list at least one device-name substring");
    p.architecture = root.string("architecture");
    if (p.architecture.rfind("sm_", 0) != 0) root.at("architecture").fail("must look like sm_90");
    p.sm_count = static_cast<int>(root.positive_int("sm_count"));
    p.l2_mb = root.positive("l2_mb");

    auto memory = root.at("memory");
    memory.only_keys({"kind", "capacity_gb", "bandwidth_tbs", "source"});
    p.memory = {memory.string("kind"), memory.positive("capacity_gb"), memory.positive("bandwidth_tbs"),
                memory.string("source")};

    auto peaks = root.at("peak_tflops");
    peaks.only_keys({"fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "fp4"});
    for (auto dtype : all_dtypes) {
        std::string key(dtype_name(dtype));
        bool required = dtype != Dtype::fp8 && dtype != Dtype::fp4;
        if (required || peaks.has(key)) p.peak[dtype] = read_peak(peaks.at(key));
    }
    for (const auto& [dtype, figure] : p.peak) {
        if (figure.sparse_tflops && *figure.sparse_tflops <= figure.dense_tflops) {
            peaks.at(std::string(dtype_name(dtype)))
                .fail("has sparse <= dense; the dense figure is the smaller one (sparsity doubles it)");
        }
    }
    return p;
}

std::vector<HardwareProfile> load_profiles(const std::filesystem::path& dir) {
    if (!std::filesystem::is_directory(dir)) {
        throw InputError(dir, 0, "hardware profile folder not found; run from the course checkout or pass --root");
    }
    std::vector<HardwareProfile> profiles;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() == ".yaml") profiles.push_back(load_profile(entry.path()));
    }
    std::sort(profiles.begin(), profiles.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return profiles;
}

const HardwareProfile& find_profile(const std::vector<HardwareProfile>& profiles, const std::string& name) {
    auto wanted = lower(name);
    for (const auto& p : profiles) {
        if (lower(p.id) == wanted || lower(p.name) == wanted) return p;
    }
    std::vector<std::string> ids;
    for (const auto& p : profiles) ids.push_back(p.id);
    throw InputError(fmt::format("unknown hardware '{}'; known: {} (see `roofline hardware list`)", name,
                                 fmt::join(ids, ", ")));
}

const HardwareProfile* match_device(const std::vector<HardwareProfile>& profiles, const std::string& device_name) {
    const HardwareProfile* best = nullptr;
    std::size_t best_length = 0;
    auto device = lower(device_name);
    for (const auto& p : profiles) {
        for (const auto& pattern : p.match) {
            if (device.find(lower(pattern)) != std::string::npos && pattern.size() > best_length) {
                best = &p;
                best_length = pattern.size();
            }
        }
    }
    return best;
}

MeasuredCeilings load_measured(const std::filesystem::path& file) {
    auto root = YamlView::load_file(file);
    MeasuredCeilings m;
    m.file = file;
    m.profile_id = root.string("profile");
    m.device_name = root.string("device");
    m.measured_at = root.string("measured_at");
    m.copy_kernel_tbs = root.positive("copy_kernel_tbs");
    m.memcpy_tbs = root.positive("memcpy_tbs");
    m.read_only_tbs = root.positive("read_only_tbs");
    m.fp32_fma_tflops = root.positive("fp32_fma_tflops");
    if (root.has("mma_sync_bf16_tflops")) m.mma_sync_bf16_tflops = root.positive("mma_sync_bf16_tflops");
    if (root.has("wgmma_fp8_tflops")) m.wgmma_fp8_tflops = root.positive("wgmma_fp8_tflops");
    m.launch_us = root.positive("launch_us");
    m.graph_launch_us = root.positive("graph_launch_us");
    m.sm_clock_mhz = root.at("sm_clock_mhz").as_nonnegative_double();
    auto gemm = root.at("gemm_tflops");
    for (const auto& key : gemm.keys()) {
        m.gemm_tflops[require_dtype(key, file.string() + " gemm_tflops")] = gemm.positive(key);
    }
    return m;
}

MeasuredCeilings read_ceilings_probe(const std::filesystem::path& file) {
    auto root = YamlView::load_file(file);
    if (root.string("status") != "ok") {
        const auto message = root.has("message") ? root.string("message") : std::string("no message");
        root.at("status").fail("the probe failed: " + message);
    }
    MeasuredCeilings m;
    m.device_name = root.string("device");
    m.copy_kernel_tbs = root.positive("copy_kernel_tbs");
    m.memcpy_tbs = root.positive("memcpy_tbs");
    m.read_only_tbs = root.positive("read_only_tbs");
    m.fp32_fma_tflops = root.positive("fp32_fma_tflops");
    if (root.has("mma_sync_bf16_tflops")) m.mma_sync_bf16_tflops = root.positive("mma_sync_bf16_tflops");
    // Hopper's FP8 wgmma rate, or the probe's word on why it did not measure one: never neither,
    // so that a probe which lost the figure on an H100 or H200 is not read as "no FP8 here".
    if (root.has("wgmma_fp8_tflops")) {
        m.wgmma_fp8_tflops = root.positive("wgmma_fp8_tflops");
    } else if (root.has("wgmma_fp8_skipped")) {
        m.wgmma_fp8_skipped = root.string("wgmma_fp8_skipped");
    } else {
        root.fail("has neither wgmma_fp8_tflops (the FP8 wgmma rate, measured on Hopper) nor wgmma_fp8_skipped "
                  "(why not, elsewhere); rebuild roofline-ceilings and run `roofline ceilings` again");
    }
    auto gemm = root.at("gemm");
    for (const auto& key : gemm.keys()) {
        m.gemm_tflops[require_dtype(key, file.string() + " gemm")] = gemm.at(key).positive("tflops");
    }
    auto launch = root.at("launch");
    m.launch_us = launch.positive("launch_us");
    m.graph_launch_us = launch.positive("graph_launch_us");
    m.sm_clock_mhz = root.at("sm_clock_mhz").as_nonnegative_double();
    return m;
}

void save_measured(const MeasuredCeilings& m, const std::filesystem::path& file) {
    YAML::Emitter out;
    out << YAML::Comment("Measured by `roofline ceilings`; grade uses these over the datasheet for this GPU.");
    out << YAML::BeginMap;
    out << YAML::Key << "profile" << YAML::Value << m.profile_id;
    out << YAML::Key << "device" << YAML::Value << m.device_name;
    out << YAML::Key << "measured_at" << YAML::Value << m.measured_at;
    out << YAML::Key << "copy_kernel_tbs" << YAML::Value << m.copy_kernel_tbs;
    out << YAML::Key << "memcpy_tbs" << YAML::Value << m.memcpy_tbs;
    out << YAML::Key << "read_only_tbs" << YAML::Value << m.read_only_tbs;
    out << YAML::Key << "fp32_fma_tflops" << YAML::Value << m.fp32_fma_tflops;
    if (m.mma_sync_bf16_tflops > 0) out << YAML::Key << "mma_sync_bf16_tflops" << YAML::Value << m.mma_sync_bf16_tflops;
    if (m.wgmma_fp8_tflops > 0) out << YAML::Key << "wgmma_fp8_tflops" << YAML::Value << m.wgmma_fp8_tflops;
    out << YAML::Key << "launch_us" << YAML::Value << m.launch_us;
    out << YAML::Key << "graph_launch_us" << YAML::Value << m.graph_launch_us;
    out << YAML::Key << "sm_clock_mhz" << YAML::Value << m.sm_clock_mhz;
    out << YAML::Key << "gemm_tflops" << YAML::Value << YAML::BeginMap;
    for (const auto& [dtype, tflops] : m.gemm_tflops) {
        out << YAML::Key << std::string(dtype_name(dtype)) << YAML::Value << tflops;
    }
    out << YAML::EndMap << YAML::EndMap;
    write_output_file(file, std::string(out.c_str()) + "\n", "the measured ceilings", OutputFolder::create);
}

CeilingChoice choose_ceiling(const HardwareProfile& profile, const MeasuredCeilings* measured, Dtype dtype) {
    CeilingChoice choice;
    choice.ceiling = profile.datasheet_ceiling(dtype);
    choice.peak_origin = fmt::format("datasheet {} ({})", dtype_name(dtype), profile.id);
    choice.bandwidth_origin = fmt::format("datasheet ({})", profile.id);
    if (!measured) return choice;
    choice.measured = *measured;
    if (measured->memcpy_tbs > 0) {
        choice.ceiling.bandwidth_tbs = measured->memcpy_tbs;
        choice.bandwidth_origin = fmt::format("measured cudaMemcpy D2D ({})", measured->measured_at);
    }
    // fp32 runs on the CUDA cores: their roof is the FMA kernel's rate, and cuBLAS
    // SGEMM (below it) is the peer. Tensor-core dtypes: cuBLAS GEMM is the roof.
    if (dtype == Dtype::fp32 && measured->fp32_fma_tflops > 0) {
        choice.ceiling.peak_tflops = measured->fp32_fma_tflops;
        choice.peak_origin = fmt::format("measured fp32 FMA kernel ({})", measured->measured_at);
    } else if (auto it = measured->gemm_tflops.find(dtype); it != measured->gemm_tflops.end()) {
        choice.ceiling.peak_tflops = it->second;
        choice.peak_origin = fmt::format("measured cuBLAS {} GEMM ({})", dtype_name(dtype), measured->measured_at);
    } else if (dtype == Dtype::fp8 && measured->wgmma_fp8_tflops > 0) {
        // No cuBLAS FP8 GEMM among the probe's (cublasGemmEx has none): the roof is the FP8
        // wgmma rate from shared memory, what an FP8 GEMM's tensor cores can reach at this clock.
        choice.ceiling.peak_tflops = measured->wgmma_fp8_tflops;
        choice.peak_origin = fmt::format("measured fp8 wgmma probe ({})", measured->measured_at);
    }
    if (measured->launch_us > 0) choice.launch_overhead_s = measured->launch_us * 1e-6;
    return choice;
}

}  // namespace roofline
