// The lab 07 peer on its own, for the device script's cross-check against PyTorch
// (scripts/device/attention.sh): fills Q, K, V from a fixed host generator (the lab's
// ranges: Q, K in [-3, 3), V in [-1, 1)), runs cuDNN's fused attention through
// CudnnSdpa, times it (CUDA events, median of 20 after 3 warm-ups), and writes
// q.bin, k.bin, v.bin, o.bin (raw bf16, [batch][heads][seq][head_dim]) and probe.json.
//
//   attention_peer_probe OUT_DIR BATCH HEADS SEQ HEAD_DIM CAUSAL(0|1)
#include "attention/cudnn_sdpa.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        std::fprintf(stderr, "attention_peer_probe: %s: %s\n", what, cudaGetErrorString(status));
        std::exit(1);
    }
}

void write_raw(const std::string& path, const std::vector<__nv_bfloat16>& data) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size() * 2));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 7) {
        std::fprintf(stderr, "usage: attention_peer_probe OUT_DIR BATCH HEADS SEQ HEAD_DIM CAUSAL(0|1)\n");
        return 2;
    }
    const std::string out = argv[1];
    const int batch = std::atoi(argv[2]), heads = std::atoi(argv[3]), seq = std::atoi(argv[4]),
              head_dim = std::atoi(argv[5]);
    const bool causal = std::atoi(argv[6]) != 0;
    const std::size_t count = std::size_t(batch) * heads * seq * head_dim;

    std::mt19937_64 rng(20261130);
    auto fill = [&](float range) {
        std::uniform_real_distribution<float> uniform(-range, range);
        std::vector<__nv_bfloat16> v(count);
        for (auto& x : v) x = __float2bfloat16(uniform(rng));
        return v;
    };
    auto q = fill(3.0f), k = fill(3.0f), v = fill(1.0f);

    __nv_bfloat16 *dq, *dk, *dv, *dout;
    for (auto** p : {&dq, &dk, &dv, &dout}) check(cudaMalloc(p, count * 2), "cudaMalloc");
    check(cudaMemcpy(dq, q.data(), count * 2, cudaMemcpyHostToDevice), "copy Q");
    check(cudaMemcpy(dk, k.data(), count * 2, cudaMemcpyHostToDevice), "copy K");
    check(cudaMemcpy(dv, v.data(), count * 2, cudaMemcpyHostToDevice), "copy V");

    roofline::attention::CudnnSdpa peer;
    auto refusal = peer.plan(batch, heads, seq, head_dim, causal);
    if (!refusal.empty()) {
        std::fprintf(stderr, "attention_peer_probe: cuDNN refused the graph: %s\n", refusal.c_str());
        return 1;
    }
    cudaStream_t stream;
    check(cudaStreamCreate(&stream), "stream");
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "event");
    check(cudaEventCreate(&stop), "event");
    std::vector<float> times;
    for (int i = 0; i < 23; ++i) {
        check(cudaEventRecord(start, stream), "record");
        peer.run(dq, dk, dv, dout, stream);
        check(cudaEventRecord(stop, stream), "record");
        check(cudaEventSynchronize(stop), "synchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
        if (i >= 3) times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    std::vector<__nv_bfloat16> o(count);
    check(cudaMemcpy(o.data(), dout, count * 2, cudaMemcpyDeviceToHost), "copy O");
    write_raw(out + "/q.bin", q);
    write_raw(out + "/k.bin", k);
    write_raw(out + "/v.bin", v);
    write_raw(out + "/o.bin", o);
    const double flops = 4.0 * seq * double(seq) * head_dim * batch * heads * (causal ? 0.5 : 1.0);
    const double median_s = times[times.size() / 2] * 1e-3;
    std::ofstream json(out + "/probe.json");
    json << "{\"peer\": \"" << peer.describe() << "\", \"batch\": " << batch << ", \"heads\": " << heads
         << ", \"seq\": " << seq << ", \"head_dim\": " << head_dim << ", \"causal\": " << (causal ? "true" : "false")
         << ", \"median_s\": " << median_s << ", \"tflops\": " << flops / median_s / 1e12 << "}\n";
    std::printf("%s: %.4g ms, %.1f TFLOP/s\n", peer.describe().c_str(), median_s * 1e3, flops / median_s / 1e12);
    return 0;
}
