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

// The driver's memory calls, fetched through the runtime (as tma.cu fetches its encoder), so
// that no program links libcuda: without a driver they still start and say "no device".
struct Driver {
    decltype(&cuGetErrorString) get_error_string = nullptr;
    decltype(&cuMemGetAllocationGranularity) granularity = nullptr;
    decltype(&cuMemCreate) create = nullptr;
    decltype(&cuMemRelease) release = nullptr;
    decltype(&cuMemAddressReserve) reserve = nullptr;
    decltype(&cuMemAddressFree) address_free = nullptr;
    decltype(&cuMemMap) map = nullptr;
    decltype(&cuMemUnmap) unmap = nullptr;
    decltype(&cuMemSetAccess) set_access = nullptr;
    decltype(&cuMemExportToShareableHandle) export_handle = nullptr;
    decltype(&cuMemImportFromShareableHandle) import_handle = nullptr;
};

template <class F>
void fetch(F& function, const char* name) {
    void* found = nullptr;
    cudaDriverEntryPointQueryResult result{};
    cudaError_t status = cudaGetDriverEntryPointByVersion(name, &found, 12000, cudaEnableDefault, &result);
    if (status != cudaSuccess || result != cudaDriverEntryPointSuccess || !found)
        throw CudaError(status == cudaSuccess ? cudaErrorNotSupported : status,
                        std::string(name) + " is not available from this driver");
    function = reinterpret_cast<F>(found);
}

const Driver& driver() {
    static const Driver table = [] {
        Driver d;
        fetch(d.get_error_string, "cuGetErrorString");
        fetch(d.granularity, "cuMemGetAllocationGranularity");
        fetch(d.create, "cuMemCreate");
        fetch(d.release, "cuMemRelease");
        fetch(d.reserve, "cuMemAddressReserve");
        fetch(d.address_free, "cuMemAddressFree");
        fetch(d.map, "cuMemMap");
        fetch(d.unmap, "cuMemUnmap");
        fetch(d.set_access, "cuMemSetAccess");
        fetch(d.export_handle, "cuMemExportToShareableHandle");
        fetch(d.import_handle, "cuMemImportFromShareableHandle");
        return d;
    }();
    return table;
}

void driver_check(CUresult result, const char* what) {
    if (result == CUDA_SUCCESS) return;
    const char* text = nullptr;
    driver().get_error_string(result, &text);
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
    driver_check(driver().reserve(&address, bytes, 0, 0, 0), "cuMemAddressReserve");
    driver_check(driver().map(address, bytes, 0, handle, 0), "cuMemMap");
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    driver_check(driver().set_access(address, bytes, &access, 1), "cuMemSetAccess");
    return address;
}

void unmap(CUdeviceptr address, std::size_t bytes, CUmemGenericAllocationHandle handle) {
    driver().unmap(address, bytes);  // no throw: called on the way out
    driver().address_free(address, bytes);
    driver().release(handle);
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
    driver_check(driver().granularity(&state.granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
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
    driver_check(driver().create(&allocation.handle, allocation.bytes, &prop, 0), "cuMemCreate");
    CUdeviceptr base = 0;
    try {
        base = map_with_access(allocation.handle, allocation.bytes, state.device);
    } catch (...) {
        driver().release(allocation.handle);
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
        driver_check(driver().export_handle(&fd, allocation.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
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
    CUresult imported = driver().import_handle(&handle, reinterpret_cast<void*>(static_cast<std::intptr_t>(fd)),
                                                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    ::close(fd);
    driver_check(imported, "cuMemImportFromShareableHandle");
    CUdeviceptr base = 0;
    try {
        base = map_with_access(handle, bytes, current_device());
    } catch (...) {
        driver().release(handle);
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
