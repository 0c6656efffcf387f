// How a kernel file registers a variant with the lab program. Each problem family's macro
// (ROOFLINE_COPY_VARIANT in elementwise.cuh, ROOFLINE_GEMM_VARIANT in gemm.cuh, ...) is this
// one with the family's register function, so that a kernel file writes only
//
//     ROOFLINE_COPY_VARIANT(copy_naive_fp32, copy_fp32);  // the variant's name, its launch function
//
// It defines a flag private to the file whose initializer hands the variant's name, its launch
// function and the file's path to the lab program before main() runs, through the family's
// ::roofline::FAMILY::REGISTER_FN, which checks the launch function's signature at compile time.
#pragma once

#define ROOFLINE_REGISTER_VARIANT(family, register_fn, name, launch) \
    [[maybe_unused]] static const bool roofline_variant_##name =     \
        ::roofline::family::register_fn(#name, launch, __FILE__)
