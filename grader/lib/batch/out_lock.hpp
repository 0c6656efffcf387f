// The batch's hold on its --out folder, for as long as it runs: two batches grading into
// one folder would each record their own outcome for a submission, and the later write
// would win whatever it said. An advisory lock (flock) on OUT/.batch.lock: the kernel
// drops it when its holder dies, however it dies, so a lock file left behind never
// blocks a later batch. The holder's pid is written in the file for the refusal to name.
//
// A whole batch holds the lock alone. The slices of a Slurm batch (--slice K/N) share
// it, so that they run side by side, and each holds OUT/.batch-slice-K-of-N.lock alone.
#pragma once
#include "staging.hpp"

#include <filesystem>
#include <optional>

namespace roofline::batch {

class OutLock {
public:
    // Takes the lock at once or throws InputError (exit 2) naming the batch that holds it,
    // by pid. Never waits. `out` must exist.
    OutLock(const std::filesystem::path& out, std::optional<Slice> slice);
    ~OutLock();
    OutLock(const OutLock&) = delete;
    OutLock& operator=(const OutLock&) = delete;

private:
    int batch_fd_ = -1, slice_fd_ = -1;
};

}  // namespace roofline::batch
