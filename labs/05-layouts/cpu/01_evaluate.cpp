// Lab 05, part 1: a layout evaluated at an index (lessons/05-layouts.md, "A layout is a function").
//
// The index names a coordinate, mode 0 fastest; the offset is that coordinate's dot
// product with the strides. evaluate({{4, 2}, {2, 1}}, 5) is the coordinate (1, 1): 3.
// Grade it with: roofline grade 05-layouts/evaluate (no GPU, no prediction needed).
#include "roofline/contract/layout.hpp"

#include <stdexcept>

namespace layouts {

long long evaluate(const Layout& layout, long long index) {
    // TODO: for each mode, the coordinate is index % shape; then move on to index / shape.
    (void)layout;
    (void)index;
    throw std::logic_error("TODO: 01_evaluate is not written yet");
}

}  // namespace layouts
