// Waiting for a student's kernel with a limit. A kernel that never ends (a spin,
// a barrier not every thread reaches) cannot be stopped from the host: past the
// limit the lab program reports a hang and ends itself (the driver then tears
// the kernel down), in a second or so instead of after the whole run's timeout.
#pragma once
#include <cuda_runtime.h>

#include <functional>

namespace roofline::harness {

// What the lab program does on a hang: write its result and end without
// unwinding (a destructor's cudaFree would wait on the kernel for ever).
using HangHandler = std::function<void(double limit_s)>;
void set_hang_handler(HangHandler handler);

// Waits until the work queued on `stream` (or the event) is done. With
// `limit_s` > 0 and the work still running after it, calls the hang handler,
// which does not return (without a handler: std::_Exit(5)).
void wait_for_stream(cudaStream_t stream, double limit_s);
void wait_for_event(cudaEvent_t event, double limit_s);

// True when the legacy default stream still has work right after a variant's launch
// function returned: the harness never queues any there, so the variant did (its
// `stream` argument left out). Work that already finished is not seen: the watched
// checks (CUPTI) name those; this catches the long launches of the timed shape.
bool legacy_stream_busy();

}  // namespace roofline::harness
