// roofline calc: the roofline calculator. Counts a workload's FLOPs and bytes,
// then for each chosen GPU prints the two time floors, the attainable rate and
// the regime, as text with bars or as JSON.
#include "attention/model.hpp"
#include "command.hpp"
#include "elementwise/model.hpp"
#include "gemm/model.hpp"
#include "hardware.hpp"
#include "input_error.hpp"
#include "number_flags.hpp"
#include "number_text.hpp"
#include "units.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <sstream>

namespace roofline::cli {

namespace {

// The fixed cost of one kernel launch, back to back (an empty launch took 3.5-5.3 us
// on the H200: results/README.md, "Ceilings"): below it both floors are hidden and the
// regime is overhead.
constexpr double kLaunchOverheadS = kTypicalLaunchOverheadS;

// Sizes are whole numbers whose operands fit in a GPU: at most 1 TB, above every
// GPU's memory (the largest profile in hardware/, the B200, holds 180 GB). Past
// that the figures are fiction, and doubles start to print as 2e+72 EFLOP.
constexpr double kMaxOperandBytes = 1e12;
// Raw counts (--flops, --bytes): a day of work on the fastest GPU is already generous.
constexpr double kMaxRawFlops = 1e21, kMaxRawBytes = 1e18;

struct CalcOptions {
    std::string gemm;
    std::string attention;  // B,H,N,D
    bool causal = false;
    std::optional<double> elementwise_n;
    double reads = 1, writes = 1, flops_per_element = 0;  // whole reads and writes (whole_in)
    std::optional<double> flops, bytes;
    std::string dtype = "bf16";
    std::vector<std::string> hardware;
    std::optional<double> peak_tflops, bandwidth_tbs;
    bool json = false;
};

// One GEMM dimension: a whole number, digits only (require_fits bounds the sizes).
double gemm_dimension(const std::string& text, const std::string& whole) {
    auto value = parse_whole(text);
    if (!value || *value == 0) {
        throw InputError(fmt::format("--gemm: '{}' must be N or M,N,K, each a whole number from 1 up (got '{}')",
                                     whole, text));
    }
    return static_cast<double>(*value);
}

// The operands of a GEMM or an elementwise op must fit in some GPU's memory.
void require_fits(const Workload& work, const std::string& flag, const std::string& typed) {
    if (work.bytes <= kMaxOperandBytes) return;
    throw InputError(fmt::format("{}: {} needs {} of operands, more than any GPU holds (at most {}); use a smaller size",
                                 flag, typed, si(work.bytes, "B"), si(kMaxOperandBytes, "B")));
}

struct Described {
    Workload work;
    std::string label;  // "GEMM 4096 x 4096 x 4096"
    std::optional<std::array<double, 3>> gemm_mnk;
    std::string bytes_note;  // how the bytes were counted, when calc counted them
    std::optional<Workload> unfused;  // attention: the same work with the score matrix through memory
};

// --attention B,H,N,D: four whole numbers from 1 up, head_dim any (the lab takes 64 and 128).
std::array<double, 4> attention_sizes(const std::string& text) {
    auto refuse = [&text] {
        return InputError(fmt::format(
            "--attention: '{}' must be BATCH,HEADS,SEQ,HEAD_DIM, each a whole number from 1 up (e.g. 4,16,4096,128)", text));
    };
    std::vector<double> sizes;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, ',')) {
        auto value = parse_whole(part);
        if (!value || *value == 0) throw refuse();
        sizes.push_back(static_cast<double>(*value));
    }
    if (sizes.size() != 4 || text.back() == ',') throw refuse();
    return {sizes[0], sizes[1], sizes[2], sizes[3]};
}

Described describe_workload(const CalcOptions& o, Dtype dtype) {
    int kinds = !o.gemm.empty() + !o.attention.empty() + o.elementwise_n.has_value() +
                (o.flops.has_value() || o.bytes.has_value());
    if (kinds != 1) {
        throw InputError("calc: give exactly one workload: --gemm N (or M,N,K), --attention B,H,N,D, --elementwise N, "
                         "or --flops F --bytes B");
    }
    if (o.causal && o.attention.empty()) throw InputError("--causal goes with --attention B,H,N,D");
    if (!o.attention.empty()) {
        auto [b, h, n, d] = attention_sizes(o.attention);
        auto w = attention::work_of(b, h, n, d, o.causal, dtype_bytes(dtype));
        auto unfused = attention::unfused_work_of(b, h, n, d, o.causal, dtype_bytes(dtype));
        Workload work{w.flops, w.bytes};
        require_fits(Workload{unfused.flops, unfused.bytes}, "--attention", o.attention);
        return {work,
                fmt::format("attention{}, batch {:.0f} x heads {:.0f}, seq {:.0f}, head_dim {:.0f}, {}",
                            o.causal ? " (causal)" : "", b, h, n, d, dtype_name(dtype)),
                std::nullopt, "Q, K, V read once, O written once: the scores stay on chip",
                Workload{unfused.flops, unfused.bytes}};
    }
    if (!o.gemm.empty()) {
        std::vector<double> dims;
        std::stringstream in(o.gemm);
        std::string part;
        while (std::getline(in, part, ',')) dims.push_back(gemm_dimension(part, o.gemm));
        if (dims.size() == 1) dims = {dims[0], dims[0], dims[0]};
        if (dims.size() != 3 || o.gemm.back() == ',') {
            throw InputError(fmt::format("--gemm: '{}' must be N or M,N,K", o.gemm));
        }
        auto work = gemm::work_of(dims[0], dims[1], dims[2], dtype_bytes(dtype));  // the scorer's formula
        require_fits(work, "--gemm", o.gemm);
        return {work,
                fmt::format("GEMM {:.0f} x {:.0f} x {:.0f} (M x N x K), {}", dims[0], dims[1], dims[2], dtype_name(dtype)),
                std::array<double, 3>{dims[0], dims[1], dims[2]}, "each input read once, the output written once"};
    }
    if (o.elementwise_n) {
        if (o.reads + o.writes <= 0) {
            throw InputError("--reads/--writes: an elementwise op reads or writes something; give one of them >= 1");
        }
        auto work =
            elementwise::work_of(*o.elementwise_n, o.reads, o.writes, o.flops_per_element, dtype_bytes(dtype));
        require_fits(work, "--elementwise", fmt::format("{:.0f}", *o.elementwise_n));
        return {work,
                fmt::format("elementwise, {:.0f} elements, {:.0f} reads + {:.0f} writes each, {:g} FLOP each, {}",
                            *o.elementwise_n, o.reads, o.writes, o.flops_per_element, dtype_name(dtype)),
                std::nullopt, "each value read or written once"};
    }
    if (!o.flops || !o.bytes) throw InputError("calc: --flops and --bytes go together");
    return {{*o.flops, *o.bytes}, fmt::format("{:g} FLOP over {:g} bytes", *o.flops, *o.bytes), std::nullopt, ""};
}

struct Target {
    std::string id, name;
    std::optional<Ceiling> ceiling;  // none: the part has no unit for this dtype
    std::string overridden;          // "--peak-tflops 2000": the figures are not the profile's own
    std::optional<HardwareProfile> profile;  // a copy (the loaded list dies with choose_targets); none for custom ceilings
    // What `roofline ceilings` measured for this part on this machine, where it saved a file:
    // shown beside the datasheet figures (which calc computes with), never in their place.
    std::optional<CeilingChoice> measured;
};

// The FP8 switch (lesson 07): a 16-bit tensor format and fp8 on the same part, the same
// workload counted in each. fp16 and bf16 switch to fp8; fp8 switches back to bf16.
std::optional<Dtype> switch_partner(Dtype dtype) {
    if (dtype == Dtype::fp16 || dtype == Dtype::bf16) return Dtype::fp8;
    if (dtype == Dtype::fp8) return Dtype::bf16;
    return std::nullopt;
}

struct DtypeSwitch {
    Dtype from, to;             // from: the 16-bit format; to: fp8
    Ceiling from_roof, to_roof;
    RooflinePoint from_point, to_point;  // the workload counted in each format's bytes
    // This workload as given (its own bytes) under the other format's roof: the same point,
    // with the ridge moved past it or back.
    RooflinePoint same_point;
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
    std::vector<std::string> overrides;
    if (o.peak_tflops) overrides.push_back(fmt::format("--peak-tflops {:g}", *o.peak_tflops));
    if (o.bandwidth_tbs) overrides.push_back(fmt::format("--bandwidth-tbs {:g}", *o.bandwidth_tbs));
    for (const auto* p : chosen) {
        Target t{p->id, p->name, std::nullopt, fmt::format("{}", fmt::join(overrides, ", ")), *p};
        if (p->supports(dtype)) {
            if (auto file = context.workspace().measured_ceilings(p->id); std::filesystem::exists(file)) {
                auto measured = load_measured(file);  // a broken file is an InputError naming it
                t.measured = choose_ceiling(*p, &measured, dtype);
            }
            Ceiling c = p->datasheet_ceiling(dtype);
            if (o.peak_tflops) c.peak_tflops = *o.peak_tflops;
            if (o.bandwidth_tbs) c.bandwidth_tbs = *o.bandwidth_tbs;
            t.ceiling = c;
        }
        targets.push_back(t);
    }
    // A dtype no chosen GPU can do is an error (hardware/README.md); in a table of
    // several GPUs, the ones without the unit say so on their row.
    bool any_unit = std::any_of(targets.begin(), targets.end(), [](const Target& t) { return t.ceiling.has_value(); });
    if (!any_unit) {
        std::vector<std::string> names;
        for (const auto* p : chosen) names.push_back(fmt::format("{} ({}: no peak_tflops.{} in {})", p->name, p->id,
                                                                 dtype_name(dtype), p->file.string()));
        std::vector<std::string> have;
        for (auto d : all_dtypes) {
            if (chosen.front()->supports(d)) have.push_back(std::string(dtype_name(d)));
        }
        throw InputError(fmt::format("--dtype {}: no {} unit on {}; {} does {}", dtype_name(dtype), dtype_name(dtype),
                                     fmt::join(names, ", "), chosen.front()->id, fmt::join(have, ", ")));
    }
    return targets;
}

// The switch on this target, where its profile has both roofs and they are its own figures
// (not with --peak-tflops or --bandwidth-tbs).
std::optional<DtypeSwitch> dtype_switch(const Target& t, const CalcOptions& o, Dtype dtype,
                                        const Described& described) {
    auto partner = switch_partner(dtype);
    if (!partner || !t.profile || !t.overridden.empty() || !t.profile->supports(*partner)) return std::nullopt;
    Dtype sixteen = dtype == Dtype::fp8 ? *partner : dtype;
    Workload other;
    try {
        other = describe_workload(o, *partner).work;
    } catch (const InputError&) {
        return std::nullopt;  // fp8 work near the size limit whose bf16 bytes pass it: no switch to show
    }
    Ceiling from_roof = t.profile->datasheet_ceiling(sixteen), to_roof = t.profile->datasheet_ceiling(Dtype::fp8);
    const Workload& from_work = dtype == Dtype::fp8 ? other : described.work;
    const Workload& to_work = dtype == Dtype::fp8 ? described.work : other;
    const Ceiling& other_roof = dtype == Dtype::fp8 ? from_roof : to_roof;
    return DtypeSwitch{sixteen,
                       Dtype::fp8,
                       from_roof,
                       to_roof,
                       analyze(from_work, from_roof, kLaunchOverheadS),
                       analyze(to_work, to_roof, kLaunchOverheadS),
                       analyze(described.work, other_roof, kLaunchOverheadS)};
}

nlohmann::json switch_json(const DtypeSwitch& sw, Dtype dtype) {
    auto side = [](Dtype dtype, const Ceiling& roof, const RooflinePoint& p) {
        return nlohmann::json{{"dtype", dtype_name(dtype)}, {"peak_tflops", roof.peak_tflops},
                              {"ridge_flop_per_byte", p.ridge}, {"intensity_flop_per_byte", p.intensity},
                              {"floor_s", p.time_floor_s}, {"regime", regime_name(p.regime)}};
    };
    return {{"from", side(sw.from, sw.from_roof, sw.from_point)}, {"to", side(sw.to, sw.to_roof, sw.to_point)},
            {"peak_ratio", sw.to_roof.peak_tflops / sw.from_roof.peak_tflops},
            {"ridge_ratio", sw.to_point.ridge / sw.from_point.ridge},
            {"same_point_under_other_roof",
             side(dtype == Dtype::fp8 ? sw.from : sw.to, dtype == Dtype::fp8 ? sw.from_roof : sw.to_roof, sw.same_point)}};
}

void print_switch(const DtypeSwitch& sw, Dtype dtype) {
    fmt::print("  {:<16} compute roof {:g} -> {:g} TFLOP/s ({:.2g}x); ridge {:.1f} -> {:.1f} FLOP/byte\n",
               fmt::format("{} -> {}", dtype_name(sw.from), dtype_name(sw.to)), sw.from_roof.peak_tflops, sw.to_roof.peak_tflops,
               sw.to_roof.peak_tflops / sw.from_roof.peak_tflops, sw.from_point.ridge, sw.to_point.ridge);
    // The same work in the other format: its own bytes, against its own roof.
    const auto& other = dtype == Dtype::fp8 ? sw.from_point : sw.to_point;
    Dtype other_dtype = dtype == Dtype::fp8 ? sw.from : sw.to;
    const auto& same = sw.same_point;
    fmt::print("                   this point under the {} roof: {:.2g}x its ridge, {}-bound, floor {}\n",
               dtype_name(other_dtype), same.intensity / same.ridge, regime_name(same.regime), seconds(same.time_floor_s));
    fmt::print("                   the same work in {}: intensity {:.1f} FLOP/byte, {:.2g}x its ridge, {}-bound, "
               "floor {}\n",
               dtype_name(other_dtype), other.intensity, other.intensity / other.ridge, regime_name(other.regime),
               seconds(other.time_floor_s));
}

nlohmann::json point_json(const Target& t, const RooflinePoint& p, const Described& d, Dtype dtype) {
    nlohmann::json j = {{"hardware", t.id},
                        {"name", t.name},
                        {"overridden", t.overridden.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.overridden)},
                        {"supported", true},
                        {"peak_tflops", t.ceiling->peak_tflops},
                        {"bandwidth_tbs", t.ceiling->bandwidth_tbs},
                        {"ridge_flop_per_byte", p.ridge},
                        {"compute_floor_s", p.compute_floor_s},
                        {"memory_floor_s", p.memory_floor_s},
                        {"floor_s", p.time_floor_s},  // the time floor: one launch at least (roofline.hpp)
                        {"roofline_floor_s", p.floor_s},
                        {"attainable_tflops", p.attainable_tflops},
                        {"regime", regime_name(p.regime)}};
    if (d.gemm_mnk) j["gemm_crossover_n"] = gemm_crossover_n(*t.ceiling, dtype);
    return j;
}

void print_detail(const Target& t, const RooflinePoint& p, const Described& d, Dtype dtype) {
    const Ceiling& c = *t.ceiling;
    std::string whose = t.overridden.empty() ? fmt::format("{} ({})", t.name, t.id)
                                             : fmt::format("{} ({}) with {}", t.name, t.id, t.overridden);
    fmt::print("\n{}: peak {:g} TFLOP/s {} dense, {:g} TB/s\n", whose, c.peak_tflops, dtype_name(dtype), c.bandwidth_tbs);
    fmt::print("  ridge point      {:.1f} FLOP/byte\n", p.ridge);
    fmt::print("  compute floor    {}   (FLOPs / peak)\n", seconds(p.compute_floor_s));
    fmt::print("  memory floor     {}   (bytes / bandwidth)\n", seconds(p.memory_floor_s));
    fmt::print("  time floor       {}   (the larger floor, and at least one launch: ~{:g} us)\n",
               seconds(p.time_floor_s), kLaunchOverheadS * 1e6);
    if (p.regime == Regime::overhead) {
        // The launch, not a roof, sets the time: a rate from the roofs would mislead.
        fmt::print("  attainable       -   (overhead-bound: the launch sets the time, not a roof)\n");
    } else {
        fmt::print("  attainable       {:.4g} TFLOP/s   ({:.1f}% of peak)\n", p.attainable_tflops,
                   100 * p.attainable_tflops / c.peak_tflops);
    }
    std::string why = p.regime == Regime::overhead
                          ? fmt::format("both floors under the ~{:g} us cost of one launch", kLaunchOverheadS * 1e6)
                      : p.regime == Regime::compute ? fmt::format("intensity {:.2g}x the ridge", p.intensity / p.ridge)
                                                    : fmt::format("intensity {:.2g}x the ridge", p.intensity / p.ridge);
    fmt::print("  regime           {}-bound ({})\n", regime_name(p.regime), why);
    if (d.unfused) {  // attention: the floor of the same work with the scores through memory
        double unfused_floor = d.unfused->bytes / (c.bandwidth_tbs * 1e12);
        bool memory_bound = d.unfused->flops / d.unfused->bytes < p.ridge;
        fmt::print("  scores in memory memory floor {}, {:.1f}x the compute floor: {}-bound\n", seconds(unfused_floor),
                   unfused_floor / p.compute_floor_s, memory_bound ? "memory" : "compute");
    }
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
        std::string attainable = p->regime == Regime::overhead ? "-" : fmt::format("{:.4g}", p->attainable_tflops);
        fmt::print("{:<16} {:>9.4g} {:>7.3g} {:>8.1f} {:>11} {:>11} {:>10}  {:<9} {}\n",
                   t.id + (t.overridden.empty() ? "" : "*"), t.ceiling->peak_tflops, t.ceiling->bandwidth_tbs, p->ridge,
                   seconds(p->compute_floor_s), seconds(p->memory_floor_s), attainable, regime_name(p->regime),
                   crossover);
    }
    fmt::print("\nridge in FLOP/byte; compute and memory are the two time floors; attainable in TFLOP/s"
               " (- where overhead-bound).\n");
    if (!rows.empty() && !rows.front().first.overridden.empty()) {
        fmt::print("* figures overridden by {}, not the profile's\n", rows.front().first.overridden);
    }
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
            if (p) {
                results.push_back(point_json(t, *p, described, dtype));
                auto sw = dtype_switch(t, o, dtype, described);
                results.back()["dtype_switch"] = sw ? switch_json(*sw, dtype) : nlohmann::json(nullptr);
                results.back()["measured_here"] =
                    t.measured ? nlohmann::json{{"peak_tflops", t.measured->ceiling.peak_tflops},
                                                {"peak_origin", t.measured->peak_origin},
                                                {"bandwidth_tbs", t.measured->ceiling.bandwidth_tbs},
                                                {"bandwidth_origin", t.measured->bandwidth_origin}}
                               : nlohmann::json(nullptr);
            } else results.push_back({{"hardware", t.id}, {"name", t.name}, {"supported", false},
                                    {"reason", fmt::format("no {} unit", dtype_name(dtype))}});
        }
        nlohmann::json out = {{"workload", {{"description", described.label},
                                             {"dtype", dtype_name(dtype)},
                                             {"flops", w.flops},
                                             {"bytes", w.bytes},
                                             {"intensity_flop_per_byte", intensity}}},
                              {"scores_in_memory", described.unfused
                                                       ? nlohmann::json{{"bytes", described.unfused->bytes},
                                                                        {"intensity_flop_per_byte",
                                                                         w.flops / described.unfused->bytes}}
                                                       : nlohmann::json(nullptr)},
                              {"launch_overhead_s", kLaunchOverheadS},
                              {"results", results}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("{}\n", described.label);
    fmt::print("  FLOPs            {}\n", si(w.flops, "FLOP"));
    if (described.bytes_note.empty()) fmt::print("  bytes            {}\n", si(w.bytes, "B"));
    else fmt::print("  bytes            {}   ({})\n", si(w.bytes, "B"), described.bytes_note);
    fmt::print("  intensity        {:.1f} FLOP/byte\n", intensity);
    if (described.unfused) {
        const auto& u = *described.unfused;
        fmt::print("  scores in memory {}   (the seq x seq fp32 scores written, read, written, read: {:.0f}x the bytes)\n",
                   si(u.bytes, "B"), u.bytes / w.bytes);
        fmt::print("                   intensity {:.1f} FLOP/byte: that kernel's own roofline\n", u.flops / u.bytes);
    }
    if (rows.size() == 1 && rows[0].second) {
        print_detail(rows[0].first, *rows[0].second, described, dtype);
        if (auto sw = dtype_switch(rows[0].first, o, dtype, described)) print_switch(*sw, dtype);
        if (const auto& m = rows[0].first.measured) {
            fmt::print("  measured here    {:.4g} TFLOP/s {} ({}), {:.3g} TB/s ({}); the figures above are the datasheet's\n",
                       m->ceiling.peak_tflops, dtype_name(dtype), m->peak_origin, m->ceiling.bandwidth_tbs,
                       m->bandwidth_origin);
        }
    } else {
        print_table(rows, described, dtype);
    }
}

}  // namespace

void add_calc_command(CLI::App& app, Context& context) {
    static CalcOptions o;
    auto* calc = app.add_subcommand("calc", "the roofline calculator: FLOPs, bytes, floors and regime of a workload");
    calc->add_option("--gemm", o.gemm, "a GEMM: N (square) or M,N,K")
        ->check(CLI::Validator([](std::string& text) { return text.empty() ? std::string("must be N or M,N,K (got '')") : ""; },
                               "N or M,N,K"));
    calc->add_option("--attention", o.attention, "attention's forward pass: BATCH,HEADS,SEQ,HEAD_DIM")
        ->check(CLI::Validator(
            [](std::string& text) { return text.empty() ? std::string("must be B,H,N,D (got '')") : ""; }, "B,H,N,D"));
    calc->add_flag("--causal", o.causal, "with --attention: causal masking (half the FLOPs)");
    calc->add_option("--elementwise", o.elementwise_n, "an elementwise op over N elements")
        ->check(whole_in(1, 1'000'000'000'000ULL));
    calc->add_option("--reads", o.reads, "values read per element (elementwise; default 1)")->check(whole_in(0, 64));
    calc->add_option("--writes", o.writes, "values written per element (elementwise; default 1)")->check(whole_in(0, 64));
    calc->add_option("--flops-per-element", o.flops_per_element, "FLOPs per element (elementwise; default 0)")
        ->check(number_in(0, 1e6));
    calc->add_option("--flops", o.flops, "raw FLOP count")->check(number_in(1, kMaxRawFlops));
    calc->add_option("--bytes", o.bytes, "raw byte count")->check(number_in(1, kMaxRawBytes));
    calc->add_option("--dtype", o.dtype, "fp64, fp32, tf32, fp16, bf16, fp8 or fp4 (default bf16)");
    calc->add_option("--hardware", o.hardware, "profile id(s) from `roofline hardware list`, or all")->delimiter(',');
    calc->add_option("--peak-tflops", o.peak_tflops, "override the peak (TFLOP/s)")->check(number_in(0.001, 1e5));
    calc->add_option("--bandwidth-tbs", o.bandwidth_tbs, "override the bandwidth (TB/s)")->check(number_in(0.001, 1e3));
    calc->add_flag("--json", o.json, "the same figures as JSON");
    calc->footer("Examples:\n  roofline calc --gemm 4096 --dtype fp16 --peak-tflops 2000 --bandwidth-tbs 8\n"
                 "  roofline calc --gemm 1,8192,8192 --dtype bf16 --hardware h200-sxm,l4\n"
                 "  roofline calc --attention 4,16,4096,128 --causal --hardware h200-sxm\n"
                 "  roofline calc --elementwise 268435456 --reads 2 --writes 1 --flops-per-element 1 --dtype fp32 --hardware all");
    calc->callback([&context] { run_calc(context, o); });
}

}  // namespace roofline::cli
