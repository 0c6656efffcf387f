#include "output_file.hpp"

#include "input_error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace roofline {

namespace fs = std::filesystem;

namespace {

InputError cannot(const std::string& what, const fs::path& file, const std::string& why) {
    return InputError(fmt::format("{}: {}: {}", what, file.string(), why));
}

std::string special_file_kind(mode_t mode) {
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a pipe";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// The file that will really be written: a symbolic link's target (relative targets
// resolved against the link's folder), else the path itself.
fs::path resolved(const fs::path& file) {
    std::error_code error;
    if (!fs::is_symlink(fs::symlink_status(file, error))) return file;
    auto target = fs::weakly_canonical(file, error);
    return error ? file : target;
}

void write_all(int fd, const std::string& text) {
    std::size_t written = 0;
    while (written < text.size()) {
        auto n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::system_error(n < 0 ? errno : EIO, std::generic_category());
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) throw std::system_error(errno, std::generic_category());
}

}  // namespace

void check_output_file(const fs::path& file, const std::string& what, OutputFolder folder_rule) {
    if (file.empty()) throw InputError(fmt::format("{}: the path is empty; give a file name", what));
    auto target = resolved(file);
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) throw cannot(what, file, "is a folder; give a file path (e.g. a name inside it)");
        if (!S_ISREG(st.st_mode)) {
            throw cannot(what, file, fmt::format("is {}, not a regular file; give a file path", special_file_kind(st.st_mode)));
        }
        // The mode, not only access(): root may write a chmod 444 file, but it was made read-only on purpose.
        if ((st.st_mode & 0222) == 0 || ::access(target.c_str(), W_OK) != 0) {
            throw cannot(what, file, fmt::format("is read-only (mode {:04o}); make it writable or choose another path",
                                                 st.st_mode & 07777));
        }
    }
    auto folder = target.parent_path();
    if (folder.empty()) folder = ".";
    std::error_code error;
    if (!fs::exists(folder, error)) {
        if (folder_rule == OutputFolder::create) return;  // made when written
        throw cannot(what, file, fmt::format("the folder {} does not exist; create it or choose another path",
                                             folder.string()));
    }
    if (!fs::is_directory(folder, error)) {
        throw cannot(what, file, fmt::format("{} is not a folder; check the path", folder.string()));
    }
    if (::access(folder.c_str(), W_OK | X_OK) != 0) {
        throw cannot(what, file, fmt::format("the folder {} is not writable ({}); choose another path", folder.string(),
                                             std::strerror(errno)));
    }
}

void write_output_file(const fs::path& file, const std::string& text, const std::string& what, OutputFolder folder_rule) {
    check_output_file(file, what, folder_rule);
    auto target = resolved(file);
    auto folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    std::error_code error;
    if (folder_rule == OutputFolder::create) {
        fs::create_directories(folder, error);
        if (error) {
            throw cannot(what, file, fmt::format("cannot create the folder {} ({})", folder.string(), error.message()));
        }
    }
    struct stat old {};
    bool replacing = ::stat(target.c_str(), &old) == 0;
    auto temporary = folder / fmt::format(".{}.{}.tmp", target.filename().string(), ::getpid());
    ::unlink(temporary.c_str());  // a leftover of a killed run of a process with this pid, if any
    bool named = false;  // whether `temporary` exists and must be removed on failure
    int fd = -1;
    try {
        // An unnamed file first: nothing to clean up if the command is killed while writing.
        fd = ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
        if (fd >= 0) {
            write_all(fd, text);
            if (replacing) ::fchmod(fd, old.st_mode & 07777);
            auto self = fmt::format("/proc/self/fd/{}", fd);
            if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, temporary.c_str(), AT_SYMLINK_FOLLOW) != 0) {
                ::close(fd);  // no /proc to name it by: the named temporary below
                fd = -1;
            }
        }
        if (fd < 0) {
            // No O_TMPFILE on this file system: a named temporary.
            fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd < 0) throw std::system_error(errno, std::generic_category());
            named = true;
            write_all(fd, text);
            if (replacing) ::fchmod(fd, old.st_mode & 07777);
        }
        named = true;
        ::close(fd);
        fd = -1;
        if (::rename(temporary.c_str(), target.c_str()) != 0) throw std::system_error(errno, std::generic_category());
    } catch (const std::system_error& e) {
        if (fd >= 0) ::close(fd);
        if (named) ::unlink(temporary.c_str());
        throw cannot(what, file, fmt::format("cannot be written ({}); nothing was changed", e.code().message()));
    }
}

void write_json_file(const std::filesystem::path& file, const nlohmann::json& value) {
    write_output_file(file, value.dump(2) + "\n", "the results file", OutputFolder::create);
}

}  // namespace roofline
