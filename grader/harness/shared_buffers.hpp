// Device memory the judge owns and the runner may use. The judge allocates every buffer
// through the driver's virtual memory API with an exportable handle; a buffer the runner
// needs (one that a launch argument points into) is exported on first use as a file
// descriptor and sent over the runner's socket (SCM_RIGHTS), which crosses the sandbox's
// PID namespace where the legacy cudaIpc handles do not. The runner maps it; the judge never
// frees an exported buffer before the runner has unmapped it. A buffer no launch argument
// points into (a reference, a snapshot of the inputs) never leaves the judge.
//
// Outside a judge (a lab program run by hand, the tools' --mode once) allocation is plain
// cudaMalloc and nothing is shared.
#pragma once
#include "wire_call.hpp"

#include <cstddef>
#include <functional>

namespace roofline::harness {

// The judge: from now on DeviceBytes allocates exportable memory on `device`.
// `export_buffer` sends a buffer to the runner (id, bytes, file descriptor) and
// `release_buffer` asks the runner to unmap one before the judge frees it.
struct SharedBufferHooks {
    std::function<void(long long id, std::size_t bytes, int fd)> export_buffer;
    std::function<void(long long id)> release_buffer;
};
void enable_shared_allocation(int device, SharedBufferHooks hooks);

// DeviceBytes' allocator: exportable memory in a judge, cudaMalloc elsewhere.
void* allocate_device_bytes(std::size_t bytes);
void free_device_bytes(void* base);

// The runner's side: maps what the judge sent, unmaps what it takes back.
void import_buffer(long long id, std::size_t bytes, int fd);  // takes ownership of fd
void release_imported_buffer(long long id);

}  // namespace roofline::harness
