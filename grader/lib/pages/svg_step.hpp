// Module 10's two pictures of a decode step, from a serve record (incident_report.hpp):
//   the timeline: the instrumented step on one time axis, one bar per op (summed over the layers,
//     in the server's order), coloured by the op's regime (op_regime), and a gap bar wherever the
//     record's spans leave time with no op running; where the record has the server's events (each
//     op's start and end), one bar per span and one gap bar per gap between them, hundreds of each,
//     with a line giving the gaps' total and share of the step;
//   the step on the roofline: each op that moves bytes or does FLOPs, and the whole step, on the
//     lab roofline's convention (roof_placement.hpp: intensity across, fraction of the binding roof up).
// `roofline diagnose` writes both beside the record; `roofline report` shows them inline.
#pragma once
#include "incident_report.hpp"

#include <string>

namespace roofline {

// The colours of the three regimes and of a gap, shared by both pictures and the legend.
const char* regime_colour(const std::string& regime);
inline constexpr const char* kGapColour = "#bdbdbd";

// Each op bar is <rect class='op' data-op='NAME' data-regime='REGIME' ...>, each gap
// <rect class='gap' ...>, both with a <title> giving the times.
std::string step_timeline_svg(const IncidentReport& report);
std::string step_roofline_svg(const IncidentReport& report);

}  // namespace roofline
