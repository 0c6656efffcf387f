// cuDNN's fused attention through the backend API: every tensor, operation, graph, plan
// and variant pack is a cudnnBackendDescriptor_t built attribute by attribute. The graph
// (see cudnn_sdpa.hpp) is the composite one that cuDNN 9 matches to its flash-attention
// engines; each step's tensors are virtual (never in memory) except Q, K, V and O.
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
enum Uid : int64_t { kQ = 1, kK = 2, kV = 3, kO = 4, kScale = 5, kMaskValue = 6, kVirtual = 100 };

}  // namespace

struct CudnnSdpa::Impl {
    cudnnHandle_t handle = nullptr;
    std::vector<std::unique_ptr<Descriptor>> kept;  // every descriptor the plan was built from
    std::unique_ptr<Descriptor> plan;
    std::unique_ptr<Descriptor> pack;     // the variant pack, kept while the pointers stay the same
    std::vector<void*> pack_pointers;
    std::int64_t workspace_bytes = 0;
    void* workspace = nullptr;
    float scale = 1, mask_value = std::numeric_limits<float>::lowest();
    int64_t next_virtual = kVirtual;
    bool causal = false;
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

    // The operations of the attention graph, in order. `index_type` is the data type of the
    // causal mask's row and column indices and `compare_type` the comparison's precision
    // (cuDNN versions and their fused engines differ in what they match).
    std::vector<const Descriptor*> build_graph(int64_t b, int64_t h, int64_t n, int64_t d, bool causal,
                                               cudnnDataType_t index_type, cudnnDataType_t compare_type) {
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
            auto& row = virtual_tensor(index_type, scores_dims, scores_stride);
            auto& column = virtual_tensor(index_type, scores_dims, scores_stride);
            auto& keep = virtual_tensor(CUDNN_DATA_BOOLEAN, scores_dims, scores_stride);
            auto& mask_value_t = tensor(kMaskValue, CUDNN_DATA_FLOAT, scalar, scalar, false, /*by_value=*/true);
            auto& masked = virtual_tensor(CUDNN_DATA_FLOAT, scores_dims, scores_stride);
            ops.push_back(&pointwise(CUDNN_POINTWISE_GEN_INDEX, index_type, *last, nullptr, nullptr, row, 2));
            ops.push_back(&pointwise(CUDNN_POINTWISE_GEN_INDEX, index_type, *last, nullptr, nullptr, column, 3));
            ops.push_back(&pointwise(CUDNN_POINTWISE_CMP_GE, compare_type, row, &column, nullptr, keep));
            // BINARY_SELECT: y = t ? x : b, so keep ? score : lowest.
            ops.push_back(&pointwise(CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, *last, &mask_value_t, &keep, masked));
            last = &masked;
        }

        auto& row_max = virtual_tensor(CUDNN_DATA_FLOAT, row_dims, row_stride);
        auto& shifted = virtual_tensor(CUDNN_DATA_FLOAT, scores_dims, scores_stride);
        auto& exps = virtual_tensor(CUDNN_DATA_FLOAT, scores_dims, scores_stride);
        auto& row_sum = virtual_tensor(CUDNN_DATA_FLOAT, row_dims, row_stride);
        auto& log_sum = virtual_tensor(CUDNN_DATA_FLOAT, row_dims, row_stride);
        auto& stats = virtual_tensor(CUDNN_DATA_FLOAT, row_dims, row_stride);
        auto& p = virtual_tensor(CUDNN_DATA_FLOAT, scores_dims, scores_stride);
        ops.push_back(&reduction(CUDNN_REDUCE_TENSOR_MAX, *last, row_max));
        ops.push_back(&pointwise(CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, *last, &row_max, nullptr, shifted));
        ops.push_back(&pointwise(CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, shifted, nullptr, nullptr, exps));
        ops.push_back(&reduction(CUDNN_REDUCE_TENSOR_ADD, exps, row_sum));
        // The log-sum-exp a training step would keep for the backward pass; virtual here,
        // but part of the pattern the fused engines match.
        ops.push_back(&pointwise(CUDNN_POINTWISE_LOG, CUDNN_DATA_FLOAT, row_sum, nullptr, nullptr, log_sum));
        ops.push_back(&pointwise(CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, row_max, &log_sum, nullptr, stats));
        ops.push_back(&pointwise(CUDNN_POINTWISE_DIV, CUDNN_DATA_FLOAT, exps, &row_sum, nullptr, p));
        ops.push_back(&matmul(p, v, o));
        return ops;
    }

    // The graph for this shape, then the first engine configuration that finalizes.
    std::string try_plan(int64_t b, int64_t h, int64_t n, int64_t d, bool causal, cudnnDataType_t index_type,
                         cudnnDataType_t compare_type) {
        kept.clear();
        plan.reset();
        pack.reset();
        next_virtual = kVirtual;
        auto ops = build_graph(b, h, n, d, causal, index_type, compare_type);
        std::vector<cudnnBackendDescriptor_t> raw_ops;
        for (const auto* op : ops) raw_ops.push_back(op->get());
        auto& graph = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
        graph.set_array(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, raw_ops)
            .set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, handle);
        if (auto status = graph.try_finalize(); status != CUDNN_STATUS_SUCCESS)
            return "the operation graph was refused: " + cudnn_words(status);

        auto& heuristics = make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
        heuristics.set_desc(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph)
            .set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, CUDNN_HEUR_MODE_A);
        if (auto status = heuristics.try_finalize(); status != CUDNN_STATUS_SUCCESS)
            return "the heuristics were refused: " + cudnn_words(status);
        int64_t count = 0;
        check(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                       0, &count, nullptr),
              "engine count");
        if (count == 0) return "the heuristics offer no engine for this graph";
        std::vector<std::unique_ptr<Descriptor>> configs;
        std::vector<cudnnBackendDescriptor_t> raw_configs;
        for (int64_t i = 0; i < count; ++i) {
            configs.push_back(std::make_unique<Descriptor>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
            raw_configs.push_back(configs.back()->get());
        }
        int64_t returned = 0;
        check(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                       count, &returned, raw_configs.data()),
              "engine configurations");
        std::string refusals;
        for (int64_t i = 0; i < returned; ++i) {
            auto candidate = std::make_unique<Descriptor>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
            candidate->set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle)
                .set_desc(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, *configs[i]);
            if (auto status = candidate->try_finalize(); status != CUDNN_STATUS_SUCCESS) {
                refusals += "; engine configuration " + std::to_string(i) + ": " + cudnn_words(status);
                continue;
            }
            int64_t elements = 0;
            check(cudnnBackendGetAttribute(candidate->get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                           CUDNN_TYPE_INT64, 1, &elements, &workspace_bytes),
                  "workspace size");
            plan = std::move(candidate);
            for (auto& config : configs) kept.push_back(std::move(config));
            engine = "configuration " + std::to_string(i + 1) + " of " + std::to_string(returned) +
                     " from heuristics mode A";
            return "";
        }
        return "no engine configuration finalized" + refusals;
    }
};

CudnnSdpa::CudnnSdpa() : impl_(std::make_unique<Impl>()) { check(cudnnCreate(&impl_->handle), "cudnnCreate"); }

CudnnSdpa::~CudnnSdpa() {  // no throwing from a destructor
    impl_->pack.reset();
    impl_->plan.reset();
    impl_->kept.clear();
    if (impl_->workspace != nullptr) cudaFree(impl_->workspace);
    if (impl_->handle != nullptr) cudnnDestroy(impl_->handle);
}

std::string CudnnSdpa::plan(int batch, int heads, int seq, int head_dim, bool causal) {
    impl_->scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
    impl_->causal = causal;
    std::string why;
    // The causal mask's (index type, comparison precision): the first pair whose graph
    // finalizes. int32 indices compared into booleans first (the form cuDNN 9's graphs use),
    // then fp32 indices (how cuDNN 8.9's flash engines were first driven). The answer is
    // checked against the reference before the plan is trusted (attention_problem.cu).
    const std::pair<cudnnDataType_t, cudnnDataType_t> mask_types[] = {
        {CUDNN_DATA_INT32, CUDNN_DATA_BOOLEAN}, {CUDNN_DATA_FLOAT, CUDNN_DATA_BOOLEAN},
        {CUDNN_DATA_INT32, CUDNN_DATA_INT32}, {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT}};
    for (const auto& [index_type, compare_type] : mask_types) {
        std::string refusal;
        try {
            refusal = impl_->try_plan(batch, heads, seq, head_dim, causal, index_type, compare_type);
        } catch (const std::exception& e) {
            refusal = e.what();
        }
        if (refusal.empty()) break;
        why += (why.empty() ? "" : " | ") + refusal;
        if (!causal) break;  // the types only matter to the mask
    }
    if (!impl_->plan) {
        impl_->kept.clear();
        return why;
    }
    if (impl_->workspace != nullptr) {
        cudaFree(impl_->workspace);
        impl_->workspace = nullptr;
    }
    if (impl_->workspace_bytes > 0 && cudaMalloc(&impl_->workspace, impl_->workspace_bytes) != cudaSuccess) {
        impl_->plan.reset();
        return "cudaMalloc of cuDNN's workspace (" + std::to_string(impl_->workspace_bytes) + " bytes) failed";
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
    if (impl_->causal) {  // the by-value scalars are read from host memory at execution
        uids.push_back(kMaskValue);
        pointers.push_back(&impl_->mask_value);
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
           std::to_string(version % 100) + (impl_->engine.empty() ? "" : ", " + impl_->engine);
}

}  // namespace roofline::attention
