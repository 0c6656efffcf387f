#include "profile_report.hpp"

#include "input_error.hpp"
#include "ncu_metrics.hpp"
#include "svg_canvas.hpp"
#include "units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace roofline {

namespace {

namespace m = ncu_metric;

double sum_of(const std::vector<NcuLaunch>& launches, const std::string& metric, std::vector<std::string>& missing) {
    double total = 0;
    bool seen = false;
    for (const auto& launch : launches) {
        if (auto v = launch.number(metric)) {
            total += *v;
            seen = true;
        }
    }
    if (!seen && std::find(missing.begin(), missing.end(), metric) == missing.end()) missing.push_back(metric);
    return total;
}

std::optional<double> from(const NcuLaunch& launch, const std::string& metric, std::vector<std::string>& missing) {
    auto v = launch.number(metric);
    if (!v && std::find(missing.begin(), missing.end(), metric) == missing.end()) missing.push_back(metric);
    return v;
}

// A level's peak from ncu: bytes per cycle times the unit's cycles per second.
std::optional<double> ncu_peak(const NcuLaunch& launch, const std::string& per_cycle, const std::string& rate,
                               std::vector<std::string>& missing) {
    auto a = from(launch, per_cycle, missing), b = from(launch, rate, missing);
    if (!a || !b || *a <= 0 || *b <= 0) return std::nullopt;
    return *a * *b;
}

// An instruction or event count: 8.59 G, 0.
std::string count(double value) {
    auto text = si(value, "", 4);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
}

std::string percent(double fraction) { return fmt::format("{:.0f}%", 100 * fraction); }

std::string optional_pct(const std::optional<double>& pct) {
    return pct ? fmt::format("{:.1f}%", *pct) : std::string("-");
}

// Achieved fraction of a level's roof, or nothing when its peak is unknown.
std::optional<double> fraction_of_roof(const LevelTraffic& level, double time_s) {
    if (!level.peak_bytes_per_s || time_s <= 0) return std::nullopt;
    return level.bytes / time_s / *level.peak_bytes_per_s;
}

}  // namespace

std::optional<double> ProfileReport::byte_prediction_ratio() const {
    if (!predicted_bytes || *predicted_bytes <= 0) return std::nullopt;
    return dram_bytes() / *predicted_bytes;
}

bool ProfileReport::byte_prediction_close() const {
    auto ratio = byte_prediction_ratio();
    return ratio && std::abs(*ratio - 1) <= kBytePredictionTolerance;
}

ProfileReport build_profile_report(const ProfileInput& input) {
    if (input.launches.empty()) {
        throw InputError(fmt::format("{}: ncu's table lists no kernel launch, so there is nothing to report; the "
                                     "variant launched no kernel inside the profiled range",
                                     input.target));
    }
    ProfileReport r;
    r.target = input.target;
    r.shape = input.shape;
    r.gpu = input.gpu;
    r.model = input.model;
    r.predicted_bytes = input.predicted_bytes;
    r.launches = static_cast<int>(input.launches.size());
    for (const auto& launch : input.launches) {
        if (std::find(r.kernels.begin(), r.kernels.end(), launch.kernel) == r.kernels.end())
            r.kernels.push_back(launch.kernel);
    }
    auto& missing = r.missing_metrics;
    const auto& launches = input.launches;
    r.time_s = sum_of(launches, m::kDuration, missing);
    r.dram_read = sum_of(launches, m::kDramRead, missing);
    r.dram_write = sum_of(launches, m::kDramWrite, missing);
    r.ffma = sum_of(launches, m::kFfma, missing);
    r.fadd = sum_of(launches, m::kFadd, missing);
    r.fmul = sum_of(launches, m::kFmul, missing);
    r.fp32_flops = 2 * r.ffma + r.fadd + r.fmul;
    r.tensor_hmma = sum_of(launches, m::kTensorHmma, missing);
    r.tensor_gmma = sum_of(launches, m::kTensorGmma, missing);
    r.tensor_instructions = r.tensor_hmma + r.tensor_gmma;
    r.peak_flops_per_s = input.peak_flops_per_s;
    r.peak_origin = input.peak_origin;

    // Rates, percentages and occupancy: from the longest launch, the one that sets the time.
    const NcuLaunch& main = *std::max_element(launches.begin(), launches.end(), [](const auto& a, const auto& b) {
        return a.number(m::kDuration).value_or(0) < b.number(m::kDuration).value_or(0);
    });

    LevelTraffic dram{"DRAM", r.dram_bytes(), std::nullopt, "", from(main, m::kSolDram, missing)};
    if (input.dram_bytes_per_s > 0) {
        dram.peak_bytes_per_s = input.dram_bytes_per_s;
        dram.peak_origin = input.dram_origin;
    } else if (auto peak = ncu_peak(main, m::kDramPeakPerCycle, m::kDramCyclesPerSecond, missing)) {
        dram.peak_bytes_per_s = peak;
        dram.peak_origin = "ncu's DRAM peak";
    }
    LevelTraffic l2{"L2", sum_of(launches, m::kL2Bytes, missing),
                    ncu_peak(main, m::kL2PeakPerCycle, m::kL2CyclesPerSecond, missing), "ncu's L2 peak",
                    from(main, m::kSolL2, missing)};
    LevelTraffic l1{"L1", sum_of(launches, m::kL1Bytes, missing),
                    ncu_peak(main, m::kL1PeakPerCycle, m::kL1CyclesPerSecond, missing), "ncu's L1/TEX peak",
                    from(main, m::kSolL1, missing)};
    r.levels = {dram, l2, l1};

    r.l2_hit_rate_pct = from(main, m::kL2HitRate, missing);
    r.sol_sm_pct = from(main, m::kSolSm, missing);
    r.sol_memory_pct = from(main, m::kSolMemory, missing);
    r.achieved_occupancy_pct = from(main, m::kAchievedOccupancy, missing);
    r.theoretical_occupancy_pct = from(main, m::kTheoreticalOccupancy, missing);
    r.registers_per_thread = from(main, m::kRegistersPerThread, missing);
    r.waves = from(main, m::kWaves, missing);
    auto active_avg = from(main, m::kSmActiveCyclesAvg, missing), active_max = from(main, m::kSmActiveCyclesMax, missing);
    if (active_avg && active_max && *active_max > 0) r.sm_busy_balance = *active_avg / *active_max;
    for (const auto& [resource, metric] : std::vector<std::pair<std::string, std::string>>{
             {"registers", m::kLimitRegisters},
             {"shared memory", m::kLimitSharedMem},
             {"warps per SM", m::kLimitWarps},
             {"blocks per SM", m::kLimitBlocks}}) {
        if (auto v = from(main, metric, missing)) r.occupancy_limits.push_back({resource, *v});
    }
    std::stable_sort(r.occupancy_limits.begin(), r.occupancy_limits.end(),
                     [](const auto& a, const auto& b) { return a.blocks_per_sm < b.blocks_per_sm; });
    double sectors = sum_of(launches, m::kGlobalLoadSectors, missing);
    double requests = sum_of(launches, m::kGlobalLoadRequests, missing);
    if (requests > 0) r.sectors_per_request = sectors / requests;
    for (const auto& launch : launches) {
        if (auto v = launch.number(m::kSharedBankConflicts)) r.bank_conflicts = r.bank_conflicts.value_or(0) + *v;
    }
    if (!r.bank_conflicts) missing.push_back(m::kSharedBankConflicts);

    // The binding limit: the roof the kernel runs nearest to, when it is near one.
    struct Candidate {
        std::string what;
        double fraction;
        std::string detail;
    };
    std::vector<Candidate> candidates;
    for (const auto& level : r.levels) {
        auto f = fraction_of_roof(level, r.time_s);
        // ncu's throughput percentage counts the unit's busy cycles, replays included: a unit
        // busier than its bytes say (bank conflicts, uncoalesced sectors) binds by that.
        double sol = level.speed_of_light_pct.value_or(0) / 100;
        if (!f && sol == 0) continue;
        std::string detail = f ? fmt::format("{}/s of {}/s", si(level.bytes / r.time_s, "B"), si(*level.peak_bytes_per_s, "B"))
                               : std::string("no byte roof known");
        if (sol > f.value_or(0) + 0.15) {
            detail += fmt::format("; ncu has the unit {:.0f}% busy, more than its bytes need: replayed accesses "
                                  "(bank conflicts, uncoalesced sectors)",
                                  100 * sol);
        }
        candidates.push_back({level.name + " bandwidth", std::max(f.value_or(0), sol), detail});
    }
    if (r.model.flops > 0 && r.peak_flops_per_s > 0 && r.time_s > 0) {
        double f = r.model.flops / r.time_s / r.peak_flops_per_s;
        candidates.push_back({"arithmetic", f,
                              fmt::format("{}/s of {}/s", si(r.model.flops / r.time_s, "FLOP"),
                                          si(r.peak_flops_per_s, "FLOP"))});
    }
    std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) { return a.fraction > b.fraction; });
    if (!candidates.empty()) r.nearest_roof = candidates.front().fraction;
    std::string occupancy_words;
    if (r.achieved_occupancy_pct) {
        occupancy_words = fmt::format("achieved occupancy {:.0f}%", *r.achieved_occupancy_pct);
        if (r.theoretical_occupancy_pct && *r.theoretical_occupancy_pct < 99 && !r.occupancy_limits.empty()) {
            occupancy_words += fmt::format(" of a theoretical {:.0f}% that {} cap", *r.theoretical_occupancy_pct,
                                           r.occupancy_limits.front().resource);
        }
    }
    if (candidates.empty()) {
        r.binding = "no roof is known for this GPU here (ncu gave no peaks and hardware/ has no figure), so no "
                    "limit can be named";
    } else if (candidates.front().fraction >= 0.6) {
        const auto& top = candidates.front();
        r.binding = fmt::format("{} binds: {} of its roof ({})", top.what, percent(top.fraction), top.detail);
        if (candidates.size() > 1) {
            r.binding += fmt::format("; next is {} at {}", candidates[1].what, percent(candidates[1].fraction));
        }
        r.binding += ".";
    } else {
        const auto& top = candidates.front();
        if (r.tail_effect()) {
            r.binding = fmt::format("no roof binds (the nearest, {}, is at {}): the average SM was busy only {} of "
                                    "the busiest one's cycles, so for part of the time most SMs had no block to "
                                    "run (a tail: the last wave ran on a few SMs)",
                                    top.what, percent(top.fraction), percent(*r.sm_busy_balance));
        } else {
            r.binding = fmt::format("no roof binds (the nearest, {}, is at {}): the kernel waits on latency", top.what,
                                    percent(top.fraction));
            if (r.achieved_occupancy_pct && *r.achieved_occupancy_pct < 40) {
                r.binding += fmt::format("; {}: too few warps in flight to cover it", occupancy_words);
            } else if (r.achieved_occupancy_pct) {
                r.binding += fmt::format("; {}, so the warps are there, and each waits on its own previous result "
                                         "(a dependent chain) or on a shared unit",
                                         occupancy_words);
            }
        }
        r.binding += ".";
    }

    // Signs the counters carry besides the binding limit.
    if (r.model.bytes > 0 && r.dram_bytes() > 1.2 * r.model.bytes) {
        r.signs.push_back(fmt::format(
            "DRAM moved {:.2f}x the model's bytes: sectors fetched and used in part, or data read again after the "
            "L2 evicted it (traversal order)",
            r.dram_bytes() / r.model.bytes));
    } else if (r.model.bytes > 0 && r.dram_bytes() < 0.8 * r.model.bytes) {
        r.signs.push_back(fmt::format(
            "DRAM moved only {:.2f}x the model's bytes: part of the data was still in the L2 (a working set "
            "smaller than the L2, or a cache state the profile did not flush)",
            r.dram_bytes() / r.model.bytes));
    }
    if (auto ratio = r.l2_over_dram(); ratio && *ratio > kL2OverDramUncoalesced) {
        r.signs.push_back(fmt::format("the L2 moved {:.1f}x what DRAM did (a coalesced copy moves about 1.6x on an "
                                      "H200, whose L2 is two partitions): data reused from the L2, or the same "
                                      "sectors requested again by uncoalesced accesses",
                                      *ratio));
    }
    if (r.sectors_per_request && *r.sectors_per_request > 16.5) {
        r.signs.push_back(fmt::format("global loads touch {:.1f} sectors per request (a coalesced warp of 4-byte "
                                      "loads touches 4, of 16-byte loads 16): each lane in a sector of its own; "
                                      "the DRAM and L2 rows say whether the L2 caught the rest of each sector or "
                                      "lost it first",
                                      *r.sectors_per_request));
    }
    if (r.l2_hit_rate_pct) {
        r.signs.push_back(fmt::format("L2 hit rate {:.1f}% of the sectors looked up", *r.l2_hit_rate_pct));
    }
    if (r.bank_conflicts && *r.bank_conflicts > 0) {
        r.signs.push_back(fmt::format("{} shared-memory bank conflicts: each one replays a shared access",
                                      count(*r.bank_conflicts)));
    }
    if (r.tail_effect()) {
        std::string waves = r.waves ? fmt::format(" over {:.2f} waves of blocks", *r.waves) : std::string();
        r.signs.push_back(fmt::format("the average SM was busy {} of the busiest SM's cycles{}: the last wave kept a "
                                      "few SMs working while the rest idled (a tail effect, wave quantization)",
                                      percent(*r.sm_busy_balance), waves));
    }
    if (r.theoretical_occupancy_pct && *r.theoretical_occupancy_pct < 50 && !r.occupancy_limits.empty()) {
        r.signs.push_back(fmt::format("theoretical occupancy {:.0f}%: {} allow only {:g} block(s) per SM",
                                      *r.theoretical_occupancy_pct, r.occupancy_limits.front().resource,
                                      r.occupancy_limits.front().blocks_per_sm));
    }
    if (r.model.flops > 0 && r.fp32_flops > 0 && std::abs(r.fp32_flops / r.model.flops - 1) > 0.05 &&
        r.tensor_instructions == 0) {
        r.signs.push_back(fmt::format("the FP32 pipe did {:.2f}x the model's FLOPs (extra arithmetic, or work "
                                      "the model does not count)",
                                      r.fp32_flops / r.model.flops));
    }
    return r;
}

std::string profile_text(const ProfileReport& r) {
    std::string out;
    out += fmt::format("{} at {} on {}: {} launch{} of {}\n", r.target, r.shape, r.gpu, r.launches,
                       r.launches == 1 ? "" : "es", fmt::join(r.kernels, ", "));
    out += fmt::format("  time      {} (ncu's replay of the launch; grading times it with CUDA events)\n",
                       seconds(r.time_s));
    out += fmt::format("  DRAM      read {}, written {}: {}", si(r.dram_read, "B"), si(r.dram_write, "B"),
                       si(r.dram_bytes(), "B"));
    if (r.model.bytes > 0) {
        out += fmt::format(", {:.3f}x the {} the model counts", r.dram_bytes() / r.model.bytes,
                           si(r.model.bytes, "B"));
    }
    out += "\n";
    if (auto ratio = r.byte_prediction_ratio()) {
        out += fmt::format("  you       predicted {}: measured is {:.3f}x that ({})\n", si(*r.predicted_bytes, "B"),
                           *ratio,
                           r.byte_prediction_close() ? "within 10%: the byte prediction holds"
                                                     : "more than 10% off: read the levels below for where the "
                                                       "bytes went");
    } else {
        out += "  you       no byte prediction for this source (roofline predict ... --bytes B)\n";
    }
    out += fmt::format("  FLOPs     FP32 pipe {} (FFMA {} x2, FADD {}, FMUL {}); tensor MMA instructions: HMMA {}, "
                       "GMMA {}; the model counts {}\n",
                       si(r.fp32_flops, "FLOP"), count(r.ffma), count(r.fadd), count(r.fmul), count(r.tensor_hmma),
                       count(r.tensor_gmma), si(r.model.flops, "FLOP"));
    out += "  roofline  level      bytes   FLOP/byte      achieved          roof   of roof  speed of light\n";
    for (const auto& level : r.levels) {
        double rate = r.time_s > 0 ? level.bytes / r.time_s : 0;
        std::string intensity = level.bytes > 0 ? fmt::format("{:.3g}", r.model.flops / level.bytes) : "-";
        std::string roof = level.peak_bytes_per_s ? si(*level.peak_bytes_per_s, "B/s") : "-";
        std::string of = level.peak_bytes_per_s ? percent(rate / *level.peak_bytes_per_s) : "-";
        out += fmt::format("            {:<5} {:>10} {:>11} {:>13} {:>13} {:>9}  {}{}\n", level.name,
                           si(level.bytes, "B"), intensity, si(rate, "B/s"), roof, of,
                           optional_pct(level.speed_of_light_pct),
                           level.peak_origin.empty() ? "" : "   (roof: " + level.peak_origin + ")");
    }
    if (r.model.flops > 0 && r.peak_flops_per_s > 0 && r.time_s > 0) {
        out += fmt::format("            arithmetic {} of {} ({}; roof: {})\n", si(r.model.flops / r.time_s, "FLOP/s"),
                           si(r.peak_flops_per_s, "FLOP/s"),
                           percent(r.model.flops / r.time_s / r.peak_flops_per_s), r.peak_origin);
    }
    out += fmt::format("  SOL       SM {}, memory {}\n", optional_pct(r.sol_sm_pct), optional_pct(r.sol_memory_pct));
    out += fmt::format("  occupancy achieved {}, theoretical {}", optional_pct(r.achieved_occupancy_pct),
                       optional_pct(r.theoretical_occupancy_pct));
    if (!r.occupancy_limits.empty()) {
        std::vector<std::string> limits;
        for (const auto& l : r.occupancy_limits) limits.push_back(fmt::format("{} {:g}", l.resource, l.blocks_per_sm));
        out += fmt::format("; blocks per SM allowed by {}", fmt::join(limits, ", "));
    }
    if (r.registers_per_thread) out += fmt::format("; {:g} registers per thread", *r.registers_per_thread);
    if (r.waves) out += fmt::format("; {:.2f} waves", *r.waves);
    if (r.sm_busy_balance) out += fmt::format("; SMs busy {} of the busiest one's cycles", percent(*r.sm_busy_balance));
    out += "\n";
    out += "  binds     " + r.binding + "\n";
    for (const auto& sign : r.signs) out += "  sign      " + sign + "\n";
    if (!r.missing_metrics.empty()) {
        out += fmt::format("  note      not in ncu's table (shown as - or 0): {}\n", fmt::join(r.missing_metrics, ", "));
    }
    return out;
}

nlohmann::json profile_json(const ProfileReport& r) {
    nlohmann::json levels = nlohmann::json::array();
    for (const auto& level : r.levels) {
        nlohmann::json j{{"level", level.name}, {"bytes", level.bytes}};
        if (level.peak_bytes_per_s) j["peak_bytes_per_s"] = *level.peak_bytes_per_s;
        j["peak_origin"] = level.peak_origin;
        if (level.speed_of_light_pct) j["speed_of_light_pct"] = *level.speed_of_light_pct;
        if (r.time_s > 0) j["achieved_bytes_per_s"] = level.bytes / r.time_s;
        if (level.bytes > 0) j["intensity"] = r.model.flops / level.bytes;
        levels.push_back(j);
    }
    auto optional = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    nlohmann::json limits = nlohmann::json::array();
    for (const auto& l : r.occupancy_limits) limits.push_back({{"resource", l.resource}, {"blocks_per_sm", l.blocks_per_sm}});
    nlohmann::json j{{"target", r.target},
                     {"shape", r.shape},
                     {"gpu", r.gpu},
                     {"kernels", r.kernels},
                     {"launches", r.launches},
                     {"time_s", r.time_s},
                     {"dram", {{"read_bytes", r.dram_read}, {"write_bytes", r.dram_write}, {"bytes", r.dram_bytes()}}},
                     {"model", {{"flops", r.model.flops}, {"bytes", r.model.bytes}}},
                     {"levels", levels},
                     {"flops", {{"fp32", r.fp32_flops}, {"ffma", r.ffma}, {"fadd", r.fadd}, {"fmul", r.fmul},
                                {"tensor_hmma", r.tensor_hmma}, {"tensor_gmma", r.tensor_gmma},
                                {"tensor_instructions", r.tensor_instructions}}},
                     {"peak_flops_per_s", r.peak_flops_per_s},
                     {"peak_origin", r.peak_origin},
                     {"speed_of_light", {{"sm_pct", optional(r.sol_sm_pct)}, {"memory_pct", optional(r.sol_memory_pct)}}},
                     {"occupancy", {{"achieved_pct", optional(r.achieved_occupancy_pct)},
                                    {"theoretical_pct", optional(r.theoretical_occupancy_pct)},
                                    {"limits", limits},
                                    {"registers_per_thread", optional(r.registers_per_thread)},
                                    {"waves", optional(r.waves)},
                                    {"sm_busy_balance", optional(r.sm_busy_balance)}}},
                     {"sectors_per_request", optional(r.sectors_per_request)},
                     {"shared_bank_conflicts", optional(r.bank_conflicts)},
                     {"l2_hit_rate_pct", optional(r.l2_hit_rate_pct)},
                     {"l2_over_dram", optional(r.l2_over_dram())},
                     {"binding", r.binding},
                     {"signs", r.signs},
                     {"missing_metrics", r.missing_metrics}};
    if (r.predicted_bytes) {
        j["byte_prediction"] = {{"predicted_bytes", *r.predicted_bytes},
                                {"ratio", *r.byte_prediction_ratio()},
                                {"within_10_percent", r.byte_prediction_close()}};
    }
    return j;
}

std::string profile_svg(const ProfileReport& r) {
    SvgCanvas c;
    const double left = 80, top = 50, width = 560, height = 320;
    c.text(left, 24, fmt::format("{} at {} on {}", r.target, r.shape, r.gpu), 15);
    const char* colors[] = {"#1f77b4", "#2ca02c", "#9467bd", "#d62728"};
    if (r.model.flops <= 0 || r.time_s <= 0) {
        // No FLOPs: each level's achieved bandwidth as a bar against its roof.
        c.text(left, 42, "no FLOPs: each level's achieved bandwidth against its roof", 12);
        double y = top + 10;
        for (std::size_t i = 0; i < r.levels.size(); ++i) {
            const auto& level = r.levels[i];
            double rate = r.time_s > 0 ? level.bytes / r.time_s : 0;
            double fraction = level.peak_bytes_per_s ? std::min(1.0, rate / *level.peak_bytes_per_s) : 0;
            c.element(fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"24\" fill=\"none\" stroke=\"#444\"/>",
                                  left + 60, y, width - 60),
                      left + width, y + 24);
            c.element(fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"24\" fill=\"{}\"/>", left + 60, y,
                                  (width - 60) * fraction, colors[i]),
                      left + width, y + 24);
            c.text(left, y + 17, level.name, 12);
            c.text(left + 66, y + 40,
                   level.peak_bytes_per_s ? fmt::format("{}/s of {}/s ({})", si(rate, "B"),
                                                        si(*level.peak_bytes_per_s, "B"), percent(fraction))
                                          : fmt::format("{}/s (no roof known)", si(rate, "B")),
                   11);
            y += 60;
        }
        return c.finish(left + width + 20, y + 10);
    }
    // Log-log: intensity across, FLOP/s up.
    double peak = r.peak_flops_per_s > 0 ? r.peak_flops_per_s : r.model.flops / r.time_s;
    double achieved = r.model.flops / r.time_s;
    double x_lo = 1e-2, x_hi = 1e4;
    double y_hi = std::pow(10, std::ceil(std::log10(peak * 1.5)));
    double y_lo = y_hi / 1e5;
    auto X = [&](double v) { return left + (std::log10(v) - std::log10(x_lo)) / (std::log10(x_hi) - std::log10(x_lo)) * width; };
    auto Y = [&](double v) {
        v = std::clamp(v, y_lo, y_hi);
        return top + height - (std::log10(v) - std::log10(y_lo)) / (std::log10(y_hi) - std::log10(y_lo)) * height;
    };
    c.element(fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>", left, top,
                          width, height),
              left + width, top + height);
    for (double d = x_lo; d <= x_hi * 1.001; d *= 10) c.text(X(d), top + height + 16, fmt::format("{:g}", d), 10, "middle");
    for (double d = y_lo; d <= y_hi * 1.001; d *= 10) c.text(left - 6, Y(d) + 4, si(d, "FLOP/s", 3), 10, "end");
    c.text(left + width / 2, top + height + 34, "FLOP per byte at each level (model FLOPs / measured bytes)", 12, "middle");
    if (r.peak_flops_per_s > 0) {
        c.element(fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#d62728\"/>", left, Y(peak),
                              left + width, Y(peak)),
                  left + width, top + height);
        c.text(left + width - 4, Y(peak) - 4, "arithmetic roof " + si(peak, "FLOP/s"), 10, "end");
    }
    double legend_y = top + height + 56;
    for (std::size_t i = 0; i < r.levels.size(); ++i) {
        const auto& level = r.levels[i];
        if (level.peak_bytes_per_s) {
            double bw = *level.peak_bytes_per_s;
            double ridge = peak / bw;
            double x_end = std::min(x_hi, ridge);
            c.element(fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
                                  "stroke-dasharray=\"6 3\"/>",
                                  X(x_lo), Y(bw * x_lo), X(x_end), Y(bw * x_end), colors[i]),
                      left + width, top + height);
        }
        if (level.bytes > 0) {
            double intensity = r.model.flops / level.bytes;
            if (intensity >= x_lo && intensity <= x_hi) {
                c.element(fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\"><title>{}: {:.3g} "
                                      "FLOP/byte, {}</title></circle>",
                                      X(intensity), Y(achieved), colors[i], level.name, intensity,
                                      si(achieved, "FLOP/s")),
                          left + width, top + height);
            }
        }
        c.text(left, legend_y, fmt::format("{} ({}): dashed roof {}, dot at {} FLOP/byte", level.name, colors[i],
                                           level.peak_bytes_per_s ? si(*level.peak_bytes_per_s, "B/s") : "unknown",
                                           level.bytes > 0 ? fmt::format("{:.3g}", r.model.flops / level.bytes) : "-"),
               11, "start", fmt::format("fill=\"{}\"", colors[i]));
        legend_y += 16;
    }
    return c.finish(left + width + 20, legend_y);
}

}  // namespace roofline
