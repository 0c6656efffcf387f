// A decode server's configuration: one YAML file (incidents/*.yaml), read and checked as a whole.
// Every error names the file, the line and the fix. The keys (README.md lists them too):
//
//   batch: 64                         sequences decoded together, 1 to 64
//   context: 4096                     tokens already in each sequence's KV cache, 0 to 32768
//   steps: 8                          decode steps timed (after `warmup` untimed ones)
//   warmup: 2
//   seed: 1                           weights, the starting cache and the first tokens
//   vocab: 128256                     the tokenizer's size: rows of the embedding table and the LM head
//   pad_vocab_to: 1                   the LM head's rows rounded up to a multiple of this (padding rows
//                                     are zero and never chosen)
//   graph_batch_sizes: [16, 32, 64]   batch sizes whose step is captured in a CUDA graph at start-up;
//                                     any other batch runs eagerly, one request at a time for the
//                                     per-sequence ops
//   attention: plain                  plain | student: which decode-attention kernel the step calls
//   kv_cache: bf16                    bf16 | fp8: the cache's element; fp8 is e4m3 with a scale per
//                                     (layer, KV head) for the keys and one for the values, half
//                                     the bytes per cached position (plain attention only)
//   fused_max_batch: 4                batches up to this size take the fused small-batch step
//                                     (skinny_gemv.cuh; the course's kernels): the norms, RoPE, the append, the
//                                     residual adds and SwiGLU folded into CUDA-core GEMVs; 0: never
//   overlap_launches: false           the fused step's kernels launched so that each starts while the
//                                     one before it drains (programmatic dependent launch), its first
//                                     weights asked into L2 before it waits for that kernel's outputs
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace server {

struct ServerConfig {
    std::string file;  // where it was read from, for messages
    int batch = 1;
    int context = 4096;
    int steps = 8;
    int warmup = 2;
    std::uint64_t seed = 1;
    int vocab = 128256;
    int pad_vocab_to = 1;
    std::vector<int> graph_batch_sizes;
    std::string attention = "plain";
    std::string kv_cache = "bf16";
    int fused_max_batch = 0;
    bool overlap_launches = false;

    // The LM head's rows: vocab rounded up to pad_vocab_to.
    int padded_vocab() const { return (vocab + pad_vocab_to - 1) / pad_vocab_to * pad_vocab_to; }
    bool uses_graph() const;
    bool fp8_kv() const { return kv_cache == "fp8"; }
    bool fused() const { return batch <= fused_max_batch; }
};

// Throws std::runtime_error with "FILE:LINE: what is wrong; the fix".
ServerConfig read_config(const std::string& file);
// The limits read_config checks, applied again after command-line overrides.
void check_config(const ServerConfig& config);

}  // namespace server
