// Text that goes into an HTML page. Anything a submission or a student
// controls (names, compiler messages, a prediction's why) passes through one
// of these on its way in, so a name like `<script>...` renders as text and
// never as markup.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

namespace roofline {

// Valid UTF-8 with & < > " ' as entities: safe as element text and as a quoted
// attribute value. Bytes that are not UTF-8 become U+FFFD; control characters
// other than tab and newline are dropped.
std::string html_escape(const std::string& text);

// JSON to embed in <script type="application/json">: every <, > and & written
// as a \u escape (a string holding "</script>" cannot end the element), and
// bytes that are not UTF-8 replaced, not thrown on.
std::string script_json(const nlohmann::json& value);

// A number as JavaScript's Number.prototype.toString reads it back: the
// shortest text that round-trips (17 significant digits at most).
std::string exact_number(double value);

}  // namespace roofline
