// main() of roofline-judge: the process a grading believes. It holds the problem families
// (inputs, references, peers) and no student code; it starts the lab program as its runner
// (--runner-argv) and verifies and times the runner's launches on its own buffers and clock.
//   build/roofline-judge --serve --runner-argv '["build/labs/lab-01-memory-roof"]'
#include "judge_kinds.hpp"
#include "lab_program.hpp"

int main(int argc, char** argv) {
    roofline::harness::register_judge_kinds();
    return run_lab_program(argc, argv, &roofline::harness::find_kind);
}
