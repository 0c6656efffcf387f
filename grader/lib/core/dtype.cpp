#include "dtype.hpp"

#include "input_error.hpp"
#include "name_match.hpp"

#include <fmt/format.h>

namespace roofline {

std::string_view dtype_name(Dtype dtype) {
    switch (dtype) {
        case Dtype::fp64: return "fp64";
        case Dtype::fp32: return "fp32";
        case Dtype::tf32: return "tf32";
        case Dtype::fp16: return "fp16";
        case Dtype::bf16: return "bf16";
        case Dtype::fp8: return "fp8";
        case Dtype::fp4: return "fp4";
    }
    return "?";
}

// Case-insensitive, as hardware ids are: BF16 and bf16 are the same format.
std::optional<Dtype> parse_dtype(std::string_view name) {
    for (auto dtype : all_dtypes) {
        if (same_name_ignoring_case(dtype_name(dtype), name)) return dtype;
    }
    return std::nullopt;
}

Dtype require_dtype(std::string_view name, std::string_view where) {
    if (auto dtype = parse_dtype(name)) return *dtype;
    throw InputError(fmt::format("{}: unknown dtype '{}'; use one of fp64, fp32, tf32, fp16, bf16, fp8, fp4",
                                 where, name));
}

double dtype_bytes(Dtype dtype) {
    switch (dtype) {
        case Dtype::fp64: return 8;
        case Dtype::fp32:
        case Dtype::tf32: return 4;
        case Dtype::fp16:
        case Dtype::bf16: return 2;
        case Dtype::fp8: return 1;
        case Dtype::fp4: return 0.5;
    }
    return 0;
}

}  // namespace roofline
