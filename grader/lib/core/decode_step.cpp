#include "decode_step.hpp"

#include "input_error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace roofline {

DecodeModel llama3_8b_shapes() {
    DecodeModel model;
    model.hidden = 4096;
    model.layers = 32;
    model.q_heads = 32;
    model.kv_heads = 8;
    model.head_dim = 128;
    model.mlp = 14336;
    model.vocab = 128256;
    return model;
}

namespace {

void check_model(const DecodeModel& m) {
    if (m.hidden <= 0 || m.layers <= 0 || m.q_heads <= 0 || m.kv_heads <= 0 || m.head_dim <= 0 || m.mlp <= 0 ||
        m.vocab <= 0 || m.weight_bytes <= 0 || m.kv_bytes <= 0)
        throw InputError("decode model: every dimension and element size must be positive");
    if (m.q_heads % m.kv_heads != 0)
        throw InputError(fmt::format("decode model: {} query heads do not split into groups over {} KV heads",
                                     m.q_heads, m.kv_heads));
}

// Weights of one layer's GEMMs, by op.
double qkv_params(const DecodeModel& m) { return double(m.q_heads + 2 * m.kv_heads) * m.head_dim * m.hidden; }
double o_params(const DecodeModel& m) { return double(m.hidden) * m.q_heads * m.head_dim; }
double gate_up_params(const DecodeModel& m) { return 2.0 * m.mlp * m.hidden; }
double down_params(const DecodeModel& m) { return double(m.hidden) * m.mlp; }

}  // namespace

double model_parameters(const DecodeModel& m) {
    check_model(m);
    double per_layer = qkv_params(m) + o_params(m) + gate_up_params(m) + down_params(m) + 2.0 * m.hidden;
    return m.layers * per_layer + 2.0 * double(m.vocab) * m.hidden + m.hidden;  // + embedding, LM head, final norm
}

double kv_bytes_per_position(const DecodeModel& m) {
    check_model(m);
    return double(m.layers) * 2.0 * m.kv_heads * m.head_dim * m.kv_bytes;
}

std::vector<DecodeOpCost> decode_step_ops(const DecodeModel& m, const std::vector<long long>& contexts) {
    check_model(m);
    if (contexts.empty()) throw InputError("decode step: the batch is empty (give at least one sequence's context)");
    double batch = double(contexts.size());
    double positions_read = 0;  // cached positions plus the new one, over the batch
    for (auto context : contexts) {
        if (context < 0) throw InputError(fmt::format("decode step: a context of {} tokens is negative", context));
        positions_read += double(context) + 1;
    }
    const double L = double(m.layers), wb = m.weight_bytes;
    const double per_position_per_layer = 2.0 * m.kv_heads * m.head_dim * m.kv_bytes;  // K and V
    auto gemm = [&](const char* name, double params_per_layer, double layers) {
        return DecodeOpCost{name, layers * params_per_layer * wb, 2.0 * layers * params_per_layer * batch};
    };
    std::vector<DecodeOpCost> ops;
    ops.push_back({"embed", batch * m.hidden * wb, 0});  // the batch's rows of the table
    ops.push_back({"rmsnorm", (2.0 * L + 1) * m.hidden * wb, 0});
    ops.push_back(gemm("qkv_gemm", qkv_params(m), L));
    ops.push_back({"rope_kv", L * batch * per_position_per_layer, 0});  // the new position written
    // QK^T and PV: 2 FLOPs per multiply-add, head_dim each, for every query head and position.
    ops.push_back({"attention", L * positions_read * per_position_per_layer,
                   L * positions_read * 4.0 * m.q_heads * m.head_dim});
    ops.push_back(gemm("o_gemm", o_params(m), L));
    ops.push_back({"residual", 0, 0});
    ops.push_back(gemm("gate_up_gemm", gate_up_params(m), L));
    ops.push_back({"swiglu", 0, 0});
    ops.push_back(gemm("down_gemm", down_params(m), L));
    ops.push_back(gemm("lm_head", double(m.vocab) * m.hidden, 1));
    ops.push_back({"argmax", 0, 0});
    return ops;
}

double decode_step_bytes(const DecodeModel& model, const std::vector<long long>& contexts) {
    double bytes = 0;
    for (const auto& op : decode_step_ops(model, contexts)) bytes += op.bytes;
    return bytes;
}

double decode_step_flops(const DecodeModel& model, const std::vector<long long>& contexts) {
    double flops = 0;
    for (const auto& op : decode_step_ops(model, contexts)) flops += op.flops;
    return flops;
}

DecodeStepFloor decode_step_floor(const DecodeModel& model, const std::vector<long long>& contexts,
                                  double copy_bytes_per_s, double tensor_flops_per_s) {
    if (copy_bytes_per_s <= 0 || tensor_flops_per_s <= 0)
        throw InputError("decode step floor: the copy rate and the tensor roof must be positive (roofline ceilings "
                         "measures them; the hardware profile has the datasheet's)");
    DecodeStepFloor f;
    f.bytes = decode_step_bytes(model, contexts);
    f.flops = decode_step_flops(model, contexts);
    f.bytes_s = f.bytes / copy_bytes_per_s;
    f.flops_s = f.flops / tensor_flops_per_s;
    f.memory_binds = f.bytes_s >= f.flops_s;
    f.floor_s = std::max(f.bytes_s, f.flops_s);
    f.tokens_per_s = double(contexts.size()) / f.floor_s;
    return f;
}

StepReading read_step(const std::vector<DecodeOpCost>& ops, const std::vector<StepOpTime>& times,
                      const StepTiming& timing, const DecodeStepFloor& floor, double copy_bytes_per_s,
                      double fp32_flops_per_s) {
    const double step_s = timing.step_s, lone_s = timing.single_step_s, host_enqueue_s = timing.host_enqueue_s;
    if (step_s <= 0 || lone_s <= 0 || host_enqueue_s < 0)
        throw InputError("read_step: the measured step times must be positive");
    if (copy_bytes_per_s <= 0 || fp32_flops_per_s <= 0)
        throw InputError("read_step: the copy rate and the fp32 roof must be positive");
    StepReading r;
    r.fraction = floor.floor_s / step_s;
    // Each op against its own floor at the same roofs as the step's (the tensor roof recovered from
    // the step's floor); an op the model does not know has a floor of 0.
    const double tensor_flops_per_s = floor.flops_s > 0 ? floor.flops / floor.flops_s : 0;
    struct Seen {
        std::string name;
        double seconds = 0, bytes = 0, flops = 0, excess = 0;
    };
    std::vector<Seen> seen;
    for (const auto& t : times) {
        Seen s{t.name, t.seconds};
        for (const auto& op : ops)
            if (op.name == t.name) s.bytes = op.bytes, s.flops = op.flops;
        double op_floor = std::max(s.bytes / copy_bytes_per_s, tensor_flops_per_s > 0 ? s.flops / tensor_flops_per_s : 0.0);
        s.excess = t.seconds - op_floor;
        seen.push_back(s);
    }
    const Seen* worst = nullptr;
    for (const auto& s : seen)
        if (s.excess > (worst ? worst->excess : 0.0)) worst = &s;
    // Rule 2's candidates: tensor-core work done at a CUDA-core rate, the largest excess first.
    const Seen* idle = nullptr;
    for (const auto& s : seen) {
        if (s.flops <= 0 || s.seconds <= 0) continue;
        const bool tensor_work = s.flops / fp32_flops_per_s > s.bytes / copy_bytes_per_s;
        const bool cuda_core_rate = s.flops / s.seconds <= fp32_flops_per_s;
        if (tensor_work && cuda_core_rate && s.excess >= kTensorIdleStepShare * step_s &&
            (!idle || s.excess > idle->excess))
            idle = &s;
    }
    auto name = [&](const Seen* s) {
        r.culprit = s ? s->name : "";
        r.culprit_excess_s = s ? s->excess : 0;
    };
    const double launch_cost_s = timing.launches * timing.per_launch_s;
    if (host_enqueue_s >= 0.9 * lone_s) {
        r.regime = "overhead";
        r.rule = "host";
        name(worst);
        r.evidence = fmt::format(
            "the host took {:.3f} ms to enqueue a step the GPU ran in {:.3f} ms ({:.0f}%): the GPU waited for launches",
            host_enqueue_s * 1e3, lone_s * 1e3, 100 * host_enqueue_s / lone_s);
    } else if (launch_cost_s >= 0.5 * step_s) {
        r.regime = "overhead";
        r.rule = "launches";
        name(worst);
        r.evidence = fmt::format("{} launches a step at {:.1f} us each is {:.3f} ms, {:.0f}% of the {:.3f} ms step",
                                 timing.launches, timing.per_launch_s * 1e6, launch_cost_s * 1e3,
                                 100 * launch_cost_s / step_s, step_s * 1e3);
    } else if (idle) {
        r.regime = "compute";
        r.rule = "tensor_cores_idle";
        name(idle);
        const double rate = idle->flops / idle->seconds;
        r.evidence = fmt::format(
            "{} does {:.1f} GFLOP in {:.3f} ms, {:.1f} TFLOP/s: {:.0f}% of the CUDA cores' fp32 roof and {:.1f}% of the "
            "tensor roof. At the tensor roof its FLOPs take {:.3f} ms and its bytes {:.3f} ms at the copy rate; it is "
            "{:.3f} ms over that ({:.0f}% of the step): the tensor cores are not doing its FLOPs",
            idle->name, idle->flops / 1e9, idle->seconds * 1e3, rate / 1e12, 100 * rate / fp32_flops_per_s,
            tensor_flops_per_s > 0 ? 100 * rate / tensor_flops_per_s : 0.0,
            tensor_flops_per_s > 0 ? idle->flops / tensor_flops_per_s * 1e3 : 0.0, idle->bytes / copy_bytes_per_s * 1e3,
            idle->excess * 1e3, 100 * idle->excess / step_s);
    } else if (r.fraction >= 0.7) {
        r.regime = floor.memory_binds ? "memory" : "compute";
        r.rule = "near_floor";
        r.evidence = fmt::format("the step runs at {:.0f}% of its floor ({:.3f} ms of {} at the roof)", 100 * r.fraction,
                                 floor.floor_s * 1e3, floor.memory_binds ? "bytes" : "FLOPs");
    } else if (worst) {
        name(worst);
        r.rule = "worst_op";
        const double byte_share = worst->seconds > 0 ? worst->bytes / worst->seconds / copy_bytes_per_s : 0;
        const double flop_share = worst->seconds > 0 ? worst->flops / worst->seconds / fp32_flops_per_s : 0;
        r.regime = flop_share > byte_share ? "compute" : "memory";
        r.evidence = fmt::format(
            "{} is {:.3f} ms over its own floor; it moves bytes at {:.0f}% of the copy rate and does FLOPs at {:.0f}% "
            "of the CUDA cores' fp32 roof",
            worst->name, worst->excess * 1e3, 100 * byte_share, 100 * flop_share);
    } else {
        r.regime = floor.memory_binds ? "memory" : "compute";
        r.rule = "floor";
        r.evidence = "no op's time was given; the floor's own regime";
    }
    return r;
}

}  // namespace roofline
