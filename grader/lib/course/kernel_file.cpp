#include "kernel_file.hpp"

#include "input_error.hpp"

namespace roofline {

std::filesystem::path existing_kernel_file(const Workspace& ws, const LabSpec& lab, const VariantSpec& variant,
                                           bool solutions) {
    auto file = ws.kernel_file(lab.id, solutions, variant.file);
    if (!std::filesystem::exists(file)) {
        throw InputError(file, 0, "kernel file missing; restore it (git checkout) or fix `file:` in lab.yaml");
    }
    return file;
}

}  // namespace roofline
