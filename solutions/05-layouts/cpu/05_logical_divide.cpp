// Lab 05, part 5 (solution): a layout divided into tiles.
//
// The tile says which of the layout's indices form the first tile; its complement in
// [0, size(layout)) says where the other tiles start. Composing the layout with the two
// side by side, (tile, complement), gives: first mode(s) within a tile, then which tile.
#include "roofline/contract/layout.hpp"

namespace layouts {

Layout logical_divide(const Layout& layout, const Layout& tile) {
    Layout tiler = tile;
    Layout rest = complement(tile, size(layout));
    tiler.insert(tiler.end(), rest.begin(), rest.end());
    return compose(layout, tiler);
}

}  // namespace layouts
