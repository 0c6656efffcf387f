#include "html_page.hpp"

#include "html_text.hpp"
#include "input_error.hpp"
#include "output_file.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <fstream>

namespace roofline {

namespace {

constexpr const char* kStyle = R"css(
:root { --ink: #111; --muted: #555; --line: #bbb; --accent: #1f5fa8; --warn: #a33; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { font-family: "DejaVu Sans", Verdana, sans-serif; color: var(--ink); background: #fff; margin: 0 auto;
       padding: 1rem; max-width: 72rem; line-height: 1.45; font-size: 16px; }
h1 { font-size: 1.6rem; margin: 0.4rem 0 0.6rem; }
h2 { font-size: 1.3rem; margin-top: 2rem; border-bottom: 2px solid var(--ink); padding-bottom: 0.2rem; }
h3 { font-size: 1.1rem; margin-top: 1.4rem; }
p.note, .note { color: var(--muted); font-size: 0.9rem; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.4rem 1.2rem; }
a { color: var(--accent); }
.table-wrap { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.6rem 0 1rem; font-size: 0.92rem; }
caption { text-align: left; font-weight: bold; padding: 0.2rem 0; }
th, td { border: 1px solid var(--line); padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
figure { margin: 0.8rem 0; }
figure svg { width: 100%; height: auto; max-width: 52rem; display: block; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: 0.9rem; }
pre { white-space: pre-wrap; word-break: break-word; background: #f4f4f4; border: 1px solid var(--line);
      padding: 0.5rem; font-size: 0.85rem; }
fieldset { border: 1px solid var(--line); margin: 0.5rem 0; padding: 0.5rem 0.8rem; }
legend { font-weight: bold; }
label { margin-right: 0.8rem; white-space: nowrap; }
input[type=number] { width: 8.5rem; }
input[type=range] { width: min(28rem, 100%); vertical-align: middle; }
.controls { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: center; }
.bar-row { display: grid; grid-template-columns: 7rem 1fr 8rem; gap: 0.5rem; align-items: center; margin: 0.3rem 0; }
.bar-track { border: 1px solid var(--ink); height: 1.3rem; background: #fff; position: relative; }
.target-mark { position: absolute; top: -4px; bottom: -4px; width: 0; border-left: 3px solid var(--warn); }
.bar { height: 100%; background: var(--ink); }
.bar.memory { background: repeating-linear-gradient(45deg, var(--ink) 0 4px, #fff 4px 8px); }
.regime { font-weight: bold; font-size: 1.15rem; }
.error { color: var(--warn); font-weight: bold; }
.badge { display: inline-block; border: 1px solid var(--ink); padding: 0 0.35rem; font-size: 0.85rem; }
@media (max-width: 600px) {
  body { padding: 0.5rem; font-size: 15px; }
  .bar-row { grid-template-columns: 5rem 1fr 6.5rem; }
}
@media print {
  body { max-width: none; font-size: 11pt; }
  nav, .controls input[type=range] { display: none; }
  h2 { break-after: avoid; }
  figure, table { break-inside: avoid; }
  a { color: var(--ink); }
}
)css";

}  // namespace

std::string html_page(const std::string& title, const std::string& body) {
    return fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        // No request leaves the page: scripts and styles only from the page itself.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
        "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n{}\n</body>\n</html>\n",
        html_escape(title), kStyle, body);
}

void write_html_file(const std::filesystem::path& file, const std::string& html) {
    write_output_file(file, html, "the page", OutputFolder::create);
}

}  // namespace roofline
