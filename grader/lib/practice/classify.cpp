#include "classify.hpp"
#include "attention/model.hpp"

#include "elementwise/model.hpp"
#include "gemm/model.hpp"
#include "input_error.hpp"
#include "units.hpp"
#include "yaml_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>

namespace roofline::classify {

std::string_view op_kind_name(OpKind kind) {
    switch (kind) {
        case OpKind::gemm: return "gemm";
        case OpKind::elementwise: return "elementwise";
        case OpKind::raw: return "raw";
        case OpKind::attention: return "attention";
    }
    return "?";
}

std::string_view question_type_name(QuestionType type) {
    switch (type) {
        case QuestionType::regime: return "regime";
        case QuestionType::predict: return "predict";
        case QuestionType::lever: return "lever";
        case QuestionType::read_roofline: return "read_roofline";
        case QuestionType::littles_law: return "littles_law";
        case QuestionType::tile_intensity: return "tile_intensity";
        case QuestionType::incident: return "incident";
    }
    return "?";
}

namespace {
constexpr std::array<Lever, 5> kLevers{Lever::fuse, Lever::graph, Lever::tensor_cores, Lever::fp8, Lever::batch};
}

std::string_view lever_name(Lever lever) {
    switch (lever) {
        case Lever::fuse: return "fuse";
        case Lever::graph: return "graph";
        case Lever::tensor_cores: return "tensor_cores";
        case Lever::fp8: return "fp8";
        case Lever::batch: return "batch";
    }
    return "?";
}

std::optional<Lever> parse_lever(std::string_view name) {
    for (auto lever : kLevers) {
        if (lever_name(lever) == name) return lever;
    }
    return std::nullopt;
}

std::vector<std::string> answer_fields(QuestionType type) {
    switch (type) {
        case QuestionType::regime: return {"regime", "time_us"};
        case QuestionType::predict: return {"time_us"};
        case QuestionType::lever: return {"helps"};
        case QuestionType::read_roofline: return {"regime", "fraction"};
        case QuestionType::littles_law: return {"kib_per_sm", "stages"};
        case QuestionType::tile_intensity: return {"flop_per_byte", "regime"};
        case QuestionType::incident: return {"regime", "time_us"};
    }
    return {};
}

Workload workload_of(const Operation& op) {
    double size = dtype_bytes(op.dtype);
    switch (op.kind) {
        case OpKind::gemm: return gemm::work_of(op.m, op.n, op.k, size);
        case OpKind::elementwise: return elementwise::work_of(op.count, op.reads, op.writes, op.flops_per_element, size);
        case OpKind::raw: return {op.flops, op.bytes};
        case OpKind::attention:
            // One model with `roofline calc --attention` and lesson 08 (attention/model.hpp): unfused,
            // the fp32 scores go through memory four times, as in lab 08's given kernels.
            return op.materialized ? attention::unfused_work_of(op.batch, op.heads, op.seq, op.head_dim, false, size)
                                   : attention::work_of(op.batch, op.heads, op.seq, op.head_dim, false, size);
    }
    return {};
}

Dtype compute_dtype(const Operation& op) {
    if (op.kind == OpKind::elementwise) return op.dtype == Dtype::fp64 ? Dtype::fp64 : Dtype::fp32;
    return op.dtype;
}

Ceiling ceiling_for(const Operation& op, const HardwareProfile& profile) {
    return profile.datasheet_ceiling(compute_dtype(op));
}

namespace {

// The floor of an operation against a ceiling, launches included.
Expected floor_answer(const Question& question, const Ceiling& ceiling, double launch_overhead_s) {
    Expected e;
    e.work = workload_of(question.op);
    e.ceiling = ceiling;
    double overhead_s = question.launches * launch_overhead_s;
    e.point = analyze(e.work, e.ceiling, overhead_s);
    e.regime = e.point.regime;
    e.overhead_us = overhead_s * 1e6;
    e.time_us = e.point.time_floor_s * 1e6;  // the floor, launches included (roofline.hpp)
    return e;
}

[[noreturn]] void unanswerable(const Question& q, const std::string& why) {
    throw InputError(q.file, q.line, fmt::format("question '{}' has no answer: {}", q.id, why));
}

// The question as it stands after `lever`, and how many of the original problems it holds.
std::pair<Question, double> with_lever(const Question& q, Lever lever, const HardwareProfile& profile) {
    Question changed = q;
    double problems = 1;
    auto& op = changed.op;
    switch (lever) {
        case Lever::fuse:
            changed.launches = 1;
            if (op.kind == OpKind::elementwise) {
                if (q.fused_reads < 0 || q.fused_writes < 0) {
                    unanswerable(q, "the fuse lever on an elementwise op needs fused: {reads: R, writes: W}");
                }
                op.reads = q.fused_reads;
                op.writes = q.fused_writes;
            }
            if (op.kind == OpKind::attention) op.materialized = false;
            break;
        case Lever::graph: break;  // the launch cost changes, below
        case Lever::tensor_cores:
            if (op.dtype == Dtype::fp32 && op.kind != OpKind::elementwise) op.dtype = Dtype::tf32;
            break;
        case Lever::fp8:
            if (!profile.supports(Dtype::fp8)) unanswerable(q, profile.id + " has no fp8 unit; drop the fp8 lever");
            op.dtype = Dtype::fp8;
            break;
        case Lever::batch:
            if (q.batch < 2) unanswerable(q, "the batch lever needs batch: N (2 or more problems per launch)");
            problems = q.batch;
            switch (op.kind) {
                case OpKind::gemm: op.m *= problems; break;  // more rows share the same B
                case OpKind::elementwise: op.count *= problems; break;
                case OpKind::attention: op.batch *= problems; break;
                case OpKind::raw:
                    op.flops *= problems;
                    op.bytes *= problems;
                    break;
            }
            break;
    }
    if (changed.op.kind != OpKind::elementwise && !profile.supports(compute_dtype(changed.op))) {
        unanswerable(q, fmt::format("{} has no {} unit for lever {}", profile.id, dtype_name(compute_dtype(changed.op)),
                                    lever_name(lever)));
    }
    return {changed, problems};
}

// The step's floor at the datasheet's copy rate and bf16 tensor roof, and read_step's reading of
// the table: the same rules `roofline serve` applies to a run (lesson 10).
Expected incident_answer(const Question& q, const HardwareProfile& profile, double launch_overhead_s) {
    const auto& t = q.step;
    auto model = llama3_8b_shapes();
    if (t.vocab_rows > 0) model.vocab = t.vocab_rows;
    std::vector<long long> contexts(std::size_t(t.batch), t.context);
    Expected e;
    e.ceiling = profile.datasheet_ceiling(Dtype::bf16);
    const double copy = e.ceiling.bandwidth_tbs * 1e12, tensor = e.ceiling.peak_tflops * 1e12;
    const double fp32 = profile.datasheet_ceiling(Dtype::fp32).peak_tflops * 1e12;
    e.step_floor = decode_step_floor(model, contexts, copy, tensor);
    auto costs = decode_step_ops(model, contexts);
    for (const auto& op : t.ops) {
        if (std::none_of(costs.begin(), costs.end(), [&](const DecodeOpCost& c) { return c.name == op.name; }))
            unanswerable(q, fmt::format("op '{}' is not an op of the decode step", op.name));
    }
    StepTiming timing{t.step_s, t.single_step_s, t.host_enqueue_s, t.launches, t.graph ? kGraphNodeS : launch_overhead_s};
    e.reading = read_step(costs, t.ops, timing, e.step_floor, copy, fp32);
    e.regime = *parse_regime(e.reading.regime);
    e.time_us = e.step_floor.floor_s * 1e6;
    e.work = {e.step_floor.flops, e.step_floor.bytes};
    return e;
}

}  // namespace

Expected expected_answer(const Question& q, const HardwareProfile& profile, double launch_overhead_s) {
    switch (q.type) {
        case QuestionType::regime: return floor_answer(q, ceiling_for(q.op, profile), launch_overhead_s);
        case QuestionType::predict:
            return floor_answer(q, Ceiling{q.measured_tflops, q.measured_tbs}, launch_overhead_s);
        case QuestionType::lever: {
            auto e = floor_answer(q, ceiling_for(q.op, profile), launch_overhead_s);
            if (q.levers.empty()) unanswerable(q, "it offers no levers; list some under levers:");
            for (auto lever : q.levers) {
                auto [changed, problems] = with_lever(q, lever, profile);
                double overhead_s = lever == Lever::graph ? kGraphNodeS : launch_overhead_s;
                double per_problem_us = floor_answer(changed, ceiling_for(changed.op, profile), overhead_s).time_us / problems;
                double share = per_problem_us / e.time_us;
                if (share > kLeverHelps && share < kLeverNothing) {
                    unanswerable(q, fmt::format("lever {} leaves {:.0f}% of the time, too close to call (helps at "
                                                "{:.0f}% or less, nothing at {:.0f}% or more); change the operation "
                                                "or drop the lever",
                                                lever_name(lever), 100 * share, 100 * kLeverHelps,
                                                100 * kLeverNothing));
                }
                e.lever_time_us.emplace_back(lever, per_problem_us);
                if (share <= kLeverHelps) e.helps.push_back(lever);
            }
            return e;
        }
        case QuestionType::read_roofline: {
            Expected e;
            e.ceiling = profile.datasheet_ceiling(q.dtype);
            double memory_roof = e.ceiling.bandwidth_tbs * q.point_flop_per_byte;
            double attainable = std::min(e.ceiling.peak_tflops, memory_roof);
            e.regime = memory_roof < e.ceiling.peak_tflops ? Regime::memory : Regime::compute;
            e.fraction = q.point_tflops / attainable;
            if (e.fraction > 1 + 1e-9) {
                unanswerable(q, fmt::format("the point ({:g} TFLOP/s) is above the roof ({:.4g} TFLOP/s at {:g} "
                                            "FLOP/B), which no kernel reaches; lower point.tflops",
                                            q.point_tflops, attainable, q.point_flop_per_byte));
            }
            e.point.intensity = q.point_flop_per_byte;
            e.point.ridge = e.ceiling.peak_tflops / e.ceiling.bandwidth_tbs;
            e.point.attainable_tflops = attainable;
            return e;
        }
        case QuestionType::littles_law: {
            Expected e;
            if (profile.sm_count <= 0) unanswerable(q, profile.id + " lists no sm_count");
            e.ceiling.bandwidth_tbs = q.bandwidth_tbs > 0 ? q.bandwidth_tbs : profile.memory.bandwidth_tbs;
            e.bytes_in_flight = e.ceiling.bandwidth_tbs * 1e12 * q.latency_ns * 1e-9;
            e.sm_count = profile.sm_count;
            e.kib_per_sm = e.bytes_in_flight / profile.sm_count / 1024;
            // A hair of slack so that an exact multiple of the stage is not rounded up by float error.
            e.stages = int(std::ceil(e.kib_per_sm / q.stage_kib - 1e-9)) + 1;
            return e;
        }
        case QuestionType::tile_intensity: {
            Expected e;
            e.ceiling = profile.datasheet_ceiling(q.dtype);
            e.flop_per_byte = 2 * q.tile_m * q.tile_n / ((q.tile_m + q.tile_n) * dtype_bytes(q.dtype));
            e.point.intensity = e.flop_per_byte;
            e.point.ridge = e.ceiling.peak_tflops / e.ceiling.bandwidth_tbs;
            e.regime = e.flop_per_byte >= e.point.ridge ? Regime::compute : Regime::memory;
            return e;
        }
        case QuestionType::incident: return incident_answer(q, profile, launch_overhead_s);
    }
    return {};
}

namespace {

std::string count_text(double value) {
    // Shapes are whole numbers; print them with thousands separators for reading.
    auto digits = fmt::format("{:.0f}", value);
    std::string out;
    int since = 0;
    for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
        if (since == 3) {
            out.insert(out.begin(), ',');
            since = 0;
        }
        out.insert(out.begin(), *it);
        ++since;
    }
    return out;
}

std::string unit_name(const Operation& op) {
    auto dtype = compute_dtype(op);
    if (op.kind == OpKind::elementwise) {
        return fmt::format("{} on the CUDA cores (elementwise math does not use the tensor cores)", dtype_name(dtype));
    }
    if (dtype == Dtype::fp64 || dtype == Dtype::fp32) return fmt::format("{} on the CUDA cores", dtype_name(dtype));
    return fmt::format("{} tensor core", dtype_name(dtype));
}

std::string operation_text(const Operation& op) {
    auto dt = dtype_name(op.dtype);
    switch (op.kind) {
        case OpKind::gemm:
            return fmt::format("GEMM C[M,N] = A[M,K] B[K,N] with M = {}, N = {}, K = {}; A, B and C in {}.",
                               count_text(op.m), count_text(op.n), count_text(op.k), dt);
        case OpKind::elementwise:
            return fmt::format(
                "Elementwise over {} elements of {}: per element {:g} value(s) read, {:g} written, {:g} FLOP.",
                count_text(op.count), dt, op.reads, op.writes, op.flops_per_element);
        case OpKind::raw:
            return fmt::format("A kernel that does {} of {} arithmetic and must move {} through device memory.",
                               si(op.flops, "FLOP"), dt, si(op.bytes, "B"));
        case OpKind::attention:
            return fmt::format(
                "Attention softmax(Q K^T) V: batch {}, {} heads, seq {}, head_dim {}, {}; {}.",
                count_text(op.batch), count_text(op.heads), count_text(op.seq), count_text(op.head_dim), dt,
                op.materialized ? "unfused, as lab 08's given kernels: the seq x seq scores go through memory in "
                                  "fp32, written by Q K^T, read and written back by the softmax, read by P V"
                                : "fused: the scores stay on chip (FlashAttention-style)");
    }
    return "?";
}

}  // namespace

std::string counting_rules() {
    return "Counting rules (elements x bytes per element; bf16/fp16 2 B, fp32 4 B, fp8 1 B, fp4 0.5 B):\n"
           "  GEMM         2*M*N*K FLOP; bytes (M*K + K*N + M*N) elements, each matrix moved once\n"
           "  elementwise  n * FLOP-per-element; bytes n * (reads + writes) elements\n"
           "  attention    4*batch*heads*seq^2*head_dim FLOP (softmax not counted); bytes Q, K, V, O:\n"
           "               4*batch*heads*seq*head_dim elements, plus 16*batch*heads*seq^2 bytes when the\n"
           "               scores are materialized (fp32, four passes: written, read, written, read; lesson 08,\n"
           "               `roofline calc --attention`)\n"
           "  time floor   max(FLOP / peak, bytes / bandwidth, launches x launch overhead)\n"
           "  regime       overhead if the roofline floor max(FLOP/peak, bytes/bandwidth) is below\n"
           "               launches x launch overhead; else compute if FLOP/byte >= peak/bandwidth, else memory\n"
           "  predict      the time floor at the measured rates the question gives instead of the datasheet's\n"
           "  lever        a change helps if it cuts the time floor per problem to 80% or less; it does\n"
           "               nothing if it leaves 95% or more (a CUDA graph node costs about 1 us)\n"
           "  roofline     the roof above a point at I FLOP/B is min(peak, bandwidth x I); fraction = the\n"
           "               point's TFLOP/s / that roof; regime = the roof that is lower there\n"
           "  Little's law bytes in flight = bandwidth x latency; per SM = that / SMs (1 KiB = 1024 B);\n"
           "               ring stages = ceil(KiB per SM / stage KiB) in flight + 1 being read\n"
           "  tile         a BM x BN tile of C loads (BM + BN) x BK elements per K step for 2 x BM x BN x BK\n"
           "               FLOP: 2*BM*BN / ((BM + BN) * bytes per element) FLOP/B; compute if >= the ridge\n";
}

namespace {

std::string lever_text(const Question& q, Lever lever) {
    switch (lever) {
        case Lever::fuse:
            if (q.op.kind == OpKind::elementwise) {
                return fmt::format("fuse: one kernel, each element reading {:g} and writing {:g} value(s)",
                                   q.fused_reads, q.fused_writes);
            }
            if (q.op.kind == OpKind::attention) return "fuse: one kernel, the scores kept on chip";
            return "fuse: one kernel instead of the launches given";
        case Lever::graph: return "graph: the launches replayed from a CUDA graph (about 1 us per dependent node)";
        case Lever::tensor_cores: return "tensor_cores: the math on the tensor cores (tf32 for fp32 data)";
        case Lever::fp8: return "fp8: the data stored in fp8 (1 byte per element)";
        case Lever::batch: return fmt::format("batch: {} such problems in one launch, time counted per problem", q.batch);
    }
    return "?";
}

std::string peak_text(const HardwareProfile& profile, Dtype dtype) {
    return fmt::format("{:g} TFLOP/s {}", profile.datasheet_ceiling(dtype).peak_tflops,
                       dtype == Dtype::fp64 || dtype == Dtype::fp32 ? fmt::format("{} on the CUDA cores", dtype_name(dtype))
                                                                    : fmt::format("{} tensor core", dtype_name(dtype)));
}

}  // namespace

std::string prompt_text(const Question& q, const HardwareProfile& profile, double launch_overhead_s) {
    std::string head = fmt::format("[{}] ({}, difficulty {}, lesson {:02}) on {} ({})\n", q.id,
                                   question_type_name(q.type), q.difficulty, q.lesson, profile.name, profile.id);
    std::string text;
    switch (q.type) {
        case QuestionType::regime:
        case QuestionType::predict:
        case QuestionType::lever: {
            auto dtype = compute_dtype(q.op);
            auto it = profile.peak.find(dtype);
            std::string peak;
            if (it == profile.peak.end()) {
                peak = fmt::format("no {} unit", dtype_name(dtype));
            } else if (q.quote_sparse && it->second.sparse_tflops) {
                peak = fmt::format("{:g}* TFLOP/s {} (datasheet; footnote: * with sparsity)",
                                   *it->second.sparse_tflops, unit_name(q.op));
            } else {
                peak = fmt::format("{:g} TFLOP/s {}", it->second.dense_tflops, unit_name(q.op));
            }
            text = fmt::format("  {}\n  GPU: {}; memory {:g} TB/s; {:g} us per kernel launch.\n", operation_text(q.op),
                               peak, profile.memory.bandwidth_tbs, launch_overhead_s * 1e6);
            if (q.launches > 1) text += fmt::format("  It takes {} separate kernel launches.\n", q.launches);
            if (q.type == QuestionType::predict) {
                text += fmt::format("  Measured on this GPU: {:g} TB/s and {:g} TFLOP/s ({}). Predict the time at "
                                    "those rates.\n",
                                    q.measured_tbs, q.measured_tflops, q.measured_source);
            }
            if (q.type == QuestionType::lever) {
                text += "  Which of these changes cut its time per problem to 80% or less?\n";
                for (auto lever : q.levers) text += fmt::format("    - {}\n", lever_text(q, lever));
            }
            break;
        }
        case QuestionType::read_roofline:
            text = fmt::format("  The {} roofline: peak {}, memory {:g} TB/s.\n"
                               "  A kernel is plotted at {:g} FLOP/B and {:g} TFLOP/s. Which roof is above it (memory "
                               "or compute), and what fraction of that roof does it reach?\n",
                               dtype_name(q.dtype), peak_text(profile, q.dtype), profile.memory.bandwidth_tbs,
                               q.point_flop_per_byte, q.point_tflops);
            break;
        case QuestionType::littles_law:
            text = fmt::format("  {} SMs; memory {:g} TB/s{}. Latency to cover: {:g} ns.\n"
                               "  How many KiB must each SM keep in flight to stream at that rate, and how many ring "
                               "stages of {:g} KiB does that take, counting the one being read?\n",
                               profile.sm_count, q.bandwidth_tbs > 0 ? q.bandwidth_tbs : profile.memory.bandwidth_tbs,
                               q.bandwidth_tbs > 0 ? " (the rate to sustain, as given)" : " (datasheet)", q.latency_ns, q.stage_kib);
            break;
        case QuestionType::incident: {
            const auto& t = q.step;
            text = fmt::format("  A decode step of Llama-3-8B's shapes (hidden 4096, 32 layers, GQA 32/8 heads of 128, MLP "
                               "14336, LM head {} rows, bf16): batch {}, {} cached tokens per sequence, {}, {} launches a "
                               "step.\n  GPU: {}; memory {:g} TB/s; fp32 {:g} TFLOP/s on the CUDA cores; {:g} us per {}.\n"
                               "  Measured: step {:.3f} ms; one step alone {:.3f} ms on the GPU, enqueued by the host in "
                               "{:.3f} ms. The step by op (one eager step, an event before each op):\n",
                               t.vocab_rows > 0 ? t.vocab_rows : llama3_8b_shapes().vocab, t.batch, t.context,
                               t.graph ? "from a CUDA graph" : "eager", t.launches, peak_text(profile, Dtype::bf16),
                               profile.memory.bandwidth_tbs, profile.datasheet_ceiling(Dtype::fp32).peak_tflops,
                               t.graph ? kGraphNodeS * 1e6 : launch_overhead_s * 1e6, t.graph ? "graph node" : "kernel launch",
                               t.step_s * 1e3, t.single_step_s * 1e3, t.host_enqueue_s * 1e3);
            for (const auto& op : t.ops) text += fmt::format("    {:<14} {:9.3f} ms\n", op.name, op.seconds * 1e3);
            text += "  Which regime binds the step, and what is its floor (bytes at the memory rate or FLOPs at the "
                    "tensor roof, whichever is longer)?\n";
            break;
        }
        case QuestionType::tile_intensity:
            text = fmt::format("  Peak {}, memory {:g} TB/s.\n"
                               "  A block computes a {:g} x {:g} tile of C, stepping along K, operands in {}. How many "
                               "FLOP per byte does it do for the bytes it loads? If every tile came from DRAM, would it "
                               "be compute- or memory-bound?\n",
                               peak_text(profile, q.dtype), profile.memory.bandwidth_tbs, q.tile_m, q.tile_n,
                               dtype_name(q.dtype));
            break;
    }
    if (!q.prompt.empty()) text += fmt::format("  {}\n", q.prompt);
    text += fmt::format("  Answer with: {}\n", fmt::join(answer_fields(q.type), ", "));
    return head + text;
}

std::string working(const Question& q, const Expected& e) {
    switch (q.type) {
        case QuestionType::regime:
        case QuestionType::predict: break;  // below
        case QuestionType::lever: {
            std::vector<std::string> parts;
            for (auto [lever, us] : e.lever_time_us) {
                parts.push_back(fmt::format("{} -> {} per problem ({:.0f}%)", lever_name(lever), seconds(us * 1e-6),
                                            100 * us / e.time_us));
            }
            return fmt::format("floor now {} ({}-bound); {}", seconds(e.time_us * 1e-6), regime_name(e.regime),
                               fmt::join(parts, "; "));
        }
        case QuestionType::read_roofline:
            return fmt::format("memory roof {:g} TB/s x {:g} FLOP/B = {:.4g} TFLOP/s {} peak {:g} -> the {} roof is "
                               "above it; {:g} / {:.4g} = {:.2f}",
                               e.ceiling.bandwidth_tbs, q.point_flop_per_byte,
                               e.ceiling.bandwidth_tbs * q.point_flop_per_byte,
                               e.regime == Regime::memory ? "<" : ">=", e.ceiling.peak_tflops, regime_name(e.regime),
                               q.point_tflops, e.point.attainable_tflops, e.fraction);
        case QuestionType::littles_law:
            return fmt::format("{:g} TB/s x {:g} ns = {}; / {} SMs = {:.1f} KiB per SM; ceil({:.1f} / {:g}) = {} in "
                               "flight + 1 being read = {} stages",
                               e.ceiling.bandwidth_tbs, q.latency_ns, si(e.bytes_in_flight, "B"), e.sm_count,
                               e.kib_per_sm, e.kib_per_sm, q.stage_kib, e.stages - 1, e.stages);
        case QuestionType::incident:
            return fmt::format("floor: {} / {:g} TB/s = {}, {} / {:g} TFLOP/s = {} -> {}; the step at {:.0f}% of it; {} "
                               "-> {}",
                               si(e.step_floor.bytes, "B"), e.ceiling.bandwidth_tbs, seconds(e.step_floor.bytes_s),
                               si(e.step_floor.flops, "FLOP"), e.ceiling.peak_tflops, seconds(e.step_floor.flops_s),
                               seconds(e.step_floor.floor_s), 100 * e.reading.fraction, e.reading.evidence,
                               e.reading.regime);
        case QuestionType::tile_intensity:
            return fmt::format("2 x {:g} x {:g} / (({:g} + {:g}) x {:g} B) = {:.4g} FLOP/B {} ridge {:.4g} -> {}-bound",
                               q.tile_m, q.tile_n, q.tile_m, q.tile_n, dtype_bytes(q.dtype), e.flop_per_byte,
                               e.flop_per_byte >= e.point.ridge ? ">=" : "<", e.point.ridge, regime_name(e.regime));
    }
    const auto& p = e.point;
    std::string verdict;
    if (e.regime == Regime::overhead) {
        verdict = fmt::format("; roofline floor {} < {} launch(es) x {} = {} -> overhead-bound, floor {}",
                              seconds(p.floor_s), q.launches, seconds(e.overhead_us * 1e-6 / q.launches),
                              seconds(e.overhead_us * 1e-6), seconds(e.time_us * 1e-6));
    } else {
        verdict = fmt::format(" -> {}-bound, floor {}", regime_name(e.regime), seconds(e.time_us * 1e-6));
    }
    return fmt::format("{} / {:g} TFLOP/s = {}; {} / {:g} TB/s = {}; intensity {:.4g} FLOP/B {} ridge {:.4g}{}",
                       si(e.work.flops, "FLOP"), e.ceiling.peak_tflops, seconds(p.compute_floor_s),
                       si(e.work.bytes, "B"), e.ceiling.bandwidth_tbs, seconds(p.memory_floor_s), p.intensity,
                       p.intensity >= p.ridge ? ">=" : "<", p.ridge, verdict);
}

// ---------------------------------------------------------------- the bank

namespace {

bool read_bool(const YamlView& view) {
    auto text = view.as_string();
    if (text == "true") return true;
    if (text == "false") return false;
    view.fail(fmt::format("must be true or false (got '{}')", text));
}

Operation read_operation(const YamlView& view) {
    if (!view.node().IsMap()) view.fail("must be a mapping such as {kind: gemm, dtype: bf16, m: 4096, n: 4096, k: 4096}");
    Operation op;
    auto kind = view.string("kind");
    op.dtype = require_dtype(view.string("dtype"),
                             fmt::format("{}:{}: field '{}.dtype'", view.file().string(), view.at("dtype").line(),
                                         view.path()));
    if (kind == "gemm") {
        view.only_keys({"kind", "dtype", "m", "n", "k"});
        op.kind = OpKind::gemm;
        op.m = double(view.positive_int("m"));
        op.n = double(view.positive_int("n"));
        op.k = double(view.positive_int("k"));
    } else if (kind == "elementwise") {
        view.only_keys({"kind", "dtype", "n", "reads", "writes", "flops_per_element"});
        op.kind = OpKind::elementwise;
        op.count = double(view.positive_int("n"));
        op.reads = view.at("reads").as_nonnegative_double();
        op.writes = view.at("writes").as_nonnegative_double();
        op.flops_per_element = view.at("flops_per_element").as_nonnegative_double();
        if (op.reads + op.writes <= 0) view.fail("moves no bytes: give reads or writes a value above 0");
    } else if (kind == "raw") {
        view.only_keys({"kind", "dtype", "flops", "bytes"});
        op.kind = OpKind::raw;
        op.flops = view.at("flops").as_nonnegative_double();
        op.bytes = view.positive("bytes");
    } else if (kind == "attention") {
        view.only_keys({"kind", "dtype", "batch", "heads", "seq", "head_dim", "materialized"});
        op.kind = OpKind::attention;
        op.batch = double(view.positive_int("batch"));
        op.heads = double(view.positive_int("heads"));
        op.seq = double(view.positive_int("seq"));
        op.head_dim = double(view.positive_int("head_dim"));
        op.materialized = read_bool(view.at("materialized"));
    } else {
        view.at("kind").fail(fmt::format("must be gemm, elementwise, raw or attention (got '{}')", kind));
    }
    return op;
}

}  // namespace

namespace {

QuestionType read_type(const YamlView& view) {
    auto text = view.as_string();
    for (auto type : {QuestionType::regime, QuestionType::predict, QuestionType::lever, QuestionType::read_roofline,
                      QuestionType::littles_law, QuestionType::tile_intensity, QuestionType::incident}) {
        if (question_type_name(type) == text) return type;
    }
    view.fail(fmt::format("must be regime, predict, lever, read_roofline, littles_law, tile_intensity or incident "
                          "(got '{}')",
                          text));
}

Dtype read_dtype(const YamlView& item, const std::string& key) {
    return require_dtype(item.string(key), fmt::format("{}:{}: field '{}'", item.file().string(),
                                                       item.at(key).line(), key));
}

// The fields each type reads besides id, type, difficulty, lesson, gpu, prompt and explanation.
std::vector<std::string> type_keys(QuestionType type) {
    switch (type) {
        case QuestionType::regime: return {"op", "launches", "quote_sparse"};
        case QuestionType::predict: return {"op", "launches", "measured"};
        case QuestionType::lever: return {"op", "launches", "levers", "fused", "batch"};
        case QuestionType::read_roofline: return {"dtype", "point"};
        case QuestionType::littles_law: return {"latency_ns", "bandwidth_tbs", "stage_kib"};
        case QuestionType::tile_intensity: return {"dtype", "tile"};
        case QuestionType::incident: return {"step", "ops"};
    }
    return {};
}

void read_type_fields(const YamlView& item, Question& q) {
    switch (q.type) {
        case QuestionType::regime:
        case QuestionType::predict:
        case QuestionType::lever:
            q.op = read_operation(item.at("op"));
            if (auto launches = item.maybe("launches")) q.launches = int(launches->as_positive_int());
            break;
        default: break;
    }
    switch (q.type) {
        case QuestionType::regime:
            if (auto quote = item.maybe("quote_sparse")) q.quote_sparse = read_bool(*quote);
            break;
        case QuestionType::predict: {
            auto measured = item.at("measured");
            if (!measured.node().IsMap()) {
                measured.fail("must be a mapping such as {bandwidth_tbs: 4.2, peak_tflops: 690, source: \"...\"}");
            }
            measured.only_keys({"bandwidth_tbs", "peak_tflops", "source"});
            q.measured_tbs = measured.positive("bandwidth_tbs");
            q.measured_tflops = measured.positive("peak_tflops");
            q.measured_source = measured.string("source");
            break;
        }
        case QuestionType::lever: {
            for (const auto& name : item.at("levers").as_string_list()) {
                auto lever = parse_lever(name);
                if (!lever) {
                    item.at("levers").fail(
                        fmt::format("names lever '{}'; the levers are fuse, graph, tensor_cores, fp8 and batch", name));
                }
                q.levers.push_back(*lever);
            }
            if (auto fused = item.maybe("fused")) {
                if (!fused->node().IsMap()) fused->fail("must be a mapping such as {reads: 1, writes: 1}");
                fused->only_keys({"reads", "writes"});
                q.fused_reads = fused->at("reads").as_nonnegative_double();
                q.fused_writes = fused->at("writes").as_nonnegative_double();
            }
            if (auto batch = item.maybe("batch")) q.batch = int(batch->as_positive_int());
            break;
        }
        case QuestionType::read_roofline: {
            q.dtype = read_dtype(item, "dtype");
            auto point = item.at("point");
            if (!point.node().IsMap()) point.fail("must be a mapping such as {flop_per_byte: 40, tflops: 120}");
            point.only_keys({"flop_per_byte", "tflops"});
            q.point_flop_per_byte = point.positive("flop_per_byte");
            q.point_tflops = point.positive("tflops");
            break;
        }
        case QuestionType::littles_law:
            q.latency_ns = item.positive("latency_ns");
            if (auto bandwidth = item.maybe("bandwidth_tbs")) q.bandwidth_tbs = bandwidth->as_positive_double();
            q.stage_kib = item.positive("stage_kib");
            break;
        case QuestionType::tile_intensity: {
            q.dtype = read_dtype(item, "dtype");
            auto tile = item.at("tile");
            if (!tile.node().IsMap()) tile.fail("must be a mapping such as {bm: 128, bn: 256}");
            tile.only_keys({"bm", "bn"});
            q.tile_m = double(tile.positive_int("bm"));
            q.tile_n = double(tile.positive_int("bn"));
            break;
        }
        case QuestionType::incident: {
            auto step = item.at("step");
            if (!step.node().IsMap())
                step.fail("must be a mapping such as {batch: 1, context: 4096, graph: true, launches: 389, step_ms: "
                          "5.86, single_step_ms: 5.89, host_enqueue_ms: 0.009, source: \"...\"}");
            step.only_keys({"batch", "context", "vocab_rows", "graph", "launches", "step_ms", "single_step_ms",
                            "host_enqueue_ms", "source"});
            auto& t = q.step;
            t.batch = int(step.positive_int("batch"));
            if (t.batch > 64) step.at("batch").fail("must be 1 to 64 (the server's batches)");
            t.context = (long long)step.at("context").as_nonnegative_double();
            if (auto rows = step.maybe("vocab_rows")) t.vocab_rows = rows->as_positive_int();
            t.graph = read_bool(step.at("graph"));
            t.launches = int(step.positive_int("launches"));
            t.step_s = step.positive("step_ms") * 1e-3;
            t.single_step_s = step.positive("single_step_ms") * 1e-3;
            t.host_enqueue_s = step.at("host_enqueue_ms").as_nonnegative_double() * 1e-3;
            t.source = step.string("source");
            // A list of [name, ms] pairs: the server's order, which a mapping would not keep.
            for (const auto& row : item.at("ops").items()) {
                if (!row.node().IsSequence() || row.node().size() != 2)
                    row.fail("must be [op, ms], e.g. [qkv_gemm, 0.603]");
                auto name = row.node()[0].as<std::string>();
                double ms = 0;
                try {
                    ms = row.node()[1].as<double>();
                } catch (const YAML::Exception&) {
                    row.fail(fmt::format("names {} with a time that is not a number of ms", name));
                }
                if (!(ms >= 0) || !std::isfinite(ms)) row.fail(fmt::format("gives {} a negative or infinite time", name));
                t.ops.push_back({name, ms * 1e-3});
            }
            if (t.ops.empty()) item.at("ops").fail("is empty: list the step's ops as [op, ms]");
            break;
        }
    }
}

}  // namespace

std::vector<Question> load_bank(const std::filesystem::path& file) {
    auto root = YamlView::load_file(file);
    if (!root.node().IsMap()) root.fail("a question bank must be a mapping with a 'questions:' list");
    root.only_keys({"questions"});
    std::vector<Question> out;
    std::map<std::string, int> seen;
    for (const auto& item : root.at("questions").items()) {
        if (!item.node().IsMap()) item.fail("must be a mapping with id, difficulty, lesson, gpu and explanation");
        Question q;
        q.file = file;
        q.line = item.line();
        if (auto type = item.maybe("type")) q.type = read_type(*type);
        std::vector<std::string> keys{"id", "type", "difficulty", "lesson", "gpu", "prompt", "explanation"};
        for (auto& key : type_keys(q.type)) keys.push_back(key);
        item.only_keys(keys);
        q.id = item.string("id");
        if (q.id.empty() || q.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_") != std::string::npos) {
            item.at("id").fail("must use only lowercase letters, digits, '-' and '_'");
        }
        if (auto [it, fresh] = seen.emplace(q.id, q.line); !fresh) {
            item.at("id").fail(fmt::format("repeats id '{}' (first at line {}); give each question its own id", q.id,
                                           it->second));
        }
        auto difficulty = item.at("difficulty");
        q.difficulty = int(difficulty.as_positive_int());
        if (q.difficulty > 3) difficulty.fail("must be 1 (one step), 2 (two or three steps) or 3 (a judgement)");
        auto lesson = item.at("lesson");
        auto lesson_text = lesson.as_string();
        if (lesson_text.size() > 2 || lesson_text.find_first_not_of("0123456789") != std::string::npos ||
            std::stoi(lesson_text) > 10) {
            lesson.fail(fmt::format("must be the number of the lesson it drills, 0 to 10 (got '{}')", lesson_text));
        }
        q.lesson = std::stoi(lesson_text);
        if (!out.empty() && q.difficulty < out.back().difficulty) {
            difficulty.fail(fmt::format("is {} after question '{}' (line {}) of difficulty {}; the bank runs from "
                                        "difficulty 1 to 3: move '{}' up among the difficulty-{} questions",
                                        q.difficulty, out.back().id, out.back().line, out.back().difficulty, q.id,
                                        q.difficulty));
        }
        q.gpu = item.string("gpu");
        read_type_fields(item, q);
        if (auto prompt = item.maybe("prompt")) q.prompt = prompt->as_string();
        q.explanation = item.string("explanation");
        // Folded YAML blocks end with a newline; keep the text one paragraph.
        while (!q.explanation.empty() && std::isspace(static_cast<unsigned char>(q.explanation.back()))) {
            q.explanation.pop_back();
        }
        out.push_back(std::move(q));
    }
    if (out.empty()) root.at("questions").fail("is empty; add at least one question");
    return out;
}

void validate_questions(const std::vector<Question>& questions, const std::vector<HardwareProfile>& profiles) {
    for (const auto& q : questions) {
        const HardwareProfile* profile = nullptr;
        for (const auto& p : profiles) {
            if (p.id == q.gpu) profile = &p;
        }
        std::vector<std::string> ids;
        for (const auto& p : profiles) ids.push_back(p.id);
        if (!profile) {
            throw InputError(q.file, q.line,
                             fmt::format("question '{}': unknown gpu '{}'; use a profile id from hardware/: {}", q.id,
                                         q.gpu, fmt::join(ids, ", ")));
        }
        if (q.type != QuestionType::littles_law) {
            bool has_op = q.type == QuestionType::regime || q.type == QuestionType::predict ||
                          q.type == QuestionType::lever;
            auto dtype = has_op ? compute_dtype(q.op) : q.dtype;
            auto it = profile->peak.find(dtype);
            if (it == profile->peak.end()) {
                throw InputError(q.file, q.line,
                                 fmt::format("question '{}': {} has no {} unit; pick another dtype or gpu", q.id,
                                             profile->id, dtype_name(dtype)));
            }
            if (q.quote_sparse && !it->second.sparse_tflops) {
                throw InputError(q.file, q.line,
                                 fmt::format("question '{}': quote_sparse is set but {} lists no sparse {} figure; "
                                             "remove quote_sparse",
                                             q.id, profile->id, dtype_name(dtype)));
            }
        }
        // A question the roofline cannot answer (a lever too close to call, a point above its roof) is refused here,
        // before a student meets it.
        expected_answer(q, *profile);
    }
}

// ---------------------------------------------------------------- generation

std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n) {
    // Rejection sampling: accept only draws below the largest multiple of n that fits in
    // 2^64 values, so every residue is equally likely. rem = 2^64 mod n.
    std::uint64_t rem = (std::numeric_limits<std::uint64_t>::max() % n + 1) % n;
    if (rem == 0) return rng() % n;
    std::uint64_t limit = std::uint64_t(0) - rem;  // 2^64 - rem
    for (;;) {
        std::uint64_t draw = rng();
        if (draw < limit) return draw % n;
    }
}

namespace {

template <typename T, std::size_t N>
T pick(std::mt19937_64& rng, const std::array<T, N>& options) {
    return options[uniform_below(rng, N)];
}

Dtype pick_dtype(std::mt19937_64& rng, const HardwareProfile& profile, const std::vector<Dtype>& wanted) {
    std::vector<Dtype> usable;
    for (auto dtype : wanted) {
        if (profile.supports(dtype)) usable.push_back(dtype);
    }
    return usable[uniform_below(rng, usable.size())];
}

}  // namespace

std::vector<Question> generate_questions(int count, std::uint64_t seed, const std::vector<HardwareProfile>& profiles) {
    if (count <= 0) throw InputError(fmt::format("--generate {}: ask for at least one question", count));
    if (profiles.empty()) throw InputError("no hardware profiles to generate questions for");
    std::mt19937_64 rng(seed);
    int width = std::max(2, int(std::to_string(count).size()));
    std::vector<Question> out;
    for (int i = 0; i < count; ++i) {
        Question q;
        q.id = fmt::format("s{}-{:0{}}", seed, i + 1, width);
        const auto& profile = profiles[uniform_below(rng, profiles.size())];
        q.gpu = profile.id;
        auto& op = q.op;
        switch (uniform_below(rng, 7)) {
            case 0:
                op.kind = OpKind::gemm;
                op.dtype = pick_dtype(rng, profile, {Dtype::bf16, Dtype::fp16, Dtype::fp8, Dtype::fp32});
                op.m = pick(rng, std::array<double, 10>{1, 8, 64, 256, 512, 1024, 2048, 4096, 8192, 16384});
                op.n = pick(rng, std::array<double, 7>{256, 1024, 2048, 4096, 8192, 14336, 28672});
                op.k = pick(rng, std::array<double, 7>{256, 1024, 2048, 4096, 8192, 14336, 28672});
                break;
            case 1:
                op.kind = OpKind::elementwise;
                op.dtype = pick_dtype(rng, profile, {Dtype::fp32, Dtype::bf16, Dtype::fp16});
                op.count = std::ldexp(1.0, int(12 + uniform_below(rng, 19)));  // 2^12 .. 2^30
                op.reads = double(1 + uniform_below(rng, 3));
                op.writes = double(1 + uniform_below(rng, 2));
                op.flops_per_element = pick(rng, std::array<double, 9>{0, 1, 2, 4, 8, 20, 50, 100, 400});
                if (uniform_below(rng, 4) == 0) q.launches = int(2 + uniform_below(rng, 5));
                break;
            case 2: {
                op.kind = OpKind::raw;
                op.dtype = pick_dtype(rng, profile, {Dtype::fp32, Dtype::bf16, Dtype::fp8});
                std::array<double, 3> mantissa{1, 2, 5};
                op.bytes = pick(rng, mantissa) * std::pow(10.0, double(5 + uniform_below(rng, 6)));  // 1e5 .. 5e10
                // Intensities from far below every ridge to far above it.
                op.flops = op.bytes * pick(rng, std::array<double, 8>{0.25, 1, 4, 16, 64, 256, 1024, 4096});
                break;
            }
            case 4:
                q.type = QuestionType::littles_law;
                q.lesson = 6;
                q.latency_ns = pick(rng, std::array<double, 4>{400, 600, 800, 1000});
                q.stage_kib = pick(rng, std::array<double, 5>{4, 8, 16, 32, 48});
                if (uniform_below(rng, 2) == 1) {  // a measured rate, about 85-90% of the datasheet's
                    q.bandwidth_tbs = std::round(profile.memory.bandwidth_tbs * 0.875 * 10) / 10;
                }
                break;
            case 5:
                q.type = QuestionType::tile_intensity;
                q.lesson = 3;
                q.dtype = pick_dtype(rng, profile, {Dtype::fp32, Dtype::bf16, Dtype::fp16, Dtype::fp8});
                q.tile_m = pick(rng, std::array<double, 5>{16, 32, 64, 128, 256});
                q.tile_n = pick(rng, std::array<double, 5>{16, 32, 64, 128, 256});
                break;
            case 6: {
                q.type = QuestionType::read_roofline;
                q.dtype = pick_dtype(rng, profile, {Dtype::fp32, Dtype::bf16, Dtype::fp8});
                q.point_flop_per_byte = pick(rng, std::array<double, 8>{0.5, 2, 8, 32, 100, 300, 1000, 3000});
                auto ceiling = profile.datasheet_ceiling(q.dtype);
                double roof = std::min(ceiling.peak_tflops, ceiling.bandwidth_tbs * q.point_flop_per_byte);
                double share = 0.2 + 0.05 * double(uniform_below(rng, 16));  // 20% .. 95% of the roof
                q.point_tflops = std::round(roof * share * 100) / 100;
                if (!(q.point_tflops > 0)) q.point_tflops = roof * share;
                break;
            }
            default:
                op.kind = OpKind::attention;
                op.dtype = pick_dtype(rng, profile, {Dtype::bf16, Dtype::fp16});
                op.batch = pick(rng, std::array<double, 5>{1, 2, 4, 8, 16});
                op.heads = pick(rng, std::array<double, 4>{8, 16, 32, 64});
                op.seq = pick(rng, std::array<double, 7>{128, 512, 1024, 2048, 4096, 8192, 16384});
                op.head_dim = pick(rng, std::array<double, 3>{64, 128, 256});
                op.materialized = uniform_below(rng, 2) == 1;
                if (op.materialized) q.launches = 3;  // Q K^T, softmax, P V
                break;
        }
        q.explanation = fmt::format(
            "Generated question (seed {}): no written explanation; follow the working line, which applies the "
            "counting rules printed above the questions.",
            seed);
        out.push_back(std::move(q));
    }
    return out;
}

// ---------------------------------------------------------------- answers

namespace {

double plain_number(const YamlView& view, const std::string& unit_hint) {
    auto text = view.as_string();
    if (text.find_first_not_of("0123456789.eE+-") != std::string::npos) {
        view.fail(fmt::format("must be a plain number{}, without a unit (got '{}')", unit_hint, text));
    }
    return view.as_positive_double();
}

}  // namespace

std::vector<Answer> load_answers(const std::filesystem::path& file, const std::vector<Question>& questions) {
    auto root = YamlView::load_file(file);
    if (!root.node().IsDefined() || root.node().IsNull()) {
        throw InputError(file, 1,
                         "the answers file is empty; write a list of {id, regime, time_us, ...} "
                         "(make one with `roofline classify --write-template FILE`)");
    }
    if (!root.node().IsSequence()) {
        root.fail("the answers file must be a list, one '- {id: ..., regime: ..., time_us: ...}' per question");
    }
    std::map<std::string, const Question*> known;
    for (const auto& q : questions) known[q.id] = &q;
    std::map<std::string, int> seen;
    std::vector<Answer> out;
    for (const auto& item : root.items()) {
        if (!item.node().IsMap()) item.fail("must be a mapping like {id: gemm-4096-h100, regime: compute, time_us: 140}");
        Answer a;
        a.line = item.line();
        a.id = item.string("id");
        auto found = known.find(a.id);
        if (found == known.end()) {
            std::string hint = a.id.size() > 1 && a.id[0] == 's' && a.id.find('-') != std::string::npos
                                   ? "; for generated questions pass the same --generate N --seed S"
                                   : "; check the spelling against `roofline classify` (or --write-template)";
            item.at("id").fail(fmt::format("names question '{}', which is not in this question set{}", a.id, hint));
        }
        const Question& q = *found->second;
        auto fields = answer_fields(q.type);
        for (const auto& key : item.keys()) {
            if (key != "id" && std::find(fields.begin(), fields.end(), key) == fields.end()) {
                item.at(key).fail(fmt::format("'{}' does not answer '{}', a {} question: answer it with {}", key,
                                              q.id, question_type_name(q.type), fmt::join(fields, " and ")));
            }
        }
        if (auto [it, fresh] = seen.emplace(a.id, a.line); !fresh) {
            item.at("id").fail(fmt::format("answers '{}' a second time (first at line {}); keep one answer per question",
                                           a.id, it->second));
        }
        // A key left blank (`regime:`) is not an answer yet.
        auto given = [&](const std::string& key) -> std::optional<YamlView> {
            auto view = item.maybe(key);
            if (view && view->node().IsNull()) return std::nullopt;
            return view;
        };
        if (auto regime = given("regime")) {
            auto text = regime->as_string();
            a.regime = parse_regime(text);
            bool overhead_allowed = q.type == QuestionType::regime;
            if (!a.regime || (!overhead_allowed && *a.regime == Regime::overhead)) {
                regime->fail(fmt::format("must be {} (got '{}')",
                                         overhead_allowed ? "compute, memory or overhead" : "compute or memory", text));
            }
        }
        if (auto time = given("time_us")) a.time_us = plain_number(*time, " of microseconds");
        if (auto fraction = given("fraction")) {
            a.fraction = plain_number(*fraction, " between 0 and 1");
            if (*a.fraction > 1.5) fraction->fail("is a fraction of the roof: write 0.62, not 62");
        }
        if (auto kib = given("kib_per_sm")) a.kib_per_sm = plain_number(*kib, " of KiB");
        if (auto fpb = given("flop_per_byte")) a.flop_per_byte = plain_number(*fpb, " of FLOP per byte");
        if (auto stages = given("stages")) a.stages = int(stages->as_positive_int());
        if (auto helps = given("helps")) {
            if (!helps->node().IsSequence()) {
                helps->fail("must be a list of the levers that help, e.g. [fuse, graph]; [] if none does");
            }
            std::vector<Lever> list;
            for (const auto& name : helps->as_string_list()) {
                auto lever = parse_lever(name);
                if (!lever || std::find(q.levers.begin(), q.levers.end(), *lever) == q.levers.end()) {
                    std::vector<std::string> offered;
                    for (auto l : q.levers) offered.emplace_back(lever_name(l));
                    helps->fail(fmt::format("names '{}', which '{}' does not offer; its levers are {}", name, q.id,
                                            fmt::join(offered, ", ")));
                }
                list.push_back(*lever);
            }
            a.helps = list;
        }
        out.push_back(std::move(a));
    }
    return out;
}

double ratio_credit(double answered, double expected, double full_within, double half_within) {
    if (!(answered > 0) || !(expected > 0)) return 0;
    double ratio = std::max(answered / expected, expected / answered);
    // A hair of slack so that an answer of exactly the bound (as typed) is not lost to rounding.
    constexpr double slack = 1e-9;
    if (ratio <= full_within * (1 + slack)) return 1.0;
    if (ratio <= half_within * (1 + slack)) return 0.5;
    return 0.0;
}

double time_credit(double answered_us, double expected_us) { return ratio_credit(answered_us, expected_us, 1.5, 3.0); }

double fraction_credit(double answered, double expected) {
    double off = std::fabs(answered - expected);
    if (off <= 0.05 + 1e-9) return 1.0;
    if (off <= 0.15 + 1e-9) return 0.5;
    return 0.0;
}

namespace {

// Scores one attempted answer against its type's expected answer; fills points and misses.
void score(Grade& g) {
    const auto& q = *g.question;
    const auto& e = g.expected;
    const auto& a = *g.answer;
    auto regime_point = [&](double points) {
        if (!a.regime) {
            g.misses.push_back("no regime");
            return;
        }
        g.regime_correct = *a.regime == e.regime;
        if (g.regime_correct) g.points += points;
        else g.misses.push_back(fmt::format("regime {} (it is {})", regime_name(*a.regime), regime_name(e.regime)));
    };
    switch (q.type) {
        case QuestionType::regime:
        case QuestionType::incident:
        case QuestionType::predict: {
            double time_points = q.type != QuestionType::predict ? kTimePoints : kRegimePoints + kTimePoints;
            if (q.type != QuestionType::predict) regime_point(kRegimePoints);
            if (!a.time_us) {
                g.misses.push_back("no time");
                break;
            }
            g.time_ratio = *a.time_us / e.time_us;
            double credit = time_credit(*a.time_us, e.time_us);
            g.points += time_points * credit;
            if (credit < 1) {
                g.misses.push_back(fmt::format("time {:.2f}x the expected (full marks within 1.5x, half within 3x)",
                                               *g.time_ratio));
            }
            break;
        }
        case QuestionType::lever: {
            if (!a.helps) {
                g.misses.push_back("no levers chosen (write [] if none helps)");
                break;
            }
            int right = 0;
            for (auto lever : q.levers) {
                bool said = std::find(a.helps->begin(), a.helps->end(), lever) != a.helps->end();
                bool does = std::find(e.helps.begin(), e.helps.end(), lever) != e.helps.end();
                if (said == does) ++right;
                else g.misses.push_back(fmt::format("{} {}", lever_name(lever), does ? "helps" : "does nothing"));
            }
            g.points += (kRegimePoints + kTimePoints) * right / double(q.levers.size());
            break;
        }
        case QuestionType::read_roofline:
            regime_point(kRegimePoints);
            if (!a.fraction) {
                g.misses.push_back("no fraction");
                break;
            }
            g.points += kTimePoints * fraction_credit(*a.fraction, e.fraction);
            if (fraction_credit(*a.fraction, e.fraction) < 1) {
                g.misses.push_back(fmt::format("fraction {:g} (it is {:.2f}; full marks within 0.05, half within 0.15)",
                                               *a.fraction, e.fraction));
            }
            break;
        case QuestionType::littles_law: {
            if (!a.kib_per_sm) {
                g.misses.push_back("no kib_per_sm");
            } else {
                double credit = ratio_credit(*a.kib_per_sm, e.kib_per_sm, 1.25, 2.0);
                g.points += kRegimePoints * credit;
                if (credit < 1) {
                    g.misses.push_back(fmt::format("{:g} KiB per SM (it is {:.1f}; full marks within 1.25x, half "
                                                   "within 2x)",
                                                   *a.kib_per_sm, e.kib_per_sm));
                }
            }
            if (!a.stages) {
                g.misses.push_back("no stages");
            } else if (*a.stages == e.stages) {
                g.points += kTimePoints;
            } else {
                if (std::abs(*a.stages - e.stages) == 1) g.points += kTimePoints / 2;
                g.misses.push_back(fmt::format("{} stages (it is {}; half marks one off)", *a.stages, e.stages));
            }
            break;
        }
        case QuestionType::tile_intensity: {
            if (!a.flop_per_byte) {
                g.misses.push_back("no flop_per_byte");
            } else {
                double credit = ratio_credit(*a.flop_per_byte, e.flop_per_byte, 1.1, 1.5);
                g.points += kTimePoints * credit;
                if (credit < 1) {
                    g.misses.push_back(fmt::format("{:g} FLOP/B (it is {:.4g}; full marks within 1.1x, half within "
                                                   "1.5x)",
                                                   *a.flop_per_byte, e.flop_per_byte));
                }
            }
            regime_point(kRegimePoints);
            break;
        }
    }
}

}  // namespace

Report check_answers(const std::vector<Question>& questions, const std::vector<HardwareProfile>& profiles,
                     const std::vector<Answer>& answers, const std::map<std::string, double>& overhead_s) {
    std::map<std::string, const Answer*> by_id;
    for (const auto& a : answers) by_id[a.id] = &a;
    Report report;
    for (const auto& q : questions) {
        const auto& profile = find_profile(profiles, q.gpu);
        auto it = overhead_s.find(profile.id);
        Grade g;
        g.question = &q;
        g.expected = expected_answer(q, profile, it != overhead_s.end() ? it->second : 5e-6);
        g.working = working(q, g.expected);
        if (auto found = by_id.find(q.id); found != by_id.end()) {
            g.answer = *found->second;
            if (g.answer->attempted()) {
                ++report.answered;
                score(g);
            }
        }
        report.points += g.points;
        report.max_points += g.max_points;
        report.grades.push_back(std::move(g));
    }
    return report;
}

namespace {
std::string us_text(double us) { return us >= 100 ? fmt::format("{:.0f}", us) : fmt::format("{:.3g}", us); }

std::string lever_list(const std::vector<Lever>& levers) {
    if (levers.empty()) return "none";
    std::vector<std::string> names;
    for (auto l : levers) names.emplace_back(lever_name(l));
    return fmt::format("{}", fmt::join(names, ", "));
}
}  // namespace

std::string expected_text(const Question& q, const Expected& e) {
    switch (q.type) {
        case QuestionType::regime: return fmt::format("{}-bound, floor {} us", regime_name(e.regime), us_text(e.time_us));
        case QuestionType::predict: return fmt::format("{} us ({}-bound)", us_text(e.time_us), regime_name(e.regime));
        case QuestionType::lever: return fmt::format("helps: {}", lever_list(e.helps));
        case QuestionType::read_roofline: return fmt::format("{} roof, fraction {:.2f}", regime_name(e.regime), e.fraction);
        case QuestionType::littles_law: return fmt::format("{:.1f} KiB per SM, {} stages", e.kib_per_sm, e.stages);
        case QuestionType::tile_intensity:
            return fmt::format("{:.4g} FLOP/B, {}-bound", e.flop_per_byte, regime_name(e.regime));
        case QuestionType::incident:
            return fmt::format("{}-bound, floor {} us", regime_name(e.regime), us_text(e.time_us));
    }
    return "?";
}

std::string answer_text(const Question& q, const Answer& a) {
    auto or_dash = [](const auto& value, auto show) { return value ? show(*value) : std::string("-"); };
    auto regime = or_dash(a.regime, [](Regime r) { return std::string(regime_name(r)); });
    auto number = [](double v) { return fmt::format("{:g}", v); };
    switch (q.type) {
        case QuestionType::regime: return fmt::format("{}, {} us", regime, or_dash(a.time_us, us_text));
        case QuestionType::predict: return fmt::format("{} us", or_dash(a.time_us, us_text));
        case QuestionType::lever: return fmt::format("helps: {}", or_dash(a.helps, lever_list));
        case QuestionType::read_roofline: return fmt::format("{}, fraction {}", regime, or_dash(a.fraction, number));
        case QuestionType::littles_law:
            return fmt::format("{} KiB per SM, {} stages", or_dash(a.kib_per_sm, number),
                               or_dash(a.stages, [](int v) { return std::to_string(v); }));
        case QuestionType::tile_intensity: return fmt::format("{} FLOP/B, {}", or_dash(a.flop_per_byte, number), regime);
        case QuestionType::incident: return fmt::format("{}, {} us", regime, or_dash(a.time_us, us_text));
    }
    return "?";
}

std::string answers_template(const std::vector<Question>& questions, const std::string& how_made) {
    std::string out = fmt::format(
        "# Answers for `roofline classify`. Made by: {}\n"
        "# Each question lists the fields it is answered with; `roofline classify` prints what each asks.\n"
        "#   regime: compute, memory or overhead    time_us: a plain number of microseconds (139 or 1.2e3)\n"
        "#   helps: a list of the levers that help, [] if none    fraction: of the roof, 0 to 1\n"
        "#   kib_per_sm, stages, flop_per_byte: plain numbers\n"
        "# A blank field scores nothing. Then: roofline classify --check THIS_FILE (with the same\n"
        "# --bank / --generate / --seed).\n",
        how_made);
    for (const auto& q : questions) {
        out += fmt::format("- id: {}\n", q.id);
        for (const auto& field : answer_fields(q.type)) out += fmt::format("  {}:\n", field);
    }
    return out;
}

}  // namespace roofline::classify
