// Lab 05, part 4 (solution): the complement of a layout in [0, cotarget).
//
// Sort the modes by stride. The first mode (s0):(d0) leaves the gap 0 .. d0-1 below its
// stride: that is a mode (d0):(1) of the complement. After it, the span covered so far is
// s0 d0, and the next mode (s1):(d1) leaves d1 / (s0 d0) copies of that span: a mode
// (d1 / (s0 d0)):(s0 d0). The last mode of the complement repeats the whole span up to
// the cotarget. Modes of shape 1 are dropped first; the result is coalesced.
#include "roofline/contract/layout.hpp"

#include <algorithm>
#include <stdexcept>

namespace layouts {

Layout complement(const Layout& layout, long long cotarget) {
    Layout modes;
    for (const auto& mode : layout) {
        if (mode.shape != 1) modes.push_back(mode);
    }
    std::sort(modes.begin(), modes.end(), [](const Mode& x, const Mode& y) {
        return x.stride != y.stride ? x.stride < y.stride : x.shape < y.shape;
    });
    Layout out;
    long long covered = 1;
    for (const auto& mode : modes) {
        if (mode.stride <= 0 || mode.stride % covered != 0)
            throw std::invalid_argument("complement: " + to_string(layout) + " is not one to one with nested strides");
        out.push_back({mode.stride / covered, covered});
        covered = mode.shape * mode.stride;
    }
    if (cotarget % covered != 0)
        throw std::invalid_argument("complement: the cotarget is not a multiple of " + std::to_string(covered));
    out.push_back({cotarget / covered, covered});
    return coalesce(out);
}

}  // namespace layouts
