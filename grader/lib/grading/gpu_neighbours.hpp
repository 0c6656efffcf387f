// The other processes on the GPU a grading runs on, as nvidia-smi lists them: a time
// taken while another process computed on the same GPU may be slower than the GPU's own,
// and a watched replay slowed by one may look like a kernel that did less work when it was
// timed (own_work.hpp, compare_replay). The grader names them in a note or a refusal; it
// never changes a score or a verdict on its own, and where nvidia-smi is absent or fails it
// says nothing about other processes.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace roofline {

// One line of `nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory
// --format=csv,noheader`: a process holding a CUDA context on a GPU.
struct GpuProcess {
    std::string gpu_uuid;  // "GPU-5f1c...": which GPU (nvidia-smi lists every GPU's processes)
    long long pid = 0;
    std::string name;  // as nvidia-smi names it: a path, or a name with spaces
    std::optional<long long> used_mib;  // none where the driver does not say ("[N/A]")
};

// nvidia-smi's CSV text, one process a line. A line that does not read as one (a message,
// a blank line, garbage) is skipped. The name is what lies between the pid and the last
// field, so a name with commas or spaces is kept whole.
std::vector<GpuProcess> parse_compute_apps(const std::string& csv);

// One listing, and which of its processes were the grader's own when it was taken (asked of
// /proc then: a pid is only worth as much as the moment it was read).
struct ComputeAppsListing {
    std::vector<GpuProcess> listed;
    // This grader and what it started (the judge, the lab programs): never named, and the
    // GPU they are seen on is the grading's.
    std::set<long long> own;
    // Other processes of the grader's own executable (a batch's `roofline hold-gpu`, another
    // grading's `roofline`): a CUDA context and no work of their own, never named. Their lab
    // programs, which do the work, are named.
    std::set<long long> quiet;
};

// The processes of `listings` that are neither own nor quiet, on a GPU an own process was
// seen on, each once (the most memory it was seen with), in pid order. Nothing when no own
// process was seen in any listing: on a machine with several GPUs the grading's one cannot be
// told then, and a note about another GPU's processes would be false.
std::vector<GpuProcess> gpu_neighbours(const std::vector<ComputeAppsListing>& listings);

// "4242 python3 (2048 MiB), 77 app": the first `most`, then "and N more"; each program by its
// file name alone (a path's folders can name another student in a class's batch).
std::string gpu_processes_text(const std::vector<GpuProcess>& processes, std::size_t most = 4);

// nvidia-smi's listing now (ROOFLINE_NVIDIA_SMI names the program where set, else it is found
// on PATH or in /usr/local/cuda/bin), run as a process with no shell and a 10 s limit, with
// its own and quiet processes read off /proc. Nothing when nvidia-smi is absent, fails or hangs.
std::optional<ComputeAppsListing> list_compute_apps();

}  // namespace roofline
