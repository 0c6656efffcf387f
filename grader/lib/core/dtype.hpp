// The number formats the course measures, and their storage sizes.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace roofline {

enum class Dtype { fp64, fp32, tf32, fp16, bf16, fp8, fp4 };

inline constexpr std::array<Dtype, 7> all_dtypes{Dtype::fp64, Dtype::fp32, Dtype::tf32, Dtype::fp16,
                                                 Dtype::bf16, Dtype::fp8,  Dtype::fp4};

std::string_view dtype_name(Dtype dtype);
std::optional<Dtype> parse_dtype(std::string_view name);
// Parses or throws InputError naming the known dtypes; `where` says which flag or field.
Dtype require_dtype(std::string_view name, std::string_view where);
// Bytes one element occupies in memory (tf32 is stored as fp32; fp4 packs two per byte).
double dtype_bytes(Dtype dtype);

}  // namespace roofline
