// Catch2 3 links its own main (Catch2::Catch2WithMain); Catch2 2 needs one defined here.
#if !__has_include(<catch2/catch_test_macros.hpp>)
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
