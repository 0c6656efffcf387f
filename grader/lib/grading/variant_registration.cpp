#include "variant_registration.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace roofline {

std::optional<std::string> registration_mismatch(const protocol::Registration& registration, const VariantSpec& variant,
                                                 const LabSpec& lab) {
    const auto& op = registration.problem;
    const auto& dtype = registration.dtype;
    auto source = std::filesystem::path(registration.source_file);
    if (op != variant.op && !(variant.op.empty() && op.empty()))
        return fmt::format("the kernel file registers it as op '{}', but {} line {} says op '{}'", op,
                           lab.file.filename().string(), variant.line, variant.op);
    if (dtype != dtype_name(variant.dtype))
        return fmt::format("the kernel file registers it with dtype {}, but {} line {} says {}", dtype,
                           lab.file.filename().string(), variant.line, dtype_name(variant.dtype));
    if (source.filename() != variant.file.filename())
        return fmt::format("it is registered in {}, but {} line {} says file: {}", source.filename().string(),
                           lab.file.filename().string(), variant.line, variant.file.string());
    return std::nullopt;
}

std::vector<std::string> listing_mismatches(const LabSpec& lab, const nlohmann::json& listing,
                                            const std::string& program) {
    std::vector<std::string> problems;
    auto where = [&](int line) { return lab.file.string() + (line > 0 ? fmt::format(":{}", line) : ""); };
    if (!listing.is_array()) {
        problems.push_back(fmt::format("{}: {} --list printed no JSON array of variants; rebuild it", where(0), program));
        return problems;
    }
    std::vector<std::string> registered;
    for (const auto& entry : listing) registered.push_back(entry.value("name", std::string()));

    for (const auto& variant : lab.variants) {
        if (variant.cpu_graded) continue;  // in the lab's CPU program, not this one
        const nlohmann::json* entry = nullptr;
        for (const auto& e : listing) {
            if (e.value("name", std::string()) == variant.name) entry = &e;
        }
        if (!entry) {
            problems.push_back(fmt::format(
                "{}: {} does not register variant '{}' (it registers: {}); register it in {} with the problem's "
                "ROOFLINE_*_VARIANT macro, or fix the name here",
                where(variant.line), program, variant.name, fmt::join(registered, ", "), variant.file.string()));
            continue;
        }
        protocol::Registration registered_as{entry->value("problem", std::string()), entry->value("dtype", std::string()),
                                             entry->value("source_file", std::string())};
        if (auto mismatch = registration_mismatch(registered_as, variant, lab)) {
            problems.push_back(fmt::format("{}: variant {}: {}; make the two agree", where(variant.line), variant.name,
                                           *mismatch));
        }
    }
    for (const auto& entry : listing) {
        auto name = entry.value("name", std::string());
        bool listed = false;
        for (const auto& variant : lab.variants) listed = listed || variant.name == name;
        if (!listed) {
            problems.push_back(fmt::format(
                "{}: {} registers variant '{}' (op {}, dtype {}, in {}), which lab.yaml does not list; add it under "
                "`variants:` or remove its registration",
                where(0), program, name, entry.value("problem", std::string()), entry.value("dtype", std::string()),
                std::filesystem::path(entry.value("source_file", std::string())).filename().string()));
        }
    }
    return problems;
}

}  // namespace roofline
