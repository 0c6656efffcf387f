// One decode step of a decoder-only transformer (module 10's server): what it must move and
// compute, op by op, and the floor under its time. Pure arithmetic, no CUDA: the worked example
// is in lessons/10-production.md, "The decode step and its floor", and the CPU tests check it.
//
// What a step counts (one new token for each sequence of the batch):
//   - every weight matrix once (a GEMM of the whole batch reads each weight once), the norms'
//     weights, and of the embedding table only the batch's rows (a gather, not a read of the
//     table: why the step moves ~15.0 GB while the model holds ~16.1 GB);
//   - each sequence's KV cache: its `context` cached positions and the new one, read by the
//     attention, and the new position written;
//   - activations are left out: about 12.5 MB per sequence per step, under 2% of the bytes at batch 64.
// FLOPs: 2 per weight per sequence (every GEMM), plus attention's QK^T and PV over the context;
// norms, RoPE, SwiGLU and the argmax are a few FLOPs per element, left out.
#pragma once
#include <string>
#include <vector>

namespace roofline {

// The shapes of the model. llama3_8b_shapes(): Llama-3-8B's (hidden 4096, 32 layers, 32 query
// heads and 8 KV heads of 128, MLP 14336, vocabulary 128256), bf16 weights and KV cache.
struct DecodeModel {
    long long hidden = 0;
    long long layers = 0;
    long long q_heads = 0;
    long long kv_heads = 0;
    long long head_dim = 0;
    long long mlp = 0;    // the SwiGLU's intermediate size
    long long vocab = 0;
    double weight_bytes = 2;  // per element
    double kv_bytes = 2;      // per cached element
};
DecodeModel llama3_8b_shapes();

// Parameters the model holds (the embedding table and the LM head are not tied).
double model_parameters(const DecodeModel& model);

// One op of the step, summed over the layers: the server's per-op timing uses the same names
// (qkv_gemm, attention, o_gemm, gate_up_gemm, down_gemm, lm_head, and the small ones).
struct DecodeOpCost {
    std::string name;
    double bytes = 0;
    double flops = 0;
};
// Throws InputError on an empty batch, a negative context or a model with a zero dimension.
std::vector<DecodeOpCost> decode_step_ops(const DecodeModel& model, const std::vector<long long>& contexts);
// Sums of decode_step_ops: bytes = weights once + KV read (context + 1 positions) + KV written.
double decode_step_bytes(const DecodeModel& model, const std::vector<long long>& contexts);
double decode_step_flops(const DecodeModel& model, const std::vector<long long>& contexts);
// Bytes of one cached position over all layers (K and V): 131,072 for Llama-3-8B's shapes.
double kv_bytes_per_position(const DecodeModel& model);

// The step's floor: bytes at the copy rate or FLOPs at the tensor roof, whichever is longer.
struct DecodeStepFloor {
    double bytes = 0, flops = 0;
    double bytes_s = 0;    // bytes / copy rate
    double flops_s = 0;    // flops / tensor roof
    double floor_s = 0;    // the larger
    bool memory_binds = true;
    double tokens_per_s = 0;  // batch / floor_s: a token per sequence per step
};
// copy_bytes_per_s: the measured cudaMemcpy rate (bytes per second, read + write counted as the
// ceilings probe counts them); tensor_flops_per_s: cuBLAS's bf16 GEMM rate or the datasheet's.
DecodeStepFloor decode_step_floor(const DecodeModel& model, const std::vector<long long>& contexts,
                                  double copy_bytes_per_s, double tensor_flops_per_s);

// Which regime binds a measured step, from the server's own timing of itself (not a grade).
struct StepOpTime {
    std::string name;
    double seconds = 0;  // the op's GPU time in one instrumented step, summed over the layers
};
// The server's timing of itself: the mean of the timed steps, and one step run alone from an idle
// GPU with the host's time to enqueue it.
struct StepTiming {
    double step_s = 0;          // mean of the timed steps (what tokens/s comes from)
    double single_step_s = 0;   // one step alone, its GPU time
    double host_enqueue_s = 0;  // the host's time to enqueue that step
    int launches = 0;           // kernels (and library calls) in a step
    double per_launch_s = 0;    // the fixed cost of one: back-to-back launches, or a graph's nodes
};
struct StepReading {
    std::string regime;       // "compute", "memory" or "overhead"
    double fraction = 0;      // floor_s / measured step time (1 at the floor)
    std::string culprit;      // the op furthest over its own floor ("" when the step is near its floor)
    double culprit_excess_s = 0;
    std::string evidence;     // one or two sentences with the numbers that decided it
    // Which rule decided (below): "host", "launches", "tensor_cores_idle", "near_floor", "worst_op"
    // or "floor" (no op times given).
    std::string rule;
};
// The rules, in order (the lesson explains them):
//   1. overhead: the host took at least 90% of a lone step's GPU time to enqueue it (the GPU
//      waited for launches), or the launches' fixed cost (launches x per_launch_s) is at least half
//      the step (a storm of tiny kernels costs the GPU about a launch each, even when the host keeps up);
//   2. compute, tensor cores idle: an op whose FLOPs are the tensor cores' work (at the CUDA cores'
//      fp32 roof they would take longer than its bytes at the copy rate: only the tensor cores keep
//      it memory-bound) runs at a FLOP rate the CUDA cores reach (at most their fp32 roof), and that
//      costs at least a tenth of the step over the op's floor. A healthy decode GEMM at batch 64
//      runs several times faster than the fp32 roof; one that fell off the tensor cores does not,
//      however large the memory-bound ops beside it (the step-level byte rule missed it);
//   3. near the floor (fraction >= 0.7): the floor's own regime (memory for every decode shape);
//   4. else the op with the largest time over its own floor names it: compute when its FLOP rate
//      is a larger share of the CUDA cores' fp32 roof than its byte rate is of the copy rate,
//      memory otherwise.
StepReading read_step(const std::vector<DecodeOpCost>& ops, const std::vector<StepOpTime>& times,
                      const StepTiming& timing, const DecodeStepFloor& floor, double copy_bytes_per_s,
                      double fp32_flops_per_s);

// The share of a step an op must cost over its floor for rule 2 to name it.
inline constexpr double kTensorIdleStepShare = 0.1;

}  // namespace roofline
