// The lab program's --runner mode (runner_serve.cpp): launches on a judge's request.
#pragma once

namespace roofline::harness {

// Serves the judge on fd 3 until it quits or goes; the program's exit code.
int serve_as_runner();

}  // namespace roofline::harness
