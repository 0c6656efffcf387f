// Lab 05, part 2: the fewest modes for the same function (lesson: "Coalescing").
//
// Drop modes of shape 1; merge neighbours (s0):(d0), (s1):(d1) when d1 == s0 * d0.
// A layout of size 1 coalesces to {{1, 0}}. Grade it: roofline grade 05-layouts/coalesce.
#include "roofline/contract/layout.hpp"

#include <stdexcept>

namespace layouts {

Layout coalesce(const Layout& layout) {
    // TODO: one pass, left to right, keeping the result built so far.
    (void)layout;
    throw std::logic_error("TODO: 02_coalesce is not written yet");
}

}  // namespace layouts
