// Lab 05, part 1 (solution): a layout evaluated at an index.
//
// The index names a coordinate, mode 0 fastest: the coordinate of mode k is
// (index / (shape_0 ... shape_{k-1})) % shape_k. The offset is the coordinate's dot
// product with the strides. One pass does both: peel off mode 0, divide, go on.
#include "roofline/contract/layout.hpp"

namespace layouts {

long long evaluate(const Layout& layout, long long index) {
    long long offset = 0;
    for (const auto& mode : layout) {
        offset += (index % mode.shape) * mode.stride;
        index /= mode.shape;
    }
    return offset;
}

}  // namespace layouts
