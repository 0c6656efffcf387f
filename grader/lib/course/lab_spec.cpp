#include "lab_spec.hpp"
#include "instruction_roof.hpp"

#include "input_error.hpp"
#include "lab_aliases.hpp"
#include "yaml_fields.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace roofline {

namespace {

Shape read_shape(const YamlView& view) {
    Shape shape;
    for (const auto& key : view.keys()) shape[key] = view.positive_int(key);
    if (shape.empty()) view.fail("must give at least one size, e.g. {n: 1024}");
    return shape;
}

// A family named in lab.yaml (the lab's `problem` or a variant's): one of the table's.
const ProblemFamily& read_family(const YamlView& view) {
    auto name = view.as_string();
    const auto* family = find_family(name);
    if (!family) view.fail(fmt::format("must be one of {} (got '{}')", fmt::join(family_names(), ", "), name));
    return *family;
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
        if (graded_on_cpu(problem)) continue;  // takes no shape
        for (const auto& op : find_family(problem)->ops) {
            const auto& wanted = op.shape_keys;
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

bool graded_on_cpu(const std::string& problem) {
    const auto* family = find_family(problem);
    return family && family->graded_on_cpu;
}

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
        if (keys_of(shape) == family_op(v.problem, v.op).shape_keys) shapes.push_back(shape);
    }
    return shapes;
}

Workload LabSpec::work(const VariantSpec& v, const Shape& shape) const {
    return family_op(v.problem, v.op).work(shape, v.dtype);
}

Workload LabSpec::peer_work(const VariantSpec& v, const Shape& shape) const {
    return family_op(v.problem, v.op).peer_work(shape, v.dtype);
}

std::optional<Workload> LabSpec::unfused_work(const VariantSpec& v, const Shape& shape) const {
    const auto& op = family_op(v.problem, v.op);
    if (!op.unfused_work) return std::nullopt;
    return op.unfused_work(shape, v.dtype);
}

std::optional<Workload> LabSpec::also_work(const VariantSpec& v, const Shape& shape) const {
    const auto& op = family_op(v.problem, v.op);
    if (!op.also_work) return std::nullopt;
    return op.also_work(shape, v.dtype);
}

LabSpec load_lab(const std::filesystem::path& lab_yaml) {
    auto root = YamlView::load_file(lab_yaml);
    if (!root.node().IsMap()) root.fail("lab.yaml must be a mapping (title:, problem:, variants:, ...)");
    root.only_keys({"title", "lesson", "problem", "timeout_s", "launch_timeout_s", "shapes", "tolerance", "scoring",
                    "variants", "sweep", "requires", "allow_calls", "given_kernels"});
    LabSpec lab;
    lab.file = lab_yaml;
    lab.id = lab_yaml.parent_path().filename().string();
    lab.title = root.string("title");
    lab.lesson = root.string("lesson");
    lab.problem = read_family(root.at("problem")).name;
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

    if (auto given = root.maybe("given_kernels")) {
        auto kind = given->as_string();
        if (kind != "skeletons" && kind != "correct") {
            given->fail(fmt::format("is '{}'; use 'skeletons' (the kernel files hold TODOs and fail until written: the "
                                    "default) or 'correct' (correct kernels, slow by design, for the student to fix)",
                                    kind));
        }
        lab.given_kernels_correct = kind == "correct";
    }

    auto shapes = root.at("shapes");
    shapes.only_keys({"timed", "verify"});
    // The problems the lab's variants use: its own, and any a variant names.
    std::vector<std::string> lab_problems{lab.problem};
    for (const auto& item : root.at("variants").items()) {
        if (!item.node().IsMap() || !item.has("problem")) continue;
        auto named = read_family(item.at("problem")).name;
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
        // The sweep divides n, so every op of the lab's family must take shapes {n} alone.
        const auto& ops = find_family(lab.problem)->ops;
        bool over_n = std::all_of(ops.begin(), ops.end(), [](const ProblemOp& op) {
            return op.shape_keys == std::vector<std::string>{"n"};
        });
        if (!over_n) {
            sweep->fail(fmt::format("divides n, so it is only for problems whose ops all take {{n}} (elementwise); "
                                    "'{}' has other shapes",
                                    lab.problem));
        }
    }

    auto tolerance = root.at("tolerance");
    for (const auto& key : tolerance.keys()) {
        auto dtype = parse_dtype(key);
        if (!dtype) tolerance.at(key).fail("is not a dtype; use fp64, fp32, tf32, fp16, bf16, fp8 or fp4");
        lab.tolerance[*dtype] = read_tolerance(tolerance.at(key));
    }

    auto scoring = root.at("scoring");
    scoring.only_keys({"correctness", "performance", "prediction", "byte_prediction", "diagnosis", "against",
                       "floor_fraction", "target_fraction", "gap_note"});
    lab.scoring.correctness = scoring.at("correctness").as_nonnegative_double();
    lab.scoring.performance = scoring.at("performance").as_nonnegative_double();
    lab.scoring.prediction = scoring.at("prediction").as_nonnegative_double();
    if (auto bytes = scoring.maybe("byte_prediction")) lab.scoring.byte_prediction = bytes->as_nonnegative_double();
    if (auto diagnosis = scoring.maybe("diagnosis")) lab.scoring.diagnosis = diagnosis->as_nonnegative_double();
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
                        "target_fraction", "floor_fraction", "against", "tolerance", "requires",
                        "instruction_roof", "open"});
        VariantSpec v;
        v.line = item.line();
        v.name = item.string("name");
        v.problem = item.has("problem") ? item.string("problem") : lab.problem;
        v.op = item.string("op");
        const auto& family = *find_family(v.problem);
        const auto* op = family.op(v.op);
        if (!op) {
            item.at("op").fail(fmt::format("must be one of {} for problem '{}'", fmt::join(family.op_names(), ", "),
                                           v.problem));
        }
        for (const auto& other : lab.variants) {
            if (other.name == v.name) item.at("name").fail(fmt::format("repeats the variant name '{}'", v.name));
        }
        if (graded_on_cpu(v.problem)) {  // checked on the CPU: no dtype, shape, tolerance or time
            item.only_keys({"name", "problem", "op", "file", "summary"});
            v.cpu_graded = true;
            v.file = item.string("file");
            if (!std::filesystem::exists(lab_yaml.parent_path() / v.file))
                item.at("file").fail(fmt::format("names {}, which does not exist", (lab_yaml.parent_path() / v.file).string()));
            v.summary = item.string("summary");
            lab.variants.push_back(v);
            continue;
        }
        if (auto open = item.maybe("open")) {
            const auto word = open->as_string();
            if (word != "true" && word != "false")
                open->fail(fmt::format("is '{}'; write `open: true` for the lab's open rung (the design is the "
                                       "student's), or leave the key out",
                                       word));
            v.open = word == "true";
        }
        v.dtype = require_dtype(item.string("dtype"), fmt::format("{}:{}", lab_yaml.string(), item.at("dtype").line()));
        if (!op->takes(v.dtype)) {
            std::vector<std::string> takes;
            for (auto d : op->dtypes) takes.emplace_back(dtype_name(d));
            item.at("dtype").fail(fmt::format("is {}, but op {} of problem '{}' comes in {} only (the launch "
                                              "signatures the lab program registers); use one of those",
                                              dtype_name(v.dtype), v.op, v.problem, fmt::join(takes, ", ")));
        }
        v.file = item.string("file");
        if (!std::filesystem::exists(lab_yaml.parent_path() / v.file)) {
            item.at("file").fail(fmt::format("names {}, which does not exist", (lab_yaml.parent_path() / v.file).string()));
        }
        v.summary = item.string("summary");
        v.timed = lab.timed;
        if (auto timed = item.maybe("timed")) v.timed = read_shape(*timed);
        if (keys_of(v.timed) != op->shape_keys) {
            (item.has("timed") ? item.at("timed") : item)
                .fail(fmt::format("timed shape must give exactly {} for op {}", fmt::join(op->shape_keys, ", "), v.op));
        }
        if (auto divisible = item.maybe("divisible_by")) {
            divisible->only_keys(op->shape_keys);
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
        if (auto tolerance = item.maybe("tolerance")) v.tolerance = read_tolerance(*tolerance);
        if (auto roof = item.maybe("instruction_roof")) {
            v.instruction_roof = roof->as_string();
            const auto& ids = instruction_roof_ids();
            if (std::find(ids.begin(), ids.end(), v.instruction_roof) == ids.end())
                roof->fail(fmt::format("names '{}'; the instruction roofs `roofline ceilings` measures are: {}",
                                       v.instruction_roof, fmt::join(ids, ", ")));
        }
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

bool given_kernel_passes(const LabSpec& lab, const VariantSpec& v, const std::filesystem::path& solutions_lab_dir) {
    if (v.open) return false;  // the contract only: the student writes the whole kernel
    return lab.given_kernels_correct || !std::filesystem::exists(solutions_lab_dir / v.file);
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
    return {resolve_lab_name(target.substr(0, slash)), target.substr(slash + 1)};  // an old name: its alias
}

}  // namespace roofline
