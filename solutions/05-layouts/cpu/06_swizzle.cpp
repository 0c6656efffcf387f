// Lab 05, part 6 (solution): an XOR swizzle of an offset.
//
// The `bits` bits starting at base + shift (for the 128-byte swizzle on bytes: bits 7-9,
// the row within a group of 8 rows of 128 bytes) are XORed into the `bits` bits starting
// at base (bits 4-6: the 16-byte chunk within the row). Everything else stays.
#include "roofline/contract/layout.hpp"

namespace layouts {

long long swizzle(const Swizzle& s, long long offset) {
    long long mask = ((1LL << s.bits) - 1) << (s.base + s.shift);
    return offset ^ ((offset & mask) >> s.shift);
}

}  // namespace layouts
