// The lab 08 peer on its own, for the device script's cross-check against PyTorch
// (scripts/device/attention.sh): fills Q, K, V from a fixed host generator (the lab's
// ranges: Q, K in [-3, 3), V in [-1, 1)), runs cuDNN's fused attention through
// CudnnSdpa, times it (CUDA events, median of 20 after 3 warm-ups), and writes
// q.bin, k.bin, v.bin, o.bin (raw bf16, [batch][heads][seq][head_dim]) and probe.json.
//
//   attention_peer_probe OUT_DIR BATCH HEADS SEQ HEAD_DIM CAUSAL(0|1)
//
// With --forms in place of OUT_DIR it diagnoses instead: every graph form of
// sdpa_forms(..., diagnose) planned on its own, "finalized" (with the engine) or cuDNN's
// refusal, and each finalized form's answer against a host fp64 reference where the shape is
// small enough (one line a form; the device script runs it with cuDNN's error log on).
#include "attention/cudnn_sdpa.hpp"

#include <cudnn.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
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

// O = softmax(Q K^T / sqrt(d)) V in fp64 on the host, for the --forms check.
std::vector<double> host_attention(const std::vector<__nv_bfloat16>& q, const std::vector<__nv_bfloat16>& k,
                                   const std::vector<__nv_bfloat16>& v, int heads_total, int seq, int d, bool causal) {
    std::vector<double> o(q.size()), p(seq);
    const double scale = 1.0 / std::sqrt(double(d));
    for (int hh = 0; hh < heads_total; ++hh) {
        const std::size_t base = std::size_t(hh) * seq * d;
        for (int i = 0; i < seq; ++i) {
            const int visible = causal ? i + 1 : seq;
            double row_max = -INFINITY;
            for (int j = 0; j < visible; ++j) {
                double dot = 0;
                for (int c = 0; c < d; ++c)
                    dot += double(__bfloat162float(q[base + std::size_t(i) * d + c])) *
                           double(__bfloat162float(k[base + std::size_t(j) * d + c]));
                p[j] = dot * scale;
                row_max = std::max(row_max, p[j]);
            }
            double sum = 0;
            for (int j = 0; j < visible; ++j) sum += (p[j] = std::exp(p[j] - row_max));
            for (int c = 0; c < d; ++c) {
                double acc = 0;
                for (int j = 0; j < visible; ++j) acc += p[j] * double(__bfloat162float(v[base + std::size_t(j) * d + c]));
                o[base + std::size_t(i) * d + c] = acc / sum;
            }
        }
    }
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 7) {
        std::fprintf(stderr, "usage: attention_peer_probe OUT_DIR|--forms BATCH HEADS SEQ HEAD_DIM CAUSAL(0|1)\n");
        return 2;
    }
    const std::string out = argv[1];
    const bool diagnose = out == "--forms";
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
    if (diagnose) {
        const bool small = double(batch) * heads * seq * double(seq) * head_dim <= 2e9;
        std::vector<double> reference;
        if (small) reference = host_attention(q, k, v, batch * heads, seq, head_dim, causal);
        int finalized = 0;
        for (const auto& form : roofline::attention::sdpa_forms(causal, int(cudnnGetVersion()), true)) {
            auto why = peer.plan_form(batch, heads, seq, head_dim, causal, form);
            std::printf("form [%s]: ", form.name(causal).c_str());
            if (!why.empty()) {
                std::printf("refused: %s\n", why.c_str());
                continue;
            }
            ++finalized;
            std::printf("FINALIZED, %s", peer.describe().c_str());
            try {
                check(cudaMemset(dout, 0xff, count * 2), "poison O");
                peer.run(dq, dk, dv, dout, nullptr);
                check(cudaDeviceSynchronize(), "run");
                if (small) {
                    std::vector<__nv_bfloat16> o(count);
                    check(cudaMemcpy(o.data(), dout, count * 2, cudaMemcpyDeviceToHost), "copy O");
                    double worst = 0, err2 = 0, ref2 = 0;
                    for (std::size_t i = 0; i < count; ++i) {
                        const double e = double(__bfloat162float(o[i])) - reference[i];
                        worst = std::isnan(e) ? INFINITY : std::max(worst, std::fabs(e));
                        err2 += e * e, ref2 += reference[i] * reference[i];
                    }
                    std::printf("; against fp64: max |err| %.3e, rel l2 %.3e%s", worst, std::sqrt(err2 / ref2),
                                worst <= 2e-2 ? "" : "  WRONG");
                }
            } catch (const std::exception& e) {
                std::printf("; run failed: %s", e.what());
            }
            std::printf("\n");
        }
        std::printf("%d form(s) finalized\n", finalized);
        return finalized > 0 ? 0 : 1;
    }
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
