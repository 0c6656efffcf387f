// The job loop every lab program and the judge share (lab_main.cpp). A lab program's main
// (lab_program_main.cpp) runs it as itself; the judge's (judge_main.cpp) with the families'
// kinds, so that it judges a runner instead of holding variants of its own.
#pragma once
#include "judge.hpp"

int run_lab_program(int argc, char** argv, roofline::harness::KindFinder judge_kinds);
