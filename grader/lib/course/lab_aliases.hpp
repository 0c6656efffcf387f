// The modules' old folder names. The course was renumbered so that its folders are its
// syllabus (issue 32: 06-profile became 02-profile, 04-async 06-async, ...). A student's
// prediction log, an instructor's class folder or hidden file written before then names a
// lab by its old folder; every command reads such a name as an alias of the module's new
// one, from the one table in lab_aliases.cpp. The log itself is never rewritten.
#pragma once
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace roofline {

// The lab's folder name now: `lab` itself, or the new name of an old one ("04-async" -> "06-async").
std::string current_lab_name(std::string_view lab);
// The old folder name of a renumbered lab ("06-async" -> "04-async"), for files saved under it.
std::optional<std::string> former_lab_name(std::string_view lab);
// "note: 04-async is now 06-async (modules are numbered in the order taught)" for an old name.
std::optional<std::string> renamed_lab_note(std::string_view lab);
// current_lab_name, and for an old name its note on `notes` (stderr), once per name per process:
// for a name read from a person (a command's LAB or LAB/VARIANT, a log, a hidden file).
std::string resolve_lab_name(std::string_view lab, std::FILE* notes = stderr);

}  // namespace roofline
