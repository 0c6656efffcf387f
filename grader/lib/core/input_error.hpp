// Bad input that a person can fix: a YAML file, a flag, a submission.
// The message is one line: where (file:line or the flag), what is wrong, and the fix.
#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>

namespace roofline {

class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
    InputError(const std::filesystem::path& file, int line, const std::string& message)
        : std::runtime_error(file.string() + (line > 0 ? ":" + std::to_string(line) : std::string()) +
                             ": " + message) {}
};

}  // namespace roofline
