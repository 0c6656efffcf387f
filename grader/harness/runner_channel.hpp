// The socket between the judge and the runner: one JSON object per message (a
// SOCK_SEQPACKET socket keeps message boundaries), a file descriptor riding along where a
// buffer is sent. The runner's stdout and stderr stay the student's: nothing a kernel file
// prints can be taken for a message. Every message from the runner is untrusted; a reader
// that cannot parse one, or waits past its limit, says so as a ChannelError.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>

namespace roofline::harness {

struct ChannelError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The runner finds its end of the socket here.
inline constexpr int kRunnerSocketFd = 3;

class Channel {
public:
    explicit Channel(int fd = -1) : fd_(fd) {}
    int fd() const { return fd_; }

    void send(const nlohmann::json& message, int fd_to_pass = -1) const;
    // Waits up to `limit_s` (<= 0: for ever). Throws ChannelError when the other end closed,
    // the limit passed, or the message is not a JSON object. `received_fd`, when given, takes
    // a descriptor that came with the message (-1 if none).
    nlohmann::json receive(double limit_s, int* received_fd = nullptr) const;

private:
    int fd_ = -1;
};

}  // namespace roofline::harness
