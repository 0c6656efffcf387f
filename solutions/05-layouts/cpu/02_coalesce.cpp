// Lab 05, part 2 (solution): the fewest modes for the same function.
//
// A mode of shape 1 adds nothing (its coordinate is always 0). Two neighbouring modes
// (s0):(d0) and (s1):(d1) with d1 == s0 * d0 walk on where the first stopped: together
// they are one mode (s0 s1):(d0). One pass left to right merges every such pair.
#include "roofline/contract/layout.hpp"

namespace layouts {

Layout coalesce(const Layout& layout) {
    Layout out;
    for (const auto& mode : layout) {
        if (mode.shape == 1) continue;
        if (!out.empty() && mode.stride == out.back().shape * out.back().stride) out.back().shape *= mode.shape;
        else out.push_back(mode);
    }
    if (out.empty()) out.push_back({1, 0});
    return out;
}

}  // namespace layouts
