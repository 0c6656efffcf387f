#include "lab_spec.hpp"

#include "elementwise/model.hpp"
#include "fusion/model.hpp"
#include "gemm/model.hpp"
#include "gemv/model.hpp"
#include "reduction/model.hpp"
#include "input_error.hpp"
#include "yaml_fields.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace roofline {

namespace {

const std::vector<std::string> kProblems{"elementwise", "fusion", "gemm", "gemv", "reduction"};

Shape read_shape(const YamlView& view) {
    Shape shape;
    for (const auto& key : view.keys()) shape[key] = view.positive_int(key);
    if (shape.empty()) view.fail("must give at least one size, e.g. {n: 1024}");
    return shape;
}

// The sizes each operation's shape must give, sorted.
std::vector<std::string> op_shape_keys(const std::string& problem, const std::string& op) {
    if (problem == "gemm") return {"k", "m", "n"};
    if (problem == "gemv") return op == "gemv_batched" ? std::vector<std::string>{"k", "m", "n"} : std::vector<std::string>{"k", "n"};
    if (op == "rmsnorm" || op == "row_sum") return {"cols", "rows"};
    if (op == "gemm_bias_gelu" || op == "gemm_bare") return {"k", "m", "n"};
    return {"n"};
}

std::vector<std::string> ops_of(const std::string& problem) {
    if (problem == "gemm") return {"gemm", "gemm_abt"};
    if (problem == "reduction") return {"row_sum"};
    if (problem == "gemv") return {"gemv", "gemv_batched", "gemv_int8", "gemv_fp8"};
    if (problem == "fusion") return {"chain", "rmsnorm", "gemm_bare", "gemm_bias_gelu"};
    return {"copy", "scale", "add", "fma_chain"};
}

std::vector<std::string> keys_of(const Shape& shape) {
    std::vector<std::string> keys;
    for (const auto& [key, value] : shape) keys.push_back(key);
    return keys;
}

// A lab-level shape must suit at least one operation of the lab's problems (the lab's
// own, and those its variants name).
void check_shape_keys(const YamlView& view, const Shape& shape, const std::vector<std::string>& problems) {
    std::vector<std::string> accepted;
    for (const auto& problem : problems) {
        for (const auto& op : ops_of(problem)) {
            auto wanted = op_shape_keys(problem, op);
            if (keys_of(shape) == wanted) return;
            auto text = "{" + fmt::format("{}", fmt::join(wanted, ", ")) + "}";
            if (std::find(accepted.begin(), accepted.end(), text) == accepted.end()) accepted.push_back(text);
        }
    }
    view.fail(fmt::format("must have exactly the sizes {} for problem '{}'", fmt::join(accepted, " or "),
                          fmt::join(problems, "', '")));
}

Tolerance read_tolerance(const YamlView& view) {
    view.only_keys({"atol", "rtol", "max_rel_l2"});
    return {view.at("atol").as_nonnegative_double(), view.at("rtol").as_nonnegative_double(),
            view.at("max_rel_l2").as_positive_double()};
}

// requires: {compute_capability: "10.0"}: the one GPU a variant's machine code runs on.
ComputeCapability read_requirement(const YamlView& view) {
    view.only_keys({"compute_capability"});
    auto text = view.at("compute_capability").as_string();
    auto cc = parse_compute_capability(text);
    if (!cc) view.at("compute_capability").fail(fmt::format("must be MAJOR.MINOR, e.g. \"10.0\" (got '{}')", text));
    return *cc;
}

double read_fraction(const YamlView& view) {
    double value = view.as_nonnegative_double();
    if (value > 1.5) view.fail(fmt::format("is a fraction of the peer or roofline, 0..1.5 (got {})", value));
    return value;
}

}  // namespace

std::string shape_text(const Shape& shape) {
    std::string out;
    for (const auto& [key, value] : shape) out += fmt::format("{}{}={}", out.empty() ? "" : ",", key, value);
    return out;
}

const VariantSpec& LabSpec::variant(const std::string& name) const {
    for (const auto& v : variants) {
        if (v.name == name) return v;
    }
    std::vector<std::string> names;
    for (const auto& v : variants) names.push_back(v.name);
    throw InputError(file, 0, fmt::format("lab {} has no variant '{}'; its variants: {}", id, name, fmt::join(names, ", ")));
}

const Tolerance& LabSpec::tolerance_for(const VariantSpec& v) const {
    if (v.tolerance) return *v.tolerance;
    auto it = tolerance.find(v.dtype);
    if (it == tolerance.end()) {
        throw InputError(file, v.line, fmt::format("variant {} is {} but tolerance has no {} entry; add one",
                                                   v.name, dtype_name(v.dtype), dtype_name(v.dtype)));
    }
    return it->second;
}

std::optional<std::string> LabSpec::shape_refusal(const VariantSpec& v, const Shape& shape) const {
    for (const auto& [key, multiple] : v.divisible_by) {
        auto it = shape.find(key);
        if (it != shape.end() && it->second % multiple != 0) {
            return fmt::format("{} needs {} to be a multiple of {} (lab.yaml divisible_by); {} skipped", v.name, key,
                               multiple, shape_text(shape));
        }
    }
    return std::nullopt;
}

std::vector<Shape> LabSpec::verify_shapes_for(const VariantSpec& v) const {
    std::vector<Shape> shapes;
    for (const auto& shape : verify) {
        if (keys_of(shape) == op_shape_keys(v.problem, v.op)) shapes.push_back(shape);
    }
    return shapes;
}

std::optional<Workload> LabSpec::unfused_work(const VariantSpec& v, const Shape& shape) const {
    if (v.problem != "fusion" || v.op == "gemm_bare") return std::nullopt;
    if (v.op == "gemm_bias_gelu") {  // GEMM, then a bias kernel, then a GELU kernel
        auto w = fusion::gemm_bias_gelu_unfused_work(shape.at("m"), shape.at("n"), shape.at("k"));
        return Workload{w.flops, w.bytes};
    }
    auto w = v.op == "chain" ? fusion::chain_unfused_work(shape.at("n"))
                             : fusion::rmsnorm_unfused_work(shape.at("rows"), shape.at("cols"));
    return Workload{w.flops, w.bytes};
}

Workload LabSpec::work(const VariantSpec& v, const Shape& shape) const {
    const std::string& problem = v.problem;
    double bytes = dtype_bytes(v.dtype);
    if (problem == "fusion" && (v.op == "gemm_bias_gelu" || v.op == "gemm_bare")) {
        auto m = shape.at("m"), n = shape.at("n"), k = shape.at("k");
        auto w = v.op == "gemm_bare" ? fusion::gemm_bare_work(m, n, k) : fusion::gemm_bias_gelu_work(m, n, k);
        return {w.flops, w.bytes};
    }
    if (problem == "fusion") {
        auto w = v.op == "chain" ? fusion::chain_work(shape.at("n")) : fusion::rmsnorm_work(shape.at("rows"), shape.at("cols"));
        return {w.flops, w.bytes};
    }
    if (problem == "reduction") {
        auto w = reduction::row_sum_work(shape.at("rows"), shape.at("cols"));
        return {w.flops, w.bytes};
    }
    if (problem == "gemv") {  // the weights' bytes come from the op, not the dtype (bf16: x and y)
        double m = v.op == "gemv_batched" ? double(shape.at("m")) : 1.0;
        auto w = gemv::work_of(v.op, m, shape.at("n"), shape.at("k"));
        return {w.flops, w.bytes};
    }
    if (problem == "gemm") {
        auto w = gemm::work_of(shape.at("m"), shape.at("n"), shape.at("k"), bytes, bytes);
        return {w.flops, w.bytes};
    }
    auto w = elementwise::work_of(v.op, shape.at("n"), bytes);
    return {w.flops, w.bytes};
}

Workload LabSpec::peer_work(const VariantSpec& v, const Shape& shape) const {
    const std::string& problem = v.problem;
    if (problem == "gemm") return work(v, shape);
    if (problem == "gemv") {
        if (v.op == "gemv_batched") return work(v, shape);  // cuBLAS
        auto w = gemv::memcpy_peer_work(v.op, shape.at("n"), shape.at("k"));
        return {w.flops, w.bytes};
    }
    if (problem == "fusion" && (v.op == "gemm_bias_gelu" || v.op == "gemm_bare")) return work(v, shape);  // cuBLASLt
    if (problem == "reduction") {
        auto w = reduction::row_sum_peer_work(shape.at("rows"), shape.at("cols"));
        return {w.flops, w.bytes};
    }
    if (problem == "fusion") {  // cudaMemcpy of x
        double elements = v.op == "chain" ? shape.at("n") : double(shape.at("rows")) * shape.at("cols");
        return {0, 2.0 * elements * dtype_bytes(v.dtype)};
    }
    auto w = elementwise::peer_work_of(shape.at("n"), dtype_bytes(v.dtype));
    return {w.flops, w.bytes};
}

LabSpec load_lab(const std::filesystem::path& lab_yaml) {
    auto root = YamlView::load_file(lab_yaml);
    if (!root.node().IsMap()) root.fail("lab.yaml must be a mapping (title:, problem:, variants:, ...)");
    root.only_keys({"title", "lesson", "problem", "timeout_s", "launch_timeout_s", "shapes", "tolerance", "scoring",
                    "variants", "sweep", "requires", "allow_calls"});
    LabSpec lab;
    lab.file = lab_yaml;
    lab.id = lab_yaml.parent_path().filename().string();
    lab.title = root.string("title");
    lab.lesson = root.string("lesson");
    lab.problem = root.string("problem");
    if (std::find(kProblems.begin(), kProblems.end(), lab.problem) == kProblems.end()) {
        root.at("problem").fail(fmt::format("must be one of {} (got '{}')", fmt::join(kProblems, ", "), lab.problem));
    }
    lab.timeout_s = root.positive("timeout_s");
    if (auto launch = root.maybe("launch_timeout_s")) lab.launch_timeout_s = launch->as_positive_double();
    if (auto allow = root.maybe("allow_calls")) {
        lab.allow_calls = allow->as_string_list();
        for (const auto& call : lab.allow_calls) {
            if (call != "cudaMemcpy" && call != "cudaMemset")
                allow->fail(fmt::format("allow_calls takes cudaMemcpy and cudaMemset (got '{}'); libraries such as "
                                        "cuBLAS are never allowed: the timed work must be the student's own", call));
        }
    }

    auto shapes = root.at("shapes");
    shapes.only_keys({"timed", "verify"});
    // The problems the lab's variants use: its own, and any a variant names.
    std::vector<std::string> lab_problems{lab.problem};
    for (const auto& item : root.at("variants").items()) {
        if (!item.node().IsMap() || !item.has("problem")) continue;
        auto named = item.string("problem");
        if (std::find(kProblems.begin(), kProblems.end(), named) == kProblems.end())
            item.at("problem").fail(fmt::format("must be one of {} (got '{}')", fmt::join(kProblems, ", "), named));
        if (std::find(lab_problems.begin(), lab_problems.end(), named) == lab_problems.end())
            lab_problems.push_back(named);
    }
    lab.timed = read_shape(shapes.at("timed"));
    check_shape_keys(shapes.at("timed"), lab.timed, lab_problems);
    for (const auto& item : shapes.at("verify").items()) {
        lab.verify.push_back(read_shape(item));
        check_shape_keys(item, lab.verify.back(), lab_problems);
    }

    if (auto sweep = root.maybe("sweep")) {
        for (const auto& item : sweep->items()) lab.sweep_divisors.push_back(item.as_positive_int());
        if (lab.problem != "elementwise") sweep->fail("is only for elementwise labs (it divides n)");
    }

    auto tolerance = root.at("tolerance");
    for (const auto& key : tolerance.keys()) {
        auto dtype = parse_dtype(key);
        if (!dtype) tolerance.at(key).fail("is not a dtype; use fp64, fp32, tf32, fp16, bf16, fp8 or fp4");
        lab.tolerance[*dtype] = read_tolerance(tolerance.at(key));
    }

    auto scoring = root.at("scoring");
    scoring.only_keys({"correctness", "performance", "prediction", "against", "floor_fraction", "target_fraction",
                       "gap_note"});
    lab.scoring.correctness = scoring.at("correctness").as_nonnegative_double();
    lab.scoring.performance = scoring.at("performance").as_nonnegative_double();
    lab.scoring.prediction = scoring.at("prediction").as_nonnegative_double();
    if (auto gap_note = scoring.maybe("gap_note")) lab.scoring.gap_note = gap_note->as_nonnegative_double();
    lab.scoring.against = scoring.string("against");
    if (lab.scoring.against != "peer" && lab.scoring.against != "roofline") {
        scoring.at("against").fail("must be 'peer' (the library measured in the same run) or 'roofline'");
    }
    lab.scoring.floor_fraction = read_fraction(scoring.at("floor_fraction"));
    lab.scoring.target_fraction = read_fraction(scoring.at("target_fraction"));
    if (lab.scoring.target_fraction <= lab.scoring.floor_fraction) {
        scoring.at("target_fraction").fail("must be above floor_fraction");
    }

    for (const auto& item : root.at("variants").items()) {
        item.only_keys({"name", "problem", "op", "dtype", "file", "summary", "timed", "divisible_by",
                        "target_fraction", "floor_fraction", "against", "tolerance", "requires"});
        VariantSpec v;
        v.line = item.line();
        v.name = item.string("name");
        v.problem = item.has("problem") ? item.string("problem") : lab.problem;
        v.op = item.string("op");
        auto ops = ops_of(v.problem);
        if (std::find(ops.begin(), ops.end(), v.op) == ops.end()) {
            item.at("op").fail(fmt::format("must be one of {} for problem '{}'", fmt::join(ops, ", "), v.problem));
        }
        v.dtype = require_dtype(item.string("dtype"), fmt::format("{}:{}", lab_yaml.string(), item.at("dtype").line()));
        v.file = item.string("file");
        if (!std::filesystem::exists(lab_yaml.parent_path() / v.file)) {
            item.at("file").fail(fmt::format("names {}, which does not exist", (lab_yaml.parent_path() / v.file).string()));
        }
        v.summary = item.string("summary");
        v.timed = lab.timed;
        if (auto timed = item.maybe("timed")) v.timed = read_shape(*timed);
        if (keys_of(v.timed) != op_shape_keys(v.problem, v.op)) {
            (item.has("timed") ? item.at("timed") : item)
                .fail(fmt::format("timed shape must give exactly {} for op {}",
                                  fmt::join(op_shape_keys(v.problem, v.op), ", "), v.op));
        }
        if (auto divisible = item.maybe("divisible_by")) {
            divisible->only_keys(op_shape_keys(v.problem, v.op));
            for (const auto& key : divisible->keys()) v.divisible_by[key] = divisible->positive_int(key);
        }
        v.target_fraction = lab.scoring.target_fraction;
        v.floor_fraction = lab.scoring.floor_fraction;
        if (auto t = item.maybe("target_fraction")) v.target_fraction = read_fraction(*t);
        if (auto f = item.maybe("floor_fraction")) v.floor_fraction = read_fraction(*f);
        if (v.target_fraction <= v.floor_fraction) item.fail("target_fraction must be above floor_fraction");
        v.against = lab.scoring.against;
        if (auto against = item.maybe("against")) {
            v.against = against->as_string();
            if (v.against != "peer" && v.against != "roofline") against->fail("must be 'peer' or 'roofline'");
        }
        for (const auto& other : lab.variants) {
            if (other.name == v.name) item.at("name").fail(fmt::format("repeats the variant name '{}'", v.name));
        }
        if (auto tolerance = item.maybe("tolerance")) v.tolerance = read_tolerance(*tolerance);
        if (auto requirement = root.maybe("requires")) v.requires_cc = read_requirement(*requirement);
        if (auto requirement = item.maybe("requires")) v.requires_cc = read_requirement(*requirement);
        if (!v.tolerance && !lab.tolerance.count(v.dtype)) {
            item.at("dtype").fail(fmt::format("is {} but tolerance has no {} entry; add one", dtype_name(v.dtype),
                                              dtype_name(v.dtype)));
        }
        if (auto refusal = lab.shape_refusal(v, v.timed)) item.fail("timed shape refused: " + *refusal);
        lab.variants.push_back(v);
    }
    if (lab.variants.empty()) root.at("variants").fail("must list at least one variant");
    return lab;
}

std::vector<LabSpec> load_labs(const std::filesystem::path& labs_dir) {
    std::vector<LabSpec> labs;
    if (!std::filesystem::is_directory(labs_dir)) throw InputError(labs_dir, 0, "labs folder not found; pass --root");
    for (const auto& entry : std::filesystem::directory_iterator(labs_dir)) {
        if (std::filesystem::exists(entry.path() / "lab.yaml")) labs.push_back(load_lab(entry.path() / "lab.yaml"));
    }
    std::sort(labs.begin(), labs.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return labs;
}

std::pair<std::string, std::string> split_target(const std::string& target) {
    auto slash = target.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == target.size() || target.find('/', slash + 1) != std::string::npos) {
        throw InputError(fmt::format("'{}' must be LAB/VARIANT, e.g. 01-memory-roof/copy_naive_fp32 (see `roofline list`)",
                                     target));
    }
    return {target.substr(0, slash), target.substr(slash + 1)};
}

}  // namespace roofline
