// One call of a variant's launch function, as data: how the judge (the grader's process)
// asks the runner (the process that holds the student's code) to launch the variant on the
// judge's buffers. The judge never calls a student's function, and the runner never sees
// the judge's references or copies: only the arguments of the launch.
//
// Each argument of a launch signature becomes one JSON value:
//   a device pointer        ["p", buffer id, byte offset]   (a shared buffer, shared_buffers.hpp)
//   an integer              ["i", value]
//   a float or double       ["f", value]
//   a bool                  ["b", value]
//   the stream              nothing: the runner launches on its own stream
// A struct of such fields (lab 09's DecodeLayer) specializes ArgCodec with its fields in order.
//
// The judge's side is `trampoline<Args...>`, a function with the launch signature that records
// its arguments as a call (so a Problem calls it exactly as it would call the student's launch
// function); the runner's side is `invoker_of(launch)`, which turns a call back into arguments.
#pragma once
#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace roofline::harness {

struct BufferRef {
    long long id = 0;
    unsigned long long offset = 0;
};

// The judge: the shared buffer holding `address` (exported to the runner on first use).
// Throws std::logic_error for an address in no shared buffer (a harness bug).
BufferRef shared_buffer_of(const void* address);
// The runner: where a judge's buffer lies in this process; throws WireError when `ref`
// names no imported buffer or lies outside it.
void* imported_address(const BufferRef& ref);

// A call the runner cannot make: another signature, a pointer outside its buffers.
struct WireError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

using WireCall = nlohmann::json;  // an array of argument values

template <class T, class Enable = void>
struct ArgCodec;

template <class T>
struct ArgCodec<T*> {
    static constexpr const char* kind = "p";
    static void encode(T* value, WireCall& out) {
        if (value == nullptr) {
            out.push_back(nlohmann::json::array({"p", 0, 0}));
            return;
        }
        auto ref = shared_buffer_of(static_cast<const void*>(value));
        out.push_back(nlohmann::json::array({"p", ref.id, ref.offset}));
    }
    static T* decode(const WireCall& call, std::size_t& at) {
        const auto& v = take(call, at, "p");
        if (v.size() != 3) throw WireError("a pointer argument must be [\"p\", buffer, offset]");
        if (v.at(1).get<long long>() == 0) return nullptr;
        return static_cast<T*>(imported_address({v.at(1).get<long long>(), v.at(2).get<unsigned long long>()}));
    }
    static const nlohmann::json& take(const WireCall& call, std::size_t& at, const char* kind_wanted) {
        if (at >= call.size()) throw WireError("the call has fewer arguments than the launch function");
        const auto& v = call.at(at++);
        if (!v.is_array() || v.size() < 2 || v.at(0) != kind_wanted)
            throw WireError("argument " + std::to_string(at) + " is " + v.dump() + ", not of kind '" + kind_wanted + "'");
        return v;
    }
};

template <class T>
struct ArgCodec<T, std::enable_if_t<std::is_arithmetic_v<T>>> {
    static constexpr const char* kind = std::is_same_v<T, bool> ? "b" : std::is_floating_point_v<T> ? "f" : "i";
    static void encode(T value, WireCall& out) { out.push_back(nlohmann::json::array({kind, value})); }
    static T decode(const WireCall& call, std::size_t& at) {
        return ArgCodec<void*>::take(call, at, kind).at(1).template get<T>();
    }
};

template <>
struct ArgCodec<cudaStream_t> {
    static constexpr const char* kind = "";
    static void encode(cudaStream_t, WireCall&) {}
};

template <class T>
using Bare = std::remove_cv_t<std::remove_reference_t<T>>;

template <class T>
struct TypeTag {  // std::type_identity, which C++17 (the .cu files' standard) lacks
    using type = T;
};

// The argument kinds of a signature, e.g. "ppi" for (const float*, float*, size_t, stream).
template <class... Args>
std::string signature_of() {
    return (std::string() + ... + std::string(ArgCodec<Bare<Args>>::kind));
}

// The judge's recorder: every trampoline call lands here, then goes out as one batch.
struct PendingCalls {
    static std::vector<WireCall>& list() {
        static std::vector<WireCall> calls;
        return calls;
    }
};

template <class... Args>
void trampoline(Args... args) {
    WireCall call = WireCall::array();
    (ArgCodec<Bare<Args>>::encode(args, call), ...);
    PendingCalls::list().push_back(std::move(call));
}

// What the runner keeps per variant: how to turn a call into the launch.
struct Invoker {
    std::string signature;
    std::function<void(const WireCall&, cudaStream_t)> invoke;
};

template <class... Args>
Invoker invoker_of(void (*launch)(Args...)) {
    return {signature_of<Args...>(), [launch](const WireCall& call, cudaStream_t stream) {
                if (!call.is_array()) throw WireError("a call must be an array of arguments");
                std::size_t at = 0;
                auto next = [&](auto tag) -> decltype(auto) {
                    using T = typename decltype(tag)::type;
                    if constexpr (std::is_same_v<T, cudaStream_t>) return stream;
                    else return ArgCodec<T>::decode(call, at);
                };
                // Braced initialization evaluates left to right, as the arguments were encoded.
                std::tuple<Bare<Args>...> values{next(TypeTag<Bare<Args>>{})...};
                if (at != call.size()) throw WireError("the call has more arguments than the launch function");
                std::apply([&](auto&... v) { launch(v...); }, values);
            }};
}

}  // namespace roofline::harness

namespace roofline::harness {

// The trampoline with a given launch type: `remote_launch<gemm::LaunchBf16>()`.
template <class Launch>
struct TrampolineOf;
template <class... Args>
struct TrampolineOf<void (*)(Args...)> {
    static constexpr void (*value)(Args...) = &trampoline<Args...>;
};
template <class Launch>
Launch remote_launch() {
    return TrampolineOf<Launch>::value;
}

}  // namespace roofline::harness
