// roofline calc: the roofline calculator. Counts a workload's FLOPs and bytes,
// then for each chosen GPU prints the two time floors, the attainable rate and
// the regime, as text with bars or as JSON.
#include "command.hpp"
#include "hardware.hpp"
#include "input_error.hpp"
#include "units.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>
#include <optional>
#include <sstream>

namespace roofline::cli {

namespace {

// The fixed cost of one kernel launch, back to back (DESIGN.md, H200): below it
// both floors are hidden and the regime is overhead.
constexpr double kLaunchOverheadS = kTypicalLaunchOverheadS;

struct CalcOptions {
    std::string gemm;
    std::optional<double> elementwise_n;
    double reads = 1, writes = 1, flops_per_element = 0;
    std::optional<double> flops, bytes;
    std::string dtype = "bf16";
    std::vector<std::string> hardware;
    std::optional<double> peak_tflops, bandwidth_tbs;
    bool json = false;
};

double positive_number(const std::string& text, const std::string& flag) {
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !(value > 0)) {
        throw InputError(fmt::format("{}: '{}' must be a positive number", flag, text));
    }
    return value;
}

struct Described {
    Workload work;
    std::string label;  // "GEMM 4096 x 4096 x 4096"
    std::optional<std::array<double, 3>> gemm_mnk;
};

Described describe_workload(const CalcOptions& o, Dtype dtype) {
    int kinds = !o.gemm.empty() + o.elementwise_n.has_value() + (o.flops.has_value() || o.bytes.has_value());
    if (kinds != 1) {
        throw InputError("calc: give exactly one workload: --gemm N (or M,N,K), --elementwise N, or --flops F --bytes B");
    }
    if (!o.gemm.empty()) {
        std::vector<double> dims;
        std::stringstream in(o.gemm);
        std::string part;
        while (std::getline(in, part, ',')) dims.push_back(positive_number(part, "--gemm"));
        if (dims.size() == 1) dims = {dims[0], dims[0], dims[0]};
        if (dims.size() != 3) throw InputError(fmt::format("--gemm: '{}' must be N or M,N,K", o.gemm));
        return {gemm_workload(dims[0], dims[1], dims[2], dtype),
                fmt::format("GEMM {:g} x {:g} x {:g} (M x N x K), {}", dims[0], dims[1], dims[2], dtype_name(dtype)),
                std::array<double, 3>{dims[0], dims[1], dims[2]}};
    }
    if (o.elementwise_n) {
        if (o.reads < 0 || o.writes < 0 || o.reads + o.writes <= 0 || o.flops_per_element < 0) {
            throw InputError("--reads/--writes must be >= 0 with at least one access, --flops-per-element >= 0");
        }
        return {elementwise_workload(*o.elementwise_n, o.reads, o.writes, o.flops_per_element, dtype),
                fmt::format("elementwise, {:g} elements, {:g} reads + {:g} writes each, {:g} FLOP each, {}",
                            *o.elementwise_n, o.reads, o.writes, o.flops_per_element, dtype_name(dtype)),
                std::nullopt};
    }
    if (!o.flops || !o.bytes) throw InputError("calc: --flops and --bytes go together");
    return {{*o.flops, *o.bytes}, fmt::format("{:g} FLOP over {:g} bytes", *o.flops, *o.bytes), std::nullopt};
}

struct Target {
    std::string id, name;
    std::optional<Ceiling> ceiling;  // none: the part has no unit for this dtype
};

std::vector<Target> choose_targets(const Context& context, const CalcOptions& o, Dtype dtype) {
    std::vector<Target> targets;
    if (o.hardware.empty()) {
        if (!o.peak_tflops || !o.bandwidth_tbs) {
            throw InputError("calc: name a GPU with --hardware ID (or all), or give both --peak-tflops and --bandwidth-tbs");
        }
        targets.push_back({"custom", "custom ceilings", Ceiling{*o.peak_tflops, *o.bandwidth_tbs}});
        return targets;
    }
    auto profiles = load_profiles(context.hardware_dir());
    std::vector<const HardwareProfile*> chosen;
    for (const auto& name : o.hardware) {
        if (name == "all") {
            for (const auto& p : profiles) chosen.push_back(&p);
        } else {
            chosen.push_back(&find_profile(profiles, name));
        }
    }
    for (const auto* p : chosen) {
        Target t{p->id, p->name, std::nullopt};
        if (p->supports(dtype)) {
            Ceiling c = p->datasheet_ceiling(dtype);
            if (o.peak_tflops) c.peak_tflops = *o.peak_tflops;
            if (o.bandwidth_tbs) c.bandwidth_tbs = *o.bandwidth_tbs;
            t.ceiling = c;
        }
        targets.push_back(t);
    }
    return targets;
}

nlohmann::json point_json(const Target& t, const RooflinePoint& p, const Described& d, Dtype dtype) {
    nlohmann::json j = {{"hardware", t.id},
                        {"name", t.name},
                        {"supported", true},
                        {"peak_tflops", t.ceiling->peak_tflops},
                        {"bandwidth_tbs", t.ceiling->bandwidth_tbs},
                        {"ridge_flop_per_byte", p.ridge},
                        {"compute_floor_s", p.compute_floor_s},
                        {"memory_floor_s", p.memory_floor_s},
                        {"floor_s", p.floor_s},
                        {"attainable_tflops", p.attainable_tflops},
                        {"regime", regime_name(p.regime)}};
    if (d.gemm_mnk) j["gemm_crossover_n"] = gemm_crossover_n(*t.ceiling, dtype);
    return j;
}

void print_detail(const Target& t, const RooflinePoint& p, const Described& d, Dtype dtype) {
    const Ceiling& c = *t.ceiling;
    fmt::print("\n{} ({}): peak {:g} TFLOP/s {} dense, {:g} TB/s\n", t.name, t.id, c.peak_tflops, dtype_name(dtype),
               c.bandwidth_tbs);
    fmt::print("  ridge point      {:.1f} FLOP/byte\n", p.ridge);
    fmt::print("  compute floor    {}   (FLOPs / peak)\n", seconds(p.compute_floor_s));
    fmt::print("  memory floor     {}   (bytes / bandwidth)\n", seconds(p.memory_floor_s));
    fmt::print("  attainable       {:.4g} TFLOP/s   ({:.1f}% of peak)\n", p.attainable_tflops,
               100 * p.attainable_tflops / c.peak_tflops);
    std::string why = p.regime == Regime::overhead
                          ? fmt::format("both floors under the ~{:g} us cost of one launch", kLaunchOverheadS * 1e6)
                      : p.regime == Regime::compute ? fmt::format("intensity {:.2g}x the ridge", p.intensity / p.ridge)
                                                    : fmt::format("intensity {:.2g}x the ridge", p.intensity / p.ridge);
    fmt::print("  regime           {}-bound ({})\n", regime_name(p.regime), why);
    if (d.gemm_mnk) {
        fmt::print("  crossover        square {} GEMMs with N below {} are memory-bound here\n", dtype_name(dtype),
                   gemm_crossover_n(c, dtype));
    }
    double longest = std::max(p.compute_floor_s, p.memory_floor_s);
    fmt::print("  compute |{}| {}\n", bar(p.compute_floor_s, longest, 40), seconds(p.compute_floor_s));
    fmt::print("  memory  |{}| {}\n", bar(p.memory_floor_s, longest, 40), seconds(p.memory_floor_s));
}

void print_table(const std::vector<std::pair<Target, std::optional<RooflinePoint>>>& rows, const Described& d,
                 Dtype dtype) {
    fmt::print("\n{:<16} {:>9} {:>7} {:>8} {:>11} {:>11} {:>10}  {:<9} {}\n", "hardware", "TFLOP/s", "TB/s", "ridge",
               "compute", "memory", "attainable", "regime", d.gemm_mnk ? "crossover N" : "");
    for (const auto& [t, p] : rows) {
        if (!p) {
            fmt::print("{:<16} no {} unit on this part\n", t.id, dtype_name(dtype));
            continue;
        }
        std::string crossover = d.gemm_mnk ? fmt::format("{}", gemm_crossover_n(*t.ceiling, dtype)) : "";
        fmt::print("{:<16} {:>9.4g} {:>7.3g} {:>8.1f} {:>11} {:>11} {:>10.4g}  {:<9} {}\n", t.id, t.ceiling->peak_tflops,
                   t.ceiling->bandwidth_tbs, p->ridge, seconds(p->compute_floor_s), seconds(p->memory_floor_s),
                   p->attainable_tflops, regime_name(p->regime), crossover);
    }
    fmt::print("\nridge in FLOP/byte; compute and memory are the two time floors; attainable in TFLOP/s.\n");
}

void run_calc(const Context& context, const CalcOptions& o) {
    Dtype dtype = require_dtype(o.dtype, "--dtype");
    auto described = describe_workload(o, dtype);
    auto targets = choose_targets(context, o, dtype);
    const auto& w = described.work;
    double intensity = w.bytes > 0 ? w.flops / w.bytes : 0;

    std::vector<std::pair<Target, std::optional<RooflinePoint>>> rows;
    for (const auto& t : targets) {
        if (t.ceiling) rows.push_back({t, analyze(w, *t.ceiling, kLaunchOverheadS)});
        else rows.push_back({t, std::nullopt});
    }

    if (o.json) {
        nlohmann::json results = nlohmann::json::array();
        for (const auto& [t, p] : rows) {
            if (p) results.push_back(point_json(t, *p, described, dtype));
            else results.push_back({{"hardware", t.id}, {"name", t.name}, {"supported", false},
                                    {"reason", fmt::format("no {} unit", dtype_name(dtype))}});
        }
        nlohmann::json out = {{"workload", {{"description", described.label},
                                             {"dtype", dtype_name(dtype)},
                                             {"flops", w.flops},
                                             {"bytes", w.bytes},
                                             {"intensity_flop_per_byte", intensity}}},
                              {"launch_overhead_s", kLaunchOverheadS},
                              {"results", results}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("{}\n", described.label);
    fmt::print("  FLOPs            {}\n", si(w.flops, "FLOP"));
    fmt::print("  bytes            {}   (each input read once, each output written once)\n", si(w.bytes, "B"));
    fmt::print("  intensity        {:.1f} FLOP/byte\n", intensity);
    if (rows.size() == 1 && rows[0].second) print_detail(rows[0].first, *rows[0].second, described, dtype);
    else print_table(rows, described, dtype);
}

}  // namespace

void add_calc_command(CLI::App& app, Context& context) {
    static CalcOptions o;
    auto* calc = app.add_subcommand("calc", "the roofline calculator: FLOPs, bytes, floors and regime of a workload");
    calc->add_option("--gemm", o.gemm, "a GEMM: N (square) or M,N,K");
    calc->add_option("--elementwise", o.elementwise_n, "an elementwise op over N elements");
    calc->add_option("--reads", o.reads, "values read per element (elementwise; default 1)");
    calc->add_option("--writes", o.writes, "values written per element (elementwise; default 1)");
    calc->add_option("--flops-per-element", o.flops_per_element, "FLOPs per element (elementwise; default 0)");
    calc->add_option("--flops", o.flops, "raw FLOP count")->check(CLI::PositiveNumber);
    calc->add_option("--bytes", o.bytes, "raw byte count")->check(CLI::PositiveNumber);
    calc->add_option("--dtype", o.dtype, "fp64, fp32, tf32, fp16, bf16, fp8 or fp4 (default bf16)");
    calc->add_option("--hardware", o.hardware, "profile id(s) from `roofline hardware list`, or all")->delimiter(',');
    calc->add_option("--peak-tflops", o.peak_tflops, "override the peak (TFLOP/s)")->check(CLI::PositiveNumber);
    calc->add_option("--bandwidth-tbs", o.bandwidth_tbs, "override the bandwidth (TB/s)")->check(CLI::PositiveNumber);
    calc->add_flag("--json", o.json, "the same figures as JSON");
    calc->footer("Examples:\n  roofline calc --gemm 4096 --dtype fp16 --peak-tflops 2000 --bandwidth-tbs 8\n"
                 "  roofline calc --gemm 1,8192,8192 --dtype bf16 --hardware h200-sxm,l4\n"
                 "  roofline calc --elementwise 268435456 --reads 2 --writes 1 --flops-per-element 1 --dtype fp32 --hardware all");
    calc->callback([&context] {
        if (o.elementwise_n && !(*o.elementwise_n > 0)) throw InputError("--elementwise: N must be a positive count");
        run_calc(context, o);
    });
}

}  // namespace roofline::cli
