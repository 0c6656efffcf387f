// The instructor's hidden file (e.g. instructor/hidden/01-memory-roof.yaml):
// shapes and a seed the students never see, so nobody can tune to them. It
// lives outside labs/ and is left out of the student edition. Example:
//
//   lab: 01-memory-roof
//   seed: 90210                  # every submission gets the same inputs
//   timeout_s: 20                # per variant's run in the lab program (replaces lab.yaml's)
//   launch_timeout_s: 1          # per kernel launch: a hang is named after this (replaces lab.yaml's)
//   shapes:
//     timed: {n: 201326611}      # replaces lab.yaml's shapes.timed
//     verify: [{n: 3}, {n: 65537}]   # replaces lab.yaml's shapes.verify
//   variants:
//     copy_naive_bf16: {timed: {n: 402653189}}   # replaces that variant's timed shape
//
// Every key is optional but `lab`. A bad file is an InputError naming file:line.
#pragma once
#include "lab_spec.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofline::batch {

struct HiddenSpec {
    std::filesystem::path file;
    std::optional<std::uint64_t> seed;
    std::optional<double> timeout_s;
    std::optional<double> launch_timeout_s;
    std::optional<Shape> timed;
    std::vector<Shape> verify;  // empty: keep lab.yaml's
    std::map<std::string, Shape> variant_timed;
};

// Reads and checks `file` against `lab` (its id, variant names and shape sizes).
HiddenSpec load_hidden(const std::filesystem::path& file, const LabSpec& lab);

// Writes lab.yaml with the hidden shapes and timeouts in place of the public ones.
void write_hidden_lab_yaml(const std::filesystem::path& public_lab_yaml, const HiddenSpec& hidden,
                           const std::filesystem::path& out);

}  // namespace roofline::batch
