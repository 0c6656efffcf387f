// cuDNN's fused attention through the backend API: every tensor, operation, graph, plan
// and variant pack is a cudnnBackendDescriptor_t built attribute by attribute. The graph
// (see cudnn_sdpa.hpp and sdpa_forms.hpp) is the composite one that cuDNN 9 matches to its
// flash-attention engines; each step's tensors are virtual (never in memory) except Q, K,
// V, O and, in the training form, the log-sum-exp.
#include "cudnn_sdpa.hpp"

#include <cudnn.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace roofline::attention {

namespace {

std::string cudnn_words(cudnnStatus_t status) {
    char last[512] = {0};
    cudnnGetLastErrorString(last, sizeof(last));
    std::string text = cudnnGetErrorString(status);
    if (last[0] != '\0') text += std::string(": ") + last;
    return text;
}

void check(cudnnStatus_t status, const char* what) {
    if (status != CUDNN_STATUS_SUCCESS) throw std::runtime_error(std::string("cuDNN ") + what + " failed: " + cudnn_words(status));
}

// One backend descriptor, destroyed with its owner.
class Descriptor {
public:
    explicit Descriptor(cudnnBackendDescriptorType_t type) { check(cudnnBackendCreateDescriptor(type, &d_), "create"); }
    ~Descriptor() {
        if (d_ != nullptr) cudnnBackendDestroyDescriptor(d_);
    }
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    cudnnBackendDescriptor_t get() const { return d_; }

    template <class T>
    Descriptor& set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, const T& value) {
        check(cudnnBackendSetAttribute(d_, name, type, 1, &value), "set attribute");
        return *this;
    }
    template <class T>
    Descriptor& set_array(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                          const std::vector<T>& values) {
        check(cudnnBackendSetAttribute(d_, name, type, static_cast<int64_t>(values.size()), values.data()),
              "set attribute");
        return *this;
    }
    Descriptor& set_desc(cudnnBackendAttributeName_t name, const Descriptor& other) {
        auto raw = other.get();
        return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, raw);
    }
    void finalize() { check(cudnnBackendFinalize(d_), "finalize"); }
    cudnnStatus_t try_finalize() { return cudnnBackendFinalize(d_); }

private:
    cudnnBackendDescriptor_t d_ = nullptr;
};

// The tensors the caller binds to memory (or to a host value, for the by-value scalars).
enum Uid : int64_t { kQ = 1, kK = 2, kV = 3, kO = 4, kScale = 5, kMaskValue = 6, kStats = 7, kVirtual = 100 };

const char* heuristics_name(cudnnBackendHeurMode_t mode) { return mode == CUDNN_HEUR_MODE_A ? "A" : "fallback"; }

}  // namespace

struct CudnnSdpa::Impl {
    cudnnHandle_t handle = nullptr;
    std::vector<std::unique_ptr<Descriptor>> kept;  // every descriptor the plan was built from
    std::unique_ptr<Descriptor> plan;
    std::unique_ptr<Descriptor> pack;     // the variant pack, kept while the pointers stay the same
    std::vector<void*> pack_pointers;
    std::int64_t workspace_bytes = 0;
    void* workspace = nullptr;
    float* stats = nullptr;               // [b,h,s,1] fp32, for the forms that write the log-sum-exp
    std::size_t stats_floats = 0;
    float scale = 1, mask_value = std::numeric_limits<float>::lowest();
    int64_t next_virtual = kVirtual;
    bool causal = false;
    SdpaForm form;
    std::string engine;

    Descriptor& make(cudnnBackendDescriptorType_t type) {
        kept.push_back(std::make_unique<Descriptor>(type));
        return *kept.back();
    }

    Descriptor& tensor(int64_t uid, cudnnDataType_t type, std::vector<int64_t> dims, std::vector<int64_t> strides,
                       bool is_virtual, bool by_value = false) {
        auto& t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
        const int64_t alignment = 16;
        t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, type)
            .set_array(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims)
            .set_array(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides)
            .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, uid)
            .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, alignment)
            .set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, is_virtual);
        if (by_value) t.set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, by_value);
        t.finalize();
        return t;
    }
    Descriptor& virtual_tensor(cudnnDataType_t type, std::vector<int64_t> dims, std::vector<int64_t> strides) {
        return tensor(next_virtual++, type, std::move(dims), std::move(strides), true);
    }

    // y = mode(x[, b[, t]]) elementwise, computed in `precision`.
    Descriptor& pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t precision, const Descriptor& x,
                          const Descriptor* b, const Descriptor* t, const Descriptor& y, int64_t axis = -1) {
        auto& pw = make(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
        pw.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, mode)
            .set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, precision);
        if (axis >= 0) pw.set(CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, axis);
        pw.finalize();
        auto& op = make(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
        op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pw)
            .set_desc(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x)
            .set_desc(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y);
        if (b != nullptr) op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b);
        if (t != nullptr) op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, *t);
        op.finalize();
        return op;
    }

    Descriptor& matmul(const Descriptor& a, const Descriptor& b, const Descriptor& c) {
        auto& desc = make(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
        desc.set(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT).finalize();
        auto& op = make(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
        op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_ADESC, a)
            .set_desc(CUDNN_ATTR_OPERATION_MATMUL_BDESC, b)
            .set_desc(CUDNN_ATTR_OPERATION_MATMUL_CDESC, c)
            .set_desc(CUDNN_ATTR_OPERATION_MATMUL_DESC, desc)
            .finalize();
        return op;
    }

    Descriptor& reduction(cudnnReduceTensorOp_t mode, const Descriptor& x, const Descriptor& y) {
        auto& desc = make(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
        desc.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, mode)
            .set(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT)
            .finalize();
        auto& op = make(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
        op.set_desc(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x)
            .set_desc(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y)
            .set_desc(CUDNN_ATTR_OPERATION_REDUCTION_DESC, desc)
            .finalize();
        return op;
    }

    // The composite graph's operations, in order (sdpa_forms.hpp: what cuDNN matches).
    std::vector<const Descriptor*> composite_graph(int64_t b, int64_t h, int64_t n, int64_t d) {
        std::vector<const Descriptor*> ops;
        const std::vector<int64_t> bhnd_stride{h * n * d, n * d, d, 1};
        const std::vector<int64_t> scores_dims{b, h, n, n}, scores_stride{h * n * n, n * n, n, 1};
        const std::vector<int64_t> row_dims{b, h, n, 1}, row_stride{h * n, n, 1, 1};
        const std::vector<int64_t> scalar{1, 1, 1, 1};

        auto& q = tensor(kQ, CUDNN_DATA_BFLOAT16, {b, h, n, d}, bhnd_stride, false);
        auto& k_t = tensor(kK, CUDNN_DATA_BFLOAT16, {b, h, d, n}, {h * n * d, n * d, 1, d}, false);  // K^T by strides
        auto& v = tensor(kV, CUDNN_DATA_BFLOAT16, {b, h, n, d}, bhnd_stride, false);
        auto& o = tensor(kO, CUDNN_DATA_BFLOAT16, {b, h, n, d}, bhnd_stride, false);
        auto& scale_t = tensor(kScale, CUDNN_DATA_FLOAT, scalar, scalar, false, /*by_value=*/true);

        auto& s = virtual_tensor(CUDNN_DATA_FLOAT, scores_dims, scores_stride);
        ops.push_back(&matmul(q, k_t, s));
        auto* last = &virtual_tensor(CUDNN_DATA_FLOAT, scores_dims, scores_stride);
        ops.push_back(&pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, s, &scale_t, nullptr, *last));

        if (causal) {
            const auto index_type = form.int32_mask_index ? CUDNN_DATA_INT32 : CUDNN_DATA_FLOAT;
            auto& row = virtual_tensor(index_type, scores_dims, scores_stride);
            auto& column = virtual_tensor(index_type, scores_dims, scores_stride);
            auto& keep = virtual_tensor(CUDNN_DATA_BOOLEAN, scores_dims, scores_stride);
            auto& mask_value_t = tensor(kMaskValue, CUDNN_DATA_FLOAT, scalar, scalar, false, /*by_value=*/true);
            auto& masked = virtual_tensor(CUDNN_DATA_FLOAT, scores_dims, scores_stride);
            ops.push_back(&pointwise(CUDNN_POINTWISE_GEN_INDEX, index_type, *last, nullptr, nullptr, row, 2));
            ops.push_back(&pointwise(CUDNN_POINTWISE_GEN_INDEX, index_type, *last, nullptr, nullptr, column, 3));
            ops.push_back(&pointwise(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row, &column, nullptr, keep));
            // BINARY_SELECT: y = t ? x : b, so keep ? score : lowest.
            ops.push_back(&pointwise(CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, *last, &mask_value_t, &keep, masked));
            last = &masked;
        }

        auto& row_max = virtual_tensor(CUDNN_DATA_FLOAT, row_dims, row_stride);
        auto& shifted = virtual_tensor(CUDNN_DATA_FLOAT, scores_dims, scores_stride);
        auto& exps = virtual_tensor(CUDNN_DATA_FLOAT, scores_dims, scores_stride);
        auto& row_sum = virtual_tensor(CUDNN_DATA_FLOAT, row_dims, row_stride);
        auto& log_sum = virtual_tensor(CUDNN_DATA_FLOAT, row_dims, row_stride);
        auto& stats_t = form.stats_in_memory ? tensor(kStats, CUDNN_DATA_FLOAT, row_dims, row_stride, false)
                                             : virtual_tensor(CUDNN_DATA_FLOAT, row_dims, row_stride);
        // P in the I/O type: the second matmul's A operand must be bf16 for the fused engines.
        auto& p = virtual_tensor(form.probs_in_io_type ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT, scores_dims,
                                 scores_stride);
        ops.push_back(&reduction(CUDNN_REDUCE_TENSOR_MAX, *last, row_max));
        ops.push_back(&pointwise(CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, *last, &row_max, nullptr, shifted));
        ops.push_back(&pointwise(CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, shifted, nullptr, nullptr, exps));
        ops.push_back(&reduction(CUDNN_REDUCE_TENSOR_ADD, exps, row_sum));
        // The log-sum-exp a training step keeps for the backward pass: part of the pattern
        // the fused engines match even when it stays virtual.
        ops.push_back(&pointwise(CUDNN_POINTWISE_LOG, CUDNN_DATA_FLOAT, row_sum, nullptr, nullptr, log_sum));
        ops.push_back(&pointwise(CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, row_max, &log_sum, nullptr, stats_t));
        ops.push_back(&pointwise(CUDNN_POINTWISE_DIV, CUDNN_DATA_FLOAT, exps, &row_sum, nullptr, p));
        ops.push_back(&matmul(p, v, o));
        return ops;
    }

    // The one-operation form (cuDNN >= 9.13.1): Q, K (not transposed), V, O and the scale.
    std::vector<const Descriptor*> unified_graph(int64_t b, int64_t h, int64_t n, int64_t d) {
#if CUDNN_VERSION >= 91301
        const std::vector<int64_t> dims{b, h, n, d}, stride{h * n * d, n * d, d, 1}, scalar{1, 1, 1, 1};
        auto& q = tensor(kQ, CUDNN_DATA_BFLOAT16, dims, stride, false);
        auto& k = tensor(kK, CUDNN_DATA_BFLOAT16, dims, stride, false);
        auto& v = tensor(kV, CUDNN_DATA_BFLOAT16, dims, stride, false);
        auto& o = tensor(kO, CUDNN_DATA_BFLOAT16, dims, stride, false);
        auto& scale_t = tensor(kScale, CUDNN_DATA_FLOAT, scalar, scalar, false, /*by_value=*/true);
        auto& op = make(CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR);
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, q)
            .set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, k)
            .set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, v)
            .set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, o)
            .set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, scale_t);
        if (form.stats_in_memory) {
            auto& stats_t = tensor(kStats, CUDNN_DATA_FLOAT, {b, h, n, 1}, {h * n, n, 1, 1}, false);
            op.set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, stats_t);
        }
        op.finalize();
        return {&op};
#else
        (void)b, (void)h, (void)n, (void)d;
        throw std::runtime_error("this build's cuDNN headers predate the unified SDPA operation (9.13.1)");
#endif
    }

    // The engine configurations one heuristics mode offers for `graph` (none where it has none).
    std::vector<std::unique_ptr<Descriptor>> engine_configs(const Descriptor& graph, cudnnBackendHeurMode_t mode,
                                                            std::string& why) {
        std::vector<std::unique_ptr<Descriptor>> configs;
        auto& heuristics = make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
        heuristics.set_desc(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph)
            .set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, mode);
        if (auto status = heuristics.try_finalize(); status != CUDNN_STATUS_SUCCESS) {
            why += std::string("; heuristics mode ") + heuristics_name(mode) + " refused: " + cudnn_words(status);
            return configs;
        }
        int64_t count = 0;
        check(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                       0, &count, nullptr),
              "engine count");
        std::vector<cudnnBackendDescriptor_t> raw;
        for (int64_t i = 0; i < count; ++i) {
            configs.push_back(std::make_unique<Descriptor>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
            raw.push_back(configs.back()->get());
        }
        int64_t returned = 0;
        if (count > 0) {
            check(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                           CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &returned, raw.data()),
                  "engine configurations");
        }
        configs.resize(static_cast<std::size_t>(returned));
        if (returned == 0) why += std::string("; heuristics mode ") + heuristics_name(mode) + " offers no engine";
        return configs;
    }

    // cuDNN's global index of the engine a configuration runs (-1 if it will not say).
    static int64_t engine_index(const Descriptor& config) {
        Descriptor engine_desc(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        auto raw = engine_desc.get();
        int64_t count = 0, index = -1;
        if (cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                     &count, &raw) != CUDNN_STATUS_SUCCESS)
            return -1;
        if (cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &count, &index) !=
            CUDNN_STATUS_SUCCESS)
            return -1;
        return index;
    }

    // The graph in `form` for this shape, then the first engine configuration that finalizes:
    // heuristics mode A's list first, then the fallback list. "" on success, else why not.
    std::string try_plan(int64_t b, int64_t h, int64_t n, int64_t d) {
        kept.clear();
        plan.reset();
        pack.reset();
        next_virtual = kVirtual;
        auto ops = form.unified ? unified_graph(b, h, n, d) : composite_graph(b, h, n, d);
        std::vector<cudnnBackendDescriptor_t> raw_ops;
        for (const auto* op : ops) raw_ops.push_back(op->get());
        auto& graph = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
        graph.set_array(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, raw_ops)
            .set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, handle);
        if (auto status = graph.try_finalize(); status != CUDNN_STATUS_SUCCESS)
            return "the operation graph was refused: " + cudnn_words(status);

        std::string why;
        for (auto mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
            auto configs = engine_configs(graph, mode, why);
            for (std::size_t i = 0; i < configs.size(); ++i) {
                auto candidate = std::make_unique<Descriptor>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
                candidate->set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle)
                    .set_desc(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, *configs[i]);
                if (auto status = candidate->try_finalize(); status != CUDNN_STATUS_SUCCESS) {
                    why += std::string("; mode ") + heuristics_name(mode) + " configuration " + std::to_string(i + 1) +
                           " (engine " + std::to_string(engine_index(*configs[i])) + "): " + cudnn_words(status);
                    continue;
                }
                int64_t elements = 0;
                check(cudnnBackendGetAttribute(candidate->get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                               CUDNN_TYPE_INT64, 1, &elements, &workspace_bytes),
                      "workspace size");
                engine = "engine " + std::to_string(engine_index(*configs[i])) + " (heuristics mode " +
                         heuristics_name(mode) + ", configuration " + std::to_string(i + 1) + " of " +
                         std::to_string(configs.size()) + ")";
                plan = std::move(candidate);
                for (auto& config : configs) kept.push_back(std::move(config));
                return "";
            }
        }
        return "no engine configuration finalized" + why;
    }
};

CudnnSdpa::CudnnSdpa() : impl_(std::make_unique<Impl>()) { check(cudnnCreate(&impl_->handle), "cudnnCreate"); }

CudnnSdpa::~CudnnSdpa() {  // no throwing from a destructor
    impl_->pack.reset();
    impl_->plan.reset();
    impl_->kept.clear();
    if (impl_->workspace != nullptr) cudaFree(impl_->workspace);
    if (impl_->stats != nullptr) cudaFree(impl_->stats);
    if (impl_->handle != nullptr) cudnnDestroy(impl_->handle);
}

std::string CudnnSdpa::plan(int batch, int heads, int seq, int head_dim, bool causal) {
    std::string why;
    for (const auto& form : sdpa_forms(causal, static_cast<int>(cudnnGetVersion()))) {
        auto refusal = plan_form(batch, heads, seq, head_dim, causal, form);
        if (refusal.empty()) return "";
        why += (why.empty() ? "" : " | ") + form.name(causal) + ": " + refusal;
    }
    return why;
}

std::string CudnnSdpa::plan_form(int batch, int heads, int seq, int head_dim, bool causal, const SdpaForm& form) {
    impl_->scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
    impl_->causal = causal;
    impl_->form = form;
    impl_->engine.clear();
    std::string refusal;
    try {
        refusal = impl_->try_plan(batch, heads, seq, head_dim);
    } catch (const std::exception& e) {
        refusal = e.what();
    }
    if (!refusal.empty()) {
        impl_->plan.reset();
        impl_->kept.clear();
        return refusal;
    }
    auto release = [](auto*& pointer) {
        if (pointer != nullptr) cudaFree(pointer);
        pointer = nullptr;
    };
    release(impl_->workspace);
    release(impl_->stats);
    if (impl_->workspace_bytes > 0 && cudaMalloc(&impl_->workspace, impl_->workspace_bytes) != cudaSuccess) {
        impl_->plan.reset();
        return "cudaMalloc of cuDNN's workspace (" + std::to_string(impl_->workspace_bytes) + " bytes) failed";
    }
    impl_->stats_floats = std::size_t(batch) * heads * seq;
    if (form.stats_in_memory && cudaMalloc(&impl_->stats, impl_->stats_floats * sizeof(float)) != cudaSuccess) {
        impl_->plan.reset();
        return "cudaMalloc of the log-sum-exp output (" + std::to_string(impl_->stats_floats * 4) + " bytes) failed";
    }
    return "";
}

bool CudnnSdpa::planned() const { return impl_->plan != nullptr; }

void CudnnSdpa::run(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                    cudaStream_t stream) {
    if (!impl_->plan) throw std::runtime_error("cuDNN attention was run without a plan");
    check(cudnnSetStream(impl_->handle, stream), "cudnnSetStream");
    std::vector<void*> pointers{const_cast<__nv_bfloat16*>(q), const_cast<__nv_bfloat16*>(k),
                                const_cast<__nv_bfloat16*>(v), o, &impl_->scale};
    std::vector<int64_t> uids{kQ, kK, kV, kO, kScale};
    if (impl_->causal && !impl_->form.unified) {  // the by-value scalars are read from host memory at execution
        uids.push_back(kMaskValue);
        pointers.push_back(&impl_->mask_value);
    }
    if (impl_->form.stats_in_memory) {
        uids.push_back(kStats);
        pointers.push_back(impl_->stats);
    }
    // Built once per set of pointers, so that a timed launch pays only for the execution.
    if (!impl_->pack || pointers != impl_->pack_pointers) {
        auto pack = std::make_unique<Descriptor>(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
        pack->set_array(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids)
            .set_array(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers)
            .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, impl_->workspace);
        pack->finalize();
        impl_->pack = std::move(pack);
        impl_->pack_pointers = pointers;
    }
    check(cudnnBackendExecute(impl_->handle, impl_->plan->get(), impl_->pack->get()), "execute");
}

std::string CudnnSdpa::describe() const {
    auto version = cudnnGetVersion();
    return "cuDNN " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
           std::to_string(version % 100) +
           (impl_->engine.empty() ? "" : ", " + impl_->form.name(impl_->causal) + ", " + impl_->engine);
}

}  // namespace roofline::attention
