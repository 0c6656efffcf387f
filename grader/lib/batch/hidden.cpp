#include "hidden.hpp"
#include "output_file.hpp"

#include "input_error.hpp"
#include "lab_aliases.hpp"
#include "yaml_fields.hpp"

#include <fmt/format.h>

#include <fstream>
#include <set>

namespace roofline::batch {

namespace {

std::set<std::string> keys_of(const Shape& shape) {
    std::set<std::string> keys;
    for (const auto& [key, value] : shape) keys.insert(key);
    return keys;
}

std::string keys_text(const std::set<std::string>& keys) { return "{" + fmt::format("{}", fmt::join(keys, ", ")) + "}"; }

// A shape whose sizes must be one of `allowed` (the key sets lab.yaml uses for this lab).
Shape read_shape(const YamlView& view, const std::vector<std::set<std::string>>& allowed) {
    if (!view.node().IsMap()) view.fail("must be a mapping of sizes, e.g. {n: 4099}");
    Shape shape;
    for (const auto& key : view.keys()) shape[key] = view.positive_int(key);
    for (const auto& keys : allowed) {
        if (keys_of(shape) == keys) return shape;
    }
    std::vector<std::string> texts;
    for (const auto& keys : allowed) texts.push_back(keys_text(keys));
    view.fail(fmt::format("has the sizes {}; this lab's shapes have {}", keys_text(keys_of(shape)),
                          fmt::join(texts, " or ")));
}

YAML::Node shape_node(const Shape& shape) {
    YAML::Node node(YAML::NodeType::Map);
    node.SetStyle(YAML::EmitterStyle::Flow);
    for (const auto& [key, value] : shape) node[key] = value;
    return node;
}

}  // namespace

HiddenSpec load_hidden(const std::filesystem::path& file, const LabSpec& lab) {
    if (!std::filesystem::exists(file)) {
        throw InputError(file, 0, "hidden file not found; pass the instructor's file, e.g. --hidden instructor/hidden/" +
                                      lab.id + ".yaml");
    }
    auto root = YamlView::load_file(file);
    if (!root.node().IsMap()) root.fail("must be a mapping (lab:, seed:, timeout_s:, launch_timeout_s:, shapes:, variants:)");
    root.only_keys({"lab", "seed", "timeout_s", "launch_timeout_s", "shapes", "variants"});
    HiddenSpec hidden;
    hidden.file = file;
    auto lab_id = resolve_lab_name(root.string("lab"));  // an old name (lab_aliases.hpp): its alias, with a note
    if (lab_id != lab.id) {
        root.at("lab").fail(fmt::format("names lab '{}' but the batch grades '{}'; use the hidden file of {}", lab_id,
                                        lab.id, lab.id));
    }
    if (auto seed = root.maybe("seed")) hidden.seed = static_cast<std::uint64_t>(seed->as_positive_int());
    if (auto timeout = root.maybe("timeout_s")) hidden.timeout_s = timeout->as_positive_double();
    if (auto launch = root.maybe("launch_timeout_s")) hidden.launch_timeout_s = launch->as_positive_double();

    std::vector<std::set<std::string>> lab_keys{keys_of(lab.timed)};
    for (const auto& shape : lab.verify) {
        if (std::find(lab_keys.begin(), lab_keys.end(), keys_of(shape)) == lab_keys.end()) lab_keys.push_back(keys_of(shape));
    }
    if (auto shapes = root.maybe("shapes")) {
        shapes->only_keys({"timed", "verify"});
        if (auto timed = shapes->maybe("timed")) hidden.timed = read_shape(*timed, {keys_of(lab.timed)});
        if (auto verify = shapes->maybe("verify")) {
            for (const auto& item : verify->items()) hidden.verify.push_back(read_shape(item, lab_keys));
            if (hidden.verify.empty()) verify->fail("is empty; list at least one shape or leave `verify` out");
        }
    }
    if (auto variants = root.maybe("variants")) {
        for (const auto& name : variants->keys()) {
            auto entry = variants->at(name);
            bool known = false;
            for (const auto& v : lab.variants) known |= v.name == name;
            if (!known) {
                std::vector<std::string> names;
                for (const auto& v : lab.variants) names.push_back(v.name);
                entry.fail(fmt::format("is not a variant of {}; its variants: {}", lab.id, fmt::join(names, ", ")));
            }
            entry.only_keys({"timed"});
            const auto& spec = lab.variant(name);
            hidden.variant_timed[name] = read_shape(entry.at("timed"), {keys_of(spec.timed)});
            if (auto refusal = lab.shape_refusal(spec, hidden.variant_timed[name])) entry.at("timed").fail(*refusal);
        }
    }
    return hidden;
}

void write_hidden_lab_yaml(const std::filesystem::path& public_lab_yaml, const HiddenSpec& hidden,
                           const std::filesystem::path& out) {
    YAML::Node lab = YAML::LoadFile(public_lab_yaml.string());
    if (hidden.timeout_s) lab["timeout_s"] = *hidden.timeout_s;
    if (hidden.launch_timeout_s) lab["launch_timeout_s"] = *hidden.launch_timeout_s;
    if (hidden.timed) lab["shapes"]["timed"] = shape_node(*hidden.timed);
    if (!hidden.verify.empty()) {
        YAML::Node verify(YAML::NodeType::Sequence);
        for (const auto& shape : hidden.verify) verify.push_back(shape_node(shape));
        lab["shapes"]["verify"] = verify;
    }
    for (auto variant : lab["variants"]) {
        auto name = variant["name"].as<std::string>();
        auto it = hidden.variant_timed.find(name);
        if (it != hidden.variant_timed.end()) variant["timed"] = shape_node(it->second);
    }
    YAML::Emitter emitter;
    emitter << lab;
    write_output_file(out,
                      "# lab.yaml with the instructor's hidden shapes (" + hidden.file.filename().string() + ")\n" +
                          emitter.c_str() + "\n",
                      "the graded lab.yaml", OutputFolder::create);
}

}  // namespace roofline::batch
