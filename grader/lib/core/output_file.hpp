// Files a command writes for the user (--svg, --out, --trace, --gradescope, the report,
// result JSON): each is written whole or not at all, or the command fails with one line
// (InputError) naming the file and the fix. Never a raw exception, never a success
// message over a file that was not written, never a temporary file left beside it.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace roofline {

enum class OutputFolder {
    must_exist,  // a path the user typed: a missing folder is a typo to report
    create,      // a default path under .roofline/ or results/: made as needed
};

// Checks, before any long work, that `file` can be written: not empty, not a folder, its
// folder exists (or may be created), not a device or other special file, not read-only.
// `what` names it in the message: "--svg", "--out", "the results file".
void check_output_file(const std::filesystem::path& file, const std::string& what,
                       OutputFolder folder = OutputFolder::must_exist);

// Writes `text` to `file` atomically: the new bytes go to an unnamed file in the same
// folder (O_TMPFILE; a killed command leaves nothing behind), are flushed, then linked
// and renamed over `file`. A symbolic link is followed: its target is replaced and the
// link stays. An existing file keeps its mode. Any failure: InputError, `file` untouched.
void write_output_file(const std::filesystem::path& file, const std::string& text, const std::string& what,
                       OutputFolder folder = OutputFolder::must_exist);

// `value` as indented JSON through write_output_file, its folder made as needed: a result file
// (a grading's JSON, a batch's results, a tool's job).
void write_json_file(const std::filesystem::path& file, const nlohmann::json& value);

}  // namespace roofline
