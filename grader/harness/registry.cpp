#include "registry.hpp"

#include <stdexcept>

namespace roofline::harness {

namespace {
std::vector<VariantEntry>& table() {
    static std::vector<VariantEntry> entries;  // function-local: safe from static-init order
    return entries;
}
}  // namespace

bool register_variant(VariantEntry entry) {
    if (find_variant(entry.name)) {
        throw std::logic_error("variant '" + entry.name + "' registered twice (" + entry.source_file + ")");
    }
    table().push_back(std::move(entry));
    return true;
}

const std::vector<VariantEntry>& registered_variants() { return table(); }

const VariantEntry* find_variant(const std::string& name) {
    for (const auto& entry : table()) {
        if (entry.name == name) return &entry;
    }
    return nullptr;
}

}  // namespace roofline::harness
