#include "shared_buffers.hpp"

#include "cuda_check.hpp"

#include <cuda.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

namespace roofline::harness {

namespace {

void driver_check(CUresult result, const char* what) {
    if (result == CUDA_SUCCESS) return;
    const char* text = nullptr;
    cuGetErrorString(result, &text);
    throw CudaError(cudaErrorUnknown, std::string(what) + ": " + (text ? text : "unknown driver error"));
}

CUmemAllocationProp exportable_memory(int device) {
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    return prop;
}

CUdeviceptr map_with_access(CUmemGenericAllocationHandle handle, std::size_t bytes, int device) {
    CUdeviceptr address = 0;
    driver_check(cuMemAddressReserve(&address, bytes, 0, 0, 0), "cuMemAddressReserve");
    driver_check(cuMemMap(address, bytes, 0, handle, 0), "cuMemMap");
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    driver_check(cuMemSetAccess(address, bytes, &access, 1), "cuMemSetAccess");
    return address;
}

void unmap(CUdeviceptr address, std::size_t bytes, CUmemGenericAllocationHandle handle) {
    cuMemUnmap(address, bytes);  // no throw: called on the way out
    cuMemAddressFree(address, bytes);
    cuMemRelease(handle);
}

struct Allocation {
    long long id = 0;
    std::size_t bytes = 0;  // rounded up to the granularity
    CUmemGenericAllocationHandle handle = 0;
    bool exported = false;
};

struct JudgeState {
    bool enabled = false;
    int device = 0;
    std::size_t granularity = 0;
    long long next_id = 1;
    SharedBufferHooks hooks;
    std::map<CUdeviceptr, Allocation> by_base;  // ordered: the buffer holding an address is found by upper_bound
};

struct RunnerState {
    struct Mapped {
        CUdeviceptr base = 0;
        std::size_t bytes = 0;
        CUmemGenericAllocationHandle handle = 0;
    };
    std::map<long long, Mapped> by_id;
};

JudgeState& judge() {
    static JudgeState state;
    return state;
}

RunnerState& runner() {
    static RunnerState state;
    return state;
}

int current_device() {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    return device;
}

}  // namespace

void enable_shared_allocation(int device, SharedBufferHooks hooks) {
    auto& state = judge();
    CUDA_CHECK(cudaSetDevice(device));
    CUDA_CHECK(cudaFree(nullptr));  // the runtime's context is the one the driver calls use
    auto prop = exportable_memory(device);
    driver_check(cuMemGetAllocationGranularity(&state.granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                 "cuMemGetAllocationGranularity");
    state.device = device;
    state.hooks = std::move(hooks);
    state.enabled = true;
}

void* allocate_device_bytes(std::size_t bytes) {
    auto& state = judge();
    if (!state.enabled) {
        void* base = nullptr;
        CUDA_CHECK(cudaMalloc(&base, bytes));
        return base;
    }
    Allocation allocation;
    allocation.id = state.next_id++;
    allocation.bytes = (std::max<std::size_t>(bytes, 1) + state.granularity - 1) / state.granularity * state.granularity;
    auto prop = exportable_memory(state.device);
    driver_check(cuMemCreate(&allocation.handle, allocation.bytes, &prop, 0), "cuMemCreate");
    CUdeviceptr base = 0;
    try {
        base = map_with_access(allocation.handle, allocation.bytes, state.device);
    } catch (...) {
        cuMemRelease(allocation.handle);
        throw;
    }
    state.by_base[base] = allocation;
    return reinterpret_cast<void*>(base);
}

void free_device_bytes(void* pointer) {
    if (!pointer) return;
    auto& state = judge();
    auto it = state.by_base.find(reinterpret_cast<CUdeviceptr>(pointer));
    if (it == state.by_base.end()) {
        cudaFree(pointer);
        return;
    }
    // Work queued on the buffer must end before it goes (cudaFree would wait too).
    cudaDeviceSynchronize();
    if (it->second.exported && state.hooks.release_buffer) {
        try {
            state.hooks.release_buffer(it->second.id);
        } catch (...) {
            // A runner that is gone has unmapped everything with its death.
        }
    }
    unmap(it->first, it->second.bytes, it->second.handle);
    state.by_base.erase(it);
}

BufferRef shared_buffer_of(const void* address) {
    auto& state = judge();
    const auto at = reinterpret_cast<CUdeviceptr>(address);
    auto it = state.by_base.upper_bound(at);
    if (!state.enabled || it == state.by_base.begin())
        throw std::logic_error("a launch argument points into no buffer the judge allocated");
    --it;
    if (at >= it->first + it->second.bytes)
        throw std::logic_error("a launch argument points past the end of the judge's buffers");
    auto& allocation = it->second;
    if (!allocation.exported) {
        int fd = -1;
        driver_check(cuMemExportToShareableHandle(&fd, allocation.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                     "cuMemExportToShareableHandle");
        try {
            state.hooks.export_buffer(allocation.id, allocation.bytes, fd);
        } catch (...) {
            ::close(fd);
            throw;
        }
        ::close(fd);
        allocation.exported = true;
    }
    return {allocation.id, static_cast<unsigned long long>(at - it->first)};
}

void import_buffer(long long id, std::size_t bytes, int fd) {
    auto& state = runner();
    if (state.by_id.count(id)) {
        ::close(fd);
        throw WireError("buffer " + std::to_string(id) + " is already imported");
    }
    CUmemGenericAllocationHandle handle = 0;
    CUresult imported = cuMemImportFromShareableHandle(&handle, reinterpret_cast<void*>(static_cast<std::intptr_t>(fd)),
                                                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    ::close(fd);
    driver_check(imported, "cuMemImportFromShareableHandle");
    CUdeviceptr base = 0;
    try {
        base = map_with_access(handle, bytes, current_device());
    } catch (...) {
        cuMemRelease(handle);
        throw;
    }
    state.by_id[id] = {base, bytes, handle};
}

void release_imported_buffer(long long id) {
    auto& state = runner();
    auto it = state.by_id.find(id);
    if (it == state.by_id.end()) return;
    cudaDeviceSynchronize();  // the variant's last launch may still use it
    unmap(it->second.base, it->second.bytes, it->second.handle);
    state.by_id.erase(it);
}

void* imported_address(const BufferRef& ref) {
    auto& state = runner();
    auto it = state.by_id.find(ref.id);
    if (it == state.by_id.end()) throw WireError("the call names buffer " + std::to_string(ref.id) + ", never sent");
    if (ref.offset >= it->second.bytes) throw WireError("the call points past the end of buffer " + std::to_string(ref.id));
    return reinterpret_cast<void*>(it->second.base + ref.offset);
}

}  // namespace roofline::harness
