// A variant's kernel file on disk: labs/LAB/kernels/FILE, or the same under solutions/.
#pragma once
#include "lab_spec.hpp"
#include "workspace.hpp"

#include <filesystem>

namespace roofline {

// The variant's kernel file, or an InputError naming it when it is missing.
std::filesystem::path existing_kernel_file(const Workspace& ws, const LabSpec& lab, const VariantSpec& variant,
                                           bool solutions);

}  // namespace roofline
