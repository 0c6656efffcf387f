// Lab 05's layout library: what the student writes (labs/05-layouts/cpu/*.cpp) and
// what the grader's checker calls. A layout is a function from an index (or the
// coordinate it names) to an offset, given as shape:stride modes.
//
// The conventions, as lessons/05-layouts.md builds them:
//   - A Layout is flat: a list of modes (shape_i, stride_i), mode 0 varying fastest
//     (colexicographic order, the convention of CUTLASS's CuTe). (4,2):(2,1) is
//     {{4, 2}, {2, 1}}: index 5 is the coordinate (1, 1), offset 1*2 + 1*1 = 3.
//   - size(L) is the product of the shapes: the number of indices L takes.
//   - The empty layout {} has size 1 and maps 0 to 0, like {{1, 0}}.
//
// Every function below is checked exhaustively on many layouts by `roofline grade
// 05-layouts/VARIANT`, and the first index that goes wrong is shown. No GPU needed.
#pragma once
#include <string>
#include <vector>

namespace layouts {

struct Mode {
    long long shape = 1;
    long long stride = 0;
};
using Layout = std::vector<Mode>;

// An XOR swizzle on offsets, as CuTe writes Swizzle<bits, base, shift>: the `bits`
// bits of the offset starting at bit base + shift are XORed into the `bits` bits
// starting at bit base. On byte offsets, {3, 4, 3} is the 128-byte swizzle the TMA
// writes (16-byte chunk index ^= 128-byte row index mod 8), {2, 4, 3} the 64-byte
// and {1, 4, 3} the 32-byte one.
struct Swizzle {
    int bits = 0;
    int base = 0;
    int shift = 0;
};

// Given: the number of indices a layout takes.
inline long long size(const Layout& layout) {
    long long n = 1;
    for (const auto& mode : layout) n *= mode.shape;
    return n;
}

// Given: "(4,2):(2,1)", the way the lesson and the grader's messages write a layout.
inline std::string to_string(const Layout& layout) {
    std::string shapes, strides;
    for (const auto& mode : layout) {
        shapes += (shapes.empty() ? "" : ",") + std::to_string(mode.shape);
        strides += (strides.empty() ? "" : ",") + std::to_string(mode.stride);
    }
    return "(" + shapes + "):(" + strides + ")";
}

// ---- What the student writes, one file each under labs/05-layouts/cpu/ ----

// 01_evaluate.cpp: the offset of `index` (0 <= index < size(layout)): split the index
// into the coordinate it names (mode 0 fastest), then the dot product with the strides.
long long evaluate(const Layout& layout, long long index);

// 02_coalesce.cpp: the same function with the fewest modes: no mode of shape 1 (unless
// the layout has size 1: then {{1, 0}}), and no two neighbouring modes that could be one
// (stride[i+1] == shape[i] * stride[i]).
Layout coalesce(const Layout& layout);

// 03_compose.cpp: a ∘ b, the layout r with size(r) == size(b) and
// evaluate(r, i) == evaluate(a, evaluate(b, i)) for every i. The grader only asks for
// compositions the lesson's divisibility conditions allow.
Layout compose(const Layout& a, const Layout& b);

// 04_complement.cpp: the layout r that fills in what `layout` leaves out of [0, cotarget):
// its offsets increase with its index, and the pair (layout, r), i.e. the modes of
// `layout` followed by those of r, maps [0, cotarget) one to one onto [0, cotarget).
// Asked only where it exists (layout one to one, its strides nested, cotarget a multiple).
Layout complement(const Layout& layout, long long cotarget);

// 05_logical_divide.cpp: `layout` split into tiles of `tile`: the composition of layout
// with (tile, complement(tile, size(layout))). Its first size(tile) indices are the first
// tile; the next size(tile), the second; and so on.
Layout logical_divide(const Layout& layout, const Layout& tile);

// 06_swizzle.cpp: the swizzled offset (see Swizzle above).
long long swizzle(const Swizzle& s, long long offset);

// 07_wavefronts.cpp: how many shared-memory wavefronts one warp-wide access takes, in
// the lesson's model: 32 banks, each 4 bytes wide; byte b is in bank (b / 4) % 32; the
// warp's threads each access `access_bytes` (4, 8 or 16) bytes from their address (a
// multiple of access_bytes); threads that touch the same 4-byte word share it (a
// broadcast); each wavefront serves at most one word per bank. So: the most distinct
// words any one bank is asked for (1 when every bank is asked for at most one).
int wavefronts(const std::vector<long long>& byte_addresses, int access_bytes);

}  // namespace layouts
