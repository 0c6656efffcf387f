// `roofline timeline`: every kernel of one launch of a variant, as CUPTI's
// activity records saw them (the lab program's `--mode timeline`), turned into a
// table (start, duration, the idle gap before each kernel) and a Gantt chart. The
// share of the step that is gaps is the host gap: time the GPU spent waiting for
// the CPU to launch the next kernel. Everything here is arithmetic on the records,
// testable without a GPU.
#pragma once
#include "lab_result.hpp"

#include <string>
#include <vector>

namespace roofline {

struct KernelRecord {
    std::string name;  // as CUPTI gives it (mangled)
    double start_ns = 0, end_ns = 0;
};

struct TimelineRow {
    std::string name;          // demangled, without its parameter list
    double start_us = 0;       // from the start of the step
    double duration_us = 0;
    double gap_before_us = 0;  // idle GPU time before it: since the previous kernel ended (or the host's call)
};

struct Timeline {
    std::vector<TimelineRow> rows;  // by start time
    double step_us = 0;             // from the host's call (or the first kernel's start) to the last kernel's end
    double busy_us = 0;             // time at least one kernel ran
    double gap_us = 0;              // step_us - busy_us
    double gap_share() const { return step_us > 0 ? gap_us / step_us : 0; }
};

// The records of one step; `began_ns` is when the host called the launch function, on the
// records' clock (0: unknown; the step then starts at the first kernel). Overlapping kernels
// count once in busy_us and have no gap before them.
Timeline build_timeline(std::vector<KernelRecord> records, double began_ns = 0);

// The kernels of the lab program's timeline (protocol/lab_result.hpp). Throws InputError
// naming `source` when CUPTI recorded nothing or a kernel ends before it starts.
std::vector<KernelRecord> timeline_records(const protocol::Timeline& timeline, const std::string& source);

// "void (anonymous namespace)::add<float>(float const*, ...)" -> "(anonymous namespace)::add<float>";
// a name that does not demangle is returned as it is.
std::string kernel_display_name(const std::string& mangled);

// The table `roofline timeline` prints.
std::string timeline_text(const Timeline& timeline);

// A Gantt chart: one lane per distinct kernel name, a bar per launch, gaps shaded, the step's
// gap share in the title.
std::string timeline_svg(const Timeline& timeline, const std::string& title);

}  // namespace roofline
