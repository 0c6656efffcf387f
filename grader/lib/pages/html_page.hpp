// The frame of every HTML page the course writes (`roofline report`, the batch's
// report.html): one self-contained file, its CSS inline, nothing fetched from
// anywhere, so it opens from disk with no server and no network. The style is
// readable without colour (every mark also has a shape or a label), fits a
// phone's width and a 1280 px screen, and prints.
#pragma once
#include <filesystem>
#include <string>

namespace roofline {

// `title` is plain text (escaped here); `body` is markup the caller escaped.
std::string html_page(const std::string& title, const std::string& body);

// Writes beside `file` and renames into place: a reader sees the old page or the new one.
void write_html_file(const std::filesystem::path& file, const std::string& html);

}  // namespace roofline
