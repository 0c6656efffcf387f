// Reading typed fields from a YAML node with errors that name the file, the line and the field.
#pragma once
#include "input_error.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

// A YAML node together with the file it came from and its dotted path, so that
// every error can say "file:line: field 'a.b.c' ...".
class YamlView {
public:
    YamlView(YAML::Node node, std::filesystem::path file, std::string path = "")
        : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {}

    static YamlView load_file(const std::filesystem::path& file);
    // `text` as if it were the content of `file` (errors name `file`).
    static YamlView load_text(const std::string& text, const std::filesystem::path& file);

    const YAML::Node& node() const { return node_; }
    const std::filesystem::path& file() const { return file_; }
    const std::string& path() const { return path_; }
    int line() const;  // 1-based; 0 when unknown

    bool has(const std::string& key) const;
    YamlView at(const std::string& key) const;  // required child map entry
    std::optional<YamlView> maybe(const std::string& key) const;
    std::vector<YamlView> items() const;  // required sequence
    std::vector<std::string> keys() const;  // required map

    std::string as_string() const;
    double as_positive_double() const;
    double as_nonnegative_double() const;
    long long as_positive_int() const;
    std::vector<std::string> as_string_list() const;

    std::string string(const std::string& key) const { return at(key).as_string(); }
    double positive(const std::string& key) const { return at(key).as_positive_double(); }
    long long positive_int(const std::string& key) const { return at(key).as_positive_int(); }

    // Raise an error pointing at this node.
    [[noreturn]] void fail(const std::string& message) const;
    // Reject keys not in `allowed`, naming the unknown one (catches typos such as `bandwith_tbs`).
    void only_keys(const std::vector<std::string>& allowed) const;

private:
    std::string child_path(const std::string& key) const;
    YAML::Node node_;
    std::filesystem::path file_;
    std::string path_;
};

}  // namespace roofline
