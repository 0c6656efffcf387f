// main() of every lab executable (lab-NN-name, solution-NN-name): the job loop of
// lab_main.cpp with the variants its kernel files registered.
#include "lab_program.hpp"

int main(int argc, char** argv) { return run_lab_program(argc, argv, nullptr); }
