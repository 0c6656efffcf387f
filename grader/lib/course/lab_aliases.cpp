#include "lab_aliases.hpp"

#include <fmt/format.h>

#include <array>
#include <mutex>
#include <set>
#include <utility>

namespace roofline {

namespace {

// Old folder name -> new, for every module whose number changed; 00 and 01 kept theirs.
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kRenamedLabs{{
    {"06-profile", "02-profile"},
    {"02-gemm", "03-gemm"},
    {"03-fusion", "04-fusion"},
    {"09-layouts", "05-layouts"},
    {"04-async", "06-async"},
    {"05-blackwell", "07-blackwell"},
    {"07-attention", "08-attention"},
    {"08-decode", "09-decode"},
}};

}  // namespace

std::string current_lab_name(std::string_view lab) {
    for (const auto& [old_name, new_name] : kRenamedLabs)
        if (lab == old_name) return std::string(new_name);
    return std::string(lab);
}

std::optional<std::string> former_lab_name(std::string_view lab) {
    for (const auto& [old_name, new_name] : kRenamedLabs)
        if (lab == new_name) return std::string(old_name);
    return std::nullopt;
}

std::optional<std::string> renamed_lab_note(std::string_view lab) {
    auto now = current_lab_name(lab);
    if (now == lab) return std::nullopt;
    return fmt::format("note: {} is now {} (modules are numbered in the order taught)", lab, now);
}

std::string resolve_lab_name(std::string_view lab, std::FILE* notes) {
    if (auto note = renamed_lab_note(lab); note && notes) {
        // Once per name: a command reads its log more than once (before grading, and again under
        // the lock when it appends), and a batch reads a log per submission.
        static std::mutex mutex;
        static std::set<std::pair<std::FILE*, std::string>> said;
        std::lock_guard lock(mutex);
        if (said.emplace(notes, std::string(lab)).second) {
            fmt::print(notes, "{}\n", *note);
            std::fflush(notes);
        }
    }
    return current_lab_name(lab);
}

}  // namespace roofline
