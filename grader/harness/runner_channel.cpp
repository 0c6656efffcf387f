#include "runner_channel.hpp"

#include <poll.h>
#include <unistd.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

namespace roofline::harness {

namespace {
constexpr std::size_t kMaxMessageBytes = 4 << 20;  // a batch of calls is a few kilobytes
}

void Channel::send(const nlohmann::json& message, int fd_to_pass) const {
    const std::string text = message.dump();
    iovec data{const_cast<char*>(text.data()), text.size()};
    msghdr header{};
    header.msg_iov = &data;
    header.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    if (fd_to_pass >= 0) {
        header.msg_control = control;
        header.msg_controllen = sizeof control;
        cmsghdr* part = CMSG_FIRSTHDR(&header);
        part->cmsg_level = SOL_SOCKET;
        part->cmsg_type = SCM_RIGHTS;
        part->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(part), &fd_to_pass, sizeof(int));
    }
    for (;;) {
        if (::sendmsg(fd_, &header, MSG_NOSIGNAL) >= 0) return;
        if (errno != EINTR) throw ChannelError(std::string("the other end is gone (") + std::strerror(errno) + ")");
    }
}

nlohmann::json Channel::receive(double limit_s, int* received_fd) const {
    if (received_fd) *received_fd = -1;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
    for (;;) {
        int wait_ms = -1;
        if (limit_s > 0) {
            auto left = std::chrono::duration<double, std::milli>(deadline - std::chrono::steady_clock::now()).count();
            if (left <= 0) throw ChannelError("no answer within " + std::to_string(limit_s) + " s");
            wait_ms = static_cast<int>(left) + 1;
        }
        pollfd ready{fd_, POLLIN, 0};
        int n = ::poll(&ready, 1, wait_ms);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw ChannelError(std::string("poll: ") + std::strerror(errno));
        if (n == 0) continue;  // the deadline check above ends the wait
        break;
    }
    std::vector<char> buffer(kMaxMessageBytes);
    iovec data{buffer.data(), buffer.size()};
    msghdr header{};
    header.msg_iov = &data;
    header.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    header.msg_control = control;
    header.msg_controllen = sizeof control;
    ssize_t got;
    do {
        got = ::recvmsg(fd_, &header, MSG_CMSG_CLOEXEC);
    } while (got < 0 && errno == EINTR);
    if (got < 0) throw ChannelError(std::string("recvmsg: ") + std::strerror(errno));
    if (got == 0) throw ChannelError("the other end closed the socket");
    for (cmsghdr* part = CMSG_FIRSTHDR(&header); part; part = CMSG_NXTHDR(&header, part)) {
        if (part->cmsg_level == SOL_SOCKET && part->cmsg_type == SCM_RIGHTS) {
            int fd = -1;
            std::memcpy(&fd, CMSG_DATA(part), sizeof(int));
            if (received_fd) *received_fd = fd;
            else ::close(fd);
        }
    }
    if (header.msg_flags & MSG_TRUNC) throw ChannelError("a message longer than the channel takes");
    nlohmann::json message = nlohmann::json::parse(buffer.data(), buffer.data() + got, nullptr, false);
    if (!message.is_object()) throw ChannelError("a message that is not a JSON object");
    return message;
}

}  // namespace roofline::harness
