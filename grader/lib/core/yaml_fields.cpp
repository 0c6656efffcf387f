#include "yaml_fields.hpp"

#include "number_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace roofline {

YamlView YamlView::load_file(const std::filesystem::path& file) {
    if (std::filesystem::is_directory(file)) throw InputError(file, 0, "is a folder, not a file; give the file's path");
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(file, 0, "cannot open the file; check the path");
    std::stringstream content;
    content << in.rdbuf();
    return load_text(content.str(), file);
}

// YAML allows no control characters but tab and line breaks; a file with them is
// binary (or the wrong file), and echoing its bytes in an error would garble the terminal.
static void require_text(const std::string& text, const std::filesystem::path& file) {
    int line = 1;
    for (unsigned char c : text) {
        if (c == '\n') ++line;
        else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
            throw InputError(file, line, fmt::format("holds a control byte (0x{:02x}): not a text file; check the path",
                                                     static_cast<unsigned>(c)));
        }
    }
}

YamlView YamlView::load_text(const std::string& text, const std::filesystem::path& file) {
    require_text(text, file);
    try {
        return YamlView(YAML::Load(text), file);
    } catch (const YAML::Exception& e) {
        throw InputError(file, e.mark.line + 1,
                         fmt::format("malformed YAML: {}; fix the syntax at that line", e.msg));
    }
}

int YamlView::line() const {
    if (!node_.IsDefined()) return 0;
    auto mark = node_.Mark();
    return mark.line >= 0 ? mark.line + 1 : 0;
}

std::string YamlView::child_path(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
}

void YamlView::fail(const std::string& message) const {
    if (path_.empty()) throw InputError(file_, line(), message);
    throw InputError(file_, line(), fmt::format("field '{}' {}", path_, message));
}

bool YamlView::has(const std::string& key) const {
    return node_.IsMap() && node_[key].IsDefined() && !node_[key].IsNull();
}

YamlView YamlView::at(const std::string& key) const {
    if (!node_.IsMap()) fail("must be a mapping of keys to values");
    if (!has(key)) {
        throw InputError(file_, line(), fmt::format("missing field '{}'; add it", child_path(key)));
    }
    return YamlView(node_[key], file_, child_path(key));
}

std::optional<YamlView> YamlView::maybe(const std::string& key) const {
    if (!has(key)) return std::nullopt;
    return at(key);
}

std::vector<YamlView> YamlView::items() const {
    if (!node_.IsSequence()) fail("must be a list (lines starting with '- ')");
    std::vector<YamlView> out;
    for (std::size_t i = 0; i < node_.size(); ++i) {
        out.emplace_back(node_[i], file_, fmt::format("{}[{}]", path_, i));
    }
    return out;
}

std::vector<std::string> YamlView::keys() const {
    if (!node_.IsMap()) fail("must be a mapping of keys to values");
    std::vector<std::string> out;
    for (const auto& kv : node_) out.push_back(kv.first.as<std::string>());
    return out;
}

std::string YamlView::as_string() const {
    if (!node_.IsScalar()) fail("must be a plain value, not a list or mapping");
    return node_.Scalar();
}

// Finite decimal numbers only: a 'nan' or 'inf' in a file is a mistake to report, not a value.
static std::optional<double> parse_number(const std::string& text) { return parse_decimal(text); }

double YamlView::as_nonnegative_double() const {
    auto text = as_string();
    auto value = parse_number(text);
    if (!value || !(*value >= 0)) fail(fmt::format("must be a number >= 0 (got '{}')", text));
    return *value;
}

double YamlView::as_positive_double() const {
    auto text = as_string();
    auto value = parse_number(text);
    if (!value || !(*value > 0)) fail(fmt::format("must be a positive number (got '{}')", text));
    return *value;
}

long long YamlView::as_positive_int() const {
    auto text = as_string();
    long long value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value <= 0) {
        fail(fmt::format("must be a positive whole number (got '{}')", text));
    }
    return value;
}

std::vector<std::string> YamlView::as_string_list() const {
    std::vector<std::string> out;
    for (const auto& item : items()) out.push_back(item.as_string());
    return out;
}

void YamlView::only_keys(const std::vector<std::string>& allowed) const {
    for (const auto& kv : node_) {
        auto key = kv.first.as<std::string>();
        if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
            auto mark = kv.first.Mark();
            throw InputError(file_, mark.line + 1,
                             fmt::format("unknown field '{}'; allowed here: {}", child_path(key),
                                         fmt::join(allowed, ", ")));
        }
    }
}

}  // namespace roofline
