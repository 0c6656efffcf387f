#include "command.hpp"
#include "input_error.hpp"

#include <fmt/format.h>

namespace roofline::cli {

LabTarget load_target(const Workspace& ws, const std::string& target) {
    auto [lab_id, variant_name] = split_target(target);
    if (!std::filesystem::exists(ws.lab_yaml(lab_id))) {
        throw InputError(fmt::format("no lab '{}'; see `roofline list`", lab_id));
    }
    LabTarget found{load_lab(ws.lab_yaml(lab_id)), variant_name};
    found.variant();  // an unknown variant is refused here, with the lab's list
    return found;
}

}  // namespace roofline::cli
