// Lab 05's layout library as the student's runner answers it, from another process: each
// call of the LayoutLibrary is one request to the runner (layout_runner_main.cpp) and its
// reply, checked for form before the checker compares it. The protocol, one JSON object
// a line each way; every request carries an "id" (0, 1, 2, ...) and its reply the same:
//
//   {"id": 0, "ask": "hello"}                                {"id": 0, "runner": "layout"}
//   {"ask": "evaluate_table", "layout": L}                   {"values": [v0, v1, ...]}
//   {"ask": "coalesce", "layout": L}                         {"layout": L}
//   {"ask": "compose", "a": L, "b": L}                       {"layout": L}
//   {"ask": "complement", "layout": L, "cotarget": n}        {"layout": L}
//   {"ask": "logical_divide", "layout": L, "tile": L}        {"layout": L}
//   {"ask": "swizzle_each", "swizzle": [bits, base, shift], "offsets": [...]}   {"values": [...]}
//   {"ask": "wavefronts", "addresses": [...], "access_bytes": n}               {"value": n}
//
// L is [[shape, stride], ...]. Where the student's code threw, the reply is {"threw":
// "what()"}, after the values it had (a "values" list shorter than asked). A reply of
// any other form, or with another id, is the runner's failure (RunnerFailure,
// "bad_reply"), never an answer.
#pragma once
#include "layout_check.hpp"
#include "query_child.hpp"

namespace layouts {

// Asks the runner's hello first: throws RunnerFailure unless it answers as lab 05's
// runner. The library (and copies of it) asks `runner`, which must outlive it.
LayoutLibrary remote_library(cpu_part::QueryChild& runner);

}  // namespace layouts
