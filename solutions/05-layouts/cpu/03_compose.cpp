// Lab 05, part 3 (solution): composition, a ∘ b.
//
// One mode of b at a time, (s):(d): its indices j = 0 .. s-1 ask a for the elements
// 0, d, 2d, ... So first skip d elements of a at a time ("divide d out of a's shape":
// a mode of a that d steps over whole is dropped, the one d lands inside is divided),
// then keep the first s elements ("take s": whole modes while s is a multiple of them,
// then the first s of the next). The last mode of a is taken as long as needed.
// b's modes' results, one after the other, are the composition.
#include "roofline/contract/layout.hpp"

#include <stdexcept>

namespace layouts {

namespace {

Layout compose_one_mode(const Layout& a, long long s, long long d) {
    if (s == 1) return {{1, 0}};
    if (d == 0) return {{s, 0}};  // every index of this mode asks for a's element 0
    Layout modes = a;
    std::size_t i = 0;
    long long rest = d;
    while (rest > 1 && i + 1 < modes.size()) {
        long long n = modes[i].shape;
        if (rest % n == 0) {  // d steps over this mode whole
            rest /= n;
            ++i;
        } else if (n % rest == 0) {  // d lands inside it: every rest-th element of it
            modes[i] = {n / rest, modes[i].stride * rest};
            rest = 1;
        } else {
            throw std::invalid_argument("compose: stride " + std::to_string(d) + " does not divide " + to_string(a));
        }
    }
    if (rest > 1) modes[i].stride *= rest;
    Layout out;
    for (; i < modes.size(); ++i) {
        if (i + 1 == modes.size() || s <= modes[i].shape) {
            out.push_back({s, modes[i].stride});
            return out;
        }
        if (s % modes[i].shape != 0)
            throw std::invalid_argument("compose: shape " + std::to_string(s) + " does not divide " + to_string(a));
        out.push_back(modes[i]);
        s /= modes[i].shape;
    }
    return out;
}

}  // namespace

Layout compose(const Layout& a, const Layout& b) {
    Layout simple = coalesce(a), out;
    for (const auto& mode : b) {
        Layout part = compose_one_mode(simple, mode.shape, mode.stride);
        out.insert(out.end(), part.begin(), part.end());
    }
    if (out.empty()) out.push_back({1, 0});
    return out;
}

}  // namespace layouts
