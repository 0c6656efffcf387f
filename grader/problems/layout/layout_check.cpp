// The checker of lab 05's layout library (layout_check.hpp). Expected values come from
// the definitions (a composition is a(b(i)); a complement is the increasing layout that
// fills in the gaps; ...), computed index by index; the cases asked are those the
// lesson's divisibility conditions allow. It runs in the checker program, which holds
// none of the student's code: the student's answers come from a runner (remote_library.hpp).
#include "layout_check.hpp"
#include "ops.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>

namespace layouts {

namespace {

// ---- The definitions, index by index ----

long long offset_of(const Layout& layout, long long index) {
    long long offset = 0;
    for (const auto& mode : layout) {
        offset += (index % mode.shape) * mode.stride;
        index /= mode.shape;
    }
    return offset;
}

std::string coordinate_text(const Layout& domain, long long index) {
    std::string text;
    for (const auto& mode : domain) {
        text += (text.empty() ? "" : ",") + std::to_string(index % mode.shape);
        index /= mode.shape;
    }
    return "(" + text + ")";
}

// ---- Which cases to ask: the lesson's conditions, as predicates on tables ----
// (No algorithm of the lab's here: the expected values are the definitions' tables, and
// these only decide whether an answer exists as a flat layout.)

std::vector<long long> table_of(const Layout& layout) {
    std::vector<long long> table(size(layout));
    for (long long i = 0; i < size(layout); ++i) table[i] = offset_of(layout, i);
    return table;
}

// The flat layout with the fewest modes whose table is `table`, if there is one: the
// first mode's stride is table[1]; each mode is grown while the table keeps repeating
// the block so far shifted by that stride.
std::optional<Layout> layout_of_table(const std::vector<long long>& table) {
    long long n = static_cast<long long>(table.size()), block = 1;
    Layout out;
    while (block < n) {
        long long step = table[block], grown = 1;
        for (long long s = 2; block * s <= n; ++s) {
            if (n % (block * s) != 0) continue;
            bool repeats = true;
            for (long long i = block * grown; i < block * s && repeats; ++i)
                repeats = table[i] == table[i % block] + (i / block) * step;
            if (!repeats) break;
            grown = s;
        }
        if (grown == 1) return std::nullopt;
        out.push_back({grown, step});
        block *= grown;
    }
    if (out.empty()) out.push_back({1, 0});
    for (long long i = 0; i < n; ++i) {
        if (offset_of(out, i) != table[i]) return std::nullopt;
    }
    return out;
}

// `a` (given as the fewest modes: layout_of_table) at an index that may lie past its
// size: its last mode runs on, as the lesson's composition takes it ("the last mode of A
// never runs out"). Below size(a), the same as offset_of.
long long offset_running_on(const Layout& a, long long index) {
    long long offset = 0;
    for (std::size_t k = 0; k + 1 < a.size(); ++k) {
        offset += (index % a[k].shape) * a[k].stride;
        index /= a[k].shape;
    }
    return a.empty() ? 0 : offset + index * a.back().stride;
}

// Whether a ∘ (s):(d) meets the divisibility conditions, for `a` with the fewest modes:
// with P_j the product of a's first j shapes, d must be a multiple of the P_j just below
// it, d / P_j must divide that mode's shape, and s must be a multiple of each whole
// remaining shape it runs past. a's last mode never runs out.
bool composable(const Layout& a, long long s, long long d) {
    if (s == 1 || d == 0) return true;
    std::size_t j = 0;
    long long prefix = 1;
    while (j + 1 < a.size() && d % (prefix * a[j].shape) == 0) prefix *= a[j++].shape;
    std::vector<long long> remaining;
    if (j + 1 < a.size()) {
        if (d % prefix != 0 || a[j].shape % (d / prefix) != 0) return false;
        remaining.push_back(a[j].shape / (d / prefix));
        for (std::size_t t = j + 1; t + 1 < a.size(); ++t) remaining.push_back(a[t].shape);
    }
    for (long long shape : remaining) {
        if (s <= shape) return true;
        if (s % shape != 0) return false;
        s /= shape;
    }
    return true;
}

bool composable(const Layout& a, const Layout& b) {
    auto simple = layout_of_table(table_of(a));
    if (!simple) return false;
    for (const auto& mode : b) {
        if (!composable(*simple, mode.shape, mode.stride)) return false;
    }
    // And b's modes must not carry into each other through a: a(b(i)) is the sum of a at
    // each mode's own part of b(i), so that composing mode by mode is the composition.
    for (long long i = 0; i < size(b); ++i) {
        long long whole = offset_running_on(*simple, offset_of(b, i)), parts = 0, rest = i;
        for (const auto& mode : b) {
            parts += offset_running_on(*simple, (rest % mode.shape) * mode.stride);
            rest /= mode.shape;
        }
        if (whole != parts) return false;
    }
    return true;
}

// The complement by its definition: offsets taken in increasing order, each the smallest
// that keeps (layout, r) one to one inside [0, cotarget). Nothing when that fails.
std::optional<std::vector<long long>> complement_by_definition(const Layout& layout, long long cotarget) {
    std::vector<long long> image = table_of(layout);
    std::vector<bool> taken(cotarget, false);
    std::vector<long long> table;
    for (long long c = 0; c < cotarget; ++c) {
        if (taken[c]) continue;
        for (long long x : image) {
            if (c + x >= cotarget || taken[c + x]) return std::nullopt;
            taken[c + x] = true;
        }
        table.push_back(c);
    }
    return table;
}

// Asked only where the lesson's conditions hold: sorted by stride, each stride a multiple
// of the span below it, the cotarget a multiple of the whole span; and the table a layout.
bool has_complement(const Layout& layout, long long cotarget) {
    std::vector<std::pair<long long, long long>> by_stride;
    for (const auto& mode : layout) {
        if (mode.shape > 1) by_stride.emplace_back(mode.stride, mode.shape);
    }
    std::sort(by_stride.begin(), by_stride.end());
    long long span = 1;
    for (const auto& [stride, shape] : by_stride) {
        if (stride < span || stride % span != 0) return false;
        span = stride * shape;
    }
    if (cotarget % span != 0) return false;
    auto table = complement_by_definition(layout, cotarget);
    return table && layout_of_table(*table);
}

bool dividable(const Layout& layout, const Layout& tile) {
    if (!has_complement(tile, size(layout))) return false;
    Layout tiler = tile;
    auto rest = layout_of_table(*complement_by_definition(tile, size(layout)));
    tiler.insert(tiler.end(), rest->begin(), rest->end());
    return composable(layout, tiler);
}

long long reference_swizzle(const Swizzle& s, long long offset) {
    long long yyy = ((1LL << s.bits) - 1) << (s.base + s.shift);
    return offset ^ ((offset & yyy) >> s.shift);
}

// The lesson's bank model, counted as distinct (bank, word) pairs.
int reference_wavefronts(const std::vector<long long>& addresses, int access_bytes) {
    std::vector<std::pair<long long, long long>> touched;  // (bank, word)
    for (long long address : addresses) {
        for (long long word = address / 4; word < (address + access_bytes) / 4; ++word) touched.emplace_back(word % 32, word);
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    std::vector<int> per_bank(32, 0);
    int most = 0;
    for (const auto& pair : touched) most = std::max(most, ++per_bank[pair.first]);
    return most;
}

// ---- The cases ----

// Every flat layout of rank 1..3 over a few shapes and strides, and a fixed sample of
// larger ones: the same cases on every machine, so a report can be reproduced.
std::vector<Layout> small_layouts() {
    const std::vector<long long> shapes{1, 2, 3, 4, 8}, strides{0, 1, 2, 3, 4, 8, 16};
    std::vector<Layout> out;
    for (auto s0 : shapes)
        for (auto d0 : strides) {
            out.push_back({{s0, d0}});
            for (auto s1 : shapes)
                for (auto d1 : strides) {
                    out.push_back({{s0, d0}, {s1, d1}});
                    for (auto s2 : {2LL, 4LL})
                        for (auto d2 : {1LL, 8LL, 32LL}) out.push_back({{s0, d0}, {s1, d1}, {s2, d2}});
                }
        }
    return out;
}

Layout random_layout(std::mt19937_64& random, int max_rank, bool allow_zero_stride) {
    const std::vector<long long> shapes{1, 2, 2, 3, 4, 4, 6, 8, 16}, strides{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64};
    Layout layout;
    int rank = 1 + int(random() % max_rank);
    for (int r = 0; r < rank; ++r) {
        long long stride = allow_zero_stride && random() % 8 == 0 ? 0 : strides[random() % strides.size()];
        layout.push_back({shapes[random() % shapes.size()], stride});
    }
    return layout;
}

// A layout that is one to one with nested strides: what complement and divide are asked for.
Layout random_injective(std::mt19937_64& random, long long* span) {
    const std::vector<long long> shapes{1, 2, 3, 4, 8}, gaps{1, 1, 2, 3, 4};
    Layout modes;
    long long covered = 1;
    int rank = 1 + int(random() % 3);
    for (int r = 0; r < rank; ++r) {
        long long stride = covered * gaps[random() % gaps.size()];
        long long shape = shapes[random() % shapes.size()];
        modes.push_back({shape, stride});
        covered = shape * stride;
    }
    std::shuffle(modes.begin(), modes.end(), random);  // the modes need not come sorted
    *span = covered;
    return modes;
}

// ---- Reporting ----

struct Checker {
    PartReport report;
    const std::function<void(const std::string&)>& on_case;
    std::string current;

    bool begin(const std::string& case_text) {
        current = case_text;
        ++report.cases;
        if (on_case) on_case(case_text);
        return true;
    }
    void wrong(long long index, const std::string& coordinate, const std::string& expected, const std::string& got,
               const std::string& why) {
        report.status = "incorrect";
        report.first_wrong = {current, index, coordinate, expected, got};
        report.message = why;
    }
    void threw(const std::string& what) {
        report.status = "threw";
        report.first_wrong = {current, -1, "", "a result", "an exception: " + what};
        report.message = fmt_threw(what);
    }
    std::string fmt_threw(const std::string& what) const {
        return report.part + " threw on " + current + ": " + what +
               (what.rfind("TODO", 0) == 0 ? " (the skeleton: write it in labs/05-layouts/cpu/)" : "");
    }
};

std::string fmt_mode_problem(const std::string& what, std::size_t k, const std::string& problem) {
    return what + ": mode " + std::to_string(k) + " " + problem;
}

// A returned layout must have positive shapes and a size that fits; else it is wrong as a whole.
bool malformed(Checker& c, const Layout& got, long long expected_size, const std::string& what) {
    long long n = 1;
    for (std::size_t k = 0; k < got.size(); ++k) {
        if (got[k].shape <= 0) {
            c.wrong(-1, "", "positive shapes", to_string(got),
                    fmt_mode_problem(what, k, "has shape " + std::to_string(got[k].shape)));
            return true;
        }
        if (n > LLONG_MAX / got[k].shape) {
            c.wrong(-1, "", "size " + std::to_string(expected_size), to_string(got), what + " is far too large");
            return true;
        }
        n *= got[k].shape;
    }
    if (n != expected_size) {
        c.wrong(-1, "", "size " + std::to_string(expected_size), to_string(got) + " (size " + std::to_string(n) + ")",
                what + " has size " + std::to_string(n) + "; it must have size " + std::to_string(expected_size));
        return true;
    }
    return false;
}

// Compares `got` with `expected(i)` at every index of `domain`; false at the first difference.
template <class Expected>
bool same_function(Checker& c, const Layout& got, const Layout& domain, Expected expected, const std::string& what) {
    for (long long i = 0; i < size(domain); ++i) {
        ++c.report.indices;
        long long want = expected(i), have = offset_of(got, i);
        if (want != have) {
            c.wrong(i, coordinate_text(domain, i), std::to_string(want), std::to_string(have),
                    what + " " + to_string(got) + " maps index " + std::to_string(i) + " to " + std::to_string(have) +
                        "; it should map it to " + std::to_string(want));
            return false;
        }
    }
    return true;
}

}  // namespace

const std::vector<std::string>& part_names() {
    static const std::vector<std::string> names(roofline::layout::ops::parts.begin(),
                                                roofline::layout::ops::parts.end());
    return names;
}

namespace {

// The k-th of a call's many answers; past the last, what the code threw there.
long long answer_at(const Answers& answers, std::size_t k) {
    if (k < answers.values.size()) return answers.values[k];
    if (answers.threw) throw std::runtime_error(*answers.threw);
    throw std::logic_error("checker: " + std::to_string(answers.values.size()) + " answers, asked for the one at " +
                           std::to_string(k));
}

void check_evaluate(Checker& c, const LayoutLibrary& lib) {
    auto layouts = small_layouts();
    if (lib.plan) {
        std::vector<Call> calls;
        for (const auto& layout : layouts) calls.push_back({.function = "evaluate_table", .layout = layout});
        lib.plan(calls);
    }
    for (const auto& layout : layouts) {
        c.begin("layout " + to_string(layout));
        Answers table;
        if (lib.evaluate_table) table = lib.evaluate_table(layout);
        for (long long i = 0; i < size(layout); ++i) {
            ++c.report.indices;
            long long want = offset_of(layout, i);
            long long have = lib.evaluate_table ? answer_at(table, static_cast<std::size_t>(i)) : lib.evaluate(layout, i);
            if (want != have) {
                c.wrong(i, coordinate_text(layout, i), std::to_string(want), std::to_string(have),
                        "evaluate(" + to_string(layout) + ", " + std::to_string(i) + ") returned " + std::to_string(have) +
                            "; index " + std::to_string(i) + " is the coordinate " + coordinate_text(layout, i) +
                            ", whose offset is " + std::to_string(want));
                return;
            }
        }
    }
}

void check_coalesce(Checker& c, const LayoutLibrary& lib) {
    auto layouts = small_layouts();
    if (lib.plan) {
        std::vector<Call> calls;
        for (const auto& layout : layouts) calls.push_back({.function = "coalesce", .layout = layout});
        lib.plan(calls);
    }
    for (const auto& layout : layouts) {
        c.begin("layout " + to_string(layout));
        Layout got = lib.coalesce(layout);
        if (malformed(c, got, size(layout), "coalesce(" + to_string(layout) + ")")) return;
        if (!same_function(c, got, layout, [&](long long i) { return offset_of(layout, i); },
                           "coalesce(" + to_string(layout) + ") =")) return;
        for (std::size_t k = 0; k < got.size(); ++k) {
            if (got[k].shape == 1 && got.size() > 1) {
                c.wrong(-1, "", "no mode of shape 1", to_string(got),
                        "coalesce(" + to_string(layout) + ") = " + to_string(got) + " is the same function, but mode " +
                            std::to_string(k) + " has shape 1: drop it");
                return;
            }
            if (k + 1 < got.size() && got[k + 1].stride == got[k].shape * got[k].stride) {
                c.wrong(-1, "", "no neighbours that merge", to_string(got),
                        "coalesce(" + to_string(layout) + ") = " + to_string(got) + " is the same function, but modes " +
                            std::to_string(k) + " and " + std::to_string(k + 1) + " could be one (stride " +
                            std::to_string(got[k + 1].stride) + " == " + std::to_string(got[k].shape) + " x " +
                            std::to_string(got[k].stride) + ")");
                return;
            }
        }
    }
}

void check_compose(Checker& c, const LayoutLibrary& lib) {
    std::vector<std::pair<Layout, Layout>> cases{
        {{{6, 8}, {2, 2}}, {{4, 3}, {3, 1}}},  // CuTe's documented example: ((2,2),3):((24,2),8)
        {{{4, 2}, {2, 1}}, {{2, 4}, {1, 2}}},
        {{{8, 1}}, {{2, 4}, {4, 1}}},
        // b reaches past size(a): a's last mode runs on, (2,6):(1,4), not a layout of size 6.
        {{{2, 1}, {3, 4}}, {{2, 1}, {6, 2}}},
    };
    std::mt19937_64 random(20261209);
    auto reach_of = [](const Layout& b) {
        long long reach = 0;
        for (long long i = 0; i < size(b); ++i) reach = std::max(reach, offset_of(b, i));
        return reach;
    };
    while (cases.size() < 4000) {  // b inside a's domain
        Layout a = random_layout(random, 3, true), b = random_layout(random, 3, true);
        if (reach_of(b) < size(a) && composable(a, b)) cases.emplace_back(a, b);
    }
    while (cases.size() < 4500) {  // b past it: the rule that a's last mode never runs out
        Layout a = random_layout(random, 3, true), b = random_layout(random, 3, true);
        if (reach_of(b) >= size(a) && composable(a, b)) cases.emplace_back(a, b);
    }
    if (lib.plan) {
        std::vector<Call> calls;
        for (const auto& [a, b] : cases) calls.push_back({.function = "compose", .layout = a, .other = b});
        lib.plan(calls);
    }
    for (const auto& [a, b] : cases) {
        c.begin("a = " + to_string(a) + ", b = " + to_string(b));
        auto simple = layout_of_table(table_of(a));  // composable: a layout
        Layout got = lib.compose(a, b);
        std::string what = "compose(" + to_string(a) + ", " + to_string(b) + ")";
        if (malformed(c, got, size(b), what)) return;
        if (!same_function(c, got, b, [&](long long i) { return offset_running_on(*simple, offset_of(b, i)); },
                           what + " =")) return;
    }
}

void check_complement(Checker& c, const LayoutLibrary& lib) {
    std::vector<std::pair<Layout, long long>> cases{
        {{{4, 1}}, 24}, {{{6, 4}}, 24}, {{{4, 1}, {6, 4}}, 24}, {{{4, 2}}, 24}, {{{2, 1}, {4, 6}}, 24},
        {{{2, 1}, {2, 6}}, 24},  // the examples of CuTe's documentation
    };
    std::mt19937_64 random(20261210);
    while (cases.size() < 3000) {
        long long span = 1;
        Layout layout = random_injective(random, &span);
        long long cotarget = span * (1 + static_cast<long long>(random() % 4));
        if (has_complement(layout, cotarget)) cases.emplace_back(layout, cotarget);
    }
    if (lib.plan) {
        std::vector<Call> calls;
        for (const auto& [layout, cotarget] : cases)
            calls.push_back({.function = "complement", .layout = layout, .number = cotarget});
        lib.plan(calls);
    }
    for (const auto& [layout, cotarget] : cases) {
        c.begin("layout = " + to_string(layout) + ", cotarget = " + std::to_string(cotarget));
        auto table = complement_by_definition(layout, cotarget);
        if (!table) throw std::logic_error("checker: no complement for " + c.current);
        std::string what = "complement(" + to_string(layout) + ", " + std::to_string(cotarget) + ")";
        Layout got = lib.complement(layout, cotarget);
        long long n = static_cast<long long>(table->size());
        if (malformed(c, got, n, what)) return;
        Layout domain{{n, 1}};
        if (!same_function(c, got, domain, [&](long long i) { return (*table)[i]; }, what + " =")) return;
    }
}

void check_divide(Checker& c, const LayoutLibrary& lib) {
    std::vector<std::pair<Layout, Layout>> cases{
        {{{4, 2}, {2, 1}, {3, 8}}, {{4, 2}}},  // CuTe's documented example: ((2,2),(2,3)):((4,1),(2,8))
        {{{16, 1}}, {{4, 1}}},
        {{{8, 8}, {8, 1}}, {{2, 1}, {2, 8}}},
    };
    std::mt19937_64 random(20261211);
    while (cases.size() < 3000) {
        Layout layout = random_layout(random, 3, false);
        long long span = 1;
        Layout tile = random_injective(random, &span);
        if (span <= size(layout) && dividable(layout, tile)) cases.emplace_back(layout, tile);
    }
    if (lib.plan) {
        std::vector<Call> calls;
        for (const auto& [layout, tile] : cases) calls.push_back({.function = "logical_divide", .layout = layout, .other = tile});
        lib.plan(calls);
    }
    for (const auto& [layout, tile] : cases) {
        c.begin("layout = " + to_string(layout) + ", tile = " + to_string(tile));
        auto rest = complement_by_definition(tile, size(layout));
        if (!rest) throw std::logic_error("checker: no complement for " + c.current);
        long long tile_size = size(tile);
        auto expected = [&](long long i) {
            return offset_of(layout, offset_of(tile, i % tile_size) + (*rest)[i / tile_size]);
        };
        std::string what = "logical_divide(" + to_string(layout) + ", " + to_string(tile) + ")";
        Layout got = lib.logical_divide(layout, tile);
        if (malformed(c, got, size(layout), what)) return;
        Layout domain{{tile_size, 1}, {size(layout) / tile_size, 1}};
        if (!same_function(c, got, domain, expected, what + " =")) return;
    }
}

void check_swizzle(Checker& c, const LayoutLibrary& lib) {
    // The TMA's 128-byte swizzle of a 64 x 64 bf16 tile (rows of 128 bytes), by hand: the
    // 16-byte chunk of element (r, col) moves to chunk (col / 8) ^ (r % 8) of its row.
    // With swizzle_each, a whole case is one call: its offsets first, then the comparison.
    auto each = [&](const Swizzle& s, const std::vector<long long>& offsets) {
        return lib.swizzle_each ? lib.swizzle_each(s, offsets) : Answers{};
    };
    auto have_at = [&](const Answers& answers, std::size_t k, const Swizzle& s, long long offset) {
        return lib.swizzle_each ? answer_at(answers, k) : lib.swizzle(s, offset);
    };
    std::vector<long long> tile_bytes;
    for (long long r = 0; r < 64; ++r) {
        for (long long col = 0; col < 64; ++col) tile_bytes.push_back(128 * r + 2 * col);
    }
    // Then every swizzle of 1 to 3 bits, on every offset up to one bit past its highest.
    std::vector<Swizzle> swizzles;
    for (int bits = 1; bits <= 3; ++bits) {
        for (int base = 0; base <= 4; ++base) {
            for (int shift = bits; shift <= 5; ++shift) swizzles.push_back({bits, base, shift});
        }
    }
    auto offsets_of = [](const Swizzle& s) {
        std::vector<long long> offsets(static_cast<std::size_t>(1LL << (s.bits + s.base + s.shift + 1)));
        for (std::size_t offset = 0; offset < offsets.size(); ++offset) offsets[offset] = static_cast<long long>(offset);
        return offsets;
    };
    if (lib.plan) {
        std::vector<Call> calls{{.function = "swizzle_each", .swizzle = {3, 4, 3}, .numbers = tile_bytes}};
        for (const auto& s : swizzles) calls.push_back({.function = "swizzle_each", .swizzle = s, .numbers = offsets_of(s)});
        lib.plan(calls);
    }
    c.begin("the 128-byte swizzle {3, 4, 3} of a 64 x 64 bf16 tile, element (row, col) at byte 128 row + 2 col");
    auto tile_answers = each({3, 4, 3}, tile_bytes);
    for (long long r = 0; r < 64; ++r) {
        for (long long col = 0; col < 64; ++col) {
            ++c.report.indices;
            long long byte = 128 * r + 2 * col, want = 128 * r + 16 * ((col / 8) ^ (r % 8)) + (2 * col) % 16;
            long long have = have_at(tile_answers, static_cast<std::size_t>(64 * r + col), {3, 4, 3}, byte);
            if (want != have) {
                c.wrong(byte, "(" + std::to_string(r) + "," + std::to_string(col) + ")", std::to_string(want),
                        std::to_string(have),
                        "swizzle({3, 4, 3}, " + std::to_string(byte) + ") returned " + std::to_string(have) +
                            "; element (" + std::to_string(r) + ", " + std::to_string(col) + ") of the tile belongs at byte " +
                            std::to_string(want) + " (chunk " + std::to_string(col / 8) + " ^ row " + std::to_string(r % 8) + ")");
                return;
            }
        }
    }
    for (const auto& s : swizzles) {
        std::string name = "{" + std::to_string(s.bits) + ", " + std::to_string(s.base) + ", " + std::to_string(s.shift) + "}";
        c.begin("swizzle " + name);
        auto offsets = offsets_of(s);
        auto answers = each(s, offsets);
        for (long long offset : offsets) {
            ++c.report.indices;
            long long want = reference_swizzle(s, offset);
            long long have = have_at(answers, static_cast<std::size_t>(offset), s, offset);
            if (want != have) {
                c.wrong(offset, std::to_string(offset), std::to_string(want), std::to_string(have),
                        "swizzle(" + name + ", " + std::to_string(offset) + ") returned " + std::to_string(have) +
                            "; it should return " + std::to_string(want));
                return;
            }
        }
    }
}

void check_wavefronts(Checker& c, const LayoutLibrary& lib) {
    struct Case {
        std::string name;
        std::vector<long long> addresses;
        int access_bytes;
    };
    std::vector<Case> cases;
    auto warp = [](auto address_of) {
        std::vector<long long> addresses;
        for (long long t = 0; t < 32; ++t) addresses.push_back(address_of(t));
        return addresses;
    };
    for (int bytes : {4, 8, 16}) {
        for (long long pitch : {0, 1, 2, 3, 4, 8, 16, 17, 31, 32, 33, 64, 65}) {
            cases.push_back({"thread t at byte " + std::to_string(pitch * bytes) + " t, " + std::to_string(bytes) +
                                 " bytes each",
                             warp([&](long long t) { return t * pitch * bytes; }), bytes});
        }
        // Reading a column of a 32-row tile with 128-byte rows, plain and through the 128-byte swizzle.
        for (long long col = 0; col < 128 / bytes; col += 3) {
            cases.push_back({"column " + std::to_string(col) + " of a tile with 128-byte rows, " + std::to_string(bytes) + " bytes each",
                             warp([&](long long t) { return 128 * t + bytes * col; }), bytes});
            cases.push_back({"column " + std::to_string(col) + " of the same tile, 128-byte swizzled",
                             warp([&](long long t) { return reference_swizzle({3, 4, 3}, 128 * t + bytes * col); }), bytes});
        }
    }
    cases.push_back({"pairs of threads on one word", warp([](long long t) { return 4 * (t / 2); }), 4});
    cases.push_back({"two threads on one word, the rest spread", warp([](long long t) { return t == 1 ? 0 : 4 * t; }), 4});
    std::mt19937_64 random(20261212);
    for (int k = 0; k < 2000; ++k) {
        int bytes = 4 << (random() % 3);
        long long region = 4096 / bytes;
        cases.push_back({"random addresses #" + std::to_string(k) + ", " + std::to_string(bytes) + " bytes each",
                         warp([&](long long) { return bytes * static_cast<long long>(random() % region); }), bytes});
    }
    if (lib.plan) {
        std::vector<Call> calls;
        for (const auto& one : cases)
            calls.push_back({.function = "wavefronts", .number = one.access_bytes, .numbers = one.addresses});
        lib.plan(calls);
    }
    for (const auto& one : cases) {
        std::string addresses;
        for (auto a : one.addresses) addresses += (addresses.empty() ? "" : ",") + std::to_string(a);
        c.begin(one.name + ": bytes {" + addresses + "}");
        ++c.report.indices;
        int want = reference_wavefronts(one.addresses, one.access_bytes);
        int have = lib.wavefronts(one.addresses, one.access_bytes);
        if (want != have) {
            c.wrong(-1, "", std::to_string(want), std::to_string(have),
                    "wavefronts returned " + std::to_string(have) + " for " + one.name + "; the model says " +
                        std::to_string(want));
            return;
        }
    }
}

}  // namespace

PartReport check_part(const std::string& part, const LayoutLibrary& library,
                      const std::function<void(const std::string&)>& on_case) {
    Checker c{{part, "correct"}, on_case, ""};
    const std::map<std::string, void (*)(Checker&, const LayoutLibrary&)> checks{
        {"evaluate", check_evaluate},     {"coalesce", check_coalesce},     {"compose", check_compose},
        {"complement", check_complement}, {"logical_divide", check_divide}, {"swizzle", check_swizzle},
        {"wavefronts", check_wavefronts}};
    auto it = checks.find(part);
    if (it == checks.end()) {
        std::string names;
        for (const auto& name : part_names()) names += (names.empty() ? "" : ", ") + name;
        throw std::invalid_argument("no part '" + part + "'; the parts: " + names);
    }
    try {
        it->second(c, library);
    } catch (const std::logic_error& e) {
        if (std::string(e.what()).rfind("checker:", 0) == 0) throw;  // the checker's own mistake
        c.threw(e.what());
    } catch (const std::exception& e) {
        c.threw(e.what());
    }
    if (c.report.status == "correct") {
        c.report.message = part + ": " + std::to_string(c.report.cases) + " cases, " +
                           std::to_string(c.report.indices) + " indices compared, all as the definitions say";
    }
    return c.report;
}

}  // namespace layouts
