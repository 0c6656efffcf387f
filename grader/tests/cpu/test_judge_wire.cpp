// The wire between the judge and its runner (harness/wire_call.hpp, harness/runner_channel.hpp):
// a launch call survives its trip as data, a call that does not fit the launch function is
// refused rather than guessed, and the socket takes what a hostile runner sends (garbage, a
// message too long, silence, a closed end) as a ChannelError, never as an answer.
#include "test_support.hpp"

#include "runner_channel.hpp"
#include "wire_call.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <string>

using namespace roofline::harness;
using nlohmann::json;

namespace {
struct Seen {
    int i = 0;
    std::size_t n = 0;
    float a = 0;
    bool flag = false;
    cudaStream_t stream = nullptr;
} seen;
void launch(int i, std::size_t n, float a, bool flag, cudaStream_t stream) { seen = {i, n, a, flag, stream}; }

struct SocketPair {
    int fd[2] = {-1, -1};
    SocketPair() { REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fd) == 0); }
    ~SocketPair() {
        for (int f : fd)
            if (f >= 0) ::close(f);
    }
};
}  // namespace

TEST_CASE("judge wire: a call's numbers reach the launch function, the stream stays the runner's", "[judge]") {
    auto invoker = invoker_of(&launch);
    CHECK(invoker.signature == "iifb");  // int, size_t, float, bool; the stream is not sent
    WireCall call = json::array({json::array({"i", -7}), json::array({"i", 4294967301ULL}), json::array({"f", 0.25}),
                                 json::array({"b", true})});
    auto stream = reinterpret_cast<cudaStream_t>(0x1234);
    invoker.invoke(call, stream);
    CHECK(seen.i == -7);
    CHECK(seen.n == 4294967301ULL);
    CHECK(seen.a == 0.25f);
    CHECK(seen.flag);
    CHECK(seen.stream == stream);
}

TEST_CASE("judge wire: a call that does not fit the signature is refused", "[judge]") {
    auto invoker = invoker_of(&launch);
    auto stream = reinterpret_cast<cudaStream_t>(0x1);
    auto args = [](json first) {
        return json::array({first, json::array({"i", 1}), json::array({"f", 1.0}), json::array({"b", false})});
    };
    CHECK_THROWS_AS(invoker.invoke(json::array({json::array({"i", 1})}), stream), WireError);  // too few
    auto too_many = args(json::array({"i", 1}));
    too_many.push_back(json::array({"i", 2}));
    CHECK_THROWS_AS(invoker.invoke(too_many, stream), WireError);
    CHECK_THROWS_AS(invoker.invoke(args(json::array({"p", 1, 0})), stream), WireError);  // a pointer for an int
    CHECK_THROWS_AS(invoker.invoke(args(json("i")), stream), WireError);               // not an argument
    CHECK_THROWS_AS(invoker.invoke(json::object(), stream), WireError);                 // not a list
    CHECK_THROWS(invoker.invoke(args(json::array({"i", "seven"})), stream));            // a number that is text
}

TEST_CASE("judge wire: the trampoline records the call it is given, in order", "[judge]") {
    PendingCalls::list().clear();
    auto recorded = remote_launch<void (*)(int, std::size_t, float, bool, cudaStream_t)>();
    recorded(3, 5, 1.5f, true, nullptr);
    recorded(4, 6, 2.5f, false, nullptr);
    REQUIRE(PendingCalls::list().size() == 2);
    invoker_of(&launch).invoke(PendingCalls::list()[1], nullptr);
    CHECK(seen.i == 4);
    CHECK(seen.n == 6);
    CHECK(seen.a == 2.5f);
    CHECK_FALSE(seen.flag);
    PendingCalls::list().clear();
}

TEST_CASE("judge channel: messages and a descriptor cross; what a runner could send instead is refused", "[judge]") {
    SocketPair pair;
    Channel judge(pair.fd[0]), runner(pair.fd[1]);

    FILE* file = std::tmpfile();
    REQUIRE(file);
    judge.send({{"op", "import"}, {"id", 3}}, ::fileno(file));
    int received = -1;
    auto message = runner.receive(5, &received);
    CHECK(message["op"] == "import");
    CHECK(received >= 0);
    if (received >= 0) ::close(received);
    std::fclose(file);

    const std::string garbage = "not json at all";
    REQUIRE(::send(pair.fd[1], garbage.data(), garbage.size(), 0) > 0);
    CHECK_THROWS_AS(judge.receive(5), ChannelError);
    const std::string array = "[1,2,3]";
    REQUIRE(::send(pair.fd[1], array.data(), array.size(), 0) > 0);
    CHECK_THROWS_AS(judge.receive(5), ChannelError);

    CHECK_THROWS_AS(judge.receive(0.05), ChannelError);  // silence past the limit

    ::close(pair.fd[1]);
    pair.fd[1] = -1;
    CHECK_THROWS_AS(judge.receive(5), ChannelError);  // the runner is gone
}
