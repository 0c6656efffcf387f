#include "out_lock.hpp"

#include "input_error.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace roofline::batch {

namespace fs = std::filesystem;

namespace {

int open_lock_file(const fs::path& file) {
    // O_CLOEXEC: a child (nvcc, `roofline grade`) must not hold the lock after the batch dies.
    int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        throw InputError(file, 0, fmt::format("cannot open the batch's lock file ({}); check that --out is a folder "
                                              "you can write", std::strerror(errno)));
    }
    return fd;
}

void write_pid(int fd) {
    auto text = fmt::format("{}\n", ::getpid());
    if (::ftruncate(fd, 0) == 0) {
        ssize_t ignored = ::pwrite(fd, text.data(), text.size(), 0);
        (void)ignored;  // the pid is for the message only; the lock is what counts
    }
}

// The pid written in a lock file, "" when there is none yet (its holder has not written it).
std::string pid_in(const fs::path& file) {
    std::string text(32, '\0');
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return "";
    auto n = ::pread(fd, text.data(), text.size(), 0);
    ::close(fd);
    text.resize(n > 0 ? std::size_t(n) : 0);
    auto end = text.find_first_not_of("0123456789");
    return text.substr(0, end);
}

// Whether another process holds `file`'s lock (a shared probe: taken and dropped at once).
bool held_by_another(const fs::path& file) {
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd);
    return held;
}

std::string pid_words(const std::string& pid) { return pid.empty() ? "pid not written yet" : "pid " + pid; }

// Who holds OUT/.batch.lock: the running slices (each names its pid in its own file), or one whole batch.
std::string holders(const fs::path& out) {
    std::vector<std::string> slices;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(out, error)) {
        auto name = entry.path().filename().string();
        if (!name.starts_with(".batch-slice-") || !held_by_another(entry.path())) continue;
        auto what = name.substr(std::string(".batch-slice-").size());  // "K-of-N.lock"
        what = what.substr(0, what.size() - std::string(".lock").size());
        if (auto of = what.find("-of-"); of != std::string::npos) what.replace(of, 4, "/");
        slices.push_back(fmt::format("{} ({})", what, pid_words(pid_in(entry.path()))));
    }
    if (!slices.empty()) return fmt::format("the slices {} of a batch", fmt::join(slices, ", "));
    return fmt::format("another batch ({})", pid_words(pid_in(out / ".batch.lock")));
}

}  // namespace

OutLock::OutLock(const fs::path& out, std::optional<Slice> slice) {
    auto batch_file = out / ".batch.lock";
    batch_fd_ = open_lock_file(batch_file);
    if (::flock(batch_fd_, (slice ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
        int why = errno;
        ::close(batch_fd_);
        batch_fd_ = -1;
        if (why != EWOULDBLOCK) {
            throw InputError(batch_file, 0, fmt::format("cannot lock ({}); --out must be on a file system that "
                                                        "supports flock", std::strerror(why)));
        }
        throw InputError(fmt::format("{} is graded into by {} right now; wait for it to finish (or stop it) and run "
                                     "this again, or choose another --out folder", out.string(), holders(out)));
    }
    if (!slice) {
        write_pid(batch_fd_);
        return;
    }
    auto slice_file = out / fmt::format(".batch-slice-{}-of-{}.lock", slice->index, slice->count);
    slice_fd_ = open_lock_file(slice_file);
    if (::flock(slice_fd_, LOCK_EX | LOCK_NB) != 0) {
        ::close(slice_fd_);
        ::close(batch_fd_);
        slice_fd_ = batch_fd_ = -1;
        throw InputError(fmt::format("slice {}/{} of {} is being graded by another batch ({}) right now; wait for it "
                                     "to finish (or stop it)", slice->index, slice->count, out.string(),
                                     pid_words(pid_in(slice_file))));
    }
    write_pid(slice_fd_);
}

OutLock::~OutLock() {
    // Closing drops the lock; the files stay (removing one could race a batch that just opened it).
    if (slice_fd_ >= 0) ::close(slice_fd_);
    if (batch_fd_ >= 0) ::close(batch_fd_);
}

}  // namespace roofline::batch
