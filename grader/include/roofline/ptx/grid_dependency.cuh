// Programmatic dependent launch on Hopper: a kernel launched with the attribute
// cudaLaunchAttributeProgrammaticStreamSerialization may start before the kernel ahead of it
// on the stream has finished. It must wait before it reads what that kernel wrote, and it may
// let the kernel after it start early in turn. Launched without the attribute, both
// instructions return at once.
//
// PTX ISA 8.x, "griddepcontrol"; CUDA Programming Guide, "Programmatic Dependent Launch".
#pragma once

namespace roofline::grid_dependency {

// Until every block of the kernel ahead has finished and its writes are visible.
__device__ inline void wait_for_previous_kernel() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

// The kernel after this one (launched with the attribute) may start once every block of this
// one has said so or ended.
__device__ inline void let_next_kernel_start() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }

}  // namespace roofline::grid_dependency
