#include "remote_library.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <memory>
#include <stdexcept>

namespace layouts {

namespace {

using nlohmann::json;
using cpu_part::QueryChild;
using cpu_part::RunnerFailure;

// The reply as the student may see it: its start, printable, quoted.
std::string excerpt(const std::string& reply) {
    std::string text = reply.substr(0, 80);
    for (auto& c : text) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    }
    return "'" + text + (reply.size() > 80 ? "...'" : "'");
}

[[noreturn]] void bad(const std::string& reply, const std::string& why) {
    throw RunnerFailure{"bad_reply", fmt::format("the runner's reply is not an answer ({}): {}; the replies (file "
                                                 "descriptor 3) are the grader's: does your code write to it?",
                                                 why, excerpt(reply))};
}

json layout_json(const Layout& layout) {
    json modes = json::array();
    for (const auto& mode : layout) modes.push_back({mode.shape, mode.stride});
    return modes;
}

bool as_integer(const json& value, long long& out) {
    if (value.is_number_unsigned()) {
        auto u = value.get<unsigned long long>();
        if (u > static_cast<unsigned long long>(LLONG_MAX)) return false;
        out = static_cast<long long>(u);
        return true;
    }
    if (!value.is_number_integer()) return false;
    out = value.get<long long>();
    return true;
}

// The student's exception text, as it may be shown: at most 500 characters.
std::string threw_text(const json& reply) {
    auto text = reply["threw"].get<std::string>();
    return text.size() > 500 ? text.substr(0, 500) + "..." : text;
}

// The runner and the numbering of its requests: each request carries an id, its reply
// must carry the same one, so that a reply to no request (two replies to one, a line the
// student's code wrote on the replies) is named for what it is.
struct Conversation {
    QueryChild& runner;
    long long handed_out = 0;  // ids given to requests (sent ahead or asked)
    long long awaited = 0;     // the id of the next reply
};

// Asks `request` (its id added); returns the reply as a JSON object, or throws the
// student's exception (a std::exception, "threw") when the reply says it threw and
// `values_too` is false.
json ask(Conversation& talk, json request, const char* expected_form, bool values_too = false) {
    long long id = talk.awaited++;
    talk.handed_out = std::max(talk.handed_out, id + 1);
    request["id"] = id;
    auto line = talk.runner.ask(request.dump());
    auto reply = json::parse(line, nullptr, false);
    if (reply.is_discarded() || !reply.is_object()) bad(line, fmt::format("expected {}", expected_form));
    long long said = -1;
    if (!reply.contains("id") || !as_integer(reply["id"], said)) bad(line, fmt::format("it has no \"id\": expected {}", expected_form));
    if (said != id) {
        bad(line, fmt::format("it is the reply to request {} where request {} was awaited: two replies to one request, or "
                              "a line your code wrote", said, id));
    }
    if (reply.contains("threw")) {
        if (!reply["threw"].is_string()) bad(line, "\"threw\" must be a string");
        if (!values_too) throw std::runtime_error(threw_text(reply));
    }
    return reply;
}

Layout layout_reply(Conversation& talk, const json& request) {
    const char* form = "{\"layout\": [[shape, stride], ...]}";
    auto line_reply = ask(talk, request, form);
    const auto& modes = line_reply.contains("layout") ? line_reply["layout"] : json();
    auto text = line_reply.dump(-1, ' ', false, json::error_handler_t::replace);
    if (!modes.is_array()) bad(text, fmt::format("expected {}", form));
    Layout layout;
    for (const auto& mode : modes) {
        Mode m;
        if (!mode.is_array() || mode.size() != 2 || !as_integer(mode[0], m.shape) || !as_integer(mode[1], m.stride))
            bad(text, "a mode must be [shape, stride], two integers");
        layout.push_back(m);
    }
    return layout;
}

Answers values_reply(Conversation& talk, const json& request, std::size_t asked) {
    auto reply = ask(talk, request, "{\"values\": [...]}", true);
    auto text = reply.dump(-1, ' ', false, json::error_handler_t::replace);
    Answers answers;
    if (reply.contains("threw")) answers.threw = threw_text(reply);
    if (!reply.contains("values") || !reply["values"].is_array()) {
        if (answers.threw) return answers;  // it threw at the first
        bad(text, "expected {\"values\": [...]}");
    }
    const auto& values = reply["values"];
    if (values.size() > asked || (values.size() < asked && !answers.threw))
        bad(text, fmt::format("{} values for {} inputs", values.size(), asked));
    for (const auto& value : values) {
        long long v;
        if (!as_integer(value, v)) bad(text, "the values must be integers");
        answers.values.push_back(v);
    }
    return answers;
}

// The request line of a call: what the plan sends ahead is what the call then asks.
json request_of(const Call& call) {
    json request{{"ask", call.function}};
    if (call.function == "evaluate_table" || call.function == "coalesce") {
        request["layout"] = layout_json(call.layout);
    } else if (call.function == "compose") {
        request["a"] = layout_json(call.layout);
        request["b"] = layout_json(call.other);
    } else if (call.function == "complement") {
        request["layout"] = layout_json(call.layout);
        request["cotarget"] = call.number;
    } else if (call.function == "logical_divide") {
        request["layout"] = layout_json(call.layout);
        request["tile"] = layout_json(call.other);
    } else if (call.function == "swizzle_each") {
        request["swizzle"] = {call.swizzle.bits, call.swizzle.base, call.swizzle.shift};
        request["offsets"] = call.numbers;
    } else if (call.function == "wavefronts") {
        request["addresses"] = call.numbers;
        request["access_bytes"] = call.number;
    } else {
        throw std::logic_error("checker: no request for a call of " + call.function);
    }
    return request;
}

}  // namespace

LayoutLibrary remote_library(QueryChild& runner) {
    auto talk = std::make_shared<Conversation>(Conversation{runner});
    const char* hello_form = "{\"id\": 0, \"runner\": \"layout\"}: is this lab 05's runner, lab-05-layouts-cpu --serve?";
    auto hello = ask(*talk, {{"ask", "hello"}}, hello_form);
    if (hello.value("runner", json()) != "layout") bad(hello.dump(), fmt::format("expected {}", hello_form));
    LayoutLibrary lib;
    lib.plan = [talk](const std::vector<Call>& calls) {
        std::vector<std::string> requests;
        requests.reserve(calls.size());
        for (const auto& call : calls) {
            auto request = request_of(call);
            request["id"] = talk->handed_out++;
            requests.push_back(request.dump());
        }
        talk->runner.send_ahead(requests);
    };
    lib.evaluate_table = [talk](const Layout& layout) {
        return values_reply(*talk, request_of({.function = "evaluate_table", .layout = layout}),
                            static_cast<std::size_t>(size(layout)));
    };
    lib.evaluate = [lib](const Layout& layout, long long index) {
        auto answers = lib.evaluate_table(layout);
        if (index < static_cast<long long>(answers.values.size())) return answers.values[static_cast<std::size_t>(index)];
        throw std::runtime_error(answers.threw.value_or("no value"));
    };
    lib.coalesce = [talk](const Layout& layout) {
        return layout_reply(*talk, request_of({.function = "coalesce", .layout = layout}));
    };
    lib.compose = [talk](const Layout& a, const Layout& b) {
        return layout_reply(*talk, request_of({.function = "compose", .layout = a, .other = b}));
    };
    lib.complement = [talk](const Layout& layout, long long cotarget) {
        return layout_reply(*talk, request_of({.function = "complement", .layout = layout, .number = cotarget}));
    };
    lib.logical_divide = [talk](const Layout& layout, const Layout& tile) {
        return layout_reply(*talk, request_of({.function = "logical_divide", .layout = layout, .other = tile}));
    };
    lib.swizzle_each = [talk](const Swizzle& s, const std::vector<long long>& offsets) {
        return values_reply(*talk, request_of({.function = "swizzle_each", .swizzle = s, .numbers = offsets}), offsets.size());
    };
    lib.swizzle = [lib](const Swizzle& s, long long offset) {
        auto answers = lib.swizzle_each(s, {offset});
        if (!answers.values.empty()) return answers.values[0];
        throw std::runtime_error(answers.threw.value_or("no value"));
    };
    lib.wavefronts = [talk](const std::vector<long long>& addresses, int access_bytes) {
        auto reply = ask(*talk, request_of({.function = "wavefronts", .number = access_bytes, .numbers = addresses}),
                         "{\"value\": n}");
        long long value;
        if (!reply.contains("value") || !as_integer(reply["value"], value) || value < INT_MIN || value > INT_MAX)
            bad(reply.dump(-1, ' ', false, json::error_handler_t::replace), "expected {\"value\": n}, an int");
        return static_cast<int>(value);
    };
    return lib;
}

}  // namespace layouts
