// Probe for the judge/runner split (issue: the verdict outside the student's process).
// One program, two roles: the judge (default) allocates device memory with the VMM API,
// exports each allocation as a POSIX file descriptor and passes it over a socket to a
// runner it starts (itself with --runner, optionally under bwrap: PROBE_BWRAP=/path/bwrap);
// the runner maps the memory and launches copies on it. Answers three questions:
//   1. do VMM fds (and legacy cudaIpc handles) cross a bwrap PID namespace?
//   2. how far is the judge's host clock around a batch of N runner launches (less an
//      empty batch) from the runner's own events, and how noisy is it?
//   3. how does that compare with the same copies timed in the judge's own process?
//   nvcc -O2 -std=c++17 -arch=sm_90 scripts/probes/split_probe.cu -lcuda -o split_probe
#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_; cuGetErrorString(r_, &s_); \
    std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_); std::exit(1); } } while (0)
#define RK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

__global__ void copy4(const float4* in, float4* out, size_t n4) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x) out[i] = in[i];
}
__global__ void fill(float* p, size_t n, float base) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = base + float(i % 1000);
}
__global__ void count_bad(const float* p, size_t n, float base, unsigned long long* bad) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        if (p[i] != base + float(i % 1000)) atomicAdd(bad, 1ull);
}

static void send_fd(int sock, int fd, unsigned long long bytes) {
    msghdr msg{}; iovec iov{&bytes, sizeof bytes}; msg.msg_iov = &iov; msg.msg_iovlen = 1;
    char control[CMSG_SPACE(sizeof(int))]{}; msg.msg_control = control; msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg); c->cmsg_level = SOL_SOCKET; c->cmsg_type = SCM_RIGHTS; c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    if (sendmsg(sock, &msg, 0) < 0) { perror("sendmsg"); std::exit(1); }
}
static int recv_fd(int sock, unsigned long long& bytes) {
    msghdr msg{}; iovec iov{&bytes, sizeof bytes}; msg.msg_iov = &iov; msg.msg_iovlen = 1;
    char control[CMSG_SPACE(sizeof(int))]{}; msg.msg_control = control; msg.msg_controllen = sizeof control;
    if (recvmsg(sock, &msg, 0) <= 0) { perror("recvmsg"); std::exit(1); }
    cmsghdr* c = CMSG_FIRSTHDR(&msg); int fd = -1; std::memcpy(&fd, CMSG_DATA(c), sizeof fd); return fd;
}
template <class T> static void put(int s, const T& v) { if (write(s, &v, sizeof v) != sizeof v) { perror("write"); std::exit(1); } }
template <class T> static T get(int s) { T v; size_t got = 0; while (got < sizeof v) { ssize_t r = read(s, (char*)&v + got, sizeof v - got); if (r <= 0) { std::fprintf(stderr, "peer closed\n"); std::exit(1); } got += r; } return v; }

static size_t granularity() {
    CUmemAllocationProp prop{}; prop.type = CU_MEM_ALLOCATION_TYPE_PINNED; prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0; prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t g = 0; CK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM)); return g;
}
static CUdeviceptr map_handle(CUmemGenericAllocationHandle h, size_t bytes) {
    CUdeviceptr p = 0; CK(cuMemAddressReserve(&p, bytes, 0, 0, 0)); CK(cuMemMap(p, bytes, 0, h, 0));
    CUmemAccessDesc access{}; access.location.type = CU_MEM_LOCATION_TYPE_DEVICE; access.location.id = 0;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE; CK(cuMemSetAccess(p, bytes, &access, 1)); return p;
}

enum Op : int { kBatch = 1, kEmpty = 2, kQuit = 3, kLegacy = 4 };

static int runner(int sock) {
    RK(cudaFree(0));
    int n_sets = get<int>(sock);
    std::vector<float*> in(n_sets), out(n_sets); size_t bytes = 0;
    for (int i = 0; i < 2 * n_sets; ++i) {
        unsigned long long b = 0; int fd = recv_fd(sock, b); bytes = b;
        CUmemGenericAllocationHandle h;
        CK(cuMemImportFromShareableHandle(&h, (void*)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
        close(fd);
        CUdeviceptr p = map_handle(h, b);
        (i % 2 ? out : in)[i / 2] = (float*)p;
    }
    size_t used = get<size_t>(sock);
    cudaStream_t s; RK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<cudaEvent_t> ev(2 * n_sets); for (auto& e : ev) RK(cudaEventCreate(&e));
    put(sock, 1);  // ready
    for (;;) {
        int op = get<int>(sock);
        if (op == kQuit) return 0;
        if (op == kLegacy) {
            cudaIpcMemHandle_t h = get<cudaIpcMemHandle_t>(sock); void* p = nullptr;
            cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
            put(sock, int(e)); if (e == cudaSuccess) cudaIpcCloseMemHandle(p); else cudaGetLastError();
            continue;
        }
        int count = get<int>(sock);
        if (op == kBatch) {
            for (int i = 0; i < count; ++i) {
                RK(cudaEventRecord(ev[2 * i], s));
                copy4<<<132 * 8, 512, 0, s>>>((const float4*)in[i], (float4*)out[i], used / 16);
                RK(cudaEventRecord(ev[2 * i + 1], s));
            }
        }
        RK(cudaStreamSynchronize(s));
        double total_ms = 0;
        if (op == kBatch) for (int i = 0; i < count; ++i) { float ms; RK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1])); total_ms += ms; }
        put(sock, total_ms);
    }
}

static double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static double rse(const std::vector<double>& v) { double m = 0; for (double x : v) m += x; m /= v.size(); double s = 0; for (double x : v) s += (x - m) * (x - m); return std::sqrt(s / (v.size() - 1)) / std::sqrt(double(v.size())) / m; }

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "--runner") return runner(3);
    RK(cudaFree(0)); CK(cuInit(0));
    double t_start = now_s();
    int sv[2]; if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) { perror("socketpair"); return 1; }
    pid_t child = fork();
    if (child == 0) {
        close(sv[0]); dup2(sv[1], 3);
        const char* bwrap = std::getenv("PROBE_BWRAP");
        char self[4096]; ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1); self[n] = 0;
        if (bwrap && *bwrap) {
            execl(bwrap, bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev",
                  "--dev-bind", "/dev/nvidia0", "/dev/nvidia0", "--dev-bind", "/dev/nvidiactl", "/dev/nvidiactl",
                  "--dev-bind", "/dev/nvidia-uvm", "/dev/nvidia-uvm", "--proc", "/proc", "--ro-bind", "/sys", "/sys",
                  "--", self, "--runner", (char*)nullptr);
        } else {
            execl(self, self, "--runner", (char*)nullptr);
        }
        perror("exec"); _exit(127);
    }
    close(sv[1]); int sock = sv[0];
    const int n_sets = 8;
    const size_t max_bytes = size_t(1) << 30;  // 1 GiB per buffer
    size_t g = granularity(); size_t bytes = (max_bytes + g - 1) / g * g;
    std::vector<float*> in(n_sets), out(n_sets);
    put(sock, n_sets);
    for (int i = 0; i < 2 * n_sets; ++i) {
        CUmemAllocationProp prop{}; prop.type = CU_MEM_ALLOCATION_TYPE_PINNED; prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0; prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        CUmemGenericAllocationHandle h; CK(cuMemCreate(&h, bytes, &prop, 0));
        CUdeviceptr p = map_handle(h, bytes);
        int fd = -1; CK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
        send_fd(sock, fd, bytes); close(fd);
        (i % 2 ? out : in)[i / 2] = (float*)p;
    }
    cudaStream_t s; RK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned long long* bad; RK(cudaMalloc(&bad, 8));
    std::printf("bwrap: %s\n", std::getenv("PROBE_BWRAP") ? std::getenv("PROBE_BWRAP") : "(none)");
    // The runner takes one size; a second run of the probe takes the next (argv[1]).
    size_t used = argc > 1 ? std::strtoull(argv[1], nullptr, 10) << 20 : size_t(64) << 20;
    put(sock, used);
    if (get<int>(sock) != 1) return 1;
    std::printf("runner ready after %.3f s (fork, exec, CUDA start, %d imports of %zu MiB)\n", now_s() - t_start, 2 * n_sets, bytes >> 20);
    // 1. The runner's writes reach the judge's memory.
    for (int i = 0; i < n_sets; ++i) fill<<<1024, 256, 0, s>>>(in[i], used / 4, float(i));
    RK(cudaStreamSynchronize(s));
    put(sock, int(kBatch)); put(sock, n_sets); double ms0 = get<double>(sock);
    int wrong_sets = 0;
    for (int i = 0; i < n_sets; ++i) {
        RK(cudaMemsetAsync(bad, 0, 8, s)); count_bad<<<1024, 256, 0, s>>>(out[i], used / 4, float(i), bad);
        unsigned long long b = 0; RK(cudaMemcpyAsync(&b, bad, 8, cudaMemcpyDeviceToHost, s)); RK(cudaStreamSynchronize(s));
        wrong_sets += b != 0;
    }
    std::printf("runner's copies into the judge's memory: %s (first batch %.3f ms by its events)\n", wrong_sets ? "WRONG" : "correct", ms0);
    // Legacy IPC across the same boundary.
    void* legacy; RK(cudaMalloc(&legacy, 1 << 20)); cudaIpcMemHandle_t lh; RK(cudaIpcGetMemHandle(&lh, legacy));
    put(sock, int(kLegacy)); put(sock, lh); int legacy_status = get<int>(sock);
    std::printf("legacy cudaIpcOpenMemHandle in the runner: %s\n", cudaGetErrorString(cudaError_t(legacy_status)));
    // 2. Host clock around batches against the runner's events; 3. the same copies in-process.
    std::printf("size %zu MiB per buffer, %d sets\n", used >> 20, n_sets);
    for (int batch : {1, 4, 8}) {
        std::vector<double> empty_s, host_s, event_s, local_s;
        cudaEvent_t a, b; RK(cudaEventCreate(&a)); RK(cudaEventCreate(&b));
        for (int rep = 0; rep < 30; ++rep) {
            double t0 = now_s(); put(sock, int(kEmpty)); put(sock, 0); get<double>(sock); empty_s.push_back(now_s() - t0);
            RK(cudaStreamSynchronize(s));
            t0 = now_s(); put(sock, int(kBatch)); put(sock, batch); double ev_ms = get<double>(sock); host_s.push_back(now_s() - t0);
            event_s.push_back(ev_ms * 1e-3);
            RK(cudaEventRecord(a, s));
            for (int i = 0; i < batch; ++i) copy4<<<132 * 8, 512, 0, s>>>((const float4*)in[i], (float4*)out[i], used / 16);
            RK(cudaEventRecord(b, s)); RK(cudaStreamSynchronize(s)); float ms; RK(cudaEventElapsedTime(&ms, a, b)); local_s.push_back(ms * 1e-3);
        }
        double empty = median(empty_s);
        std::vector<double> judged; for (double h : host_s) judged.push_back((h - empty) / batch);
        std::vector<double> ev; for (double e : event_s) ev.push_back(e / batch);
        std::vector<double> loc; for (double l : local_s) loc.push_back(l / batch);
        std::printf("  batch %d: empty round trip %.1f us (rse %.1f%%); per launch: judge clock %.2f us (rse %.2f%%), runner events %.2f us (rse %.2f%%), "
                    "judge/events %.4f, in-process events %.2f us; %.0f GB/s by judge clock\n",
                    batch, empty * 1e6, rse(empty_s) * 100, median(judged) * 1e6, rse(judged) * 100, median(ev) * 1e6, rse(ev) * 100,
                    median(judged) / median(ev), median(loc) * 1e6, 2.0 * used / median(judged) / 1e9);
    }
    put(sock, int(kQuit));
    int status = 0; waitpid(child, &status, 0);
    std::printf("runner exit %d; total %.3f s\n", WEXITSTATUS(status), now_s() - t_start);
    return 0;
}
