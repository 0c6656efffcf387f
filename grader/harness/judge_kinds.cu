#include "judge_kinds.hpp"

#include "roofline/contract/decode_attention.cuh"
#include "roofline/contract/elementwise.cuh"
#include "roofline/contract/fusion.cuh"
#include "roofline/contract/gemm.cuh"
#include "roofline/contract/gemv.cuh"
#include "roofline/contract/decode_layer.cuh"
#include "roofline/contract/reduction.cuh"
#include "roofline/contract/transpose.cuh"
#if ROOFLINE_JUDGE_HAS_ATTENTION
#include "roofline/contract/attention.cuh"
#endif
#include "../problems/gemv/decode_layer_wire.hpp"

#include <map>

namespace roofline::harness {

namespace {
using bf16 = __nv_bfloat16;
const char* const kJudge = "(judge)";
}  // namespace

std::string kind_key(const std::string& problem, const std::string& dtype, const std::string& signature) {
    return problem + "|" + dtype + "|" + signature;
}

void register_judge_kinds() {
    static bool done = false;
    if (done) return;
    done = true;
    int next = 0;
    auto name = [&next] {
        static std::vector<std::string> names;  // the registry keeps the pointer's text
        names.push_back("kind-" + std::to_string(++next));
        return names.back().c_str();
    };
    using namespace roofline;
    elementwise::register_copy(name(), remote_launch<elementwise::CopyLaunch<float>>(), kJudge);
    elementwise::register_copy(name(), remote_launch<elementwise::CopyLaunch<bf16>>(), kJudge);
    elementwise::register_scale(name(), remote_launch<elementwise::ScaleLaunch<float>>(), kJudge);
    elementwise::register_scale(name(), remote_launch<elementwise::ScaleLaunch<bf16>>(), kJudge);
    elementwise::register_add(name(), remote_launch<elementwise::AddLaunch<float>>(), kJudge);
    elementwise::register_add(name(), remote_launch<elementwise::AddLaunch<bf16>>(), kJudge);
    elementwise::register_fma_chain(name(), remote_launch<elementwise::CopyLaunch<float>>(), kJudge);
    fusion::register_chain(name(), remote_launch<fusion::ChainLaunch>(), kJudge);
    fusion::register_rmsnorm(name(), remote_launch<fusion::RmsNormLaunch>(), kJudge);
    fusion::register_gemm_bias_gelu(name(), remote_launch<fusion::GemmBiasGeluLaunch>(), kJudge);
    fusion::register_gemm_bare(name(), remote_launch<fusion::GemmBareLaunch>(), kJudge);
    gemm::register_gemm(name(), remote_launch<gemm::LaunchFp32>(), kJudge);
    gemm::register_gemm(name(), remote_launch<gemm::LaunchBf16>(), kJudge);
    gemm::register_gemm_abt(name(), remote_launch<gemm::LaunchBf16ABt>(), kJudge);
    gemm::register_gemm_fp8(name(), remote_launch<gemm::LaunchFp8>(), kJudge);
    gemm::register_gemm_fp8_block_scaled(name(), remote_launch<gemm::LaunchFp8>(), kJudge);
    gemv::register_gemv(name(), remote_launch<gemv::GemvLaunch>(), kJudge);
    gemv::register_gemv_batched(name(), remote_launch<gemv::GemvBatchedLaunch>(), kJudge);
    gemv::register_gemv_int8(name(), remote_launch<gemv::GemvInt8Launch>(), kJudge);
    gemv::register_gemv_fp8(name(), remote_launch<gemv::GemvFp8Launch>(), kJudge);
    gemv::register_decode_layer(name(), remote_launch<gemv::DecodeLayerLaunch>(), kJudge);
    decode_attention::register_decode_attention(name(), remote_launch<decode_attention::DecodeAttentionLaunch>(), kJudge);
    reduction::register_row_sum(name(), remote_launch<reduction::RowSumLaunch>(), kJudge);
    transpose::register_transpose(name(), remote_launch<transpose::TransposeLaunch<float>>(), kJudge);
    transpose::register_transpose(name(), remote_launch<transpose::TransposeLaunch<bf16>>(), kJudge);
#if ROOFLINE_JUDGE_HAS_ATTENTION
    for (bool causal : {false, true}) {
        attention::register_attention(name(), remote_launch<attention::AttentionLaunch>(), causal, kJudge);
        attention::register_attention(name(), remote_launch<attention::AttentionScoresLaunch>(), causal, kJudge);
    }
#endif
}

const VariantEntry* find_kind(const std::string& problem, const std::string& dtype, const std::string& signature) {
    const std::string wanted = kind_key(problem, dtype, signature);
    for (const auto& entry : registered_variants())
        if (entry.source_file == kJudge && kind_key(entry.problem, entry.dtype, entry.invoker.signature) == wanted)
            return &entry;
    return nullptr;
}

}  // namespace roofline::harness
