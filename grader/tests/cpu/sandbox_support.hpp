// For the sandbox tests (test_sandbox.cpp, test_batch_sandbox.cpp): the sandbox this
// machine makes, or a test failure that says how to get one. CI runs where bwrap
// works (setup.sh installs bubblewrap), so a missing sandbox fails rather than skips.
#pragma once
#include "catch.hpp"
#include "sandbox.hpp"

#include <cstdlib>
#include <optional>
#include <string>

namespace roofline_test {

inline roofline::Sandbox working_sandbox() {
    roofline::Sandbox sandbox{roofline::find_bwrap(), {}};
    auto problem = roofline::sandbox_problem(sandbox);
    INFO("the sandbox tests need bubblewrap that can make namespaces here (setup.sh installs the package): " << problem);
    REQUIRE(problem.empty());
    return sandbox;
}

// Sets an environment variable for one scope (std::system and child processes inherit it).
class ScopedEnv {
public:
    ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
        if (const char* old = std::getenv(name_.c_str())) old_ = old;
        ::setenv(name_.c_str(), value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
        else ::unsetenv(name_.c_str());
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::string name_;
    std::optional<std::string> old_;
};

}  // namespace roofline_test
