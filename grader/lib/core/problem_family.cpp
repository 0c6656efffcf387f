#include "problem_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace roofline {

bool ProblemOp::takes(Dtype dtype) const { return std::find(dtypes.begin(), dtypes.end(), dtype) != dtypes.end(); }

const ProblemOp* ProblemFamily::op(std::string_view wanted) const {
    for (const auto& o : ops) {
        if (o.name == wanted) return &o;
    }
    return nullptr;
}

std::vector<std::string> ProblemFamily::op_names() const {
    std::vector<std::string> names;
    for (const auto& o : ops) names.push_back(o.name);
    return names;
}

const ProblemFamily* find_family(std::string_view name) {
    for (const auto& family : problem_families()) {
        if (family.name == name) return &family;
    }
    return nullptr;
}

std::vector<std::string> family_names() {
    std::vector<std::string> names;
    for (const auto& family : problem_families()) names.push_back(family.name);
    return names;
}

const ProblemOp& family_op(std::string_view family_name, std::string_view op_name) {
    const auto* family = find_family(family_name);
    if (!family) {
        throw std::invalid_argument(fmt::format("no problem family '{}' (the families: {})", family_name,
                                                fmt::join(family_names(), ", ")));
    }
    const auto* op = family->op(op_name);
    if (!op) {
        throw std::invalid_argument(fmt::format("problem family '{}' has no op '{}' (its ops: {})", family_name,
                                                op_name, fmt::join(family->op_names(), ", ")));
    }
    return *op;
}

}  // namespace roofline
