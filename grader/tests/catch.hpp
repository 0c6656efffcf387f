// Catch2 2.x (Debian 12) and 3.x (Ubuntu 24.04) from one include.
#pragma once
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
using Catch::Approx;  // Catch2 2 declares a global Approx itself
#else
#include <catch2/catch.hpp>
#endif
