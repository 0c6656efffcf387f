// Lab 05's runner (lab-05-layouts-cpu, solution-05-layouts-cpu): the layout library of
// the files it is linked with, behind a query server. It decides nothing and writes no
// verdict: the checker (roofline-layout-check, layout_check_main.cpp), a program of the
// grader's that holds none of the student's code, starts it, asks, and compares.
//
//   lab-05-layouts-cpu --serve    requests on stdin, replies on file descriptor 3, one
//                                 JSON object a line each (remote_library.hpp)
//
// Whatever the student's code prints goes to stdout or stderr, never to the replies.
#include "roofline/contract/layout.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

namespace {

using nlohmann::json;
using layouts::Layout;

Layout layout_of(const json& modes) {
    Layout layout;
    for (const auto& mode : modes) layout.push_back({mode.at(0).get<long long>(), mode.at(1).get<long long>()});
    return layout;
}

json modes_of(const Layout& layout) {
    json modes = json::array();
    for (const auto& mode : layout) modes.push_back({mode.shape, mode.stride});
    return modes;
}

// The values the student's code gave for `count` inputs, then what it threw, if it did.
template <class One>
json values(long long count, One one) {
    json out = json::array();
    try {
        for (long long i = 0; i < count; ++i) out.push_back(one(i));
    } catch (const std::exception& e) {
        return {{"values", out}, {"threw", e.what()}};
    } catch (...) {
        return {{"values", out}, {"threw", "an exception that is not a std::exception"}};
    }
    return {{"values", out}};
}

json answer(const json& request) {
    auto ask = request.at("ask").get<std::string>();
    if (ask == "hello") return {{"runner", "layout"}};
    if (ask == "evaluate_table") {
        auto layout = layout_of(request.at("layout"));
        return values(layouts::size(layout), [&](long long i) { return layouts::evaluate(layout, i); });
    }
    if (ask == "swizzle_each") {
        const auto& s = request.at("swizzle");
        layouts::Swizzle swizzle{s.at(0).get<int>(), s.at(1).get<int>(), s.at(2).get<int>()};
        auto offsets = request.at("offsets").get<std::vector<long long>>();
        return values(static_cast<long long>(offsets.size()),
                      [&](long long k) { return layouts::swizzle(swizzle, offsets[static_cast<std::size_t>(k)]); });
    }
    if (ask == "coalesce") return {{"layout", modes_of(layouts::coalesce(layout_of(request.at("layout"))))}};
    if (ask == "compose") {
        return {{"layout", modes_of(layouts::compose(layout_of(request.at("a")), layout_of(request.at("b"))))}};
    }
    if (ask == "complement") {
        return {{"layout",
                 modes_of(layouts::complement(layout_of(request.at("layout")), request.at("cotarget").get<long long>()))}};
    }
    if (ask == "logical_divide") {
        return {{"layout", modes_of(layouts::logical_divide(layout_of(request.at("layout")), layout_of(request.at("tile"))))}};
    }
    if (ask == "wavefronts") {
        return {{"value", layouts::wavefronts(request.at("addresses").get<std::vector<long long>>(),
                                              request.at("access_bytes").get<int>())}};
    }
    return {{"error", "no such request: " + ask}};
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 || std::strcmp(argv[1], "--serve") != 0) {
        std::cerr << "usage: " << argv[0] << " --serve\n"
                  << "Lab 05's runner: `roofline grade 05-layouts/PART` starts it through the checker\n"
                  << "(roofline-layout-check), which asks it on stdin; it replies on file descriptor 3.\n";
        return 2;
    }
    FILE* replies = ::fdopen(3, "w");
    if (!replies) {
        std::cerr << argv[0] << ": no file descriptor 3 to reply on; the checker (roofline-layout-check) starts this\n";
        return 2;
    }
    std::string line;
    while (std::getline(std::cin, line)) {
        json reply, request;
        try {
            request = json::parse(line);
            reply = answer(request);
        } catch (const json::exception& e) {  // a request out of form: the checker's mistake, said in its reply
            reply = {{"error", std::string("bad request: ") + e.what()}};
        } catch (const std::exception& e) {
            reply = {{"threw", e.what()}};
        } catch (...) {
            reply = {{"threw", "an exception that is not a std::exception"}};
        }
        if (request.is_object() && request.contains("id")) reply["id"] = request["id"];
        auto text = reply.dump(-1, ' ', false, json::error_handler_t::replace);
        std::fputs(text.c_str(), replies);
        std::fputc('\n', replies);
        if (std::fflush(replies) != 0) return 1;
    }
    return 0;
}
